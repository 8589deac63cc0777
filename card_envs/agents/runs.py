"""A trained run's files (the model, its settings), read without torch: checks stay cheap."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from card_envs.core.game import CardGame

MODEL_FILE = "model.zip"
SETTINGS_FILE = "settings.json"
#: a search-in-the-loop run's network (``train.py --algo az``): NETWORK_STEM.npz (the arrays)
#: and NETWORK_STEM.json (its card), the shipped agents' format (card_envs.agents.pretrained)
NETWORK_STEM = "network"


def model_path(path: str | Path) -> Path:
    """The model file of ``path``: a run directory (MaskablePPO's model.zip, or the arrays of a
    ``--algo az`` run's network), a ``.zip`` file, or a path without ``.zip``."""
    path = Path(path)
    for candidate in (path / MODEL_FILE, path / f"{NETWORK_STEM}.npz", path, path.with_suffix(".zip")):
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


#: an RLlib run's checkpoint folder in its run directory (card_envs.agents.rllib_model)
RLLIB_CHECKPOINT_DIR = "rllib"


def is_finished(run_dir: str | Path) -> bool:
    """Whether ``run_dir`` holds a trained model: MaskablePPO's model.zip and an RLlib run's
    checkpoint folder are written at the end of training, a ``--algo az`` run's network after
    each of its iterations (such a run goes on with ``--resume``)."""
    run_dir = Path(run_dir)
    saved = (run_dir / MODEL_FILE, run_dir / f"{NETWORK_STEM}.npz")
    return any(p.is_file() for p in saved) or (run_dir / RLLIB_CHECKPOINT_DIR).is_dir()


def check_trained_run(path: str | Path, game: CardGame, what: str = "model") -> None:
    """Refuse, before any model is loaded, a path with no saved model or a run trained for
    another table (when its settings.json says which): one sentence naming both."""
    try:
        model_path(path)
        saved = run_settings(path)
    except ValueError as error:
        raise ValueError(f"{what}: {error}") from None
    if saved and (saved.get("game"), saved.get("num_players")) != (game.name, game.num_players):
        raise ValueError(
            f"{what}: the run {path} was trained for {saved.get('num_players')}-player {saved.get('game')}"
            f" (its settings.json), but this table is {game.num_players}-player {game.name}"
        )
