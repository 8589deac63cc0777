"""Fit sb3-contrib MaskablePPO agents on the single-agent envs (``train.py`` is a shell over this)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from card_envs.core.single import CardGameEnv

DEFAULT_PPO_KWARGS: dict[str, Any] = {
    "n_steps": 1024,
    "batch_size": 256,
    "n_epochs": 5,
    "learning_rate": 3e-4,
    "gamma": 0.995,
    "ent_coef": 0.01,
    "policy_kwargs": {"net_arch": [256, 256]},
}


def _env_factory(seed: int, env_kwargs: dict[str, Any]) -> Callable[[], Monitor]:
    def make() -> Monitor:
        torch.set_num_threads(1)  # one thread per process: two slow PPO down 5-15x on 2 cores
        env = CardGameEnv(**env_kwargs)
        env.reset(seed=seed)
        return Monitor(env)

    return make


def make_vec_env(env_kwargs: dict[str, Any], n_envs: int = 2, seed: int = 0) -> VecEnv:
    """``n_envs`` copies of the single-agent env, in subprocesses when more than one.

    ``action_masks()`` is a method of the env class, so MaskablePPO finds it
    through ``SubprocVecEnv`` (sb3-contrib's ActionMasker wrapper would not survive).
    """
    if n_envs < 1:
        raise ValueError(f"n_envs must be >= 1, got {n_envs}")
    CardGameEnv(**env_kwargs)  # fail fast, in this process, on bad arguments
    factories = [_env_factory(seed + i, env_kwargs) for i in range(n_envs)]
    return SubprocVecEnv(factories) if n_envs > 1 else DummyVecEnv(factories)


def train(
    game: str = "uno",
    num_players: int | None = 4,
    opponents: Any = "rule",
    timesteps: int = 200_000,
    n_envs: int = 2,
    seed: int = 0,
    save_path: str | Path | None = "models/uno_maskppo.zip",
    progress_bar: bool = True,
    ppo_kwargs: dict[str, Any] | None = None,
    opponent_knobs: dict[str, Any] | None = None,
    **rules: Any,
) -> MaskablePPO:
    """Train MaskablePPO in a random seat against ``opponents`` and save it to ``save_path``."""
    torch.set_num_threads(1)
    env_kwargs = {
        "game": game,
        "num_players": num_players,
        "opponents": opponents,
        "opponent_knobs": opponent_knobs,
        **rules,
    }
    vec_env = make_vec_env(env_kwargs, n_envs=n_envs, seed=seed)
    try:
        model = MaskablePPO(
            "MlpPolicy",
            vec_env,
            seed=seed,
            device="cpu",
            verbose=0,
            **{**DEFAULT_PPO_KWARGS, **(ppo_kwargs or {})},
        )
        model.learn(total_timesteps=timesteps, progress_bar=progress_bar)
    finally:
        vec_env.close()
    if save_path is not None:
        Path(save_path).parent.mkdir(parents=True, exist_ok=True)
        model.save(save_path)
    return model
