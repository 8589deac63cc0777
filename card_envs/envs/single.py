"""One single-agent Gymnasium env for every game: a learner seat against policies."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from card_envs.core.checks import check_bool, check_choice, check_float
from card_envs.core.game import CardGame, IllegalActionError, check_max_steps
from card_envs.core.play import decide
from card_envs.core.policy import Policy
from card_envs.core.ranking import rank_rewards
from card_envs.core.registry import GameRef
from card_envs.core.table import Table
from card_envs.envs.common import (
    RENDER_MODES,
    attach_recorder,
    check_render_mode,
    check_seat,
    render_game,
)
from card_envs.envs.seating import Seating, progress_lead, redeal, shaping_reward


def with_mask(observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
    """The observation with the legal-action mask appended (``mask_in_observation``); rows
    of observations get their rows of masks."""
    return np.concatenate([observation, action_mask.astype(np.float32)], axis=-1)


def observation_box(game: CardGame, mask_in_observation: bool) -> spaces.Box:
    """A learner's observation space: the game's fields, then the mask if it is appended."""
    layout = game.observation_layout
    low, high = layout.low, layout.high
    if mask_in_observation:
        low = np.concatenate([low, np.zeros(game.num_actions, np.float32)])
        high = np.concatenate([high, np.ones(game.num_actions, np.float32)])
    return spaces.Box(low, high, dtype=np.float32)


class CardGameEnv(gymnasium.Env):
    """The learner plays one seat; the other seats are played by policies inside ``step``.

    ``step`` applies the learner's action, then lets the policies act until it
    is the learner's decision again (windows included: a knock or catch the
    learner may make) or the game ends. The reward is the learner's own rank
    reward, paid at the end, a loss included; with ``reward_shaping`` it also
    gets a dense, zero-sum progress reward (below), and ``info["rank_reward"]``
    holds the true rank reward at the end of every episode. The legal-action mask comes from
    :meth:`action_masks` (what sb3-contrib's MaskablePPO calls; a method of
    the class so it survives ``SubprocVecEnv``) and from ``info["action_mask"]``.

    Opponents are :class:`~card_envs.core.policy.Policy` objects. To name them
    by spec (``"rule"``, ``"random"``, ``"model:PATH"``, knobs included) use
    ``gymnasium.make("card_envs/Uno-v0", opponents="rule")`` or
    :func:`agents.make_env`, which resolve the specs and build this env.

    Args:
        game: engine name (``"uno"``, ``"tock"``, ``"chipit"``) or class.
        num_players: seats at the table (the game's default if None).
        opponents: one Policy for every other seat, or a sequence with one per
            other seat in seat order after the learner; None: uniformly random players.
        learner_seat: a seat number, or ``"random"`` to draw it at each reset.
        illegal_action: what a masked-out or invalid learner action does:
            ``"raise"`` (default) raises :class:`IllegalActionError` and changes
            nothing; ``"lose"`` ends the episode with the worst reward (-1), for
            algorithms without masking; ``"random"`` plays a uniformly random
            legal action instead (``info["illegal_action"]`` is then 1).
        max_steps: step cap of the whole game (all seats' actions).
        reward_shaping: weight ``w`` of a dense reward from the game's progress
            measure (:meth:`CardGame.progress`, e.g. cards shed): after each of
            the learner's steps it gets ``w * (shaping_discount * lead' - lead)``,
            where ``lead`` is its progress minus the mean of the others', and
            ``lead'`` is 0 once the game has ended. So the shaping of a game sums
            to a constant (minus ``w`` times the lead after the deal): a
            potential-based, zero-sum signal that moves credit to the moves that
            earn it and leaves the rank reward the only thing a game is worth
            (:func:`~card_envs.envs.seating.shaping_reward`). 0 (default) pays
            the rank reward alone.
        shaping_discount: the learner's discount factor (PPO's ``gamma``), so
            that the discounted shaping sums to that constant too (default 1).
        mask_in_observation: append the legal-action mask to the observation
            vector (0/1 floats after the game's fields): MaskablePPO masks the
            policy's output but never shows the network which moves are legal.
        render_mode: None, ``"ansi"``, ``"human"`` or ``"rgb_array"`` (the table as an image);
            ``"human"`` shows the deal, each opponent's move as a line, and the table at each
            of the learner's decisions.
        render_seat: whose view to render, others' hands hidden: a seat, ``"learner"``, or
            None (default) for the full table.
        record_dir: write every game there as a JSON Lines record (all seats'
            actions; :mod:`card_envs.records.record`) that ``card_envs.replay(path)`` plays again.
        **rules: the game's variant keywords.
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 1}

    def __init__(
        self,
        game: Table | GameRef | type[CardGame] = "uno",
        num_players: int | None = None,
        opponents: Policy | Sequence[Policy] | None = None,
        learner_seat: int | str = "random",
        illegal_action: str = "raise",
        max_steps: int | None = None,
        reward_shaping: float = 0.0,
        shaping_discount: float = 1.0,
        mask_in_observation: bool = False,
        render_mode: str | None = None,
        record_dir: str | Path | None = None,
        render_seat: int | str | None = None,
        **rules: Any,
    ) -> None:
        #: the game, its player count and rules (:class:`~card_envs.core.table.Table`)
        self.table = Table.of(game, num_players, **rules)
        self.game = self.table.engine()
        self.recorder = attach_recorder(self.game, record_dir)
        self.render_seat = "learner" if render_seat == "learner" else check_seat(render_seat, self.game)
        self.seating: Seating[Policy] = Seating.build(self.game.num_players, learner_seat, opponents)
        self.illegal_action = check_choice("illegal_action", illegal_action, ["raise", "lose", "random"])
        self.render_mode = check_render_mode(render_mode)
        self.max_steps = check_max_steps(max_steps, self.game)
        self.reward_shaping = check_float("reward_shaping", reward_shaping, 0.0, 100.0)
        self.shaping_discount = check_float("shaping_discount", shaping_discount, 0.0, 1.0)
        self._lead = 0.0
        self.mask_in_observation = check_bool("mask_in_observation", mask_in_observation)
        self.observation_space = observation_box(self.game, self.mask_in_observation)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.learner = 0
        self.num_steps = 0
        self._forfeited = False

    @property
    def opponents(self) -> list[Policy]:
        """One policy per other seat, in seat order after the learner."""
        return self.seating.opponents

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        redeal(self._deal)
        self._lead = self._progress_lead()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: Any):
        if self._episode_over:
            raise RuntimeError("the episode is over; call reset()")
        illegal = False
        try:
            action = self.game.check_action(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            illegal = True
            if self.illegal_action == "lose":
                self._forfeited = True
                info = {
                    **self._info(),
                    "illegal_action": 1,
                    "rank": self.game.num_players,
                    "rank_reward": -1.0,
                }
                reward = -1.0 + shaping_reward(self.reward_shaping, self.shaping_discount, self._lead, 0.0)
                return self._observation(), reward, True, False, info
            action = int(self.np_random.choice(self.game.legal_actions()))
        self.game.step(action)
        self.num_steps += 1
        self._play_opponents()
        terminated = self.game.is_over
        truncated = not terminated and self.num_steps >= self.max_steps
        reward = 0.0
        if self.reward_shaping:
            lead = 0.0 if terminated or truncated else self._progress_lead()
            reward += shaping_reward(self.reward_shaping, self.shaping_discount, self._lead, lead)
            self._lead = lead
        info = self._info()
        info["illegal_action"] = int(illegal)
        if terminated or truncated:
            ranks = self.game.final_ranks() if terminated else self.game.truncation_ranks()
            info["rank"] = ranks[self.learner]
            info["rank_reward"] = rank_rewards(ranks)[self.learner]
            reward += info["rank_reward"]
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now (all zeros once the episode is over)."""
        if self._episode_over or self.game.current_player != self.learner:
            return np.zeros(self.game.num_actions, dtype=np.int8)
        return self.game.action_mask().copy()

    def call_opponents(self, method: str, *args: Any) -> int:
        """Call ``method(*args)`` on each opponent that has it (e.g. a self-play pool's
        ``add_snapshot``); returns how many did. VecEnvs reach it through ``env_method``."""
        called = 0
        for policy in self.seating.distinct():
            if hasattr(policy, method):
                getattr(policy, method)(*args)
                called += 1
        return called

    def render(self) -> str | np.ndarray | None:
        seat = self.learner if self.render_seat == "learner" else self.render_seat
        return render_game(self.game, self.render_mode, seat if isinstance(seat, int) else None)

    def state_dict(self) -> dict[str, Any]:
        return self.game.state_dict()

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.save()  # the game in play, ended or not

    # ------------------------------------------------------------- helpers
    def _deal(self) -> bool:
        """Seat the learner, deal, and play the opponents up to its first decision; False (the
        deal's record discarded) when the episode ended before it."""
        self.learner = self.seating.draw(self.np_random)
        if self.recorder is not None:
            self.recorder.name_next(players=self.seating.names(self.learner))
        self.game.reset(self.np_random)
        self.seating.new_game(self.np_random)
        self.num_steps = 0
        self._forfeited = False
        self._play_opponents()
        if not self._episode_over:
            return True
        if self.recorder is not None:
            self.recorder.discard()
        return False

    @property
    def _episode_over(self) -> bool:
        return self._forfeited or self.game.is_over or self.num_steps >= self.max_steps

    def _play_opponents(self) -> None:
        """Let the other seats act until the learner decides or the episode ends."""
        game = self.game
        while not self._episode_over and game.current_player != self.learner:
            seat = game.current_player
            policy = self.seating.policy_at(seat, self.learner)
            action = decide(policy, game, game.observe(seat), game.action_mask(), self.np_random)
            game.step(action)
            self.num_steps += 1
            if self.render_mode == "human":
                print(game.last_move(), flush=True)

    def _progress_lead(self) -> float:
        """The shaping potential (:func:`~card_envs.envs.seating.progress_lead`)."""
        progress = [self.game.progress(seat) for seat in range(self.game.num_players)]
        return progress_lead(progress, self.learner)

    def _observation(self) -> np.ndarray:
        observation = self.game.observe(self.learner)
        if self.mask_in_observation:
            return with_mask(observation, self.action_masks())
        return observation

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = dict(self.game.player_info(self.learner))
        info["action_mask"] = self.action_masks()
        info["learner_seat"] = self.learner
        # the same keys in every info, from reset on; rank 0 until the episode ends
        info.update(illegal_action=0, rank=0, rank_reward=0.0)
        return info
