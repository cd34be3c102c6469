"""An SB3 actor exported as a weight file computes the same logits, and what the file
cannot hold is refused by name. The network is built by hand: the default install has no
torch (the whole recipe, with SB3 itself, is tests/test_sb3_recipe.py's opt-in tier)."""

from __future__ import annotations

import numpy as np
import pytest

from training.policy import MLPPolicy, forward
from training.sb3 import ExportError, layers_from_state_dict


def sb3_actor(rng: np.random.Generator, sizes: list[int]) -> dict[str, np.ndarray]:
    """A state dict shaped as SB3 builds one: policy_net's Linear layers at 0, 2, ... (an
    activation module between them), then action_net; weights as torch stores them, (out, in)."""
    state = {}
    *hidden, actions = list(zip(sizes, sizes[1:]))
    for depth, (inputs, outputs) in enumerate(hidden):
        state[f"mlp_extractor.policy_net.{2 * depth}.weight"] = rng.normal(size=(outputs, inputs))
        state[f"mlp_extractor.policy_net.{2 * depth}.bias"] = rng.normal(size=outputs)
        state[f"mlp_extractor.value_net.{2 * depth}.weight"] = rng.normal(size=(outputs, inputs))
    state["action_net.weight"] = rng.normal(size=(actions[1], actions[0]))
    state["action_net.bias"] = rng.normal(size=actions[1])
    state["value_net.weight"] = rng.normal(size=(1, sizes[-2]))
    return state


def sb3_logits(state: dict[str, np.ndarray], observation: np.ndarray) -> np.ndarray:
    """What SB3's actor computes: tanh(W x + b) through policy_net, then action_net."""
    values = observation
    depth = 0
    while f"mlp_extractor.policy_net.{depth}.weight" in state:
        values = np.tanh(state[f"mlp_extractor.policy_net.{depth}.weight"] @ values
                         + state[f"mlp_extractor.policy_net.{depth}.bias"])
        depth += 2
    return state["action_net.weight"] @ values + state["action_net.bias"]


@pytest.mark.parametrize("sizes", [[149, 64, 64, 26], [149, 26], [30, 8, 8, 8, 5]])
def test_the_export_computes_the_actor_s_logits(sizes, tmp_path):
    rng = np.random.default_rng(7)
    state = sb3_actor(rng, sizes)
    policy = layers_from_state_dict(state)
    policy.save(tmp_path / "p.npz")
    loaded = MLPPolicy.load(tmp_path / "p.npz")
    assert loaded.shape == (sizes[0], sizes[-1])
    for _ in range(20):
        observation = rng.random(sizes[0]).astype(np.float32)
        np.testing.assert_allclose(forward(loaded.layers, observation),
                                   sb3_logits(state, observation), rtol=1e-4, atol=1e-4)
        mask = (rng.random(sizes[-1]) < 0.5).astype(np.int8)
        mask[rng.integers(sizes[-1])] = 1
        expected = int(np.argmax(np.where(mask > 0, sb3_logits(state, observation), -np.inf)))
        assert loaded(observation, mask) == expected


def test_what_the_file_cannot_hold_is_refused():
    state = sb3_actor(np.random.default_rng(1), [10, 4, 3])
    with pytest.raises(ExportError, match="ReLU"):
        layers_from_state_dict(state, "ReLU")
    shared = {**state, "mlp_extractor.shared_net.0.weight": np.zeros((4, 10))}
    with pytest.raises(ExportError, match="shared with the value network"):
        layers_from_state_dict(shared)
    with pytest.raises(ExportError, match="action_net"):
        layers_from_state_dict({k: v for k, v in state.items() if not k.startswith("action")})
