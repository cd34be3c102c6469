"""A stored game, step by step: the frames a replay viewer or the text replay shows.

A game is stored as its setup and the chosen action indices (``GameRecord``);
everything else is rebuilt here by replaying it with the engine, so what a
replay shows is what the rules produce, never a second copy that could drift.
Each :class:`Frame` is the position before one decision (and one last frame
after the game): the omniscient state, what every seat would be sent as its
observation, and the decision with its legal actions, the chosen index and the
time and faults the store kept for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping, Sequence

from referee.games import get_game
from referee.games.base import Event, GameRecord, ranks_from_scores
from referee.tables import hand_text
from referee.text import printable

@dataclass(frozen=True)
class Decision:
    """One decision of the game: who decided what, from which actions, how fast."""

    number: int                       # the decision id: 1, 2, 3, ... as sent to the bot
    seat: int
    kind: str
    prompt: str
    actions: list[tuple[str, str]]    # (code, label) of each legal action, in order
    chosen: int
    time_ms: float | None             # None: no bot answered (a substituted decision)
    faults: list[dict[str, Any]]


@dataclass(frozen=True)
class Frame:
    """The position before ``decision`` (after the game when ``decision`` is None)."""

    state: dict[str, Any]             # the engine's final_state(): every card, hidden or not
    observations: list[dict[str, Any]]
    scores: list[int]
    events: range                     # indices into Replay.events since the previous frame
    decision: Decision | None


@dataclass(frozen=True)
class Replay:
    record: GameRecord
    seats: list[str]
    frames: list[Frame]
    events: list[Event]
    scores: list[int]
    ranks: list[int]
    end_reason: str

    @property
    def decisions(self) -> list[Decision]:
        return [frame.decision for frame in self.frames if frame.decision is not None]


def faults_by_decision(faults: Iterable[Mapping[str, Any]], last: int
                       ) -> dict[int, list[dict[str, Any]]]:
    """Faults by the decision they belong to; StartGame's (decision 0) go to the first."""
    found: dict[int, list[dict[str, Any]]] = {}
    for fault in faults:
        number = min(max(int(fault["decision_id"]), 1), max(last, 1))
        found.setdefault(number, []).append(
            {key: fault[key] for key in ("seat", "class", "detail", "policy") if key in fault})
    return found


class Replaying:
    """A game being replayed with its engine: :attr:`frames` makes each position's frame
    as it is asked for, once, for a caller that uses a frame and lets it go (a page's
    changes from step to step: a game's frames held all at once take megabytes, and the
    making a tenth longer); the rest (:attr:`events`, :attr:`scores`, :attr:`ranks`,
    :attr:`end_reason`) is the game's once every frame is made. :func:`replay_frames`
    keeps every frame. Arguments as there; raises as there, the frames as they are made.
    """

    def __init__(self, record: GameRecord, seats: Sequence[str] | None = None,
                 times: Iterable[Sequence[float]] = (),
                 faults: Iterable[Mapping[str, Any]] = (),
                 ranks: Sequence[int] | None = None) -> None:
        self.record = record
        self.state = get_game(record.game).new_state(record.players, record.variant,
                                                     record.seed)
        self.seats = list(seats) if seats is not None \
            else [f"seat {s}" for s in range(record.players)]
        self.stored_ranks = list(ranks) if ranks is not None else None
        self.frames: Iterator[Frame] = self._frames(
            {int(decision): float(ms) for _seat, decision, ms in times},
            faults_by_decision(faults, len(record.actions)))

    def _frames(self, ms_by_decision: dict[int, float],
                fault_map: dict[int, list[dict[str, Any]]]) -> Iterator[Frame]:
        state, seen = self.state, 0
        for number, index in enumerate(self.record.actions, 1):
            actions = state.legal_actions()
            decision = Decision(number, state.current_seat(), state.decision_kind(),
                                state.prompt(), [(action.code, action.label) for action in actions],
                                index, ms_by_decision.get(number), fault_map.get(number, []))
            yield Frame(state.final_state(), state.observations(), state.scores(),
                        range(seen, len(state.events)), decision)
            seen = len(state.events)
            state.apply(index, actions)
        yield Frame(state.final_state(), state.observations(), state.scores(),
                    range(seen, len(state.events)), None)

    @property
    def events(self) -> list[Event]:
        return self.state.events

    @property
    def scores(self) -> list[int]:
        return self.state.scores()

    @property
    def ranks(self) -> list[int]:
        """The stored ranks (a forfeit changes them), else ranks by score."""
        return self.stored_ranks if self.stored_ranks is not None \
            else ranks_from_scores(self.scores)

    @property
    def end_reason(self) -> str:
        return self.state.end_reason


def replay_frames(record: GameRecord, seats: Sequence[str] | None = None,
                  times: Iterable[Sequence[float]] = (),
                  faults: Iterable[Mapping[str, Any]] = (),
                  ranks: Sequence[int] | None = None) -> Replay:
    """Replay ``record`` with its engine and keep every position.

    ``times`` are the stored ``(seat, decision id, ms)``, ``faults`` the stored
    fault rows (``decision_id``, ``seat``, ``class``, ``detail``, ``policy``);
    ``ranks`` the stored ranks (a forfeit changes them), else ranks by score.
    Raises ``GameConfigError`` or ``IllegalActionError`` for a record the
    engine cannot replay.
    """
    replaying = Replaying(record, seats, times, faults, ranks)
    frames = list(replaying.frames)
    return Replay(record, replaying.seats, frames, list(replaying.events), replaying.scores,
                  replaying.ranks, replaying.end_reason)


def _ms(decision: Decision) -> str:
    return "-" if decision.time_ms is None else f"{decision.time_ms:.1f}"


def text_lines(replay: Replay, view: int | None = None) -> list[str]:
    """The game decision by decision, in aligned columns, with the decider's hand.

    With ``view``, only what that seat saw: the events it was shown, and its own
    decisions (others' choices can be private, like a card given in Flohcati).
    """
    game = replay.record.game
    name_width = max(len(name) for name in replay.seats)
    decisions = replay.decisions
    kind_width = max([4, *(len(d.kind) for d in decisions)])
    label_width = max([6, *(len(d.actions[d.chosen][1]) for d in decisions)])
    ms_width = max([2, *(len(_ms(d)) for d in decisions)])
    lines = [f"{'#':>5}  {'seat':<{name_width + 4}}  {'kind':<{kind_width}}  "
             f"{'ms':>{ms_width}}  {'action':<{label_width}}  hand"]
    for frame in replay.frames:
        if view is not None:
            lines += [f"{'':>5}  · {replay.events[i].text}" for i in frame.events
                      if replay.events[i].visible_for(view)]
        decision = frame.decision
        if decision is None or view not in (None, decision.seat):
            continue
        label = decision.actions[decision.chosen][1]
        hand = hand_text(game, frame.observations[decision.seat])
        faults = "".join(f"  [{f['class']}: {printable(f['detail'])}]" for f in decision.faults)
        lines.append(f"{decision.number:>5}  {decision.seat:<2}  "
                     f"{replay.seats[decision.seat]:<{name_width}}  {decision.kind:<{kind_width}}  "
                     f"{_ms(decision):>{ms_width}}  {label:<{label_width}}  {hand}{faults}".rstrip())
    return lines
