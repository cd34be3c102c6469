"""Colluding bots for Amazing Flea Circus, for the collusion check's tests.

A :class:`Colluder` plays as :class:`bots.mixed.MixedBot` (greedy with probability
p) until another member of its ring sits at its table: then it never steals from
the ring (a steal's target is the richest rival outside it), and every member but
the ring's boss (the one whose name sorts first) throws the game (plays the move the
greedy bot values least), feeding the boss: a shill's lost places are the boss's
gain. Neither needs to talk to the other: the names say who is the boss. A ring is
the bots whose seat names start with :attr:`Colluder.ring` (``ring-`` by default):
they recognise each other from StartGame's ``seat_names``, which hold the bots'
names only with ``reveal_names: true`` in the tournament's config; without it a
colluder cannot tell who sits with it and plays honestly.

In-process::

    reveal_names: true
    bots:
      - {name: ring-a, python: "bots.colluders:Colluder"}
      - {name: ring-b, python: "bots.colluders:Colluder"}
"""

from __future__ import annotations

import threading

from bots.mixed import MixedBot


class Colluder(MixedBot):
    """A :class:`MixedBot` that, seated with its ring, spares it and (unless the boss)
    throws the game."""

    p = 0.75
    ring = "ring-"

    def __init__(self, p: float | None = None) -> None:
        super().__init__(p)
        self.name = f"colluder-{self.p:g}"
        # Per game in flight (several run at once): the ring's other seats, and
        # whether this bot throws the game.
        self.tables: dict[str, tuple[frozenset[int], bool]] = {}
        self.lock = threading.Lock()

    def start_game(self, request) -> None:
        names = list(request.seat_names)
        mine = names[request.seat]
        ring = sorted(name for name in names if name.startswith(self.ring))
        if not mine.startswith(self.ring) or len(ring) < 2:
            return
        friends = frozenset(seat for seat, name in enumerate(names)
                            if name.startswith(self.ring) and seat != request.seat)
        with self.lock:
            self.tables[request.game_id] = (friends, ring[0] != mine)

    def decide(self, request) -> int:
        with self.lock:
            game = self.tables.get(request.game_id)
        if game is None:
            return super().decide(request)
        friends, throws = game
        actions = request.legal_actions
        obs = request.observation.flea_circus
        if request.kind == "target":
            rivals = [i for i, action in enumerate(actions)
                      if action.payload.flea_circus.target not in friends]
            return max(rivals or range(len(actions)),
                       key=lambda i: obs.loot[actions[i].payload.flea_circus.target])
        if throws:
            values = [self.greedy.value(obs, action.payload.flea_circus) for action in actions]
            return min(range(len(values)), key=lambda i: (values[i], i))
        return super().decide(request)

    def end_game(self, request) -> None:
        with self.lock:
            self.tables.pop(request.game_id, None)
