"""Trained networks as players: a saved MaskablePPO model, and a self-play pool of snapshots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.policies import BasePolicy

from card_envs.agents.base import Policy, RandomAgent
from card_envs.agents.pretrained import PretrainedPolicy, read_network
from card_envs.agents.runs import NETWORK_STEM, model_path, run_settings
from card_envs.batched.policy import BatchedPolicy
from card_envs.core.game import CardGame
from card_envs.envs.single import with_mask


#: the file of a run directory that holds the model (see card_envs.training.run)
def load_model(path: str | Path, deterministic: bool = False) -> Policy:
    """The trained agent of a run directory or model file, whichever library trained it:
    an RLlib run (settings.json says ``"backend": "rllib"``) or a MaskablePPO model."""
    backend = (run_settings(path) or {}).get("backend") if Path(path).is_dir() else None
    if backend == "rllib":
        from card_envs.agents.rllib_model import load_rllib_policy

        return load_rllib_policy(path, greedy=deterministic)
    if backend == "az":  # a search-in-the-loop run: its network as the shipped agents' arrays
        return PretrainedPolicy(read_network(Path(path) / NETWORK_STEM), greedy=deterministic)
    return ModelPolicy(path, deterministic=deterministic)


def masked_probabilities(network: Any, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
    """The action probabilities of an SB3 MaskableActorCriticPolicy, illegal actions at 0."""
    return batch_probabilities(network, observation[None], action_mask[None])[0]


def batch_probabilities(network: Any, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
    """:func:`masked_probabilities` of many rows in one forward pass (one row per game).

    The actor's layers are called directly: the distribution objects SB3 builds around them
    cost more than the layers for the few rows an opponent seat plays at a time
    (bench/network_play.py). A network trained with ``mask_in_observation`` gets the mask
    appended, as in training.
    """
    if network.observation_space.shape[0] == observations.shape[1] + action_masks.shape[1]:
        observations = with_mask(observations, action_masks)
    legal = torch.as_tensor(action_masks > 0)
    with torch.no_grad():
        features = BasePolicy.extract_features(
            network, network.obs_to_tensor(observations)[0], network.pi_features_extractor
        )
        logits = network.action_net(network.mlp_extractor.forward_actor(features))
        probs = torch.softmax(logits.masked_fill(~legal, -torch.inf), dim=1)
    return probs.cpu().numpy().astype(np.float64)


def sample(probs: np.ndarray, rng: np.random.Generator, deterministic: bool) -> int:
    if deterministic:
        return int(np.argmax(probs))
    return int(rng.choice(probs.size, p=probs / probs.sum()))


#: a self-play pool's player before its first snapshot
UNIFORM = RandomAgent()


class BatchedNetworks(BatchedPolicy):
    """Network players in many games at once (the batched engine's opponents): one forward
    pass per network for all the games it plays in, not one per game.

    ``policy`` (a :class:`ModelPolicy` or :class:`SelfPlayPool`) draws each new game's network
    with that game's generator, and each action is sampled with it, so a game replays as
    with the policy itself. The trainer reaches ``policy`` (a pool's ``add_snapshot``).
    """

    def __init__(self, policy: ModelPolicy | SelfPlayPool, deterministic: bool = False) -> None:
        self.policy = policy
        self.deterministic = deterministic
        self.networks: dict[int, Any] = {}  # game row -> its network (None: random play)

    def __repr__(self) -> str:
        return f"BatchedNetworks({self.policy!r})"

    def new_games(self, generators: Any, rows: np.ndarray) -> None:
        for row in rows.tolist():
            self.networks[row] = self.policy.draw(generators[row])

    def act(
        self, observations: np.ndarray, masks: np.ndarray, generators: Any, rows: np.ndarray
    ) -> np.ndarray:
        actions = np.empty(rows.size, np.int64)
        games_of: dict[int, tuple[Any, list[int]]] = {}  # one entry per network in play
        for i, row in enumerate(rows.tolist()):
            network = self.networks[row]
            games_of.setdefault(id(network), (network, []))[1].append(i)
        for network, games in games_of.values():
            if network is None:
                picked = [UNIFORM.act(observations[i], masks[i], generators[rows[i]]) for i in games]
            else:
                probs = batch_probabilities(network, observations[games], masks[games])
                picked = [
                    sample(p, generators[rows[i]], self.deterministic)
                    for p, i in zip(probs, games, strict=True)
                ]
            actions[games] = picked
        return actions


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
        same_table = self.settings and (self.settings["game"], self.settings["num_players"]) == (
            game.name,
            game.num_players,
        )
        changed = " (the game's observation changed since: see its env's version history)"
        raise ValueError(
            f"the model {self.source} was trained for {trained}, but this table is"
            f" {game.num_players}-player {game.name}"
            f" ({game.observation_size} floats, {game.num_actions} actions)" + (changed if same_table else "")
        )

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        return masked_probabilities(self.model.policy, observation, action_mask)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return sample(self.probabilities(observation, action_mask), rng, self.deterministic)

    def draw(self, rng: np.random.Generator) -> Any:
        """The network of a new game: always this model's (``rng`` is not used)."""
        return self.model.policy

    def batched(self) -> BatchedNetworks:
        """This player in many games at once, for the batched engine."""
        return BatchedNetworks(self, self.deterministic)


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

    def draw(self, rng: np.random.Generator) -> Any:
        """A new game's opponent: one of the snapshots (None before the first)."""
        return self.snapshots[rng.integers(len(self.snapshots))] if self.snapshots else None

    def new_game(self, rng: np.random.Generator) -> None:
        self.current = self.draw(rng)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        if self.current is None:
            return UNIFORM.act(observation, action_mask, rng)
        return sample(masked_probabilities(self.current, observation, action_mask), rng, False)

    def batched(self) -> BatchedNetworks:
        """The pool in many games at once, each game with its own drawn snapshot (the
        batched engine's self-play seat)."""
        return BatchedNetworks(self)
