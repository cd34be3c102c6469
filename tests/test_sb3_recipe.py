"""The trainer's whole recipe, opt-in: MaskablePPO learns on the Gymnasium view, the actor
is exported as a weight file, the file plays as a `policy:` bot in a tournament, and it
picks SB3's own actions on recorded observations.

It needs torch and sb3-contrib, which the project's lock leaves out (torch alone is several
hundred megabytes): docs/training.md ("The SB3 recipe") says how to install them and run this
file. Without them every test here is skipped, saying so.
"""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

sb3_contrib = pytest.importorskip(
    "sb3_contrib", reason="the SB3 recipe's opt-in tier: pip install torch sb3-contrib "
                          "(docs/training.md, \"The SB3 recipe\")")

from bots.random_bot import RandomBot  # noqa: E402
from circus_referee.main import main  # noqa: E402
from training.gym import CircusGymEnv  # noqa: E402
from training.sb3 import export_policy  # noqa: E402

CONFIG = """
name: sb3
game: flea-circus
players: 2
rounds: 2
seed: 4
bots:
  - {name: ppo, policy: policies/ppo.npz}
  - {name: random, python: "bots.random_bot:RandomBot"}
"""


def test_a_maskable_ppo_actor_plays_as_its_weight_file(tmp_path):
    env = CircusGymEnv("flea-circus", [RandomBot()])
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, seed=1,
                                    policy_kwargs={"net_arch": [32, 32]})
    model.learn(512)
    (tmp_path / "policies").mkdir()
    exported = export_policy(model, tmp_path / "policies" / "ppo.npz")
    observation, _ = env.reset(seed=3)
    for _ in range(200):
        mask = env.action_masks()
        ours = exported(observation, mask)
        theirs = int(model.predict(observation, action_masks=mask.astype(bool),
                                   deterministic=True)[0])
        assert ours == theirs
        observation, _, done, truncated, _ = env.step(np.int64(ours))
        if done or truncated:
            observation, _ = env.reset()
    (tmp_path / "bots.yaml").write_text(CONFIG)
    db = str(tmp_path / "r.sqlite")
    played = CliRunner().invoke(main, ["tournament", str(tmp_path / "bots.yaml"), "--db", db,
                                       "--logs", str(tmp_path / "logs"), "-q"])
    assert played.exit_code == 0, played.output
    faults = CliRunner().invoke(main, ["faults", "--db", db, "--format", "json"])
    assert faults.exit_code == 0 and faults.output.strip() in ("[]", ""), faults.output
