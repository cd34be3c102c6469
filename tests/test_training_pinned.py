"""The training tensors and masks are pinned: a seeded game per game gives the same bytes.

The hashes were taken before the encoders were made faster, so a speed-up that
changed one byte of any seat's tensor, any mask or any reward fails here.
"""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from training.aec import CircusAECEnv  # noqa: E402

#: sha256 of every seat's tensor, the decider's mask and the rewards at every step of
#: ``GAMES_PER_TABLE`` seeded games of random legal ids, per (game, variant, seats).
PINNED = {
    ("flea-circus", "standard", 2): "d8ce114eb183e9bb55b72aca517872544ada22bd1d17e2e0833a3320af9ee350",
    ("flea-circus", "standard", 3): "aa76e4a57131ba7c351e3f049c4c54fa2b8003bee163d21a105068cc0bf320ab",
    ("flea-circus", "standard", 4): "2ea28e8ec00bd89280d9ce06f861bbdebcde89deacc4011eb569df8399b7f41f",
    ("flea-circus", "standard", 5): "effc4a99855fee857b6c1bca79b675bc95c98e1b1aae90133beacda73a6f00e7",
    ("flohcati", "en", 2): "52a7d4eb3f13d255568f7455808e7589db49f6897bbed76c3cb98cd6e10cf6e7",
    ("flohcati", "en", 3): "f2125a3ae808b72cbb31d12ed52e0f4c5a5b415daf757a5263284ac81204e5e6",
    ("flohcati", "en", 4): "b50bd9b55179b0894babd7eda593725de24a9fa4aa745f7821b32baafc1639a8",
    ("flohcati", "en", 5): "8f26bb100a5dc6370774b3435e7b011b9759c9da18c436851eeff0b163285f97",
    ("flohcati", "es", 2): "9f0c2cc835702d6651f405b12c7c0d14c1339e07d645f3f8ffe6e56b1661dd93",
    ("flohcati", "es", 3): "18ab758a0e91244f97c5db9101a94ef9ef2e7c018010724f4c7434798aca5b35",
    ("flohcati", "es", 4): "dae3272a2321a4e07ba5bbb05cbd317ef866bf9bc2cc575b606595c7838a358f",
    ("flohcati", "es", 5): "f8e619efb5a1d5323e8c1a63f4b4d86ebec47556a42faa7a6aadb3f32e7fab4b",
    ("animal-circus", "standard", 2): "d2af265bf2c6d381d91ca754de89d24a84c804f5de5ae794c24e16e8fda00df2",
    ("animal-circus", "standard", 3): "ceb24e0fabd937d8d0f72976c34e65c4dc7a6506acd55cc1c50643b47614dd02",
    ("animal-circus", "standard", 4): "6060f1f46471d52338936ddba0ff510409a5be0a5b805e83443f35a837b1b17e",
    ("animal-circus", "standard", 5): "07102355dfc49c9de93a4cdb997328862f029aabd898394ad8d17c005c6701d6",
}
GAMES_PER_TABLE = 3


def digest(game: str, variant: str, seats: int) -> str:
    """The hash of a few seeded games' tensors (every seat's, at every step) and masks."""
    env = CircusAECEnv(game, seats=seats, variant=variant)
    choices = random.Random(f"{game}/{variant}/{seats}")
    sha = hashlib.sha256()
    for episode in range(GAMES_PER_TABLE):
        env.reset(seed=1000 + episode)
        for agent in env.agent_iter():
            for other in env.possible_agents:
                sha.update(env.observe(other).tobytes())
            observation, reward, terminated, truncated, info = env.last()
            sha.update(np.float64(reward).tobytes())
            if terminated or truncated:
                env.step(None)
                continue
            mask = info["action_mask"]
            sha.update(mask.tobytes())
            env.step(choices.choice(np.flatnonzero(mask).tolist()))
    return sha.hexdigest()


@pytest.mark.parametrize(("game", "variant", "seats"), sorted(PINNED))
def test_seeded_games_give_the_pinned_tensors_and_masks(game: str, variant: str,
                                                        seats: int) -> None:
    assert digest(game, variant, seats) == PINNED[game, variant, seats]
