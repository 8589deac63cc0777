"""The single-agent env for many games at once, on a batched engine (:mod:`card_envs.batched.game`).

:class:`BatchedCardGameEnv` is a ``gymnasium.vector.VectorEnv`` whose game ``b`` plays
exactly as a :class:`~card_envs.envs.single.CardGameEnv` reset with seed ``seed + b``
and fed the same learner actions: the learner's seat, the deal and every opponent's
choice are drawn from that game's own generator in the same order, and the rule-based
and random opponents run compiled (:func:`~card_envs.batched.game.batched_policy`).
``tests/test_vector_env.py`` checks the two side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space
from numba import typed

from card_envs.batched.game import BatchedGame, BatchStep, rank_rewards_batch
from card_envs.batched.policy import BatchedPolicy, batched_policy
from card_envs.core.checks import check_bool, check_float, check_int
from card_envs.core.game import SEED_BOUND
from card_envs.core.policy import Policy
from card_envs.core.registry import GameRef
from card_envs.core.table import Table
from card_envs.envs.seating import Seating, progress_lead, redeal, shaping_reward
from card_envs.envs.single import observation_box

try:  # gymnasium >= 1.1 names the autoreset modes (RLlib pins 1.2)
    from gymnasium.vector import AutoresetMode

    SAME_STEP: Any = AutoresetMode.SAME_STEP
except ImportError:  # pragma: no cover
    SAME_STEP = "SameStep"


@dataclass
class Ends:
    """Which games' episodes ended in a step, how, and their ranks (arrays over the batch)."""

    ended: np.ndarray
    truncated: np.ndarray
    ranks: np.ndarray

    @classmethod
    def none(cls, num_envs: int, num_players: int) -> Ends:
        return cls(
            np.zeros(num_envs, np.bool_),
            np.zeros(num_envs, np.bool_),
            np.zeros((num_envs, num_players), np.int64),
        )

    def note(self, rows: np.ndarray, result: BatchStep) -> None:
        over = rows[result.ended]
        self.ended[over] = True
        self.truncated[over] = result.truncated[result.ended]
        self.ranks[over] = result.ranks[result.ended]


class BatchedCardGameEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` single-agent games (a learner seat against policies) stepped together.

    Arguments are those of :class:`~card_envs.envs.single.CardGameEnv`, for every game.
    A game whose episode ends is dealt again in the same step (``autoreset_mode``
    SAME_STEP): the returned observation is the new game's, and ``infos["final_obs"]``
    holds the learner's last observation of the finished one. ``infos`` carries per
    game ``rank`` and ``rank_reward`` (0 until the episode ends), ``learner_seat`` and
    ``action_mask``; :meth:`action_masks` gives the learner's legal actions.

    Args:
        game: a game with a batched engine.
        num_envs: games stepped together.
        num_players: seats per game.
        opponents: one Policy (or BatchedPolicy, used as it is) for every other seat, or one
            per other seat in seat order after the learner; None: uniformly random players.
        learner_seat: a seat, or ``"random"`` to draw it at each deal.
        max_steps: step cap per game (all seats' actions).
        reward_shaping: weight of the dense, zero-sum progress reward (as in CardGameEnv).
        shaping_discount: the learner's discount factor, for the shaping (as in CardGameEnv).
        mask_in_observation: append the legal-action mask to the observation.
        **rules: the game's variant keywords.
    """

    metadata = {"autoreset_mode": SAME_STEP}

    def __init__(
        self,
        game: Table | GameRef = "uno",
        num_envs: int = 64,
        num_players: int | None = None,
        opponents: Policy | BatchedPolicy | Sequence[Policy | BatchedPolicy] | None = None,
        learner_seat: int | str = "random",
        max_steps: int | None = None,
        reward_shaping: float = 0.0,
        shaping_discount: float = 1.0,
        mask_in_observation: bool = False,
        **rules: Any,
    ) -> None:
        self.batch = BatchedGame(game, num_envs, num_players, max_steps=max_steps, **rules)
        self.table = self.batch.table
        self.num_players = self.batch.num_players
        self.num_envs = num_envs
        self.seating = self._seating(learner_seat, opponents)
        self.reward_shaping = check_float("reward_shaping", reward_shaping, 0.0, 100.0)
        self.shaping_discount = check_float("shaping_discount", shaping_discount, 0.0, 1.0)
        self.mask_in_observation = check_bool("mask_in_observation", mask_in_observation)
        self.single_observation_space = observation_box(self.batch.reference, self.mask_in_observation)
        self.single_action_space = spaces.Discrete(self.batch.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.generators = typed.List([np.random.default_rng(b) for b in range(num_envs)])
        self.learners = np.zeros(num_envs, np.int64)
        self._lead = np.zeros(num_envs)
        self._dealt_holding = np.ones(num_envs)

    def _seating(
        self,
        learner_seat: object,
        opponents: Policy | BatchedPolicy | Sequence[Policy | BatchedPolicy] | None,
    ) -> Seating[BatchedPolicy]:
        """The seating with one batched policy per other seat (a policy given once is converted once)."""
        given = Seating.build(self.num_players, learner_seat, opponents, kinds=(Policy, BatchedPolicy))
        converted = {id(policy): batched_policy(policy) for policy in given.distinct()}
        return Seating(self.num_players, given.learner_seat, [converted[id(p)] for p in given.opponents])

    @property
    def opponents(self) -> list[BatchedPolicy]:
        """One batched policy per other seat, in seat order after the learner."""
        return self.seating.opponents

    # ------------------------------------------------------------------ API
    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:
            seed = check_int("seed", seed, 0, SEED_BOUND - self.num_envs)
            for b in range(self.num_envs):
                self.generators[b] = np.random.default_rng(seed + b)
        elif options is None or not options.get("keep_generators"):
            entropy = np.random.SeedSequence()
            for b, child in enumerate(entropy.spawn(self.num_envs)):
                self.generators[b] = np.random.default_rng(child)
        self._new_episodes(self.batch.all_rows)
        return self._observations(), self._infos(np.zeros(self.num_envs), np.zeros(self.num_envs))

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        ends = Ends.none(self.num_envs, self.num_players)
        ends.note(self.batch.all_rows, self.batch.step(np.asarray(actions), reset_ended=False))
        self._play_opponents(self.batch.all_rows[~ends.ended], ends)
        rewards = np.zeros(self.num_envs)
        if self.reward_shaping:  # the potential is 0 in a game that has ended
            lead = np.where(ends.ended, 0.0, self._progress_lead())
            rewards += shaping_reward(self.reward_shaping, self.shaping_discount, self._lead, lead)
            self._lead = lead
        rank = np.zeros(self.num_envs, np.int64)
        rank_reward = np.zeros(self.num_envs)
        done = np.flatnonzero(ends.ended)
        infos = {}
        if done.size:
            learners = self.learners[done]
            rank[done] = ends.ranks[done, learners]
            rank_reward[done] = rank_rewards_batch(ends.ranks[done])[np.arange(done.size), learners]
            rewards[done] += rank_reward[done]
            final = self._observations_of(done)
            infos["final_obs"] = np.full(self.num_envs, None, dtype=object)
            infos["_final_obs"] = ends.ended.copy()
            for i, b in enumerate(done.tolist()):
                infos["final_obs"][b] = final[i]
            self._new_episodes(done)
        infos.update(self._infos(rank, rank_reward))
        terminated = ends.ended & ~ends.truncated
        return self._observations(), rewards, terminated, ends.truncated.copy(), infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game [num_envs, A] (it decides in all of them)."""
        return self.batch.masks.copy()

    def call_opponents(self, method: str, *args: Any) -> int:
        """Call ``method(*args)`` on each opponent policy that has it (a self-play pool's
        ``add_snapshot``); returns how many did."""
        called = 0
        for opponent in self.seating.distinct():
            policy = getattr(opponent, "policy", opponent)
            if hasattr(policy, method):
                getattr(policy, method)(*args)
                called += 1
        return called

    def state_dict(self, index: int) -> dict[str, Any]:
        return self.batch.state_dict(index)

    # ------------------------------------------------------------- helpers
    def _new_episodes(self, rows: np.ndarray) -> None:
        """Deal new games in ``rows`` and play the opponents up to the learner's first decision;
        a game the learner never gets to decide in is dealt again (as CardGameEnv does)."""

        def deal() -> bool:
            nonlocal rows
            seeds = np.empty(rows.size, np.int64)
            for i, b in enumerate(rows.tolist()):
                gen = self.generators[b]
                self.learners[b] = self.seating.draw(gen)
                seeds[i] = int(gen.integers(SEED_BOUND))
            self.batch.deal(rows, seeds=seeds)
            if self.reward_shaping:  # CardGame.reset: the mean holding right after the deal
                self._dealt_holding[rows] = np.maximum(1.0, self.batch.held(rows).mean(axis=1))
            for policy in self.opponents:
                policy.new_games(self.generators, rows)
            ends = Ends.none(self.num_envs, self.num_players)
            self._play_opponents(rows, ends)
            if self.reward_shaping:
                self._lead[rows] = self._progress_lead()[rows]
            rows = rows[ends.ended[rows]]
            return not rows.size

        redeal(deal)

    def _play_opponents(self, rows: np.ndarray, ends: Ends) -> None:
        """Let the other seats act in games ``rows`` until the learner decides or the game ends
        (noted in ``ends``)."""
        batch = self.batch
        active = rows[batch.current_players[rows] != self.learners[rows]]
        while active.size:
            opponent = self.seating.opponent_index(batch.current_players[active], self.learners[active])
            actions = np.empty(active.size, np.int64)
            for k in np.unique(opponent).tolist():
                pick = np.flatnonzero(opponent == k)
                games = active[pick]
                actions[pick] = self.opponents[k].act(
                    batch.observations[games], batch.masks[games], self.generators, games
                )
            result = batch.step(actions, active, reset_ended=False)
            ends.note(active, result)
            active = active[~result.ended]
            active = active[batch.current_players[active] != self.learners[active]]

    def _progress_lead(self) -> np.ndarray:
        """Each game's shaping potential (:func:`~card_envs.envs.seating.progress_lead`), from
        the batch's progress: the share shed of the mean holding at the deal."""
        progress = 1.0 - self.batch.held(self.batch.all_rows) / self._dealt_holding[:, None]
        return progress_lead(progress.T, self.learners)

    def _observations(self) -> np.ndarray:
        return self._with_mask(self.batch.observations.copy())

    def _observations_of(self, rows: np.ndarray) -> np.ndarray:
        return self._with_mask(self.batch.observe(rows, self.learners[rows]), rows, over=True)

    def _with_mask(
        self, observations: np.ndarray, rows: np.ndarray | None = None, over: bool = False
    ) -> np.ndarray:
        if not self.mask_in_observation:
            return observations
        masks = np.zeros((observations.shape[0], self.batch.num_actions), np.float32)
        if not over:
            masks[:] = self.batch.masks if rows is None else self.batch.masks[rows]
        return np.concatenate([observations, masks], axis=1)

    def _infos(self, rank: np.ndarray, rank_reward: np.ndarray) -> dict[str, Any]:
        return {
            "rank": rank.astype(np.int64),
            "rank_reward": rank_reward.astype(np.float64),
            "learner_seat": self.learners.copy(),
            "action_mask": self.action_masks(),
            "illegal_action": np.zeros(self.num_envs, np.int64),
        }
