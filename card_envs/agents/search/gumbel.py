"""Gumbel search at the root (``algo=gumbel``): a network's policy improved by planning.

"Policy improvement by planning with Gumbel" (Danihelka, Guez, Schrittwieser & Silver, ICLR
2022): ``width`` moves are drawn without replacement from the network's policy by adding
Gumbel noise ``g`` to its logits and keeping the top ones; sequential halving then spends the
budget on them in rounds, keeping after each the better half by ``g + logits + sigma(q)``,
where ``q`` is a move's mean value over the shared sampled worlds (:mod:`.halving`: common
random numbers) and ``sigma`` a growing monotone transform. The move played is the best
survivor by the same score: with the noise, a sample whose expected value is at least the
policy's. The improved policy a network is trained towards is ``softmax(logits + sigma(
completed q))``, where a move never valued gets the mixed value of the root: the network's own
value, mixed with the prior-weighted mean of the moves valued (mctx's ``completed_by_mix_value``).

Two choices differ from mctx's defaults, for card games' noisy values: the values have a fixed
range (rank rewards, -1..1), so they are mapped to 0..1 by ``(q + 1) / 2`` rather than rescaled
by the minimum and maximum found (which would blow the noise between two near-equal moves up to
the full range), and ``sigma``'s scale is :data:`C_SCALE`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from card_envs.agents.search.halving import Halving, PlayMoves, halving_rounds
from card_envs.core.game import CardGame

#: ``sigma(q) = (C_VISIT + max visits) * C_SCALE * q`` for ``q`` in 0..1 (C_VISIT: mctx's
#: ``maxvisit_init``); at C_SCALE 0.5 a move 0.1 of rank reward better than another, valued
#: in 4 worlds, gains (50 + 4) * 0.5 * 0.05 = 1.35 in logits: about 4 times the probability
C_VISIT = 50.0
C_SCALE = 0.5


def softmax(x: np.ndarray) -> np.ndarray:
    weights = np.exp(x - x.max())
    return weights / weights.sum()


def sigma(q01: np.ndarray, max_visits: int) -> np.ndarray:
    """The monotone transform of values in 0..1 that the scores and the targets add to logits."""
    return (C_VISIT + max_visits) * C_SCALE * q01


def completed_values(
    logits: np.ndarray, means: np.ndarray, visits: np.ndarray, root_value: float | None
) -> np.ndarray:
    """Each move's value in 0..1: its mean where it was valued (``visits > 0``), else the mixed
    value: ``(v + N * sum_valued(p q) / sum_valued(p)) / (1 + N)`` with ``v`` the network's value
    of the root and ``N`` the visits in all (without ``root_value``: the weighted mean alone)."""
    q01 = (np.asarray(means, dtype=np.float64) + 1.0) / 2.0
    valued = visits > 0
    if not valued.any():
        mixed = 0.5 if root_value is None else (root_value + 1.0) / 2.0
        return np.full(len(logits), mixed)
    p = softmax(np.asarray(logits, dtype=np.float64))
    weighted = float((p[valued] * q01[valued]).sum() / p[valued].sum())
    if root_value is None:
        mixed = weighted
    else:
        total = float(visits.sum())
        mixed = ((root_value + 1.0) / 2.0 + total * weighted) / (1.0 + total)
    return np.where(valued, q01, mixed)


def improved_policy(
    logits: np.ndarray, means: np.ndarray, visits: np.ndarray, root_value: float | None
) -> np.ndarray:
    """``softmax(logits + sigma(completed values))``: the policy a network is fitted to."""
    completed = completed_values(logits, means, visits, root_value)
    return softmax(np.asarray(logits, dtype=np.float64) + sigma(completed, int(visits.max(initial=0))))


class GumbelHalving(Halving):
    """One root decision by Gumbel sequential halving over ``legal`` moves with ``logits``
    (over ``legal``, in its order) and ``noise`` (Gumbel draws, or zeros); ``width`` moves are
    considered; ``root_value``: the network's value of the root for the seat (or None)."""

    def __init__(
        self,
        legal: Sequence[int],
        logits: np.ndarray,
        noise: np.ndarray,
        width: int,
        sample_world: Callable[[], CardGame],
        play: PlayMoves,
        root_value: float | None = None,
    ) -> None:
        self.legal = list(legal)
        self.logits = np.asarray(logits, dtype=np.float64)
        self.noise = np.asarray(noise, dtype=np.float64)
        self.root_value = root_value
        order = np.argsort(-(self.noise + self.logits), kind="stable")[:width]
        super().__init__([self.legal[i] for i in order], sample_world, play)
        self.index = {a: i for i, a in enumerate(self.legal)}
        self.survivors = list(self.arms)

    def run(self, sims: int | None, ms: float | None) -> None:
        """Spend the budget in rounds, each an equal share of what is left, halving the moves."""
        arms = list(self.arms)
        rounds = halving_rounds(len(arms))
        sims = self._budget(arms, sims, ms)
        for left in range(rounds, 0, -1):
            if len(arms) < 2:
                break
            worlds = len(arms[0].rewards) + max(max(sims - self.sims, 0) // left // len(arms), 1)
            if not self._affordable(arms, worlds, sims):
                break
            self._play(arms, worlds)
            scores = self._scores()
            arms = sorted(arms, key=lambda arm: -scores[self.index[arm.action]])[: math.ceil(len(arms) / 2)]
        self.survivors = arms

    def _statistics(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean value and visits of every legal move (0 and 0 for a move never valued)."""
        means, visits = np.zeros(len(self.legal)), np.zeros(len(self.legal), np.int64)
        for arm in self.arms:
            if arm.rewards:
                means[self.index[arm.action]] = arm.mean()
                visits[self.index[arm.action]] = len(arm.rewards)
        return means, visits

    def _scores(self) -> np.ndarray:
        """``g + logits + sigma(completed values)`` of every legal move."""
        means, visits = self._statistics()
        completed = completed_values(self.logits, means, visits, self.root_value)
        return self.noise + self.logits + sigma(completed, int(visits.max(initial=0)))

    def choice(self, z: float = 0.0) -> int:
        """The best survivor of the last round by its score (``z`` is not used: no default move)."""
        scores = self._scores()
        return max((arm.action for arm in self.survivors), key=lambda a: scores[self.index[a]])

    def policy(self) -> np.ndarray:
        """The improved policy over ``legal`` (:func:`improved_policy`)."""
        means, visits = self._statistics()
        return improved_policy(self.logits, means, visits, self.root_value)
