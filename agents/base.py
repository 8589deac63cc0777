"""The one policy interface shared by scripted opponents, trained models and evaluation."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


def check_probability(name: str, value: object) -> float:
    """A knob that is a probability: ``value`` as a float, or ValueError naming the knob."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")
    return float(value)


class Policy(ABC):
    """Chooses an action from what a seat sees.

    ``act`` receives the seat's observation vector, the int8 mask of legal
    actions and the env's generator; all randomness must come from ``rng`` so
    that a seeded env replays the same game.
    """

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        """Return one action whose mask entry is 1."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class RandomAgent(Policy):
    """Uniform over the legal actions; works for every game."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("RandomAgent was asked to act with an empty action mask")
        return int(legal[rng.integers(legal.size)])
