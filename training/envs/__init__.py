"""Every game's environments under the names the ecosystem looks for.

Importing this package registers one Gymnasium id per game, ``circus/FleaCircus-v0``,
``circus/Flohcati-v0`` and ``circus/AnimalCircus-v0`` (Gymnasium 1.x loads no plugins by
itself: ``gymnasium.make("training.envs:circus/FleaCircus-v0")`` imports and makes at once).
``gymnasium.make`` takes :func:`gym_env`'s keywords: ``players``, ``opponents``, ``variant``,
``time_control``. PettingZoo's convention, a module per environment with ``env()`` (wrapped
as PettingZoo's classic games are) and ``raw_env()``, is ``training.envs.flea_circus_v0``,
``flohcati_v0`` and ``animal_circus_v0``.
"""

from __future__ import annotations

from typing import Sequence

import gymnasium
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from bots.random_bot import RandomBot
from referee.settings import TimeConfig
from training.aec import CircusAECEnv
from training.gym import CircusGymEnv, Opponent

#: Each game's environment name (its id's middle), by the game's name.
NAMES = {"flea-circus": "FleaCircus", "flohcati": "Flohcati", "animal-circus": "AnimalCircus"}
NAMESPACE = "circus"
VERSION = 0


def gym_id(game: str) -> str:
    """The Gymnasium id of a game's environment: ``circus/FleaCircus-v0``."""
    return f"{NAMESPACE}/{NAMES[game]}-v{VERSION}"


def gym_env(game: str, players: int | None = None,
            opponents: Sequence[Opponent] | None = None, variant: str | None = None,
            time_control: TimeConfig | None = TimeConfig()) -> CircusGymEnv:
    """The Gymnasium view of ``game`` (:class:`~training.gym.CircusGymEnv`): one learner
    against ``opponents`` (one per other seat: bots or policies), by default a random bot in
    each other seat of ``players`` (2 by default)."""
    if opponents is None:
        opponents = [RandomBot() for _ in range((players or 2) - 1)]
    elif players is not None and players != len(opponents) + 1:
        raise ValueError(f"{len(opponents)} opponents for {players} players: give one per "
                         "other seat")
    return CircusGymEnv(game, opponents, variant, time_control)


def raw_env(game: str, seats: int = 2, variant: str | None = None,
            render_mode: str | None = None) -> CircusAECEnv:
    """The PettingZoo AEC environment of ``game``, unwrapped."""
    return CircusAECEnv(game, seats, variant, render_mode)


def env(game: str, seats: int = 2, variant: str | None = None,
        render_mode: str | None = None) -> AECEnv:
    """The AEC environment wrapped as PettingZoo's classic games are: an action out of the
    space asserted, and the calls' order enforced (no step before a reset)."""
    return wrappers.OrderEnforcingWrapper(
        wrappers.AssertOutOfBoundsWrapper(raw_env(game, seats, variant, render_mode)))


def register() -> None:
    """Register every game's Gymnasium id (once: a second import registers nothing)."""
    for game in NAMES:
        if gym_id(game) not in gymnasium.registry:
            gymnasium.register(gym_id(game), entry_point=f"{__name__}:gym_env",
                               kwargs={"game": game})


register()
