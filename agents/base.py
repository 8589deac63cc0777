"""The policy interface (defined in :mod:`card_envs.core.policy`) and the knob checks of scripted agents."""

from __future__ import annotations

from card_envs.core.checks import check_float
from card_envs.core.policy import Policy, RandomAgent

__all__ = ["Policy", "RandomAgent", "check_probability"]


def check_probability(name: str, value: object) -> float:
    """A knob that is a probability: ``value`` as a float in 0..1, or ValueError naming the knob."""
    return check_float(name, value, 0.0, 1.0)
