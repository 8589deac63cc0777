"""Agents that ship with the package: trained networks that play their most probable legal move.

Each shipped agent is two files in this folder, written by ``bench/pretrain.py`` from a
trained run (:func:`card_envs.training.export.export_pretrained`): ``GAME-Np.npz`` holds the
actor's layers as plain arrays, ``GAME-Np.json`` its card (table, layers, how it was trained
and what it scored). They load with numpy alone, so the spec ``pretrained`` works with the
core install: no torch or SB3 is needed to play against one, and nothing is unpickled.

    make_policy("pretrained", "tock", 4)        # the shipped 4-player Tock agent
    make_policy("pretrained:tock", "tock", 4)   # the same, naming its game

A table without a shipped agent is refused in one sentence naming those that have one.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents.policy_spec import spec_kind
from card_envs.batched.policy import BatchedPolicy, LoopedPolicy
from card_envs.core.game import CardGame
from card_envs.core.policy import Policy
from card_envs.core.table import Table

#: where the shipped agents' files lie (package data)
DATA = Path(__file__).resolve().parent


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


#: the activations a shipped network may use, as the exporter names them
ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"tanh": np.tanh, "relu": relu}


def arrays_digest(arrays: Mapping[str, np.ndarray]) -> str:
    """The SHA-256 of a network's arrays (names, dtypes, shapes and values, in name order): the
    card's ``arrays_sha256``, which says which arrays its figures belong to. The ``.npz`` file's
    own bytes would not do: the zip stamps the time it was written."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}:{array.dtype.str}:{array.shape};".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def file_stem(game: str, num_players: int) -> str:
    """``tock``, 4 -> ``tock-4p``: the name of an agent's two files."""
    return f"{game}-{num_players}p"


def shipped_tables(folder: Path | None = None) -> list[tuple[str, int]]:
    """(game, players) of every shipped agent (in ``folder``: the package's by default), sorted."""
    folder = DATA if folder is None else folder
    tables = []
    for card in sorted(folder.glob("*.json")):
        meta = json.loads(card.read_text())
        tables.append((str(meta["game"]), int(meta["num_players"])))
    return sorted(tables)


def _tables_text(folder: Path) -> str:
    tables = shipped_tables(folder)
    if not tables:
        return "none is shipped in this installation"
    return "shipped: " + ", ".join(f"{n}-player {game}" for game, n in tables)


@dataclass(frozen=True)
class PretrainedNetwork:
    """A shipped actor network: ``scale`` times the observation, hidden layers, action logits;
    and, for a network trained with search in the loop (:mod:`card_envs.training.alphazero`), a
    value head: layers of their own from the same scaled input to one number, the observing
    seat's expected rank reward (tanh, so within -1..1)."""

    game: str
    num_players: int
    scale: np.ndarray
    layers: tuple[
        tuple[np.ndarray, np.ndarray], ...
    ]  # (weights [out, in], bias [out]), the last gives logits
    activation: str
    mask_in_observation: bool
    card: dict[str, Any]
    value_layers: tuple[tuple[np.ndarray, np.ndarray], ...] = ()

    @property
    def observation_size(self) -> int:
        return int(self.scale.size) - (self.layers[-1][0].shape[0] if self.mask_in_observation else 0)

    @property
    def num_actions(self) -> int:
        return int(self.layers[-1][0].shape[0])

    def shape(self) -> dict[str, Any]:
        """What a MaskablePPO actor must be to take these weights (its settings' names)."""
        return {
            "hidden layers": [int(bias.size) for _, bias in self.layers[:-1]],
            "activation": self.activation,
            "mask_in_observation": self.mask_in_observation,
            "scale_observations": not bool(np.all(self.scale == 1.0)),
        }

    @property
    def has_value(self) -> bool:
        return bool(self.value_layers)

    def _input(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        x = np.asarray(observations, dtype=np.float32)
        if self.mask_in_observation:
            x = np.concatenate([x, np.asarray(masks, dtype=np.float32)], axis=1)
        return x * self.scale

    def _hidden(self, x: np.ndarray, layers: tuple[tuple[np.ndarray, np.ndarray], ...]) -> np.ndarray:
        activation = ACTIVATIONS[self.activation]
        for weights, bias in layers[:-1]:
            x = activation(x @ weights.T + bias)
        weights, bias = layers[-1]
        return x @ weights.T + bias

    def logits(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Action logits [R, A] of R observations, illegal actions at -inf."""
        logits = self._hidden(self._input(observations, masks), self.layers)
        return np.where(np.asarray(masks) > 0, logits, -np.inf)

    def values(self, observations: np.ndarray) -> np.ndarray:
        """The value head's estimate [R] of each observing seat's rank reward (-1..1). It reads
        the scaled observation alone (no mask: a seat that does not decide has none)."""
        if not self.value_layers:
            raise ValueError(
                f"the network of {file_stem(self.game, self.num_players)} has no value head"
                " (only networks trained with train.py --algo az have one)"
            )
        x = np.asarray(observations, dtype=np.float32) * self.scale[: self.observation_size]
        return np.tanh(self._hidden(x, self.value_layers)[:, 0])


@functools.cache
def load_pretrained(game: str, num_players: int, folder: Path | None = None) -> PretrainedNetwork:
    """The shipped agent of ``num_players``-player ``game`` (from ``folder``: the package's by
    default, read when called), or ValueError naming the tables that have one."""
    folder = DATA if folder is None else folder
    stem = folder / file_stem(game, num_players)
    if not stem.with_suffix(".json").is_file():
        raise ValueError(f"no pretrained agent for {num_players}-player {game}; {_tables_text(folder)}")
    return read_network(stem)


def read_network(stem: Path) -> PretrainedNetwork:
    """The network of ``stem.json`` (its card) and ``stem.npz`` (its arrays), read now (a
    training run rewrites its network as it learns, so this is not cached)."""
    card = json.loads(stem.with_suffix(".json").read_text())
    with np.load(stem.with_suffix(".npz"), allow_pickle=False) as arrays:
        count = int(card["network"]["layers"])
        layers = tuple((arrays[f"weight{i}"], arrays[f"bias{i}"]) for i in range(count))
        values = int(card["network"].get("value_layers", 0))
        value_layers = tuple((arrays[f"value_weight{i}"], arrays[f"value_bias{i}"]) for i in range(values))
        scale = arrays["scale"]
    return PretrainedNetwork(
        game=str(card["game"]),
        num_players=int(card["num_players"]),
        scale=scale,
        layers=layers,
        activation=str(card["network"]["activation"]),
        mask_in_observation=bool(card["network"]["mask_in_observation"]),
        card=card,
        value_layers=value_layers,
    )


class PretrainedPolicy(Policy):
    """A shipped agent playing its most probable legal action (it draws no random numbers), or
    with ``greedy=False`` a move drawn from its probabilities."""

    def __init__(self, network: PretrainedNetwork, greedy: bool = True) -> None:
        self.network = network
        self.greedy = greedy

    def __repr__(self) -> str:
        return f"PretrainedPolicy({file_stem(self.network.game, self.network.num_players)})"

    def check_table(self, game: CardGame) -> None:
        net = self.network
        if (game.name, game.num_players) != (net.game, net.num_players) or (
            game.observation_size,
            game.num_actions,
        ) != (net.observation_size, net.num_actions):
            raise ValueError(
                f"the pretrained agent {file_stem(net.game, net.num_players)} plays"
                f" {net.num_players}-player {net.game}, not {game.num_players}-player {game.name}"
            )

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Its move probabilities (softmax over the legal actions), for a search's prior."""
        logits = self.network.logits(observation[None], action_mask[None])[0]
        weights = np.exp(logits - logits.max())
        return weights / weights.sum()

    def values(self, observations: np.ndarray) -> np.ndarray:
        """Its value head's estimates [R] of the observing seats' rank rewards (a search's leaves)."""
        return self.network.values(observations)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        if not self.greedy:
            probabilities = self.probabilities(observation, action_mask)
            return int(rng.choice(probabilities.size, p=probabilities))
        return int(np.argmax(self.network.logits(observation[None], action_mask[None])[0]))

    def batched(self) -> BatchedPolicy:
        """This agent in many games at once: one pass of the network for all the rows (a
        sampling one plays row by row, each drawing from its own game's generator)."""
        if not self.greedy:
            return LoopedPolicy(self)
        return BatchedPretrained(self.network)


class BatchedPretrained(BatchedPolicy):
    """:class:`PretrainedPolicy` for a batch: the same greedy moves, one matrix product per layer."""

    def __init__(self, network: PretrainedNetwork) -> None:
        self.network = network

    def __repr__(self) -> str:
        return f"BatchedPretrained({file_stem(self.network.game, self.network.num_players)})"

    def act(
        self, observations: np.ndarray, masks: np.ndarray, generators: Any, rows: np.ndarray
    ) -> np.ndarray:
        return np.argmax(self.network.logits(observations, masks), axis=1).astype(np.int64)


def make_pretrained(argument: str, table: Table) -> PretrainedPolicy:
    """``pretrained`` or ``pretrained:GAME`` at ``table``."""
    if argument and argument != table.name:
        raise ValueError(f"pretrained:{argument} names another game than this table's {table.name!r}")
    return PretrainedPolicy(load_pretrained(table.name, table.num_players))


#: the policy spec's name, also what ``train.py --init-from`` takes for a shipped agent's network
PRETRAINED = "pretrained"


def is_pretrained_spec(text: str) -> bool:
    """Whether ``text`` is ``pretrained`` or ``pretrained:GAME`` (and not a run's path)."""
    return bool(text) and spec_kind(text) == PRETRAINED
