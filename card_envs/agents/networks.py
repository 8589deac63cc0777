"""Network pieces of the trained agents (saved with a model, so they live where models load)."""

from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor


class ScaledObservation(BaseFeaturesExtractor):
    """Each observation entry divided by its declared bound (the Box's ``high``).

    The observations are raw counts and points (a Chip It value reaches 1,199,
    a hand size 15, a flag 1); fed as they are, a few large fields dominate
    the first layer. The scale comes from the observation space, so it is
    saved with the model and the env's observation stays the documented one.
    """

    def __init__(self, observation_space: spaces.Box) -> None:
        size = int(np.prod(observation_space.shape))
        super().__init__(observation_space, features_dim=size)
        bound = np.maximum(np.abs(observation_space.low), np.abs(observation_space.high)).reshape(-1)
        bound = np.where(np.isfinite(bound) & (bound > 0), bound, 1.0)
        self.scale: torch.Tensor
        self.register_buffer("scale", torch.as_tensor(1.0 / bound, dtype=torch.float32))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return observations.flatten(1) * self.scale
