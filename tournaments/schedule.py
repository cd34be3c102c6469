"""Which bots play which game, in which seats, with which deal.

Pure: the games of a round depend only on the config, the store's secret and,
for Swiss pairings, the standings after the rounds before it (which the store
holds), so the same config gives the same games with the same indices whatever
the concurrency, finish order or number of resumes.

A round is a list of *groups*; a group is the tables that share one deal (one
table, or in an A/B test the A table and the B table), and each table is played
in every seat rotation. Every round of a tournament has the same number of
games, so a game's index is known before its round is paired.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import partial
from typing import Callable, Collection, Iterator, Mapping

from referee.seeds import derive_seed
from tournaments.config import (
    AB_DEALS_PER_ROUND,
    TournamentConfig,
    fillers,
    games_per_round,
    rounds_needed,
)

Table = tuple[str, ...]
#: The tables of one group: they share a deal.
Group = list[Table]


@dataclass(frozen=True, slots=True)
class Pairing:
    """One scheduled game (slots: a long tournament's schedule holds one per game)."""

    index: int
    group: int
    round: int
    seats: tuple[str, ...]
    seed: int
    # Which renewal epoch of its round: with duplicate deals, games are played
    # epoch by epoch and bots start afresh between epochs, so no process plays a
    # deal twice. The epoch is the seat rotation, and in an A/B test the side
    # (A's tables first, then B's: the fillers see each deal on both).
    rotation: int = 0


def rotations(seats: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every cyclic rotation, so each bot sits once in each seat."""
    return [seats[shift:] + seats[:shift] for shift in range(len(seats))]


def cyclic_order(table: Table, round_number: int) -> Table:
    """The table's seating order in a round: its first bot first, the others in the
    round's permutation (one of (k-1)! in turn).

    Rotations put each bot in each seat but keep who sits after whom, and in these
    games the neighbours matter: a Flohcati player inherits the display the player
    before it left, a Flea Circus saucer looks first at the next player's pile. With
    one order, a bot seated after a strong one would be rated lower for it in every
    game; over (k-1)! rounds every bot sits directly after every other equally often.
    """
    first, rest = table[0], table[1:]
    orders = math.factorial(len(rest))
    return (first, *next(itertools.islice(itertools.permutations(rest),
                                          round_number % orders, None)))


def round_by_round(config: TournamentConfig) -> bool:
    """Whether rounds are played one after another: a Swiss round is paired from the
    standings, and a tournament that may stop (``stop``, an SPRT) is checked at round
    ends. Otherwise all rounds are played together, rotation by rotation."""
    return config.format in ("swiss", "ab") or config.stop is not None


def blocks(config: TournamentConfig) -> list[range]:
    """The rounds played together, in order."""
    count = rounds_needed(config)
    if round_by_round(config):
        return [range(number, number + 1) for number in range(count)]
    return [range(count)]


def fixed_groups(config: TournamentConfig, round_number: int) -> list[Group]:
    """The groups of a round that needs no standings (every format but Swiss)."""
    names = [bot.name for bot in config.bots]
    if config.format == "gauntlet":
        others = [name for name in names if name != config.challenger]
        return [[cyclic_order((config.challenger, *rest), round_number)]
                for rest in itertools.combinations(others, config.players - 1)]
    if config.format == "ab":
        return [ab_group(config, round_number * AB_DEALS_PER_ROUND + deal)
                for deal in range(AB_DEALS_PER_ROUND)]
    if config.format == "swiss":
        raise ValueError("Swiss rounds are paired from the standings: see swiss_tables")
    return [[cyclic_order(table, round_number)]
            for table in itertools.combinations(names, config.players)]


def ab_group(config: TournamentConfig, deal: int) -> Group:
    """A/B test: A and B each at a table with the same fillers, on one deal (the fillers
    rotate with the deal); without fillers, A against B."""
    assert config.a is not None and config.b is not None
    others = fillers(config)
    if not others:
        return [(config.a, config.b)]
    window = tuple(others[(deal + seat) % len(others)] for seat in range(config.players - 1))
    return [(config.a, *window), (config.b, *window)]


def swiss_tables(config: TournamentConfig, secret: str, conservative: Mapping[str, float],
                 byes: Mapping[str, int], met: Collection[frozenset[str]] = frozenset(),
                 round_number: int = 0) -> tuple[list[Table], list[str]]:
    """One Swiss round: tables of bots of similar conservative rating, and the byes.

    The field is ordered by conservative rating (mu − 3σ) after the rounds played,
    ties (all of them in the first round) broken by a key derived from the
    tournament's seed and secret. When the field does not divide into tables, the
    bots with the fewest byes so far, lowest placed first, sit the round out, so
    byes rotate: after r rounds no bot has more than one bye more than another. The
    others sit in standings order, ``players`` to a table; a table that already
    played (in ``met``) swaps its lowest bot with the next table's highest, so the
    same bots do not meet again while a near neighbour in the standings is free. Each
    table is seated in the round's :func:`cyclic_order` (the standings would otherwise
    put every bot just after the one ranked above it).
    """
    base = _base(config, secret)
    order = sorted((bot.name for bot in config.bots),
                   key=lambda name: (-conservative.get(name, 0.0),
                                     derive_seed(*base, "swiss", name)))
    count = len(order) % config.players
    place = {name: number for number, name in enumerate(order)}
    resting = sorted(order, key=lambda name: (byes.get(name, 0), -place[name]))[:count]
    seated = [name for name in order if name not in resting]
    tables = [list(seated[start:start + config.players])
              for start in range(0, len(seated), config.players)]
    for number in range(len(tables) - 1):
        if frozenset(tables[number]) in met:
            tables[number][-1], tables[number + 1][0] = tables[number + 1][0], tables[number][-1]
    return ([cyclic_order(tuple(table), round_number) for table in tables],
            sorted(resting, key=place.__getitem__))


#: The most games :func:`arrange` makes at once.
PART_GAMES = 1_000


def arrange(config: TournamentConfig, secret: str, block: range,
            groups_of: Callable[[int], list[Group]]) -> Iterator[list[Pairing]]:
    """The games of the rounds in ``block``, played together (``groups_of(r)``: the
    groups of round r), in play order, in parts of at most PART_GAMES games, no part
    spanning two epochs.

    Each group shares one deal seed, derived from (tournament seed, group index),
    so card luck cancels out within it. With ``duplicate`` the games are played
    epoch by epoch (every group's first rotation, then every group's second, ...;
    in an A/B test every A table's rotations before the B tables'), so a bot
    process started afresh for each epoch never plays a deal it has seen (issue
    22; ``renew_bots``). A game with a bot that keeps its memory (``memory: true``,
    or an ``address:`` bot) gets a deal of its own. A ``secret`` (the store's, with
    ``secret_deals``) joins every seed, so nobody who knows only the config can
    compute a deal.

    A part is made only when asked for (the rounds' groups again for each epoch), so
    a long tournament's schedule is never held whole: the referee's memory does not
    grow with the number of games.
    """
    base = _base(config, secret)
    remembering = {bot.name for bot in config.bots if bot.remembers}
    # Each table's rotations made once: the games share their seats tuples.
    seatings: dict[Table, list[Table]] = {}
    index = block.start * games_per_round(config)
    for games in _in_play_order(config, block, groups_of, seatings):
        pairings = []
        for round_number, group, seats, epoch in games:
            shared = config.duplicate and not remembering & set(seats)
            seed = (derive_seed(*base, "group", group) if shared
                    else derive_seed(*base, "game", index))
            pairings.append(Pairing(index, group, round_number, seats, seed, epoch))
            index += 1
            if len(pairings) == PART_GAMES:
                yield pairings
                pairings = []
        if pairings:
            yield pairings


def _in_play_order(config: TournamentConfig, block: range,
                   groups_of: Callable[[int], list[Group]], seatings: dict[Table, list[Table]]
                   ) -> Iterator[Iterator[tuple[int, int, Table, int]]]:
    """The (round, group, seats, epoch) of every game, in the order they are played:
    table by table, each in all its rotations; with ``duplicate``, epoch by epoch (an
    epoch is side × players + rotation; every round has the same groups' shape), tables
    in order within each."""
    def tables() -> Iterator[tuple[int, int, int, list[Table]]]:
        for round_number in block:
            groups = groups_of(round_number)
            for number, group_tables in enumerate(groups):
                for side, table in enumerate(group_tables):
                    rotated = seatings.get(table)
                    if rotated is None:
                        rotated = seatings[table] = rotations(table)
                    yield round_number, round_number * len(groups) + number, side, rotated

    if not config.duplicate:
        yield ((round_number, group, seats, side * config.players + turn)
               for round_number, group, side, rotated in tables()
               for turn, seats in enumerate(rotated))
        return
    shape = groups_of(block.start) if len(block) else []
    sides = max((len(group) for group in shape), default=0)
    for side in range(sides):
        for turn in range(config.players):
            yield ((round_number, group, rotated[turn], side * config.players + turn)
                   for round_number, group, table_side, rotated in tables()
                   if table_side == side and turn < len(rotated))


def scheduled(config: TournamentConfig, secret: str = "") -> Iterator[Pairing]:
    """All games of a tournament whose rounds need no standings, indexed from 0 in the
    order they are played, one at a time (a Swiss tournament is paired round by round
    instead)."""
    for block in blocks(config):
        for games in arrange(config, secret, block, partial(fixed_groups, config)):
            yield from games


def schedule(config: TournamentConfig, secret: str = "") -> list[Pairing]:
    """:func:`scheduled` as a list."""
    return list(scheduled(config, secret))


def _base(config: TournamentConfig, secret: str) -> tuple[object, ...]:
    return (config.seed, secret) if secret else (config.seed,)
