"""Every shipped agent's card is a model card of one fixed schema: its table, the observation
version it reads, the command that rebuilds it and the commands that made it, its steps, wall
time and machine, its strength table, and the hash of the arrays those figures belong to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from card_envs.agents.pretrained import DATA, arrays_digest, file_stem, read_network
from card_envs.core.registry import game_class, game_spec

CARDS = sorted(DATA.glob("*.json"))
#: the card's fields and their types; nested dicts list their own
SCHEMA: dict[str, Any] = {
    "game": str,
    "num_players": int,
    "rules": dict,
    "observation_version": int,
    "arrays_sha256": str,
    "network": {"layers": int, "sizes": list, "activation": str, "mask_in_observation": bool, "actions": int},
    "training": {
        "commands": list,
        "rebuild": str,
        "seconds": int,
        "max_timesteps": int,
        "date": str,
        "machine": str,
    },
    "results": {
        "agent": {"games": int, "mean_reward": float, "low": float, "high": float, "win_rate": float}
    },
    "beats_rule_players": bool,
}


def check(schema: dict[str, Any], value: dict[str, Any], where: str) -> None:
    for key, kind in schema.items():
        assert key in value, f"{where}: no {key!r}"
        if isinstance(kind, dict):
            check(kind, value[key], f"{where}.{key}")
        else:
            assert isinstance(value[key], kind) and not (kind is int and isinstance(value[key], bool)), (
                f"{where}.{key}: {value[key]!r} is not {kind.__name__}"
            )


def test_every_table_of_every_game_has_a_card():
    assert len(CARDS) == 19


@pytest.mark.parametrize("path", CARDS, ids=[path.stem for path in CARDS])
def test_each_card_has_the_schema_and_its_figures_belong_to_the_shipped_arrays(path: Path):
    card = json.loads(path.read_text())
    check(SCHEMA, card, path.name)
    game, players = card["game"], card["num_players"]
    assert path.stem == file_stem(game, players)
    assert card["observation_version"] == game_spec(game).version
    with np.load(path.with_suffix(".npz"), allow_pickle=False) as data:
        assert card["arrays_sha256"] == arrays_digest({name: data[name] for name in data.files})
    training = card["training"]
    assert training["rebuild"] == f"python bench/pretrain.py --tables {path.stem}"
    assert training["commands"] and all(c.startswith("python train.py ") for c in training["commands"])
    agent = card["results"]["agent"]
    assert -1 <= agent["low"] <= agent["mean_reward"] <= agent["high"] <= 1
    network = read_network(path.with_suffix(""))
    engine = game_class(game)(players)
    assert (
        network.observation_size
        == engine.observation_size + engine.num_actions * card["network"]["mask_in_observation"]
    )
    assert network.num_actions == engine.num_actions == card["network"]["actions"]


def test_the_digest_changes_with_any_array():
    arrays = {"weight0": np.ones((2, 3), np.float32), "bias0": np.zeros(2, np.float32)}
    base = arrays_digest(arrays)
    assert base == arrays_digest(dict(reversed(arrays.items())))  # the order of the names does not count
    changed = {**arrays, "bias0": np.array([0, 1e-7], np.float32)}
    reshaped = {**arrays, "weight0": np.ones((3, 2), np.float32)}
    assert len({base, arrays_digest(changed), arrays_digest(reshaped)}) == 3
