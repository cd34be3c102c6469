"""Which bots play which game, in which seats, with which deal.

Pure: a schedule depends only on the config (and the store's secret), so the
same config gives the same games in the same order whatever the concurrency or
finish order.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from referee.seeds import derive_seed
from tournaments.config import TournamentConfig, rounds_needed


@dataclass(frozen=True)
class Pairing:
    """One scheduled game."""

    index: int
    group: int
    round: int
    seats: tuple[str, ...]
    seed: int
    # Which seat rotation of its group: with duplicate deals, games are played
    # rotation by rotation, and bots start afresh between rotations.
    rotation: int = 0


def rotations(seats: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every cyclic rotation, so each bot sits once in each seat."""
    return [seats[shift:] + seats[:shift] for shift in range(len(seats))]


def tables(config: TournamentConfig) -> list[tuple[str, ...]]:
    """The sets of bots that meet once per round, seated in config order."""
    names = [bot.name for bot in config.bots]
    if config.format == "gauntlet":
        others = [name for name in names if name != config.challenger]
        return [(config.challenger, *rest)
                for rest in itertools.combinations(others, config.players - 1)]
    return list(itertools.combinations(names, config.players))


def schedule(config: TournamentConfig, secret: str = "") -> list[Pairing]:
    """All games of the tournament, indexed from 0 in the order they are played.

    Each (round, table) is a group whose games are the table's seat rotations.
    With ``duplicate`` the group shares one deal seed, derived from (tournament
    seed, group index), so card luck cancels out within it; the games are then
    played rotation by rotation (every group's first rotation, then every group's
    second, ...), so a bot process started afresh for each rotation never plays a
    deal it has seen (issue 22; ``renew_bots``). A game with a bot that keeps its
    memory (``memory: true``, or an ``address:`` bot) gets a deal of its own. A
    ``secret`` (the store's, with ``secret_deals``) joins every seed, so nobody who
    knows only the config can compute a deal.
    """
    base = (config.seed, secret) if secret else (config.seed,)
    remembering = {bot.name for bot in config.bots if bot.remembers}
    groups = [(round_number, table) for round_number in range(rounds_needed(config))
              for table in tables(config)]
    if config.duplicate:
        order = [(group, rotation) for rotation in range(config.players)
                 for group in range(len(groups))]
    else:
        order = [(group, rotation) for group in range(len(groups))
                 for rotation in range(config.players)]
    pairings: list[Pairing] = []
    for index, (group, rotation) in enumerate(order):
        round_number, table = groups[group]
        seats = rotations(table)[rotation]
        shared = config.duplicate and not remembering & set(seats)
        seed = (derive_seed(*base, "group", group) if shared
                else derive_seed(*base, "game", index))
        pairings.append(Pairing(index, group, round_number, seats, seed, rotation))
    return pairings
