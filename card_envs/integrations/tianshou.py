"""Tianshou glue: masked PPO on the single-agent env (``pip install 'card-envs[tianshou]'``).

Tianshou's multi-agent manager is built for DQN-style policies: it credits a game's final
rewards only to the transition of the seat that moved last, and each seat's next-state
value is computed on the next mover's observation. So the recipe here trains one learner
seat (drawn at random each game, so every seat is learned) of the single-agent env, with
the other seats played inside the env by any card_envs policies (rule-based, random, saved
models, or :class:`TianshouPolicy` copies of the learner itself). Each transition then holds
the learner's own reward, its final rank reward included, a loss too.

    from card_envs.integrations.tianshou import make_env, make_ppo, make_vector_env
    envs = make_vector_env("tock", 4, n_envs=4, seed=0)
    ppo = make_ppo(make_env("tock", 4))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from torch import nn

from card_envs.core.policy import Policy, choose_from_logits
from card_envs.envs.single import CardGameEnv

try:
    from tianshou.algorithm import PPO
    from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.env import DummyVectorEnv
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError("Tianshou is not installed: pip install 'card-envs[tianshou]'") from error


class MaskedObservation(gymnasium.ObservationWrapper):
    """The observation as ``{"obs": floats, "mask": legal actions}``: Tianshou turns a dict
    observation into a Batch, so the actor reads the mask beside the observation."""

    def __init__(self, env: CardGameEnv) -> None:
        super().__init__(env)
        self.card_env = env
        self.observation_space = spaces.Dict(
            {"obs": env.observation_space, "mask": spaces.MultiBinary(env.game.num_actions)}
        )

    def observation(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        return {"obs": observation, "mask": self.card_env.action_masks().astype(np.int8)}


def make_env(
    game: str, num_players: int = 4, opponents: Any = "rule", seed: int | None = None, **kwargs: Any
) -> MaskedObservation:
    """The single-agent env of ``game`` with ``opponents`` (specs or Policy objects, as
    :func:`agents.make_env` takes them), its observation carrying the mask."""
    from card_envs.agents.envs import make_env as make_single_env

    env = MaskedObservation(make_single_env(game, num_players, opponents=opponents, **kwargs))
    if seed is not None:
        env.reset(seed=seed)
    return env


def make_vector_env(
    game: str, num_players: int = 4, n_envs: int = 4, seed: int = 0, **kwargs: Any
) -> DummyVectorEnv:
    """``n_envs`` envs stepped in this process (the env step is cheap next to the network)."""
    envs = DummyVectorEnv([lambda: make_env(game, num_players, **kwargs) for _ in range(n_envs)])
    envs.seed([seed + i for i in range(n_envs)])
    return envs


def _mlp(inputs: int, outputs: int, hidden: Sequence[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [nn.Linear(inputs, width), nn.Tanh()]
        inputs = width
    return nn.Sequential(*layers, nn.Linear(inputs, outputs))


class _Scaled(nn.Module):
    """Divides each observation entry by its declared bound (a Chip It value reaches 1,199)."""

    scale: torch.Tensor

    def __init__(self, space: spaces.Box) -> None:
        super().__init__()
        self.register_buffer("scale", torch.as_tensor(1.0 / np.maximum(space.high, 1.0), dtype=torch.float32))

    def forward(self, obs: Any) -> torch.Tensor:
        return torch.as_tensor(obs, dtype=torch.float32) * self.scale


class MaskedActor(nn.Module):
    """Logits over all actions, illegal ones at -1e8 (never sampled, no gradient)."""

    def __init__(self, space: spaces.Box, num_actions: int, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        self.scaled = _Scaled(space)
        self.net = _mlp(space.shape[0], num_actions, hidden)

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        logits = self.net(self.scaled(obs.obs))
        mask = torch.as_tensor(obs.mask, dtype=torch.bool, device=logits.device)
        return logits.masked_fill(~mask, -1e8), state


class Critic(nn.Module):
    """The state value from the observation alone (the mask is not needed)."""

    def __init__(self, space: spaces.Box, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        self.scaled = _Scaled(space)
        self.net = _mlp(space.shape[0], 1, hidden)

    def forward(self, obs: Any, **kwargs: Any) -> torch.Tensor:
        return self.net(self.scaled(obs.obs))


def make_ppo(
    env: MaskedObservation,
    *,
    lr: float = 3e-4,
    gamma: float = 0.995,
    ent_coef: float = 0.01,
    hidden: Sequence[int] = (256, 256),
    **ppo: Any,
) -> PPO:
    """Tianshou's PPO with the masked actor and a critic for the spaces of ``env`` (one env
    of the table trained on, e.g. ``make_env(game, players)``)."""
    box, actions = cast(spaces.Box, env.card_env.observation_space), env.card_env.action_space
    actor = MaskedActor(box, env.card_env.game.num_actions, hidden)
    policy = DiscreteActorPolicy(actor=actor, action_space=actions, observation_space=env.observation_space)
    return PPO(
        policy=policy,
        critic=Critic(box, hidden),
        optim=AdamOptimizerFactory(lr=lr),
        gamma=gamma,
        ent_coef=ent_coef,
        max_grad_norm=0.5,
        **ppo,
    )


class TianshouPolicy(Policy):
    """A trained masked actor as a card_envs :class:`Policy`, so tournaments, ``evaluate`` and
    self-play opponents can seat it: its most probable legal action, or one drawn with the
    table's generator."""

    def __init__(self, actor: MaskedActor, greedy: bool = True) -> None:
        self.actor = actor
        self.greedy = greedy

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        from tianshou.data import Batch

        with torch.no_grad():
            logits, _ = self.actor(Batch(obs=observation[None], mask=action_mask[None]))
        return choose_from_logits(logits[0].numpy(), action_mask, rng, self.greedy)

    def __repr__(self) -> str:
        return f"TianshouPolicy(greedy={self.greedy})"


__all__ = [
    "Critic",
    "MaskedActor",
    "MaskedObservation",
    "TianshouPolicy",
    "make_env",
    "make_ppo",
    "make_vector_env",
]
