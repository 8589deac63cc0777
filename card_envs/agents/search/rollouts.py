"""Valuing a leaf: its game played to the end by rollout players in every seat.

Many leaves are played out together on the compiled batched engine (their positions loaded
into rows with :meth:`BatchedGame.load_engine`, then :meth:`BatchedGame.play_out`: one compiled
call where the rollout player's twin has a row act); a game without a batched engine plays
them one by one on the reference engine. Either way a leaf's value is every seat's rank
reward at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numba
import numpy as np

from card_envs.batched import BatchedGame, rank_rewards_batch
from card_envs.batched.policy import batched_policy
from card_envs.core.game import CardGame
from card_envs.core.play import play_out
from card_envs.core.policy import Policy
from card_envs.core.ranking import rank_rewards
from card_envs.core.spec import GameSpec


class Rollouts(Protocol):
    def values(self, worlds: Sequence[CardGame], rng: np.random.Generator) -> np.ndarray:
        """Each seat's rank reward [L, N] at the end of each world's game, played out."""
        ...


def final_rewards(world: CardGame) -> list[float]:
    """Rank rewards of a game that is over (truncation ranks are the batch's business)."""
    return rank_rewards(world.final_ranks())


class BatchedRollouts:
    """Up to ``size`` leaves played out at once on the compiled engine of ``table``'s game."""

    def __init__(self, spec: GameSpec, table: CardGame, policy: Policy, size: int) -> None:
        self.batch = BatchedGame(spec, size, table.num_players, **table.rules)
        self.batch.reset(seed=0)
        self.twin = batched_policy(policy)

    def values(self, worlds: Sequence[CardGame], rng: np.random.Generator) -> np.ndarray:
        threads = numba.get_num_threads()
        numba.set_num_threads(1)  # a few rows gain nothing from threads, and lose much on a busy machine
        try:
            return self._play_out(worlds)
        finally:
            numba.set_num_threads(threads)

    def _play_out(self, worlds: Sequence[CardGame]) -> np.ndarray:
        out = np.zeros((len(worlds), self.batch.num_players))
        live: list[int] = []
        for i, world in enumerate(worlds):
            if world.is_over:
                out[i] = final_rewards(world)
            else:
                self.batch.load_engine(len(live), world)  # the world's own generator goes with it
                live.append(i)
        rows = np.arange(len(live), dtype=np.int64)
        self.twin.new_games(self.batch.generators, rows)
        if live:  # in one compiled call where the twin has a row act, else stepped
            out[live] = rank_rewards_batch(self.batch.play_out(rows, self.twin).ranks)
        return out


class ReferenceRollouts:
    """Leaves played out one by one on the reference engine (a game with no batched engine)."""

    def __init__(self, table: CardGame, policy: Policy) -> None:
        self.policies = [policy] * table.num_players

    def values(self, worlds: Sequence[CardGame], rng: np.random.Generator) -> np.ndarray:
        out = np.zeros((len(worlds), len(self.policies)))
        for i, world in enumerate(worlds):
            played = play_out(world, self.policies, rng, world.default_max_steps)
            ranks = world.truncation_ranks() if played.truncated else world.final_ranks()
            out[i] = rank_rewards(ranks)
        return out


def make_rollouts(spec: GameSpec, table: CardGame, policy: Policy, size: int) -> Rollouts:
    """Batched rollouts where the game has a compiled engine, else reference ones."""
    if spec.batched is None:
        return ReferenceRollouts(table, policy)
    return BatchedRollouts(spec, table, policy, size)
