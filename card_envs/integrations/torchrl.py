"""TorchRL: any game's AEC env as a TorchRL env, and a masked PPO actor and critic for it.

The env is TorchRL's own ``PettingZooWrapper`` configured for our envs: every seat in one
group ``"players"``, categorical actions, ``use_mask=True`` (compulsory for AEC envs:
``("players", "mask")`` marks the seat that acts), and our legal-action mask under
``("players", "action_mask")``, where TorchRL puts it (all True for seats that do not act).
Every seat's final rank reward arrives in ``("players", "reward")`` at the last step.

    from card_envs.integrations.torchrl import make_env, make_actor_critic
    env = make_env("uno", num_players=4, seed=0)
    actor, critic = make_actor_critic(env)

Install with ``pip install -e ".[torchrl]"``. A training loop: examples/torchrl_ppo.py.
"""

from __future__ import annotations

from typing import Any

try:
    import torch
    from tensordict.nn import TensorDictModule
    from torch import nn
    from torchrl.envs import PettingZooWrapper
    from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError('card_envs.integrations.torchrl needs TorchRL: pip install -e ".[torchrl]"') from error

import numpy as np

from card_envs.core.policy import Policy, choose_from_logits
from card_envs.core.registry import game_spec

GROUP = "players"


def make_env(game: str = "uno", num_players: int | None = None, seed: int | None = None, **kwargs: Any):
    """The game's AEC env wrapped for TorchRL (kwargs: the env's, e.g. rules or ``max_steps``)."""
    from importlib import import_module

    raw = import_module(f"card_envs.{game_spec(game).aec_name}").raw_env(num_players=num_players, **kwargs)
    return PettingZooWrapper(
        env=raw,
        use_mask=True,
        categorical_actions=True,
        return_state=False,
        group_map={GROUP: list(raw.possible_agents)},
        seed=seed,
    )


def make_actor_critic(
    env: Any, hidden: int = 128, depth: int = 2
) -> tuple[ProbabilisticActor, TensorDictModule]:
    """A policy with illegal logits masked out (``MaskedCategorical``) and a value network, each
    one MLP applied to every seat's own observation (one agent playing all seats)."""
    n_obs = env.observation_spec[GROUP, "observation", "observation"].shape[-1]
    n_actions = env.full_action_spec[GROUP, "action"].space.n

    def mlp(out: int) -> nn.Module:
        return MLP(
            in_features=n_obs, out_features=out, depth=depth, num_cells=hidden, activation_class=nn.Tanh
        )

    logits = TensorDictModule(mlp(n_actions), [(GROUP, "observation", "observation")], [(GROUP, "logits")])
    actor = ProbabilisticActor(
        module=logits,
        in_keys={"logits": (GROUP, "logits"), "mask": (GROUP, "action_mask")},
        out_keys=[(GROUP, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=(GROUP, "sample_log_prob"),
    )
    critic = TensorDictModule(mlp(1), [(GROUP, "observation", "observation")], [(GROUP, "state_value")])
    return actor, critic


def acting_rows(batch: Any) -> Any:
    """The (time, seat) rows of a collected batch in which a seat acted, under the group key
    again: what the PPO loss should see (the other rows hold actions that were never played)."""
    from tensordict import TensorDict

    flat = batch.get(GROUP).reshape(-1)
    rows = flat[flat.get("mask")]
    return TensorDict({GROUP: rows}, batch_size=rows.shape)


class TorchRLPolicy(Policy):
    """A trained actor as a card_envs :class:`Policy`, so tournaments and ``evaluate`` can seat it:
    the most probable legal action (``greedy``) or one drawn with the table's generator."""

    def __init__(self, actor: ProbabilisticActor, greedy: bool = True) -> None:
        self.logits = actor.module[0]  # the TensorDictModule that writes the logits
        self.greedy = greedy

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        with torch.no_grad():
            logits = self.logits.module(torch.as_tensor(observation, dtype=torch.float32)).numpy()
        return choose_from_logits(logits, action_mask, rng, self.greedy)

    def __repr__(self) -> str:
        return f"TorchRLPolicy(greedy={self.greedy})"


__all__ = ["GROUP", "TorchRLPolicy", "acting_rows", "make_actor_critic", "make_env"]
