"""Ranks and the zero-sum rank rewards shared by all games (docs/rules/, "Rewards")."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence


def ranks_by_key(players: Iterable[int], key: Callable[[int], Hashable]) -> dict[int, int]:
    """Rank players by ascending ``key`` (1 = best); equal keys share the better rank."""
    ordered = sorted(players, key=key)  # type: ignore[arg-type]
    ranks: dict[int, int] = {}
    for position, player in enumerate(ordered):
        previous = ordered[position - 1] if position else None
        if previous is not None and key(previous) == key(player):
            ranks[player] = ranks[previous]
        else:
            ranks[player] = position + 1
    return ranks


def ranks_after_finishers(
    num_players: int, finished: Mapping[int, int], key: Callable[[int], Hashable]
) -> list[int]:
    """The one ranking rule of every game: finished players keep their ranks, the rest follow.

    Players in ``finished`` (seat -> rank) keep their rank; the others are
    ranked after them by ascending ``key`` (e.g. cards held), ties sharing.
    """
    ranks = [0] * num_players
    for seat, rank in finished.items():
        ranks[seat] = rank
    still_in = [p for p in range(num_players) if p not in finished]
    for seat, rank in ranks_by_key(still_in, key).items():
        ranks[seat] = rank + len(finished)
    return ranks


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
