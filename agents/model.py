"""A trained MaskablePPO model as an opponent (or as a seat in a tournament)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import Policy


class ModelPolicy(Policy):
    """Acts with a saved (or in-memory) sb3-contrib MaskablePPO model.

    The action is sampled from the model's masked distribution with the rng
    it is handed (so a seeded env replays exactly), or its most probable
    action with ``deterministic=True``.
    """

    def __init__(self, model: str | Path | Any, deterministic: bool = False) -> None:
        if isinstance(model, (str, Path)):
            from sb3_contrib import MaskablePPO

            path = Path(model)
            if not path.exists() and not path.with_suffix(".zip").exists():
                raise ValueError(f"no saved model at {path}")
            model = MaskablePPO.load(path, device="cpu")
        self.model = model
        self.deterministic = deterministic

    def __repr__(self) -> str:
        return f"ModelPolicy(deterministic={self.deterministic})"

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        policy = self.model.policy
        obs, _ = policy.obs_to_tensor(observation)
        with torch.no_grad():
            dist = policy.get_distribution(obs, action_masks=action_mask.astype(bool)[None])
            return dist.distribution.probs[0].cpu().numpy().astype(np.float64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        probs = self.probabilities(observation, action_mask) * (action_mask > 0)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(rng.choice(probs.size, p=probs / probs.sum()))
