"""Seating a table's bots: every seat for each bot, every neighbour for each bot.

Shared by the tournaments' schedule and the training's evaluation (and the bench's
duels), so a policy is measured the way a tournament rates a bot.
"""

from __future__ import annotations

import itertools
import math

Table = tuple[str, ...]


def rotations(seats: Table) -> list[Table]:
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
