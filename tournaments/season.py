"""A field that changes during a season: add, replace, withdraw, extend.

The organiser edits ``bots.yaml`` (a bot added or removed, ``rounds`` raised) and
:func:`plan_change` compares it with the stored tournament: what each change does to
the games stored, scheduled and to come, as lines to read before anything happens
(``circus-referee season BOTS_YAML``, a dry run), and the :class:`FieldChange` the
store applies in one transaction (``--apply``), recorded with the tournament.

The rules, which docs/season.md gives the organiser:

* **add**: a late entrant gets its games against the field. In a round robin or a
  gauntlet, a new segment of the schedule plays every table holding it in every round
  (the tables of the others are not played again); a Swiss pairs it from the next
  round not yet paired, counting the rounds it missed as byes (it is not the first to
  sit out).
* **withdraw** (a bot taken out of ``bots.yaml``): its games not yet played are not
  played (its table-mates lose them); its stored games stay rated, or with
  ``--drop-games BOT`` (a disqualification) they are taken out of the tournament into
  ``NAME.dropped-N`` (kept, replayable, rated on their own).
* **replace** (``--replace BOT``, for new code under the same name): the old version
  is withdrawn and renamed ``BOT@vN`` everywhere it is stored (its games stay rated
  under that name, a separate entrant on the leaderboard, or are dropped with
  ``--drop-games BOT``), and the new version enters as a late entrant named ``BOT``
  with a rating of its own. Re-entering a name that has stored games is a replace.
* **extend**: more ``rounds`` (or ``games_per_bot``) add rounds after the last; fewer
  are refused (nothing is unplayed by a config edit).

Every change keeps the games stored and their indices, groups and deals; new games get
indices and deals after all earlier ones, from the same seed and secret, so the same
store and config give the same games. Other keys that define the games (the game,
``players``, ``seed``, ``time``...) cannot change during a tournament, nor can the
field of an A/B test.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, replace
from typing import Any, Collection, Iterable

from referee.errors import CircusError
from referee.settings import BotSpec
from tournaments.config import TournamentConfig, jsonable, rounds_needed
from tournaments.fingerprint import fingerprint
from tournaments.schedule import (
    Group,
    Segment,
    arrange,
    first_segment,
    scheduled,
    segment_end,
    segment_shape,
)
from tournaments.store import FieldChange, Store, StoredTournament

#: The identity keys a season may change (:func:`plan_change`); any other is refused.
FIELD_KEYS = ("bots", "rounds", "games_per_bot", "remembering", "bot_time")
#: The formats whose field may change.
SEASON_FORMATS = ("round-robin", "gauntlet", "swiss")


def _per_bot(seats: Counter[str]) -> str:
    """Games per bot, in a line: "a 4, b 4, d 12"."""
    return ", ".join(f"{bot} {count}" for bot, count in sorted(seats.items()))


class SeasonError(CircusError):
    """The change cannot be made; the message is one line for the user."""


def describe_changes(old: dict[str, Any], new: dict[str, Any]) -> tuple[list[str], list[str]]:
    """What differs between two config identities, in words: (the changes a season
    may apply, the others), such as "bot 'd' added" and "players 3 → 4"."""
    field: list[str] = []
    other: list[str] = []
    old_bots, new_bots = old.get("bots", []), new.get("bots", [])
    field += [f"bot {bot!r} added" for bot in new_bots if bot not in old_bots]
    field += [f"bot {bot!r} withdrawn" for bot in old_bots if bot not in new_bots]
    if set(old_bots) == set(new_bots) and old_bots != new_bots:
        field.append("the bots' order")
    for key in sorted(old.keys() | new.keys()):
        if key == "bots" or old.get(key) == new.get(key):
            continue
        words = f"{key} {_value(old.get(key))} → {_value(new.get(key))}"
        (field if key in FIELD_KEYS else other).append(words)
    return field, other


def _value(value: Any) -> str:
    return "(none)" if value is None else json.dumps(value, sort_keys=True)


def changed_code(store: Store, config: TournamentConfig, replaced: Collection[str] = ()
                 ) -> list[str]:
    """A line for each bot of ``config`` whose code differs from its latest stored games'
    and that is not ``replaced``: it plays on as the same entrant, its games from now on
    stored with the new code, as the next run warns."""
    codes = store.codes(config.name)
    lines = []
    for spec in config.bots:
        was, now = codes.get(spec.name, [(None, None)])[-1][0], fingerprint(spec)
        if was is not None and was != now and spec.name not in replaced:
            lines.append(f"code of {spec.name} changed ({was} → {now}): it plays on as the "
                         f"same entrant, its games from now on stored with the new code "
                         f"(--replace {spec.name} makes the new code a new entrant)")
    return lines


def plan_change(store: Store, config: TournamentConfig, replaced: Collection[str] = (),
                drop: Collection[str] = ()) -> FieldChange | None:
    """What applying ``config`` to its stored tournament does, as the store applies it
    (None: nothing changes).

    ``replaced``: bots whose new code enters as a new version; ``drop``: withdrawn or
    replaced bots whose stored games are taken out of the tournament. Raises
    :class:`SeasonError` for a change that cannot be made.
    """
    record = store.tournament(config.name)
    if record is None:
        raise SeasonError(f"no tournament {config.name!r} in {store.path} yet: run it first "
                          "with circus-referee tournament")
    new_identity = jsonable(config.identity())
    field, other = describe_changes(record.identity, new_identity)
    if other:
        raise SeasonError(f"{', '.join(other)}: only the field and its rounds can change "
                          "during a tournament (--fresh starts it over)")
    if not field and not replaced and not drop:
        return None
    if config.format not in SEASON_FORMATS:
        raise SeasonError(f"the field of format: {config.format} cannot change (start a new "
                          "test under another name)")
    return _Field(store, record, config, set(replaced), set(drop)).change(new_identity)


class _Field:
    """The comparison of a stored tournament's field with a config's, and its plan."""

    def __init__(self, store: Store, record: StoredTournament, config: TournamentConfig,
                 replaced: set[str], drop: set[str]) -> None:
        self.store, self.record, self.config = store, record, config
        self.name = config.name
        self.old = [bot["name"] for bot in record.config["bots"]]
        self.new = [bot.name for bot in config.bots]
        self.played = {bot for game in store.results(self.name) for bot in game.seats}
        for bot in sorted(replaced - (set(self.old) & set(self.new))):
            raise SeasonError(f"--replace {bot}: no bot {bot!r} in both the stored field and "
                              f"the config (stored: {', '.join(self.old)})")
        # A name that comes back with stored games is a new version of it.
        self.replaced = replaced | {bot for bot in self.new
                                    if bot not in self.old and bot in self.played}
        self.withdrawn = [bot for bot in self.old if bot not in self.new]
        self.leaving = set(self.withdrawn) | self.replaced
        self.added = [bot for bot in self.new if bot not in self.old or bot in self.replaced]
        for bot in sorted(drop - self.leaving):
            raise SeasonError(f"--drop-games {bot}: {bot!r} is neither withdrawn nor "
                              "replaced (take it out of the config, or --replace it)")
        self.drop = drop
        if config.format == "gauntlet" and config.challenger in self.leaving:
            raise SeasonError(f"the challenger {config.challenger!r} cannot leave a gauntlet")
        self.labels = {bot: self._label(bot) for bot in sorted(self.replaced)}
        self.old_config = self._old_config()
        self.segments = [self._renamed(segment) for segment in
                         store.segments(self.name) or [first_segment(self.old_config)]]
        self.secret = store.secret(self.name) or ""
        # Where dropped games go.
        self.moved = store.free_name(f"{self.name}.dropped")
        self.lines: list[str] = []

    def _label(self, bot: str) -> str:
        """The name an earlier version keeps: BOT@vN, N after any earlier version's."""
        known = {name for segment in self.store.segments(self.name) for name in segment.bots}
        return next(f"{bot}@v{n}" for n in range(1, len(known) + 2)
                    if f"{bot}@v{n}" not in known)

    def _old_config(self) -> TournamentConfig:
        """The stored tournament's config, enough to schedule it: its field (each bot by
        its name and whether it remembered, which decides the deals) and rounds."""
        old = self.record.config
        bots = tuple(BotSpec(bot["name"], python="stored", memory=bot.get("memory") if
                             bot.get("memory") is not None else bot.get("address") is not None)
                     for bot in old["bots"])
        return replace(self.config, bots=bots, rounds=old["rounds"],
                       games_per_bot=old.get("games_per_bot"))

    def _renamed(self, segment: Segment) -> Segment:
        """A stored segment with the earlier versions under their new names."""
        def names(bots: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(self.labels.get(bot, bot) for bot in bots)
        return replace(segment, bots=names(segment.bots),
                       remembering=names(segment.remembering),
                       entering=names(segment.entering), excluded=names(segment.excluded))

    # -- the plan --------------------------------------------------------------------
    def change(self, identity: dict[str, Any]) -> FieldChange:
        leaving = {self.labels.get(bot, bot) for bot in self.leaving}
        cancelled = self._cancelled(leaving)
        cancelled_count = sum(cancelled.values()) // self.config.players
        old_total = self.record.total_games
        if self.config.format == "swiss":
            new_segments, cut = self._swiss_segments()
        else:
            new_segments, cut = self._fixed_segments(), 0
        segments = [replace(segment, excluded=tuple(sorted({*segment.excluded, *leaving})))
                    for segment in self.segments] + new_segments
        if cut:
            last = segments[len(self.segments) - 1]
            segments[len(self.segments) - 1] = replace(
                last, rounds=range(last.rounds.start, last.rounds.stop - cut))
        dropped, dropped_seats = self._dropped()
        added = sum(len(segment.rounds) * segment_shape(self.config, segment)[1]
                    for segment in new_segments)
        cut_games = cut * segment_shape(self.old_config, self.segments[-1])[1]
        total = old_total - cancelled_count - len(dropped) - cut_games + added
        self._describe_bots(new_segments, dropped_seats)
        self.lines += changed_code(self.store, self.config, self.replaced)
        self.lines += [f"{words}, for the games from now on" for words in
                       describe_changes(self.record.identity, identity)[0]
                       if words.startswith(("bot_time", "remembering"))]
        stored = len(self.store.done_indices(self.name))
        self.lines += [f"{what} per bot: {_per_bot(seats)}" for what, seats in (
            ("stored games dropped", dropped_seats), ("games not yet played cancelled",
                                                      cancelled),
            ("games added", self._added_seats(new_segments))) if seats]
        self.lines.append(f"games: {stored - len(dropped)} stored kept, {len(dropped)} "
                          f"dropped, {cancelled_count} not yet played cancelled, {added} "
                          f"added; total {old_total} → {total}")
        return FieldChange(self.name, self.lines, segments, self.labels, dropped, total,
                           jsonable(asdict(self.config)), identity)

    def _fixed_segments(self) -> list[Segment]:
        """A round robin's or gauntlet's new segments: every table of the entrants in
        the rounds so far, then the rounds added, of the whole new field."""
        old_rounds, new_rounds = rounds_needed(self.old_config), rounds_needed(self.config)
        if new_rounds < old_rounds:
            raise SeasonError(f"rounds cannot go down during a tournament ({old_rounds} → "
                              f"{new_rounds})")
        made: list[Segment] = []
        if self.added:
            made.append(self._segment(made, range(old_rounds), tuple(self.added)))
        if new_rounds > old_rounds:
            made.append(self._segment(made, range(old_rounds, new_rounds), ()))
            added = (f"round {new_rounds}" if new_rounds == old_rounds + 1 else
                     f"rounds {old_rounds + 1}-{new_rounds}")
            self.lines.append(f"rounds {old_rounds} → {new_rounds}: {added} of the whole "
                              "field added")
        return made

    def _swiss_segments(self) -> tuple[list[Segment], int]:
        """A Swiss tournament's new segment, from the first round not yet paired, and
        how many rounds not yet paired the last segment gives up to it."""
        paired = self.store.rounds_paired(self.name)
        old_rounds, new_rounds = self.segments[-1].rounds.stop, rounds_needed(self.config)
        if new_rounds < paired:
            raise SeasonError(f"rounds {new_rounds}: {paired} rounds are paired already")
        if new_rounds < old_rounds and not (self.added or self.leaving):
            raise SeasonError(f"rounds cannot go down during a tournament ({old_rounds} → "
                              f"{new_rounds})")
        start = max(paired, self.segments[-1].rounds.start)
        if self.added and new_rounds <= start:
            raise SeasonError(f"every one of the {new_rounds} rounds is paired already: give "
                              "more rounds for the new bots to play")
        cut = old_rounds - start
        if new_rounds != old_rounds:
            self.lines.append(f"rounds {old_rounds} → {new_rounds}")
        if new_rounds == start:
            return [], cut
        last = replace(self.segments[-1], rounds=range(self.segments[-1].rounds.start, start))
        first_index, first_group = segment_end(self.old_config, last)
        return [Segment(last.number + 1, first_index, first_group, range(start, new_rounds),
                        tuple(self.new), self._remembering())], cut

    def _segment(self, made: list[Segment], rounds: range, entering: tuple[str, ...]
                 ) -> Segment:
        """The next segment of the new field after the stored ones and ``made``."""
        last = made[-1] if made else self.segments[-1]
        first_index, first_group = segment_end(self.config if made else self.old_config, last)
        return Segment(last.number + 1, first_index, first_group, rounds, tuple(self.new),
                       self._remembering(), entering)

    def _remembering(self) -> tuple[str, ...]:
        return tuple(bot.name for bot in self.config.bots if bot.remembers)

    # -- what happens to the games -----------------------------------------------------
    def _cancelled(self, leaving: set[str]) -> Counter[str]:
        """The seats, counted per bot, of the games of the leaving bots scheduled in the
        stored segments, not stored and not cancelled before."""
        done = self.store.done_indices(self.name)
        seats: Counter[str] = Counter()
        for segment, pairing in self._stored_schedule():
            bots = set(pairing.seats)
            if pairing.index not in done and bots & leaving and not bots & set(
                    segment.excluded):
                seats.update(pairing.seats)
        return seats

    def _added_seats(self, new_segments: list[Segment]) -> Counter[str]:
        """The seats, per bot, of the games the new segments of a fixed schedule add (a
        Swiss round's are paired when it comes)."""
        if self.config.format == "swiss":
            return Counter()
        return Counter(bot for pairing in scheduled(self.config, self.secret, new_segments)
                       for bot in pairing.seats)

    def _stored_schedule(self) -> Iterable[tuple[Segment, Any]]:
        """Every game of the stored segments (a Swiss tournament's: those of the rounds
        paired), with its segment."""
        if self.config.format != "swiss":
            for segment in self.segments:
                for pairing in scheduled(self.old_config, self.secret, [segment]):
                    yield segment, pairing
            return
        for segment in self.segments:
            for number in segment.rounds:
                kept = self.store.swiss_round(self.name, number)
                if kept is None:
                    continue
                # The round's tables as stored, each a group of its own (one round, read
                # here before the next is: the closure sees this round's groups).
                groups: list[Group] = [[tuple(self.labels.get(bot, bot) for bot in table)]
                                       for table in kept.tables]
                for part in arrange(self.old_config, self.secret, range(number, number + 1),
                                    lambda _: groups, segment):
                    for pairing in part:
                        yield segment, pairing

    def _dropped(self) -> tuple[list[int], Counter[str]]:
        """The ids of the stored games of the bots whose games are dropped, and their
        seats per bot (under the names they will have)."""
        games = [game for game in self.store.results(self.name) if set(game.seats) & self.drop]
        return [game.id for game in games], Counter(
            self.labels.get(bot, bot) for game in games for bot in game.seats)

    def _describe_bots(self, new_segments: list[Segment], dropped: Counter[str]) -> None:
        """A line per bot that enters or leaves, before the rounds' and games' lines
        (``dropped``: the seats of the stored games dropped, per bot)."""
        codes = self.store.codes(self.name)
        specs = {spec.name: spec for spec in self.config.bots}
        entry = ("paired from round {}".format(new_segments[0].rounds.start + 1)
                 if self.config.format == "swiss" and new_segments else
                 "plays its tables against the field in every round")
        lines = []
        for bot in self.added:
            if bot in self.replaced:
                was = codes.get(bot, [("?", None)])[-1][0]
                label = self.labels[bot]
                games = self._games_text(bot, dropped[label],
                                         f"kept, rated as the separate entrant {label}")
                lines.append(f"replace {bot} (code {was} → {fingerprint(specs[bot])}): "
                             f"{games}; its games not yet played cancelled; the new {bot} "
                             f"{entry}")
            else:
                lines.append(f"add {bot}: {entry}")
        for bot in self.withdrawn:
            games = self._games_text(bot, dropped[bot], "kept and rated")
            lines.append(f"withdraw {bot}: {games}; its games not yet played cancelled")
        self.lines[:0] = lines

    def _games_text(self, bot: str, dropped: int, kept: str) -> str:
        """What becomes of a leaving bot's stored games, in words."""
        stored = sum(1 for game in self.store.results(self.name) if bot in game.seats)
        apart = f"dropped (kept apart as the tournament {self.moved}, not rated here)"
        if not dropped:
            return f"its {stored} stored games {kept}"
        if dropped == stored:
            return f"its {stored} stored games {apart}"
        return f"of its {stored} stored games {stored - dropped} {kept}, {dropped} {apart}"
