"""Trained networks as players: a saved MaskablePPO model, and a self-play pool of snapshots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import Policy
from card_envs.core.game import CardGame
from card_envs.envs.single import with_mask

#: the file of a run directory that holds the model (see card_envs.training)
MODEL_FILE = "model.zip"
SETTINGS_FILE = "settings.json"


def model_path(path: str | Path) -> Path:
    """The model file of ``path``: a run directory, a ``.zip`` file, or a path without ``.zip``."""
    path = Path(path)
    for candidate in (path / MODEL_FILE, path, path.with_suffix(".zip")):
        if candidate.is_file():
            return candidate
    raise ValueError(f"no saved model at {path} (expected a run directory with {MODEL_FILE} or a .zip file)")


def run_settings(path: str | Path) -> dict[str, Any] | None:
    """The training settings of a run directory, or saved beside a model file (None for a
    bare model file)."""
    settings = Path(path) / SETTINGS_FILE
    if not settings.is_file():
        settings = model_path(path).parent / SETTINGS_FILE
    return json.loads(settings.read_text()) if settings.is_file() else None


def load_model(path: str | Path, deterministic: bool = False) -> Policy:
    """The trained agent of a run directory or model file, whichever library trained it:
    an RLlib run (settings.json says ``"backend": "rllib"``) or a MaskablePPO model."""
    if Path(path).is_dir() and (run_settings(path) or {}).get("backend") == "rllib":
        from agents.rllib_model import load_rllib_policy

        return load_rllib_policy(path, greedy=deterministic)
    return ModelPolicy(path, deterministic=deterministic)


def masked_probabilities(network: Any, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
    """The action probabilities of an SB3 MaskableActorCriticPolicy, illegal actions at 0.

    A network trained with ``mask_in_observation`` gets the mask appended, as in training.
    """
    if network.observation_space.shape[0] == observation.size + action_mask.size:
        observation = with_mask(observation, action_mask)
    obs, _ = network.obs_to_tensor(observation)
    with torch.no_grad():
        dist = network.get_distribution(obs, action_masks=action_mask.astype(bool)[None])
        probs: torch.Tensor = dist.distribution.probs
    return probs[0].cpu().numpy().astype(np.float64) * (action_mask > 0)


def sample(probs: np.ndarray, rng: np.random.Generator, deterministic: bool) -> int:
    if deterministic:
        return int(np.argmax(probs))
    return int(rng.choice(probs.size, p=probs / probs.sum()))


class ModelPolicy(Policy):
    """Acts with a saved (or in-memory) sb3-contrib MaskablePPO model.

    The action is sampled from the model's masked distribution with the rng
    it is handed (so a seeded env replays exactly), or its most probable
    action with ``deterministic=True``. ``model`` is a run directory, a saved
    ``.zip``, or a MaskablePPO object.
    """

    def __init__(self, model: str | Path | Any, deterministic: bool = False) -> None:
        self.source = str(model) if isinstance(model, (str, Path)) else "in-memory model"
        self.settings: dict[str, Any] | None = None
        if isinstance(model, (str, Path)):
            from sb3_contrib import MaskablePPO

            self.settings = run_settings(model)
            model = MaskablePPO.load(model_path(model), device="cpu")
        self.model = model
        self.deterministic = deterministic

    def __repr__(self) -> str:
        return f"ModelPolicy({self.source!r}, deterministic={self.deterministic})"

    def check_table(self, game: CardGame) -> None:
        """Refuse, in one sentence naming both, a table the model was not trained for."""
        obs_size = int(np.prod(self.model.observation_space.shape or ()))
        actions = int(getattr(self.model.action_space, "n", 0))
        sizes = (game.observation_size, game.observation_size + actions)  # without, with the mask
        if actions == game.num_actions and obs_size in sizes:
            return
        trained = f"observations of {obs_size} floats and {actions} actions"
        if self.settings:
            trained = f"{self.settings['num_players']}-player {self.settings['game']} ({trained})"
        raise ValueError(
            f"the model {self.source} was trained for {trained}, but this table is"
            f" {game.num_players}-player {game.name}"
            f" ({game.observation_size} floats, {game.num_actions} actions)"
        )

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        return masked_probabilities(self.model.policy, observation, action_mask)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return sample(self.probabilities(observation, action_mask), rng, self.deterministic)


class SelfPlayPool(Policy):
    """An opponent drawn each game from the learner's past snapshots (self-play).

    The trainer sends snapshots of the learner's network (``add_snapshot``,
    through the env's ``call_opponents``) into the env workers, so nothing is
    reloaded from disk; each new game draws one of the last ``size`` with the
    env's generator. With no snapshot yet it plays uniformly at random.
    """

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self.snapshots: list[Any] = []
        self.current: Any = None

    def __repr__(self) -> str:
        return f"SelfPlayPool(size={self.size}, snapshots={len(self.snapshots)})"

    def add_snapshot(self, network: Any) -> None:
        self.snapshots = [*self.snapshots, network][-self.size :]

    def new_game(self, rng: np.random.Generator) -> None:
        self.current = self.snapshots[rng.integers(len(self.snapshots))] if self.snapshots else None

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        if self.current is None:
            legal = np.flatnonzero(action_mask)
            return int(legal[rng.integers(legal.size)])
        return sample(masked_probabilities(self.current, observation, action_mask), rng, False)
