"""Which bots play which game, in which seats, with which deal.

Pure: a schedule depends only on the config, so the same config gives the
same games in the same order whatever the concurrency or finish order.
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
    """All games of the tournament, indexed from 0.

    Each (round, table) is a group whose games are the table's seat
    rotations. With ``duplicate`` the group shares one deal seed, derived from
    (tournament seed, group index), so card luck cancels out within it. A
    ``secret`` (the store's, with ``secret_deals``) joins the seed, so nobody
    who knows only the config can compute a deal.
    """
    base = (config.seed, secret) if secret else (config.seed,)
    pairings: list[Pairing] = []
    group = 0
    for round_number in range(rounds_needed(config)):
        for table in tables(config):
            for seats in rotations(table):
                index = len(pairings)
                seed = (derive_seed(*base, "group", group) if config.duplicate
                        else derive_seed(*base, "game", index))
                pairings.append(Pairing(index, group, round_number, seats, seed))
            group += 1
    return pairings
