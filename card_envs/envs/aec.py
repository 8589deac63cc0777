"""One PettingZoo AEC env for every game engine."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from card_envs.core.checks import check_choice
from card_envs.core.game import CardGame, IllegalActionError, check_max_steps
from card_envs.core.ranking import rank_rewards
from card_envs.core.spec import GameSpec
from card_envs.core.table import Table
from card_envs.envs.common import (
    RENDER_MODES,
    attach_recorder,
    check_render_mode,
    check_seat,
    render_game,
)


class CardGameAECEnv(AECEnv):
    """AEC env over :attr:`game_class`; subclasses only name the game.

    * agents ``player_0 .. player_{N-1}``; the selected agent is the engine's
      current decider (during a window that can be a player not on turn);
    * observation ``{"observation": float32 vector, "action_mask": int8}``;
      the mask is all zeros for agents that are not selected;
    * a player who finishes early stays an agent that is never selected; all
      agents terminate together when the game ends (or truncate at
      ``max_steps``), and the rank rewards are paid then;
    * ``infos[agent]`` holds the same numeric keys from reset on: the game's
      figures (as dealt, then final at the end: refreshing them every step
      cost a third of the step rate), ``illegal_action`` (1 if the agent's
      last action was replaced) and ``rank`` (0 until the game ends), as
      libraries that fix the keys at reset need;
    * ``illegal_action``: ``"raise"`` (default) raises ``IllegalActionError``
      on a masked-out or invalid action and changes nothing; ``"random"``
      plays a uniformly random legal action instead (for checks that step
      unmasked samples, such as RLlib's env pre-check). There is no ``"lose"``
      as in the single-agent env: ending a multi-player game needs a rank for
      every other player too;
    * ``render_seat``: render that player's view, others' hands hidden (None:
      the full table); ``"human"`` mode shows the deal and every action;
    * ``record_dir``: every game is written there as a JSON Lines record
      (:mod:`card_envs.records.record`) that ``card_envs.replay(path)`` plays again.
    """

    #: the game's spec and engine class (set by :func:`aec_env_class`)
    spec: ClassVar[GameSpec]
    game_class: ClassVar[type[CardGame]]
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": RENDER_MODES,
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int | None = None,
        render_mode: str | None = None,
        max_steps: int | None = None,
        illegal_action: str = "raise",
        record_dir: str | Path | None = None,
        render_seat: int | None = None,
        **rules: Any,
    ) -> None:
        super().__init__()
        #: the game, its player count and rules (:class:`~card_envs.core.table.Table`)
        self.table = Table.of(self.spec, num_players, **rules)
        self.game = self.table.engine()
        self.recorder = attach_recorder(self.game, record_dir)
        self.render_seat = check_seat(render_seat, self.game)
        self.illegal_action = check_choice("illegal_action", illegal_action, ["raise", "random"])
        self.render_mode = check_render_mode(render_mode)
        self.max_steps = check_max_steps(max_steps, self.game)
        n = self.game.num_players
        self.possible_agents = [self.game.player_name(i) for i in range(n)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        layout = self.game.observation_layout
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(layout.low, layout.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.game.num_actions,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(self.game.num_actions)
        # One cached object per agent: seed_test seeds them and expects them to stay.
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._np_random, _ = seeding.np_random(None)
        self.num_steps = 0
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def np_random(self) -> np.random.Generator:
        """The env's generator: wrappers that play seats themselves draw from it, so a seeded
        env replays exactly."""
        return self._np_random

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self.game.reset(self._np_random)
        self.num_steps = 0
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._info(a) for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]
        if self.render_mode == "human":
            self.render()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        illegal = False
        if self.illegal_action == "random":
            try:
                action = self.game.check_action(action)
            except IllegalActionError:
                illegal = True
                action = int(self._np_random.choice(self.game.legal_actions()))
        self.game.step(action)  # raises on an illegal action, changing nothing
        self.num_steps += 1
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if self.game.is_over:
            self._finish(self.game.final_ranks(), self.terminations)
        elif self.num_steps >= self.max_steps:
            self._finish(self.game.truncation_ranks(), self.truncations)
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]
        self.infos[agent]["illegal_action"] = int(illegal)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        selected = self.agents and agent == self.agent_selection and not self._done
        mask = self.game.action_mask().copy() if selected else np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": self.game.observe(seat), "action_mask": mask}

    def render(self) -> str | np.ndarray | None:
        return render_game(self.game, self.render_mode, self.render_seat)

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.save()  # the game in play, ended or not

    def state_dict(self) -> dict[str, Any]:
        """The engine's full JSON-able state."""
        return self.game.state_dict()

    # ------------------------------------------------------------- helpers
    @property
    def _done(self) -> bool:
        return any(self.terminations.values()) or any(self.truncations.values())

    def _finish(self, ranks: list[int], flags: dict[str, bool]) -> None:
        for agent, reward in zip(self.possible_agents, rank_rewards(ranks), strict=True):
            self.rewards[agent] = reward
            flags[agent] = True
            self.infos[agent] = {**self._info(agent), "rank": ranks[self._seat[agent]]}

    def _info(self, agent: str) -> dict[str, float]:
        return {**self.game.player_info(self._seat[agent]), "illegal_action": 0, "rank": 0}


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks, with ``last()`` answered by the env itself.

    The inherited ``last()`` reads each attribute through two ``__getattr__`` layers of
    the wrappers: a fifth of an AEC step's time in UNO. The answer is the same.
    """

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)


def wrap(env: CardGameAECEnv) -> AECEnv:
    """The standard wrapping of PettingZoo's classic envs (order checks)."""
    return OrderEnforcing(env)


def aec_env_class(spec: GameSpec) -> type[CardGameAECEnv]:
    """The AEC env class of one game (what PettingZoo calls ``raw_env``)."""
    metadata = {**CardGameAECEnv.metadata, "name": spec.aec_name}
    doc = f"PettingZoo AEC env of {spec.name!r}; see CardGameAECEnv for the API."
    attrs = {"spec": spec, "game_class": spec.engine_class(), "metadata": metadata, "__doc__": doc}
    return type("raw_env", (CardGameAECEnv,), attrs)


def aec_constructors(spec: GameSpec) -> tuple[Callable[..., AECEnv], type[CardGameAECEnv]]:
    """``(env, raw_env)`` of a game, as a PettingZoo module names them: ``env()`` is wrapped,
    ``raw_env`` is not. The modules ``card_envs.<game>_v<version>`` are these two names."""
    raw_env = aec_env_class(spec)

    def env(**kwargs: Any) -> AECEnv:
        return wrap(raw_env(**kwargs))

    env.__doc__ = f"The wrapped {spec.aec_name} env; keyword arguments as for raw_env."
    return env, raw_env
