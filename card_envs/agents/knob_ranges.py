"""The span of a rule-based agent's knob, for drawing varied players (the league's rule
players): a leaf module, so the agents' registry can hold each game's ranges beside its
other knob settings (one source for a game's knobs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Uniform:
    """A knob drawn uniformly from ``low..high`` (rounded to 2 decimals, so specs stay short)."""

    low: float
    high: float

    def draw(self, rng: np.random.Generator) -> Any:
        return round(float(rng.uniform(self.low, self.high)), 2)

    def contains(self, value: Any) -> bool:
        return (
            isinstance(value, (int, float)) and not isinstance(value, bool) and self.low <= value <= self.high
        )


@dataclass(frozen=True)
class Integers:
    """A whole-number knob drawn uniformly from ``low..high``, both included."""

    low: int
    high: int

    def draw(self, rng: np.random.Generator) -> Any:
        return int(rng.integers(self.low, self.high + 1))

    def contains(self, value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and self.low <= value <= self.high


@dataclass(frozen=True)
class Choice:
    """A knob drawn from a few values."""

    values: tuple[Any, ...]

    def draw(self, rng: np.random.Generator) -> Any:
        return self.values[int(rng.integers(len(self.values)))]

    def contains(self, value: Any) -> bool:
        return value in self.values


KnobRange = Uniform | Integers | Choice
