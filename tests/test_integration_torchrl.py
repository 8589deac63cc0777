"""TorchRL: the documented PettingZooWrapper recipe on every game, and a few PPO iterations.

Skipped unless the ``torchrl`` extra is installed, and marked slow (TorchRL steps a few
hundred times a second): CI installs the extra and runs this file in its integrations step.
"""

from __future__ import annotations

import pytest

pytest.importorskip("torchrl")

from torchrl.envs.utils import check_env_specs

from card_envs.evaluation.tournament import tournament
from card_envs.integrations.torchrl import GROUP, TorchRLPolicy, acting_rows, make_actor_critic, make_env
from tests.scripts import load_script

pytestmark = pytest.mark.slow
GAMES = ["chipit", "tock", "uno"]


@pytest.mark.parametrize("game", GAMES)
def test_specs_and_a_whole_game_with_the_masked_actor(game):
    env = make_env(game, 3, seed=1, max_steps=300)  # a game cut at 300 steps: ranked, zero-sum
    check_env_specs(env)
    actor, _ = make_actor_critic(env)
    rollout = env.rollout(1_000, policy=actor, break_when_any_done=True)
    acted = rollout[GROUP, "mask"]
    assert (acted.sum(-1) == 1).all(), "exactly one seat acts at every step"
    chosen = rollout[GROUP, "action"][acted]
    legal = rollout[GROUP, "action_mask"][acted]
    assert legal.gather(-1, chosen.unsqueeze(-1)).all(), "every action played was legal"
    final = rollout["next", GROUP, "reward"][-1].flatten()
    assert rollout["next", "done"][-1].item() and final.sum().abs() < 1e-6 and final.max() == 1.0
    assert rollout.shape[0] <= 300
    assert acting_rows(rollout).shape[0] == rollout.shape[0]


@pytest.mark.parametrize("game", GAMES)
def test_a_few_ppo_iterations_train_and_the_policy_plays_in_a_tournament(game):
    example = load_script("examples/torchrl_ppo.py")
    actor, stats = example.train(game, 3, iterations=2, frames=256, seed=0)
    assert stats["steps"] == 512
    result = tournament(game, [TorchRLPolicy(actor), "rule", "random"], 3, seed=0, workers=1)
    assert result.agents[0].games == 3
