"""A Stable-Baselines3 policy as a weight file: the actor's MLP into ``w0, b0, w1, b1, ...``.

An SB3 actor-critic's policy network is ``mlp_extractor.policy_net`` (``Linear``,
activation, ``Linear``, activation, ...) followed by ``action_net`` (a ``Linear`` to one
logit per action); with a flat Box observation its features extractor is a plain flatten.
That is exactly the weight file's MLP when the activation is tanh (SB3's default for PPO and
MaskablePPO), so the export copies the weights and refuses what the file cannot hold: another
activation, a features extractor that computes something, or layers shared with the critic.

Nothing here imports torch: a state dict's tensors are read through ``numpy()`` or
``numpy.asarray``, so the default install, which has no torch, tests the export on a network
built by hand.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from training.policy import MLPPolicy

POLICY_LAYER = re.compile(r"^mlp_extractor\.policy_net\.(\d+)\.(weight|bias)$")
#: What SB3 builds for a flat observation: no parameters, the observation as it is.
PLAIN_EXTRACTORS = {"FlattenExtractor"}


class ExportError(ValueError):
    """A policy the weight file cannot hold; the message names what and why."""


def _array(tensor: Any) -> np.ndarray[Any, Any]:
    """A tensor (torch's, detached to the CPU) or an array, as float32 numpy."""
    for step in ("detach", "cpu"):
        tensor = getattr(tensor, step, lambda: tensor)()
    return np.asarray(tensor, np.float32)


def layers_from_state_dict(state: Mapping[str, Any], activation: str = "Tanh"
                           ) -> MLPPolicy:
    """The weight file's policy of an SB3 actor's state dict (``model.policy.state_dict()``).

    ``activation`` is the class name of the policy's ``activation_fn``: the file holds tanh
    between layers and nothing else.
    """
    if activation != "Tanh":
        raise ExportError(f"the policy's activation is {activation}; a weight file holds tanh "
                          "between layers only (train with activation_fn=torch.nn.Tanh, "
                          "SB3's default)")
    shared = sorted(name for name in state if name.startswith("mlp_extractor.shared_net"))
    if shared:
        raise ExportError(f"layers shared with the value network ({shared[0]}, ...): train "
                          "with separate networks (net_arch=dict(pi=[...], vf=[...]))")
    hidden: dict[int, dict[str, Any]] = {}
    for name, tensor in state.items():
        found = POLICY_LAYER.match(name)
        if found:
            hidden.setdefault(int(found[1]), {})[found[2]] = tensor
    if "action_net.weight" not in state:
        raise ExportError("no action_net.weight in the state dict: not an SB3 actor-critic "
                          "policy with a discrete action head")
    linear = [hidden[index] for index in sorted(hidden)] + [
        {"weight": state["action_net.weight"], "bias": state["action_net.bias"]}]
    # torch's Linear stores its weight as (out, in); the file's layers are (in, out).
    return MLPPolicy([(_array(layer["weight"]).T, _array(layer["bias"])) for layer in linear])


def export_policy(model: Any, path: Path) -> MLPPolicy:
    """Write ``model``'s (an SB3 PPO or MaskablePPO) actor as a weight file at ``path``."""
    policy = model.policy
    extractor = type(policy.features_extractor).__name__
    if extractor not in PLAIN_EXTRACTORS:
        raise ExportError(f"the policy's features extractor is {extractor}; a weight file "
                          "reads the encoder's tensor as it is (a Box observation, "
                          "FlattenExtractor)")
    exported = layers_from_state_dict(policy.state_dict(), policy.activation_fn.__name__)
    exported.save(path)
    return exported
