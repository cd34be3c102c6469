"""Which bots play which game, in which seats, with which deal.

Pure: the games of a round depend only on the config, the store's secret and,
for Swiss pairings, the standings after the rounds before it (which the store
holds), so the same config gives the same games with the same indices whatever
the concurrency, finish order or number of resumes.

A round is a list of *groups*; a group is the tables that share one deal (one
table, or in an A/B test the A table and the B table), and each table is played
in every seat rotation. Every round of a segment has the same number of games, so
a game's index is known before its round is paired.

A *segment* is a stretch of the schedule played by one field: a tournament has one
until its field or rounds change during a season (``circus-referee season``), and
each change applied adds segments after the last (:class:`Segment`), so the games
already scheduled keep their indices, groups and deals.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from functools import partial
from typing import Callable, Collection, Iterable, Iterator, Mapping

from referee.seating import Table, cyclic_order, rotations
from referee.seeds import derive_seed, opaque_id
from referee.settings import BotSpec
from tournaments.config import (
    AB_DEALS_PER_ROUND,
    TournamentConfig,
    fillers,
    games_per_round,
    rounds_needed,
    tables_per_round,
)

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
    # What the bots are told the game is called (:func:`game_id`).
    game_id: str = ""


@dataclass(frozen=True)
class Segment:
    """A stretch of the schedule played by one field (a season changes the field), kept in
    the store once
    a change made more than one.

    Its games are indexed from ``first_index`` and its groups (deals) from
    ``first_group``, after every earlier segment's, so no two segments share a game
    index or a deal. ``rounds`` are the tournament's round numbers it plays; with
    ``entering`` (late entrants of a fixed schedule) only the tables holding one of
    them, so the entrants get their games against the field in every round. The games
    of ``excluded`` bots (withdrawn after the segment was made) that are not stored
    are not played.
    """

    number: int = 0
    first_index: int = 0
    first_group: int = 0
    rounds: range = range(0)
    bots: tuple[str, ...] = ()
    remembering: tuple[str, ...] = ()
    entering: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()


def first_segment(config: TournamentConfig) -> Segment:
    """The one segment of a tournament whose field never changed."""
    return Segment(0, 0, 0, range(rounds_needed(config)), tuple(b.name for b in config.bots),
                   tuple(bot.name for bot in config.bots if bot.remembers))


def segment_config(config: TournamentConfig, segment: Segment) -> TournamentConfig:
    """``config`` with the segment's field: a bot no longer in ``config`` (withdrawn, or
    an earlier version) stands in by its name, for scheduling only. A field that never
    changed is ``config``'s own: no copy (a round's groups are made at every epoch)."""
    if segment.bots == tuple(spec.name for spec in config.bots):
        return config
    specs = {spec.name: spec for spec in config.bots}
    return replace(config, bots=tuple(
        specs.get(name) or BotSpec(name, python="withdrawn", memory=name in
                                   segment.remembering) for name in segment.bots))


def segment_groups(config: TournamentConfig, segment: Segment, round_number: int
                   ) -> list[Group]:
    """The groups of a round of a fixed schedule's segment (only its entrants' tables,
    when it has entrants)."""
    groups = fixed_groups(segment_config(config, segment), round_number)
    if not segment.entering:
        return groups
    entering = set(segment.entering)
    return [group for group in groups if any(entering & set(table) for table in group)]


def segment_shape(config: TournamentConfig, segment: Segment) -> tuple[int, int]:
    """(groups, games) in one round of the segment."""
    field = segment_config(config, segment)
    if not segment.entering:
        return groups_per_round(field), games_per_round(field)
    groups = len(segment_groups(config, segment, segment.rounds.start))
    return groups, groups * config.players


def segment_blocks(config: TournamentConfig, segment: Segment) -> list[range]:
    """The segment's rounds played together, in order (see :func:`blocks`)."""
    if round_by_round(config):
        return [range(number, number + 1) for number in segment.rounds]
    return [segment.rounds] if len(segment.rounds) else []


def segment_end(config: TournamentConfig, segment: Segment) -> tuple[int, int]:
    """The first game index and group index after the segment's."""
    groups, games = segment_shape(config, segment)
    return (segment.first_index + len(segment.rounds) * games,
            segment.first_group + len(segment.rounds) * groups)


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
        challenger = config.challenger
        assert challenger is not None, "a gauntlet's config names its challenger"
        others = [name for name in names if name != challenger]
        return [[cyclic_order((challenger, *rest), round_number)]
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


#: Steps (a pair tried) the heads-up pairing's search may take before it settles for a
#: greedy pairing that may repeat a pair: a field with a pairing without rematches
#: finds one in about as many steps as it has bots; the bound holds for a field where
#: none exists (more rounds than bots), which the search would otherwise try in full.
PAIRING_STEPS = 20_000
#: How many tables down the standings a bot may move to avoid a repeated pair (3 to 5
#: seats): farther would seat bots of unlike ratings together.
SWAP_WINDOW = 3


def swiss_tables(config: TournamentConfig, secret: str, conservative: Mapping[str, float],
                 byes: Mapping[str, int], met: Mapping[frozenset[str], int] | None = None,
                 round_number: int = 0, absent: Collection[str] = ()
                 ) -> tuple[list[Table], list[str]]:
    """One Swiss round: tables of bots of similar conservative rating, and the byes.

    The field (every bot but those ``absent``) is ordered by conservative rating
    (mu − 3σ) after the rounds played, ties (all of them in the first round) broken by
    a key derived from the tournament's seed and secret. When the field does not
    divide into tables, the bots with the fewest byes so far, lowest placed first, sit
    the round out, so byes rotate: after r rounds no bot has more than one bye more
    than another. The others are seated from the standings so that pairs of bots that
    already sat together (``met``: how often each pair did) meet again as little as
    possible: heads-up, as a chess Swiss pairs (:func:`heads_up_pairs`); at 3 to 5
    seats, by swaps between nearby tables (:func:`fewer_repeats`). Each table is seated
    in the round's :func:`cyclic_order` (the standings would otherwise put every bot
    just after the one ranked above it) and played in every rotation, so seats are
    balanced within each table.
    """
    base = _base(config, secret)
    order = sorted((bot.name for bot in config.bots if bot.name not in absent),
                   key=lambda name: (-conservative.get(name, 0.0),
                                     derive_seed(*base, "swiss", name)))
    count = len(order) % config.players
    place = {name: number for number, name in enumerate(order)}
    resting = sorted(order, key=lambda name: (byes.get(name, 0), -place[name]))[:count]
    seated = [name for name in order if name not in resting]
    met = met or {}
    tables = (heads_up_pairs(seated, met) if config.players == 2
              else fewer_repeats(seated, config.players, met))
    return ([cyclic_order(tuple(table), round_number) for table in tables],
            sorted(resting, key=place.__getitem__))


def heads_up_pairs(seated: list[str], met: Mapping[frozenset[str], int]) -> list[list[str]]:
    """Pairs from the standings (best first) as a chess Swiss makes them: the best bot
    not yet paired meets the next one down it has not met, backtracking when the bots
    left could not all be paired without a rematch. So there is no rematch while a
    pairing without one exists (and the search finds it within PAIRING_STEPS), and
    each bot meets the nearest opponent that allows it. Otherwise
    :func:`greedy_pairs`."""
    # The choices made: (the bots left before it, the position of the partner chosen
    # among them after the first), so a dead end returns to the last one and tries on.
    choices: list[tuple[list[str], int]] = []
    left, candidate = seated, 0
    for _ in range(PAIRING_STEPS):
        if not left:
            return [[before[0], before[1 + chosen]] for before, chosen in choices]
        top, rest = left[0], left[1:]
        while candidate < len(rest) and met.get(frozenset((top, rest[candidate]))):
            candidate += 1
        if candidate < len(rest):
            choices.append((left, candidate))
            left, candidate = rest[:candidate] + rest[candidate + 1:], 0
        elif choices:
            left, candidate = choices.pop()
            candidate += 1
        else:
            break
    return greedy_pairs(seated, met)


def greedy_pairs(seated: list[str], met: Mapping[frozenset[str], int]) -> list[list[str]]:
    """Pairs when no pairing without a rematch was found: the best bot left meets, of
    the others, one it met least often, the nearest in the standings first."""
    left, pairs = list(seated), []
    while len(left) >= 2:
        top = left.pop(0)
        partner = min(range(len(left)), key=lambda at: (met.get(frozenset((top, left[at])), 0),
                                                      at))
        pairs.append([top, left.pop(partner)])
    return pairs


def fewer_repeats(seated: list[str], players: int, met: Mapping[frozenset[str], int]
                  ) -> list[list[str]]:
    """Tables of ``players`` from the standings (best first), then swaps between tables
    at most SWAP_WINDOW apart while a swap lowers the number of times the bots at the
    two tables met before, nearest swap first. Every swap lowers the total, so the
    search ends; each table it changes is checked again with the next pass."""
    tables = [list(seated[start:start + players]) for start in range(0, len(seated), players)]
    improved = True
    while improved:
        improved = False
        for upper, lower in _near_tables(len(tables)):
            improved |= _swap_once(tables[upper], tables[lower], met)
    return tables


def _near_tables(count: int) -> Iterator[tuple[int, int]]:
    """Pairs of table positions at most SWAP_WINDOW apart, nearest first."""
    for distance in range(1, SWAP_WINDOW + 1):
        for upper in range(count - distance):
            yield upper, upper + distance


def _swap_once(upper: list[str], lower: list[str], met: Mapping[frozenset[str], int]) -> bool:
    """Swap one bot of ``upper`` for one of ``lower`` if that lowers how often their
    bots met, the bots nearest in the standings first; whether one was swapped."""
    before = _meetings(upper, met) + _meetings(lower, met)
    for high in reversed(range(len(upper))):
        for low in range(len(lower)):
            upper[high], lower[low] = lower[low], upper[high]
            if _meetings(upper, met) + _meetings(lower, met) < before:
                return True
            upper[high], lower[low] = lower[low], upper[high]
    return False


def _meetings(table: list[str], met: Mapping[frozenset[str], int]) -> int:
    """How many times the pairs of bots at a table sat together before."""
    return sum(met.get(frozenset(pair), 0) for pair in itertools.combinations(table, 2))


def pairs_of(tables: Iterable[Table]) -> Iterator[frozenset[str]]:
    """Every pair of bots sitting at one of ``tables``."""
    for table in tables:
        yield from (frozenset(pair) for pair in itertools.combinations(table, 2))


#: The most games :func:`arrange` makes at once.
PART_GAMES = 1_000


def arrange(config: TournamentConfig, secret: str, block: range,
            groups_of: Callable[[int], list[Group]], segment: Segment | None = None
            ) -> Iterator[list[Pairing]]:
    """The games of the rounds in ``block``, played together (``groups_of(r)``: the
    groups of round r), in play order, in parts of at most PART_GAMES games, no part
    spanning two epochs.

    Each group shares one deal seed, derived from (tournament seed, group index),
    so card luck cancels out within it. With ``duplicate`` the games are played
    epoch by epoch (every group's first rotation, then every group's second, ...;
    in an A/B test every A table's rotations before the B tables'), so a bot
    process started afresh for each epoch never plays a deal it has seen
    (``renew_bots``). A game with a bot that keeps its memory (``memory: true``,
    or an ``address:`` bot) gets a deal of its own. A ``secret`` (the store's, with
    ``secret_deals``) joins every seed, so nobody who knows only the config can
    compute a deal.

    A part is made only when asked for (the rounds' groups again for each epoch), so
    a long tournament's schedule is never held whole: the referee's memory does not
    grow with the number of games. ``segment``: the one ``block`` is in (default: the
    tournament's only one).
    """
    segment = segment or first_segment(config)
    base = _base(config, secret)
    remembering = set(segment.remembering)
    # Each table's rotations made once: the games share their seats tuples.
    seatings: dict[Table, list[Table]] = {}
    per_round, games_each = segment_shape(config, segment)
    index = segment.first_index + (block.start - segment.rounds.start) * games_each
    first_group = segment.first_group + (block.start - segment.rounds.start) * per_round
    for games in _in_play_order(config, block, groups_of, seatings, per_round, first_group):
        pairings = []
        for round_number, group, seats, epoch in games:
            shared = config.duplicate and not remembering & set(seats)
            seed = (derive_seed(*base, "group", group) if shared
                    else derive_seed(*base, "game", index))
            pairings.append(Pairing(index, group, round_number, seats, seed, epoch,
                                    game_id(config, base, index)))
            index += 1
            if len(pairings) == PART_GAMES:
                yield pairings
                pairings = []
        if pairings:
            yield pairings


def _in_play_order(config: TournamentConfig, block: range,
                   groups_of: Callable[[int], list[Group]], seatings: dict[Table, list[Table]],
                   per_round: int, first_group: int
                   ) -> Iterator[Iterator[tuple[int, int, Table, int]]]:
    """The (round, group, seats, epoch) of every game, in the order they are played:
    table by table, each in all its rotations; with ``duplicate``, epoch by epoch (an
    epoch is side × players + rotation; every round has the same groups' shape), tables
    in order within each. A group's index (which gives its deal) counts the groups of a
    full round (``per_round``, from ``first_group`` at the block's first round), so a
    Swiss round paired without a bot that did not start, with fewer tables, shares no
    deal with the next."""
    def tables() -> Iterator[tuple[int, int, int, list[Table]]]:
        for offset, round_number in enumerate(block):
            groups = groups_of(round_number)
            for number, group_tables in enumerate(groups):
                for side, table in enumerate(group_tables):
                    rotated = seatings.get(table)
                    if rotated is None:
                        rotated = seatings[table] = rotations(table)
                    yield (round_number, first_group + offset * per_round + number, side,
                           rotated)

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


def groups_per_round(config: TournamentConfig) -> int:
    """The groups of a round of the whole field (an A/B round: its deals)."""
    return AB_DEALS_PER_ROUND if config.format == "ab" else tables_per_round(config)


def scheduled(config: TournamentConfig, secret: str = "",
              segments: Iterable[Segment] | None = None) -> Iterator[Pairing]:
    """All games of a tournament whose rounds need no standings (of its ``segments``,
    if its field changed), indexed from 0 in the order they are played, one at a time
    (a Swiss tournament is paired round by round instead)."""
    for segment in segments or [first_segment(config)]:
        for block in segment_blocks(config, segment):
            for games in arrange(config, secret, block,
                                 partial(segment_groups, config, segment), segment):
                yield from games


def schedule(config: TournamentConfig, secret: str = "") -> list[Pairing]:
    """:func:`scheduled` as a list."""
    return list(scheduled(config, secret))


def _base(config: TournamentConfig, secret: str) -> tuple[object, ...]:
    return (config.seed, secret) if secret else (config.seed,)


def game_id(config: TournamentConfig, base: tuple[object, ...], index: int) -> str:
    """The id the bots are sent for game ``index``: derived with the deal secret, so a bot
    can tell neither the game's index (which, with the list of bots, gives its table)
    nor its deal from it; with the tournament's name, so two public tournaments of one
    seed share no id."""
    return opaque_id(*base, "game-id", config.name, index)
