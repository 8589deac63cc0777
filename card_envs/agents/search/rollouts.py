"""Valuing a leaf: its game played to the end by rollout players in every seat.

The searching seat is played by its own player (the rollout player without lapses, see
:class:`~card_envs.agents.search.settings.SearchSettings` ``own``), every other seat by the
rollout player. Many leaves are played out together on the compiled batched engine (their
positions loaded into rows with :meth:`BatchedGame.load_engine`, then
:meth:`BatchedGame.play_out`: one compiled call where the players' twins share a row act); a
game without a batched engine plays them one by one on the reference engine. Either way a
leaf's value is every seat's rank reward at the end, or, where a ``horizon`` cuts the
rollout short, the rank reward of the game's truncation ranks (:meth:`CardGame.truncation_ranks`:
the finished keep their ranks, the others are ranked by what they hold), or, given a ``leaf``
value function (a network's value head, ``search:value=net``), each seat's value of the
position where the rollout stopped, read from that seat's own observation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numba
import numpy as np

from card_envs.batched import BatchedGame, rank_rewards_batch
from card_envs.batched.policy import BatchedPolicy, batched_policy
from card_envs.core.game import CardGame
from card_envs.core.play import play_out
from card_envs.core.policy import Policy
from card_envs.core.ranking import rank_rewards
from card_envs.core.spec import GameSpec


class Rollouts(Protocol):
    def values(self, worlds: Sequence[CardGame], seat: int, rng: np.random.Generator) -> np.ndarray:
        """Each seat's rank reward [L, N] at the end of each world's game, played out with
        ``seat`` played by its own player."""
        ...

    def values_after(
        self, worlds: Sequence[CardGame], moves: Sequence[Sequence[int]], seat: int, rng: np.random.Generator
    ) -> list[np.ndarray]:
        """For each world, each seat's rank reward [M, N] after each of ``moves[k]`` (moves of
        the seat deciding in that world), every move played in a copy of the same world, its
        generator included, then played out."""
        ...


#: a leaf's value: each observing seat's expected rank reward [R] from its observations [R, D]
LeafValue = Callable[[np.ndarray], np.ndarray]


def final_rewards(world: CardGame) -> list[float]:
    """Rank rewards of a game that is over (truncation ranks are the batch's business)."""
    return rank_rewards(world.final_ranks())


class BatchedRollouts:
    """Leaves played out ``size`` at a time on the compiled engine of ``table``'s game, for at
    most ``horizon`` actions each (None: to the end); a leaf cut short is valued by its
    truncation ranks, or by ``leaf`` where given."""

    def __init__(
        self,
        spec: GameSpec,
        table: CardGame,
        policy: Policy,
        own: Policy,
        size: int,
        horizon: int | None,
        leaf: LeafValue | None = None,
    ) -> None:
        self.batch = BatchedGame(spec, size, table.num_players, max_steps=horizon, **table.rules)
        self.batch.reset(seed=0)
        self.twin = batched_policy(policy)
        self.own = batched_policy(own)
        self.leaf = leaf

    def _rewards(self, rows: np.ndarray, ranks: np.ndarray, truncated: np.ndarray) -> np.ndarray:
        """Each seat's reward [R, N] at the end of games ``rows``: their rank rewards, or where a
        game was cut short and a ``leaf`` value is given, each seat's value from its observation."""
        rewards = rank_rewards_batch(ranks)
        cut = rows[truncated]
        if self.leaf is not None and cut.size:
            for seat in range(self.batch.num_players):
                seats = np.full(cut.size, seat, np.int64)
                rewards[truncated, seat] = self.leaf(self.batch.observe(cut, seats))
        return rewards

    def values(self, worlds: Sequence[CardGame], seat: int, rng: np.random.Generator) -> np.ndarray:
        threads = numba.get_num_threads()
        numba.set_num_threads(1)  # a few rows gain nothing from threads, and lose much on a busy machine
        players = [self.own if s == seat else self.twin for s in range(self.batch.num_players)]
        size = self.batch.batch_size
        try:
            parts = [self._play_out(worlds[i : i + size], players) for i in range(0, len(worlds), size)]
        finally:
            numba.set_num_threads(threads)
        return np.concatenate(parts) if parts else np.zeros((0, self.batch.num_players))

    def values_after(
        self, worlds: Sequence[CardGame], moves: Sequence[Sequence[int]], seat: int, rng: np.random.Generator
    ) -> list[np.ndarray]:
        """Each world loaded into a row once and copied into a row per move (no engine is cloned),
        the moves stepped together, then every row played out in one call."""
        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        players = [self.own if s == seat else self.twin for s in range(self.batch.num_players)]
        out: list[np.ndarray] = []
        chunk: list[int] = []
        try:
            for k in range(len(worlds) + 1):
                if (
                    k == len(worlds)
                    or sum(len(moves[i]) for i in chunk) + len(moves[k]) > self.batch.batch_size
                ):
                    out += self._moves_played(worlds, moves, chunk, players)
                    chunk = []
                if k < len(worlds):
                    chunk.append(k)
        finally:
            numba.set_num_threads(threads)
        return out

    def _moves_played(
        self,
        worlds: Sequence[CardGame],
        moves: Sequence[Sequence[int]],
        chunk: list[int],
        players: list[BatchedPolicy],
    ) -> list[np.ndarray]:
        if not chunk:
            return []
        batch, row, actions = self.batch, 0, []
        for k in chunk:
            batch.load_engine(row, worlds[k])  # the world's own generator goes with it
            batch.copy_row(row, np.arange(row + 1, row + len(moves[k])))
            row += len(moves[k])
            actions += list(moves[k])
        rows = np.arange(row, dtype=np.int64)
        stepped = batch.step(np.asarray(actions, np.int64), rows, reset_ended=False)
        ranks, truncated = stepped.ranks, stepped.truncated.copy()
        live = rows[batch.masks[rows].any(axis=1)]
        for twin in {id(p): p for p in players}.values():
            twin.new_games(batch.generators, live)
        if live.size:
            played = batch.play_out(live, players)
            ranks[live], truncated[live] = played.ranks, played.truncated
        rewards = self._rewards(rows, ranks, truncated)
        starts = np.cumsum([0] + [len(moves[k]) for k in chunk])
        return [rewards[starts[i] : starts[i + 1]] for i in range(len(chunk))]

    def _play_out(self, worlds: Sequence[CardGame], players: list[BatchedPolicy]) -> np.ndarray:
        out = np.zeros((len(worlds), self.batch.num_players))
        live: list[int] = []
        for i, world in enumerate(worlds):
            if world.is_over:
                out[i] = final_rewards(world)
            else:
                self.batch.load_engine(len(live), world)  # the world's own generator goes with it
                live.append(i)
        rows = np.arange(len(live), dtype=np.int64)
        for twin in {id(p): p for p in players}.values():
            twin.new_games(self.batch.generators, rows)
        if live:  # in one compiled call where the twins share a row act, else stepped
            played = self.batch.play_out(rows, players)
            out[live] = self._rewards(rows, played.ranks, played.truncated)
        return out


class ReferenceRollouts:
    """Leaves played out one by one on the reference engine (a game with no batched engine),
    for at most ``horizon`` actions each (None: to the end or the game's step cap)."""

    def __init__(
        self, table: CardGame, policy: Policy, own: Policy, horizon: int | None, leaf: LeafValue | None = None
    ) -> None:
        self.policy = policy
        self.own = own
        self.num_players = table.num_players
        self.horizon = horizon
        self.leaf = leaf

    def values(self, worlds: Sequence[CardGame], seat: int, rng: np.random.Generator) -> np.ndarray:
        out = np.zeros((len(worlds), self.num_players))
        players = [self.own if s == seat else self.policy for s in range(self.num_players)]
        for i, world in enumerate(worlds):
            played = play_out(world, players, rng, self.horizon or world.default_max_steps)
            if played.truncated and self.leaf is not None:
                out[i] = self.leaf(np.stack([world.observe(s) for s in range(self.num_players)]))
            else:
                out[i] = rank_rewards(world.truncation_ranks() if played.truncated else world.final_ranks())
        return out

    def values_after(
        self, worlds: Sequence[CardGame], moves: Sequence[Sequence[int]], seat: int, rng: np.random.Generator
    ) -> list[np.ndarray]:
        out = []
        for world, its_moves in zip(worlds, moves, strict=True):
            positions = []
            for move in its_moves:
                position = world.clone()
                position.step(move)
                positions.append(position)
            out.append(self.values(positions, seat, rng))
        return out


def make_rollouts(
    spec: GameSpec,
    table: CardGame,
    policy: Policy,
    own: Policy,
    size: int,
    horizon: int | None = None,
    leaf: LeafValue | None = None,
) -> Rollouts:
    """Batched rollouts where the game has a compiled engine, else reference ones; ``own``
    plays the searching seat, ``policy`` every other; ``horizon`` caps each rollout's actions,
    and ``leaf`` values a position where it cut one short."""
    if spec.batched is None:
        return ReferenceRollouts(table, policy, own, horizon, leaf)
    return BatchedRollouts(spec, table, policy, own, size, horizon, leaf)
