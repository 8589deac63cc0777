"""The trained network in torch: a policy head and a value head, each an MLP over the scaled
observation, and its round trip to the shipped agents' arrays (:mod:`card_envs.agents.pretrained`).

The policy head has the shipped actor's shape, so a run can start from the shipped agent's
weights (``--init-from pretrained``); the value head is new. Self-play reads the arrays
(numpy, one process per worker, no torch); the fit changes the torch modules.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from card_envs.agents.pretrained import PretrainedNetwork
from card_envs.core.game import CardGame

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def mlp(sizes: list[int], activation: str) -> nn.Sequential:
    """Linear layers of ``sizes`` with ``activation`` between them (none after the last)."""
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(ACTIVATIONS[activation]())
    return nn.Sequential(*layers)


class PolicyValueNet(nn.Module):
    """Logits over the actions and a value in -1..1 (tanh) from one scaled observation."""

    def __init__(self, scale: np.ndarray, policy: list[int], value: list[int], activation: str) -> None:
        super().__init__()
        self.activation = activation
        self.scale: torch.Tensor
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))
        self.policy = mlp(policy, activation)
        self.value = mlp(value, activation)

    def forward(self, observations: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (illegal at a large negative number) and values."""
        x = observations * self.scale
        logits = self.policy(x).masked_fill(~masks, -1e9)
        return logits, torch.tanh(self.value(x)[:, 0])

    @classmethod
    def fresh(cls, table: CardGame, hidden: list[int], activation: str = "tanh") -> PolicyValueNet:
        """New weights; the observation scaled by its declared bounds, as the PPO agents' is."""
        size, actions = table.observation_size, table.num_actions
        scale = (1.0 / observation_bound(table)).astype(np.float32)
        return cls(scale, [size, *hidden, actions], [size, *hidden, 1], activation)

    @classmethod
    def from_pretrained(cls, network: PretrainedNetwork, value_hidden: list[int]) -> PolicyValueNet:
        """The shipped actor's weights in the policy head, a new value head (or the network's own)."""
        if network.mask_in_observation:
            raise ValueError(
                "a network that reads the mask in its observation cannot be trained with --algo az"
            )
        policy = [network.observation_size] + [int(w.shape[0]) for w, _ in network.layers]
        value = (
            [network.observation_size] + [int(w.shape[0]) for w, _ in network.value_layers]
            if network.value_layers
            else [network.observation_size, *value_hidden, 1]
        )
        net = cls(network.scale, policy, value, network.activation)
        with torch.no_grad():
            for head, layers in ((net.policy, network.layers), (net.value, network.value_layers)):
                for linear, (weight, bias) in zip(linears(head), layers, strict=False):
                    linear.weight.copy_(torch.as_tensor(weight))
                    linear.bias.copy_(torch.as_tensor(bias))
        return net

    def arrays(self) -> dict[str, np.ndarray]:
        """The shipped agents' arrays: scale, weight/bias per policy layer, value_weight/value_bias."""
        out = {"scale": self.scale.numpy().astype(np.float32)}
        for prefix, head in (("", self.policy), ("value_", self.value)):
            for i, linear in enumerate(linears(head)):
                out[f"{prefix}weight{i}"] = linear.weight.detach().numpy().astype(np.float32)
                out[f"{prefix}bias{i}"] = linear.bias.detach().numpy().astype(np.float32)
        return out


def linears(head: nn.Sequential) -> list[nn.Linear]:
    return [m for m in head if isinstance(m, nn.Linear)]


def observation_bound(table: CardGame) -> np.ndarray:
    """The observation's declared bounds (1 where none is finite and positive), as
    :class:`card_envs.agents.networks.ScaledObservation` reads them from the space."""
    layout = table.observation_layout
    bound = np.maximum(np.abs(layout.low), np.abs(layout.high)).astype(np.float64)
    return np.where(np.isfinite(bound) & (bound > 0), bound, 1.0)


def write_network(net: PolicyValueNet, stem: Path, table: CardGame, card: dict[str, Any]) -> Path:
    """``stem.npz`` and ``stem.json`` as :func:`card_envs.agents.pretrained.read_network` reads them
    (written beside and moved into place, so a reader never sees half a network)."""
    arrays = net.arrays()
    policy, value = linears(net.policy), linears(net.value)
    meta = {
        "game": table.name,
        "num_players": table.num_players,
        "rules": table.rules,
        "network": {
            "layers": len(policy),
            "sizes": [policy[0].in_features] + [m.out_features for m in policy],
            "activation": net.activation,
            "mask_in_observation": False,
            "actions": policy[-1].out_features,
            "value_layers": len(value),
            "value_sizes": [value[0].in_features] + [m.out_features for m in value],
        },
        **card,
    }
    stem.parent.mkdir(parents=True, exist_ok=True)
    partial = stem.with_name(stem.name + ".partial")
    np.savez_compressed(partial.with_suffix(".npz"), allow_pickle=False, **arrays)
    partial.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    partial.with_suffix(".npz").replace(stem.with_suffix(".npz"))
    partial.with_suffix(".json").replace(stem.with_suffix(".json"))
    return stem.with_suffix(".json")
