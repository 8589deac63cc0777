"""The batched single-agent env as a Stable-Baselines3 ``VecEnv`` (``train.py --vectorized``).

SB3 and sb3-contrib take their own ``VecEnv`` class, not Gymnasium's: this adapter gives
them :class:`~card_envs.envs.vector.BatchedCardGameEnv` in one process, with
``env_method("action_masks")`` answered from the batch (what MaskablePPO calls), the
``terminal_observation`` SB3 bootstraps from, and the ``episode`` record its Monitor
would write.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from card_envs.envs.vector import BatchedCardGameEnv

INFO_KEYS = ("rank", "rank_reward", "learner_seat", "illegal_action")


class BatchedVecEnv(VecEnv):
    """``env.num_envs`` games as an SB3 VecEnv; methods called through ``env_method`` run
    once on the batched env (``call_opponents`` adds a self-play snapshot once, not per game)."""

    def __init__(self, env: BatchedCardGameEnv) -> None:
        self.env = env  # before VecEnv.__init__, which reads its render_mode
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions = np.zeros(env.num_envs, np.int64)
        self._returns = np.zeros(env.num_envs)
        self._lengths = np.zeros(env.num_envs, np.int64)
        self._start = time.perf_counter()

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        observations, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        self._returns[:] = 0
        self._lengths[:] = 0
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        observations, rewards, terminated, truncated, infos = self.env.step(self._actions)
        self._returns += rewards
        self._lengths += 1
        dones = terminated | truncated
        out = [{key: infos[key][b].item() for key in INFO_KEYS} for b in range(self.num_envs)]
        for b in np.flatnonzero(dones).tolist():
            out[b]["terminal_observation"] = infos["final_obs"][b]
            out[b]["TimeLimit.truncated"] = bool(truncated[b] and not terminated[b])
            elapsed = round(time.perf_counter() - self._start, 6)
            out[b]["episode"] = {"r": float(self._returns[b]), "l": int(self._lengths[b]), "t": elapsed}
            self._returns[b] = 0
            self._lengths[b] = 0
        return observations, rewards.astype(np.float32), dones, out

    def close(self) -> None:
        return

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self.env, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        rows = self._indices(indices)
        if method_name == "action_masks":
            return list(self.env.action_masks()[rows])
        result = getattr(self.env, method_name)(*args, **kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs
