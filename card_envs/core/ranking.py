"""Ranks and the zero-sum rank rewards shared by all games (docs/rules/, "Rewards").

The ranking rule is written once, in :func:`rank_rest`, as plain loops over arrays: the
reference engines call it through :func:`ranks_after_finishers`, and each game's kernels
compile this very function (``numba.njit(cache=True)(rank_rest)``), so the core itself
needs no numba.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, MutableSequence, Sequence

import numpy as np


def ranks_by_key(players: Iterable[int], key: Callable[[int], Hashable]) -> dict[int, int]:
    """Rank players by ascending ``key`` (1 = best); equal keys share the better rank."""
    ordered = sorted(players, key=key)  # type: ignore[arg-type]
    ranks = [0] * len(ordered)
    rank_rest([0] * len(ordered), _places([key(p) for p in ordered]), ranks)
    return dict(zip(ordered, ranks, strict=True))


def _places(keys: list[Hashable]) -> list[int]:
    """Each key's place among the distinct keys, in ascending order: the int keys of :func:`rank_rest`."""
    place = {k: i for i, k in enumerate(sorted(set(keys)))}  # type: ignore[type-var]
    return [place[k] for k in keys]


def ranks_after_finishers(
    num_players: int, finished: Mapping[int, int], key: Callable[[int], Hashable]
) -> list[int]:
    """The one ranking rule of every game: finished players keep their ranks, the rest follow.

    Players in ``finished`` (seat -> rank) keep their rank; the others are
    ranked after them by ascending ``key`` (e.g. cards held), ties sharing.
    """
    still_in = [p for p in range(num_players) if p not in finished]
    keys = [0] * num_players  # a finished seat's key is never read
    for p, k in zip(still_in, _places([key(p) for p in still_in]), strict=True):
        keys[p] = k
    ranks = [0] * num_players
    rank_rest([finished.get(p, 0) for p in range(num_players)], keys, ranks)
    return ranks


def rank_rest(
    finish_ranks: Sequence[int] | np.ndarray,
    keys: Sequence[int] | np.ndarray,
    out: MutableSequence[int] | np.ndarray,
) -> None:
    """:func:`ranks_after_finishers` on arrays (or lists): ``out[p]`` is ``finish_ranks[p]`` for a
    finished seat (a rank > 0), else one more than the finished seats and than the seats still
    in with a smaller ``keys[q]`` (ints; equal keys share a rank)."""
    n = len(keys)
    done = 0
    for p in range(n):
        if finish_ranks[p] > 0:
            done += 1
    for p in range(n):
        if finish_ranks[p] > 0:
            out[p] = finish_ranks[p]
            continue
        rank = done + 1
        for q in range(n):
            if finish_ranks[q] <= 0 and keys[q] < keys[p]:
                rank += 1
        out[p] = rank


def rank_reward(rank: int, num_players: int) -> float:
    """Reward of a single rank: 1 for the best, -1 for the worst, linear between."""
    return 1.0 - 2.0 * (rank - 1) / (num_players - 1)


def rank_rewards(ranks: Sequence[int]) -> list[float]:
    """Reward per seat; players tied on a rank share the mean of the places they fill."""
    n = len(ranks)
    rewards = []
    for rank in ranks:
        tied = sum(1 for r in ranks if r == rank)
        places = range(rank, rank + tied)
        rewards.append(sum(rank_reward(r, n) for r in places) / tied)
    return rewards
