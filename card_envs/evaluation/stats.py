"""Intervals and ratings for evaluations, from well-kept libraries (scipy, openskill).

* rates (a win rate): the Wilson score interval, sound near 0 and 1;
* means (rank, reward): Student's t interval of the mean;
* ratings over a league: openskill's Plackett-Luce model, which rates games of
  more than two players from their ranks (ties allowed).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from openskill.models import PlackettLuce, PlackettLuceRating
from scipy import stats


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% (or other) interval."""

    value: float
    low: float
    high: float

    def __format__(self, spec: str) -> str:
        spec = spec or ".3f"
        return f"{self.value:{spec}} ({self.low:{spec}}..{self.high:{spec}})"


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> Estimate:
    """The rate ``successes / trials`` with its Wilson score interval (0..1 for no trials)."""
    if trials == 0:
        return Estimate(math.nan, 0.0, 1.0)
    ci = stats.binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="wilson")
    return Estimate(successes / trials, float(ci.low), float(ci.high))


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> Estimate:
    """The mean of ``values`` with Student's t interval (a single value gives an infinite one)."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return Estimate(math.nan, math.nan, math.nan)
    mean = float(data.mean())
    if data.size == 1 or np.all(data == data[0]):
        half = math.inf if data.size == 1 else 0.0
        return Estimate(mean, mean - half, mean + half)
    low, high = stats.t.interval(confidence, df=data.size - 1, loc=mean, scale=stats.sem(data))
    return Estimate(mean, float(low), float(high))


class League:
    """Openskill ratings of named agents, updated from the ranks of each game played."""

    def __init__(self) -> None:
        # tau=0: the agents of an evaluation do not change while it runs. Openskill's default
        # drift (tau=25/300) keeps sigma from shrinking, so the ratings followed the last few
        # hundred games: in 2,000-game leagues they ordered agents against their mean rewards.
        self.model = PlackettLuce(tau=0.0)
        self.ratings: dict[str, PlackettLuceRating] = {}

    def _rating(self, name: str) -> PlackettLuceRating:
        if name not in self.ratings:
            self.ratings[name] = self.model.rating(name=name)
        return self.ratings[name]

    def record(self, names: Sequence[str], ranks: Sequence[int]) -> None:
        """One game: the agent in each seat and its rank (1 = best, ties share)."""
        if len(set(names)) != len(names):
            raise ValueError(f"each agent may play one seat per rated game, got {list(names)}")
        teams = [[self._rating(name)] for name in names]
        for name, (rating,) in zip(names, self.model.rate(teams, ranks=list(ranks)), strict=True):
            self.ratings[name] = rating

    def mu(self, name: str) -> float:
        return float(self._rating(name).mu)

    def sigma(self, name: str) -> float:
        return float(self._rating(name).sigma)

    def ordinal(self, name: str) -> float:
        """A conservative skill estimate, ``mu - 3 sigma``: what a leaderboard sorts by."""
        return self.mu(name) - 3 * self.sigma(name)
