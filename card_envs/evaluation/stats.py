"""Intervals and ratings for evaluations, from well-kept libraries (scipy, openskill).

Every interval of a bounded figure stays inside what is possible:

* rates (a win rate, in [0, 1]): the Wilson score interval (:func:`wilson_interval`);
* bounded means (mean reward in [-1, 1], mean rank in [1, N]): :func:`bounded_mean_interval`,
  the seeded percentile bootstrap of the mean, or, on small or degenerate samples, the
  Wilson bound of the mean rescaled to [0, 1];
* unbounded means: Student's t interval (:func:`mean_interval`);
* ratings over a league: openskill's Plackett-Luce model, which rates games of
  more than two players from their ranks (ties allowed).

An estimate from fewer than :data:`SMALL_SAMPLE` values is flagged ``small_sample``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from openskill.models import PlackettLuce, PlackettLuceRating
from scipy import stats

#: below this many values (games, or deals once they are paired) an estimate is flagged
#: "small sample", and a bounded mean takes the conservative Wilson bound, not the bootstrap:
#: a percentile bootstrap cannot reach past the sample's own spread, so on a few games it is
#: too narrow (three games of ranks 1, 1, 2 give at most 1.00..2.00).
SMALL_SAMPLE = 30

#: values closer than this share of their range count as equal (their sums round differently)
EQUAL = 1e-9

#: bootstrap resamples: enough for stable 2.5% and 97.5% percentiles (their Monte Carlo
#: error is a few hundredths of the interval's width), and about 0.1 s for 6,000 games.
RESAMPLES = 2000


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% (or other) interval, how it was found, and whether it
    rests on fewer than :data:`SMALL_SAMPLE` values."""

    value: float
    low: float
    high: float
    method: str = ""
    small_sample: bool = False

    def __format__(self, spec: str) -> str:
        spec = spec or ".3f"
        return f"{self.value:{spec}} ({self.low:{spec}}..{self.high:{spec}})"

    def as_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "low": self.low,
            "high": self.high,
            "method": self.method,
            "small_sample": self.small_sample,
        }


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1 (exclusive), got {confidence}")
    return float(stats.norm.ppf(0.5 + confidence / 2))


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> Estimate:
    """The rate ``successes / trials`` with its Wilson score interval (0..1 for no trials)."""
    if trials == 0:
        return Estimate(math.nan, 0.0, 1.0, "wilson", small_sample=True)
    ci = stats.binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="wilson")
    return Estimate(successes / trials, float(ci.low), float(ci.high), "wilson", trials < SMALL_SAMPLE)


def wilson_bound(share: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a mean ``share`` in [0, 1] of ``n`` values in [0, 1].

    A value in [0, 1] with mean ``p`` varies at most as much as a coin with chance ``p``
    (variance ``p(1 - p)``), so the coin's interval holds the mean of any such values: wider
    than needed for values between the ends, never outside [0, 1], and not a point when every
    value is the same (after 5 games all won, the rate 1 still gets 0.57..1).
    """
    z = _z(confidence)
    denominator = 1 + z * z / n
    centre = (share + z * z / (2 * n)) / denominator
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / denominator
    # the interval holds the share; rounding could leave an end a hair past it at 0 or 1
    return max(0.0, min(share, centre - half)), min(1.0, max(share, centre + half))


def bounded_mean_interval(
    values: Sequence[float],
    low: float,
    high: float,
    confidence: float = 0.95,
    seed: int = 0,
) -> Estimate:
    """The mean of ``values``, each in [``low``, ``high``], with an interval inside that range.

    ``values`` are one per independent unit: one per game, or one per deal (the mean over a
    deal's seatings) when games are paired on duplicate deals. From :data:`SMALL_SAMPLE`
    values on, the interval is scipy's percentile bootstrap of the mean (:data:`RESAMPLES`
    resamples, vectorized, seeded with ``seed``: the same values give the same interval).
    Fewer values, or values all equal up to rounding (where the bootstrap collapses to a
    point), get the Wilson bound of the mean rescaled to [0, 1] (:func:`wilson_bound`), a conservative one.
    No values: the whole range, around NaN.
    """
    if not low < high:
        raise ValueError(f"bounds must satisfy low < high, got low={low}, high={high}")
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return Estimate(math.nan, low, high, "none", small_sample=True)
    if np.any((data < low) | (data > high)):
        raise ValueError(f"values must lie in [{low}, {high}], got {data.min()}..{data.max()}")
    mean = float(data.mean())
    small = data.size < SMALL_SAMPLE
    # equal up to rounding: per-deal means of identical players come out as 0 and 1e-17
    if small or np.ptp(data) <= EQUAL * (high - low):
        width = high - low
        share = min(1.0, max(0.0, (mean - low) / width))
        a, b = wilson_bound(share, data.size, confidence)
        # the bound holds the mean, also where rescaling rounds (1.0 came back as 0.9999999999999998)
        return Estimate(mean, min(mean, low + a * width), max(mean, low + b * width), "wilson bound", small)
    result = stats.bootstrap(
        (data,),
        np.mean,
        n_resamples=RESAMPLES,
        batch=max(1, 4_000_000 // data.size),  # at most a few million resampled values at once
        vectorized=True,
        confidence_level=confidence,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return Estimate(mean, max(low, float(ci.low)), min(high, float(ci.high)), "bootstrap")


def unit_means(values: Sequence[float], units: Sequence[Hashable]) -> list[float]:
    """The mean of ``values`` per unit (``units[k]`` is the unit of ``values[k]``), in the order
    the units first appear: one value per deal from the games paired on it, for
    :func:`bounded_mean_interval`, since games on one deal share its luck."""
    if len(values) != len(units):
        raise ValueError(f"values and units must be as many, got {len(values)} values and {len(units)} units")
    groups: dict[Hashable, list[float]] = {}
    for value, unit in zip(values, units, strict=True):
        groups.setdefault(unit, []).append(float(value))
    return [float(np.mean(group)) for group in groups.values()]


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> Estimate:
    """The mean of unbounded ``values`` with Student's t interval (a single value gives an
    infinite one). Figures with bounds take :func:`bounded_mean_interval` instead."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return Estimate(math.nan, math.nan, math.nan, "t", small_sample=True)
    mean = float(data.mean())
    small = data.size < SMALL_SAMPLE
    if data.size == 1 or np.all(data == data[0]):
        half = math.inf if data.size == 1 else 0.0
        return Estimate(mean, mean - half, mean + half, "t", small)
    low, high = stats.t.interval(confidence, df=data.size - 1, loc=mean, scale=stats.sem(data))
    return Estimate(mean, float(low), float(high), "t", small)


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
