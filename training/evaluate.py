"""How strong is a policy? Duplicate, seat-rotated games in process, rated as a tournament is.

``evaluate(policy, against=[RandomBot()], deals=200)`` plays each deal once per rotation of
the lineup (the policy, then one opponent per other seat), so every seat position meets
every deal and the luck of the cards cancels out (the deal set is the independent unit).
The opponents' order after the policy changes from deal to deal as a tournament's does from
round to round (:func:`referee.seating.cyclic_order`): rotations alone keep who sits after
whom, so a policy seated after the same opponent in every game would measure that seat.
Each game is the referee's own :class:`referee.match.Match` over in-process clients, with
its validation and fault policy (an illegal id is a fault and a substitute, three forfeit);
the clocks are generous, as this measures strength, not speed. The result is the policy's
rank share (its share of the other seats it beats, ties half: 0.5 is even) with the 95%
Student's t interval over deals (few deals give a wide interval, not a falsely narrow one),
within [0, 1], and its TrueSkill rating from :mod:`ratings`, the leaderboard's.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Sequence

from circus_outcomes import GameStatus
from ratings.board import leaderboard
from ratings.stats import midranks, t_quantile
from ratings.trueskill_ratings import Outcome
from referee.clients import BotClient, InProcessBot, InProcessClient
from referee.games import get_game
from referee.match import FaultPolicy, Match, MatchResult
from referee.seating import cyclic_order, rotations
from referee.seeds import derive_seed
from referee.settings import DEFAULT_FAULTS, TimeConfig
from training.policy import Policy, PolicyBot

#: Clocks no in-process policy or bot spends on a busy machine: the result must not
#: depend on the machine's load.
CLOCKS = TimeConfig(move_ms=60_000, bank_ms=600_000, call_ms=60_000)
POLICY = "policy"


@dataclass(frozen=True)
class Evaluation:
    """A policy's results over ``deals`` deal sets of ``games`` games in all."""

    deals: int
    games: int
    rank_share: float
    low: float
    high: float
    mu: float
    sigma: float
    faults: int

    @property
    def conservative(self) -> float:
        """The leaderboard's order key, mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    def line(self) -> str:
        return (f"rank share {self.rank_share:.3f} [{self.low:.3f}, {self.high:.3f}] over "
                f"{self.deals} deals ({self.games} games), TrueSkill {self.mu:.2f} ± "
                f"{self.sigma:.2f}, {self.faults} faults")


def rank_share(ranks: Sequence[int], seat: int) -> float:
    """A seat's share of the other seats it beats, ties counting half: 1 first, 0 last."""
    return (len(ranks) - midranks(ranks)[seat]) / (len(ranks) - 1)


def names_of(bots: Sequence[InProcessBot]) -> list[str]:
    """Each opponent's name (its ``name``, else its class's), made unique by a number where
    another opponent, or the policy evaluated, has it."""
    found = [str(getattr(bot, "name", type(bot).__name__)) for bot in bots]
    return [f"{name}-{index}" if found.count(name) > 1 or name == POLICY else name
            for index, name in enumerate(found, 1)]


def evaluate(policy: Policy, against: Sequence[InProcessBot], deals: int = 200,
             game: str = "flea-circus", variant: str | None = None, seed: int = 0
             ) -> Evaluation:
    """``deals`` deal sets of ``policy`` against one bot per other seat, each deal in every
    seat rotation of that deal's order (:func:`~referee.seating.cyclic_order`); a deal's
    seed derives from ``seed`` (the same call, the same games)."""
    if deals < 2 or not against:
        raise ValueError("evaluate needs at least 2 deals and one opponent")
    rules = get_game(game)
    players = len(against) + 1
    chosen = rules.check(players, variant)
    lineup = (POLICY, *names_of(against))
    clients: dict[str, BotClient] = {
        name: InProcessClient(bot)
        for name, bot in zip(lineup, (PolicyBot(policy, POLICY, (game,)), *against))}
    faults = FaultPolicy(DEFAULT_FAULTS)
    shares: list[float] = []
    outcomes: list[Outcome] = []
    fault_count = 0
    try:
        for deal in range(deals):
            deal_seed = derive_seed("evaluate", game, chosen, players, seed, deal)
            per_deal = []
            for shift, seats in enumerate(rotations(cyclic_order(lineup, deal))):
                result = Match(rules, chosen, seats, deal_seed,
                               f"evaluate/{game}/{deal}/{shift}", [clients[s] for s in seats],
                               CLOCKS, faults).play()
                outcomes.append(outcome_of(result, len(outcomes), deal))
                per_deal.append(rank_share(result.ranks, seats.index(POLICY)))
                fault_count += sum(1 for fault in result.faults if fault.bot == POLICY)
            shares.append(statistics.fmean(per_deal))
    finally:
        for client in clients.values():
            client.close()
    return summary(shares, outcomes, lineup, fault_count)


def outcome_of(result: MatchResult, index: int, deal: int) -> Outcome:
    """What the ratings need of a game, its deal the group (a deal set)."""
    return Outcome(index=index, seats=result.seats, ranks=tuple(result.ranks),
                   rated=result.status != GameStatus.VOID, scores=tuple(result.scores),
                   group=deal)


def summary(shares: list[float], outcomes: list[Outcome], lineup: Sequence[str],
            faults: int) -> Evaluation:
    mean, low, high = share_interval(shares)
    row = next(row for row in leaderboard(outcomes, lineup) if row.bot == POLICY)
    return Evaluation(deals=len(shares), games=len(outcomes), rank_share=mean,
                      low=low, high=high, mu=row.mu, sigma=row.sigma, faults=faults)


def share_interval(shares: Sequence[float], confidence: float = 0.95
                   ) -> tuple[float, float, float]:
    """The mean of the deals' rank shares and its two-sided Student's t interval (at
    least two deals), cut to [0, 1], where a share lies."""
    mean = statistics.fmean(shares)
    half = t_quantile(confidence, len(shares) - 1) * statistics.stdev(shares) \
        / len(shares) ** 0.5
    return mean, max(0.0, mean - half), min(1.0, mean + half)
