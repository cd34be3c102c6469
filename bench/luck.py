"""Luck-adjusted scores for Amazing Flea Circus, an experiment with a verdict (issue 34).

AIVAT (Burch et al., 2018) scores a game as its result minus, at every chance event, the
value the event dealt beyond what it was expected to deal: zero-mean whatever the bots
do, so the mean is kept and only the luck goes. Flea Circus's only chance is the deck:
shuffled at the start and the General's gathered piles shuffled under it. Given all that
happened before a draw, the deck is a run of segments (what is left of the first shuffle,
then each General's), each a uniform shuffle of cards the engine knows, so what a draw
was expected to give is exact: the mean over its segments' cards.

The value of a draw to a seat is linear in what it drew (a count per card kind, and the
square of the In-Numbers cards then held, since they are played together), for the
drawer and for the other seats alike: ``2 × 12`` coefficients. They are fitted (least
squares, a small ridge) on tournaments played *before* and apart from the ones measured
(other seeds), so they are fixed before the first measured game and the correction stays
zero-mean there. A seat's luck-adjusted score is its loot minus the value its own draws
and the others' dealt it beyond their expectations.

Measured: the variance of a pair's loot margin, in single games and summed over a deal
set's rotations, without and with the correction, for the neighbours of the issue's
field (bots.mixed p = .75, .5, .25, 0 at 3 seats). The rules engine stays pure: the
draws are read by replaying each stored game on a subclass that notes them.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from bench.report import Section
from bench.verdict import REAL_FIELD, real_round_robin
from referee.games.flea_circus import CARD_ORDER, HAND_SIZE, FleaCircusState
from tournaments.store import StoredGame

KIND = {card: index for index, card in enumerate(CARD_ORDER)}
#: A draw's features: the count of each card kind drawn, then In-Numbers held squared.
FEATURES = len(CARD_ORDER) + 1
NUMBERS = KIND["numbers"]
#: The issue's goal for keeping the score: the share of the variance it must remove.
GOAL_REMOVED = 0.20


class DrawLuck(FleaCircusState):
    """The engine, noting at every draw what it dealt beyond what it was expected to:
    ``luck[seat]`` sums (drawn − expected) features over the seat's draws."""

    def __init__(self, players: int, variant: str, seed: int) -> None:
        self.segments: list[int] = []     # the deck's shuffled runs, top first
        self.luck = [np.zeros(FEATURES) for _ in range(players)]
        super().__init__(players, variant, seed)

    def _resolve_general(self) -> None:
        before = len(self.deck)
        super()._resolve_general()
        self.segments.append(len(self.deck) - before)

    def _draw_up(self, seat: int) -> None:
        if not self.segments and self.deck:   # the first deal, from the first shuffle
            self.segments = [len(self.deck)]
        count = min(HAND_SIZE - len(self.hands[seat]), len(self.deck))
        if count > 0:
            self.luck[seat] += self._drawn(seat, count) - self._expected(seat, count)
        super()._draw_up(seat)

    def _drawn(self, seat: int, count: int) -> np.ndarray:
        features = np.zeros(FEATURES)
        for card in self.deck[:count]:
            features[KIND[card]] += 1
        features[-1] = (self.hands[seat].count("numbers") + features[NUMBERS]) ** 2
        return features

    def _expected(self, seat: int, count: int) -> np.ndarray:
        """The features' expectation over the deck's segments (hypergeometric), and
        the segments left once ``count`` cards are drawn."""
        expected, variance, start, left = np.zeros(FEATURES), 0.0, 0, count
        while left > 0:
            size = self.segments[0]
            take = min(left, size)
            counts = np.zeros(FEATURES)
            for card in self.deck[start:start + size]:
                counts[KIND[card]] += 1
            expected += counts * take / size
            share = counts[NUMBERS] / size
            if size > 1:
                variance += take * share * (1 - share) * (size - take) / (size - 1)
            left, start = left - take, start + size
            if take == size:
                self.segments.pop(0)
            else:
                self.segments[0] -= take
        held = self.hands[seat].count("numbers") + expected[NUMBERS]
        expected[-1] = held * held + variance
        return expected


def luck(game: StoredGame) -> list[np.ndarray]:
    """Per seat, its draws' luck (features, :class:`DrawLuck`) and then the others'
    summed: what a seat's score is regressed on."""
    state = DrawLuck(len(game.seats), game.variant, game.seed)
    for action in game.actions:
        state.apply(action)
    if state.scores() != list(game.scores):
        raise ValueError(f"game {game.id} does not replay to its stored scores")
    total = sum(state.luck, np.zeros(FEATURES))
    return [np.concatenate([own, total - own]) for own in state.luck]


def fit(games: Sequence[tuple[StoredGame, list[np.ndarray]]], ridge: float = 1.0
        ) -> np.ndarray:
    """The coefficients of loot on the luck features, least squares with a small ridge
    (centred, so no intercept is needed: the luck has mean zero)."""
    rows = np.array([features for _, per_seat in games for features in per_seat])
    scores = np.array([score for game, _ in games for score in game.scores], dtype=float)
    rows, scores = rows - rows.mean(0), scores - scores.mean()
    return np.linalg.solve(rows.T @ rows + ridge * np.eye(rows.shape[1]), rows.T @ scores)


def margins(games: Sequence[tuple[StoredGame, list[np.ndarray]]], coefficients: np.ndarray,
            upper: str, lower: str) -> dict[str, list[float]]:
    """``upper``'s loot margin over ``lower``, raw and luck-adjusted, per game and per deal
    set (summed over the group's rotations)."""
    found: dict[str, list[float]] = {"game": [], "game_adjusted": [], "set": [],
                                     "set_adjusted": []}
    groups: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for game, per_seat in games:
        if upper in game.seats and lower in game.seats:
            i, j = game.seats.index(upper), game.seats.index(lower)
            raw = float(game.scores[i] - game.scores[j])
            adjusted = raw - float(coefficients @ (per_seat[i] - per_seat[j]))
            found["game"].append(raw)
            found["game_adjusted"].append(adjusted)
            groups.setdefault((game.tournament, game.group_index), []).append((raw, adjusted))
    for rotations in groups.values():
        found["set"].append(sum(raw for raw, _ in rotations))
        found["set_adjusted"].append(sum(adjusted for _, adjusted in rotations))
    return found


def played(seeds: Sequence[int], rounds: int, folder: Path,
           progress: Callable[[str], None]) -> list[tuple[StoredGame, list[np.ndarray]]]:
    games = []
    for seed in seeds:
        progress(f"luck: round robin seed {seed}")
        games += [(game, luck(game)) for game in real_round_robin(seed, rounds, folder)]
    return games


def section(fit_seeds: Sequence[int] = tuple(range(101, 113)),
            test_seeds: Sequence[int] = tuple(range(1, 13)), rounds: int = 60,
            progress: Callable[[str], None] = print) -> Section:
    started = time.perf_counter()
    result = Section("luck", "Luck-adjusted scores (Flea Circus, draws): variance removed "
                     "beyond the duplicate deal sets",
                     ["pair", "unit", "count", "sd raw", "sd adjusted", "variance removed",
                      "mean raw", "mean adjusted"])
    with tempfile.TemporaryDirectory() as folder:
        coefficients = fit(played(fit_seeds, rounds, Path(folder), progress))
        measured = played(test_seeds, rounds, Path(folder), progress)
    removed_sets = []
    for upper, lower in zip(REAL_FIELD, REAL_FIELD[1:]):
        found = margins(measured, coefficients, upper, lower)
        for unit, key in (("single game", "game"), ("deal set (3 rotations)", "set")):
            raw, adjusted = found[key], found[f"{key}_adjusted"]
            removed = 1 - statistics.pvariance(adjusted) / statistics.pvariance(raw)
            result.add(f"{upper} over {lower}", unit, len(raw), statistics.pstdev(raw),
                       statistics.pstdev(adjusted), removed, statistics.fmean(raw),
                       statistics.fmean(adjusted))
            result.figures[f"removed_{key}_{upper}_{lower}"] = removed
            if key == "set":
                removed_sets.append(removed)
    result.figures["removed_set_mean"] = statistics.fmean(removed_sets)
    kept = result.figures["removed_set_mean"] >= GOAL_REMOVED
    result.notes.append(
        f"verdict: the correction removes {result.figures['removed_set_mean']:.1%} of a deal "
        f"set's margin variance (goal >= {GOAL_REMOVED:.0%}): "
        f"{'kept' if kept else 'NOT kept (a null result)'}")
    result.notes.append(f"coefficients fitted on seeds {fit_seeds[0]}-{fit_seeds[-1]}, measured "
                        f"on seeds {test_seeds[0]}-{test_seeds[-1]}, {rounds} rounds each: "
                        + " ".join(f"{value:.2f}" for value in coefficients))
    result.seconds = time.perf_counter() - started
    return result
