"""Uniformly random legal actions, compiled: the draws ``RandomAgent`` makes, for kernels and batches."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def random_legal(mask, gen):
    """A uniformly random legal action of ``mask``, drawn as ``RandomAgent`` draws it."""
    count = 0
    for a in range(mask.size):
        count += mask[a]
    k = gen.integers(0, count)
    for a in range(mask.size):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True)
def random_act1(a, observation, mask, gen):
    """:func:`random_legal` as one row's act of a compiled play-out (no knobs in ``a``)."""
    return random_legal(mask, gen)


@njit(cache=True)
def _random_actions(masks, gen, out):
    for b in range(masks.shape[0]):
        out[b] = random_legal(masks[b], gen)


@njit(cache=True)
def random_actions_per_game(masks, gens, rows, out):
    for i in range(rows.size):
        out[i] = random_legal(masks[i], gens[rows[i]])


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (each row needs a legal one)."""
    out = np.empty(masks.shape[0], np.int64)
    _random_actions(masks, rng, out)
    return out
