"""Amazing Flea Circus as a PettingZoo environment, by PettingZoo's convention: ``env()`` and
``raw_env()`` (seats 2-5)."""

from __future__ import annotations

from pettingzoo import AECEnv

from training import envs
from training.aec import CircusAECEnv

GAME = "flea-circus"


def raw_env(seats: int = 2, variant: str | None = None,
            render_mode: str | None = None) -> CircusAECEnv:
    return envs.raw_env(GAME, seats, variant, render_mode)


def env(seats: int = 2, variant: str | None = None, render_mode: str | None = None) -> AECEnv:
    return envs.env(GAME, seats, variant, render_mode)
