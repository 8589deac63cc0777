"""Policies that act in many games of a batch at once, and the twin of any :class:`Policy`.

Apart from the batch front (:mod:`card_envs.batched.game`): a compiled rule agent or a
network brings its own twin (its ``batched()`` method); anything else plays row by row.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from card_envs.batched.sampling import random_act1, random_actions_per_game
from card_envs.core.policy import Policy, RandomAgent


class BatchedPolicy(ABC):
    """A policy that acts in many games at once: the batched twin of :class:`Policy`.

    ``generators`` holds one generator per game of the batch (a numba typed List);
    row ``i`` of ``observations`` and ``masks`` belongs to game ``rows[i]`` and draws
    only from ``generators[rows[i]]``, so each game replays from its own seed.
    """

    @abstractmethod
    def act(
        self, observations: np.ndarray, masks: np.ndarray, generators: Any, rows: np.ndarray
    ) -> np.ndarray:
        """One legal action per row."""

    def new_games(self, generators: Any, rows: np.ndarray) -> None:
        """Called when games ``rows`` are dealt; default: nothing."""
        return

    def row_act(self) -> tuple[Any, Any] | None:
        """``(a, act1)`` for a compiled play-out (:meth:`BatchedGame.play_out`): an njit
        ``act1(a, observation, mask, gen) -> action`` that decides one row as :meth:`act`
        does, and ``a``, the tuple of its knobs; None (the default) plays out step by step."""
        return None


class BatchedTwin(BatchedPolicy):
    """The compiled twin of one reference agent, whose knobs (checked by its constructor) it plays with."""

    agent: Any

    def __init__(self, agent: Policy) -> None:
        self.agent = agent

    def __repr__(self) -> str:
        return f"Batched{self.agent!r}"


class FieldsTwin(BatchedTwin):
    """The twin of a player that draws no random numbers and reads fixed fields of its
    observation: its module's njit ``rows(observations, masks, rows, starts, n, out)`` decides
    every row, ``act1(a, observation, mask, gen)`` one (``a`` = (starts, players)); ``starts``
    are the fields' offsets (``ObservationLayout.starts``). Set both as staticmethods."""

    rows: Any
    act1: Any

    def __init__(self, agent: Policy, starts: np.ndarray) -> None:
        super().__init__(agent)
        self._starts = starts

    def act(
        self, observations: np.ndarray, masks: np.ndarray, generators: Any, rows: np.ndarray
    ) -> np.ndarray:
        out = np.empty(rows.size, np.int64)
        type(self).rows(observations, masks, rows, self._starts, self.agent.num_players, out)
        return out

    def row_act(self) -> tuple[Any, Any]:
        return (self._starts, self.agent.num_players), type(self).act1


class BatchedRandomAgent(BatchedPolicy):
    """:class:`RandomAgent` for a batch: the same draws, so the same actions."""

    def act(
        self, observations: np.ndarray, masks: np.ndarray, generators: Any, rows: np.ndarray
    ) -> np.ndarray:
        out = np.empty(rows.size, np.int64)
        random_actions_per_game(masks, generators, rows, out)
        return out

    def row_act(self) -> tuple[Any, Any]:
        return (), random_act1

    def __repr__(self) -> str:
        return "BatchedRandomAgent()"


class LoopedPolicy(BatchedPolicy):
    """Any :class:`Policy` without a batched twin of its own (an RLlib model, a user's
    policy) acting row by row."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def act(
        self, observations: np.ndarray, masks: np.ndarray, generators: Any, rows: np.ndarray
    ) -> np.ndarray:
        return np.array(
            [
                self.policy.act(observations[i], masks[i], generators[row])
                for i, row in enumerate(rows.tolist())
            ],
            dtype=np.int64,
        )

    def new_games(self, generators: Any, rows: np.ndarray) -> None:
        for row in rows.tolist():
            self.policy.new_game(generators[row])

    def __repr__(self) -> str:
        return f"LoopedPolicy({self.policy!r})"


def batched_policy(policy: Policy | BatchedPolicy) -> BatchedPolicy:
    """The batched twin of ``policy``: its own ``batched()`` where it has one (the rule-based
    agents' compiled twins, same knobs; trained networks: one forward pass for many games),
    compiled for the random agent, looped row by row for any other policy."""
    if isinstance(policy, BatchedPolicy):
        return policy
    own_twin = getattr(policy, "batched", None)
    twin: BatchedPolicy | None = own_twin() if callable(own_twin) else None
    if twin is not None:
        return twin
    if type(policy) is RandomAgent:
        return BatchedRandomAgent()
    if policy.reads_game:
        raise ValueError(
            f"{policy!r} decides from the game itself, which a batch row does not hold:"
            " seat it in the single-agent env (train.py without --vectorized) or a tournament"
        )
    return LoopedPolicy(policy)
