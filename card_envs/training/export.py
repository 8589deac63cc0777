"""A trained run's actor as a shipped agent: plain arrays and a card (:mod:`card_envs.agents.pretrained`).

Only what playing needs is kept: the observation scale, the actor's hidden layers and its
action layer (the value network and the optimizer stay behind), as float32 arrays in an
``.npz`` that numpy reads without unpickling anything, beside a JSON card that says what the
network is and, from ``bench/pretrain.py``, how it was trained and what it scored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from card_envs.agents.model import ModelPolicy
from card_envs.agents.pretrained import PretrainedNetwork, arrays_digest, file_stem
from card_envs.agents.runs import run_settings
from card_envs.core.registry import game_spec

#: torch activation modules as the shipped loader names them
ACTIVATION_NAMES = {nn.Tanh: "tanh", nn.ReLU: "relu"}


def actor_arrays(model: Any) -> tuple[dict[str, np.ndarray], str]:
    """The arrays of an SB3 MaskablePPO policy's actor (scale, weight0, bias0, ...) and its activation."""
    policy = model.policy
    hidden = list(policy.mlp_extractor.policy_net)
    activations = {
        ACTIVATION_NAMES.get(type(m), type(m).__name__) for m in hidden if not isinstance(m, nn.Linear)
    }
    if not activations <= set(ACTIVATION_NAMES.values()) or len(activations) > 1:
        known = sorted(ACTIVATION_NAMES.values())
        raise ValueError(f"only MLP actors with one of {known} can be shipped, got {sorted(activations)}")
    arrays: dict[str, np.ndarray] = {"scale": features_scale(policy)}
    linear = [m for m in hidden if isinstance(m, nn.Linear)] + [policy.action_net]
    for i, layer in enumerate(linear):
        arrays[f"weight{i}"] = layer.weight.detach().cpu().numpy().astype(np.float32)
        arrays[f"bias{i}"] = layer.bias.detach().cpu().numpy().astype(np.float32)
    return arrays, activations.pop() if activations else "tanh"


def load_actor(model: Any, network: PretrainedNetwork) -> None:
    """Set an SB3 MaskablePPO policy's actor to a shipped ``network`` (the inverse of
    :func:`actor_arrays`); its value network is left as it is. The shapes were checked by
    TrainSettings.check_fits_pretrained; a scale that differs is refused here."""
    policy = model.policy
    if not np.allclose(features_scale(policy), network.scale):
        raise ValueError("the shipped network scales the observation otherwise than this run")
    hidden = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    with torch.no_grad():
        for layer, (weight, bias) in zip([*hidden, policy.action_net], network.layers, strict=True):
            layer.weight.copy_(torch.as_tensor(weight))
            layer.bias.copy_(torch.as_tensor(bias))


def features_scale(policy: Any) -> np.ndarray:
    """What the features extractor multiplies the observation by (1 where it only flattens)."""
    scale = getattr(policy.features_extractor, "scale", None)
    size = int(np.prod(policy.observation_space.shape))
    if scale is None:
        return np.ones(size, np.float32)
    return scale.detach().cpu().numpy().astype(np.float32)


def export_pretrained(run: str | Path, out_dir: str | Path, card: dict[str, Any] | None = None) -> Path:
    """Write ``run``'s actor as ``GAME-Np.npz`` and its card ``GAME-Np.json`` into ``out_dir``;
    returns the card's path. ``card`` adds to what the run's settings.json says (training
    time, results...).
    """
    settings = run_settings(run)
    if not settings or settings.get("backend", "sb3") != "sb3":
        raise ValueError(f"{run} is no MaskablePPO run directory of train.py (its settings.json says so)")
    game, num_players = str(settings["game"]), int(settings["num_players"])
    model = ModelPolicy(run).model
    arrays, activation = actor_arrays(model)
    actions = int(arrays[f"bias{sum(1 for key in arrays if key.startswith('bias')) - 1}"].size)
    mask_in = bool(settings.get("learner", {}).get("mask_in_observation", False))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / file_stem(game, num_players)
    np.savez_compressed(stem.with_suffix(".npz"), allow_pickle=False, **arrays)
    meta = {
        "game": game,
        "num_players": num_players,
        "rules": settings.get("rules", {}),
        "observation_version": game_spec(game).version,
        "arrays_sha256": arrays_digest(arrays),
        "network": {
            "layers": sum(1 for key in arrays if key.startswith("weight")),
            "sizes": [int(arrays["scale"].size)]
            + [int(arrays[k].shape[0]) for k in arrays if k.startswith("bias")],
            "activation": activation,
            "mask_in_observation": mask_in,
            "actions": actions,
        },
        **(card or {}),
    }
    stem.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    return stem.with_suffix(".json")
