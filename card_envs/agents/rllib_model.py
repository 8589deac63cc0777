"""A policy trained with RLlib (``train.py --backend rllib``) as a player.

Loading needs only Ray: the checkpoint names its module class
(``card_envs.integrations.rllib.MaskedPPOModule``), which Ray imports when it unpickles it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from card_envs.agents.runs import RLLIB_CHECKPOINT_DIR
from card_envs.core.game import CardGame
from card_envs.core.policy import Policy, choose_from_logits

#: the policy id of the learner (in self-play: of every seat)
LEARNER = "learner"
#: where a run directory keeps the RLlib checkpoint, and the learner's module inside that
CHECKPOINT_DIR = RLLIB_CHECKPOINT_DIR
MODULE_PATH = ("learner_group", "learner", "rl_module", LEARNER)


class RLlibPolicy(Policy):
    """A trained RLlib masked PPO module as a card_envs :class:`Policy`, so tournaments,
    ``evaluate`` and envs can seat it: its most probable legal action, or one drawn with the
    table's generator."""

    def __init__(self, module: Any, greedy: bool = True, source: str = "in-memory module") -> None:
        from ray.rllib.core.columns import Columns

        self.module, self.greedy, self.source = module, greedy, source
        self.observations_key, self.logits_key = Columns.OBS, Columns.ACTION_DIST_INPUTS

    def check_table(self, game: CardGame) -> None:
        """Refuse, in one sentence naming both, a table the module was not trained for."""
        size = int(self.module.masked_space["observation"].shape[0])
        actions = int(getattr(self.module.action_space, "n", 0))
        if (size, actions) != (game.observation_size, game.num_actions):
            raise ValueError(
                f"the RLlib module {self.source} was trained for observations of {size} floats and"
                f" {actions} actions, but this table is {game.num_players}-player {game.name}"
                f" ({game.observation_size} floats, {game.num_actions} actions)"
            )

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        observed = {
            "observation": torch.as_tensor(observation[None], dtype=torch.float32),
            "action_mask": torch.as_tensor(action_mask[None]),
        }
        with torch.no_grad():
            logits = self.module.forward_inference({self.observations_key: observed})[self.logits_key]
        return choose_from_logits(logits[0].numpy(), action_mask, rng, self.greedy)

    def __repr__(self) -> str:
        return f"RLlibPolicy(greedy={self.greedy})"


def load_rllib_policy(run: str | Path, greedy: bool = True) -> RLlibPolicy:
    """The learner of an RLlib run directory as a Policy."""
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError as error:
        raise ValueError(f"{run} was trained with RLlib: pip install 'card-envs[rllib]'") from error
    path = Path(run, CHECKPOINT_DIR, *MODULE_PATH)
    if not path.is_dir():
        raise ValueError(f"no RLlib checkpoint at {Path(run) / CHECKPOINT_DIR} (train.py --backend rllib)")
    return RLlibPolicy(RLModule.from_checkpoint(str(path.resolve())), greedy=greedy, source=str(run))
