"""Tianshou: masked PPO on the single-agent env of every game, as the example trains it.

Skipped unless the ``tianshou`` extra is installed; CI installs it in its integrations step.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tianshou")

import torch
from tianshou.data import Batch, Collector, VectorReplayBuffer
from tianshou.trainer import OnPolicyTrainerParams

from card_envs.evaluation.tournament import tournament
from card_envs.integrations.tianshou import TianshouPolicy, make_env, make_ppo, make_vector_env

GAMES = ["chipit", "tock", "uno"]


@pytest.mark.parametrize("game", GAMES)
def test_collected_games_are_legal_and_each_return_is_the_learners_rank_reward(game):
    torch.manual_seed(0)
    envs = make_vector_env(game, 3, n_envs=2, seed=1)
    ppo = make_ppo(make_env(game, 3))
    collector = Collector(ppo, envs, VectorReplayBuffer(20_000, 2))
    stats = collector.collect(n_episode=4, reset_before_collect=True)  # an illegal action would raise
    assert stats.n_collected_episodes == 4
    assert set(np.round(stats.returns, 6)) <= {1.0, 0.0, -1.0}  # 3 seats: ranks pay 1, 0, -1
    buffer = collector.buffer
    acted = buffer.sample_indices(0)
    masks = buffer.obs.mask[acted].astype(bool)
    assert masks[np.arange(len(acted)), buffer.act[acted]].all(), "every action taken was legal"
    assert int(buffer.done[acted].sum()) == stats.n_collected_episodes
    assert sum(stats.lens) == len(acted), "an episode is the learner's decisions, nothing else"


@pytest.mark.parametrize("game", GAMES)
def test_ppo_trains_and_the_trained_actor_plays_a_tournament(game):
    torch.manual_seed(0)
    envs = make_vector_env(game, 4, n_envs=2, seed=0)
    ppo = make_ppo(make_env(game, 4))
    before = [p.detach().clone() for p in ppo.policy.actor.parameters()]
    collector = Collector(ppo, envs, VectorReplayBuffer(512, 2))
    params = OnPolicyTrainerParams(
        training_collector=collector,
        max_epochs=1,
        epoch_num_steps=1024,
        collection_step_num_env_steps=512,
        batch_size=128,
        show_progress=False,
    )
    stats = ppo.run_training(params)
    assert stats.train_step >= 1024 and stats.update_step >= 2
    moved = [
        not torch.equal(a, b.detach()) for a, b in zip(before, ppo.policy.actor.parameters(), strict=True)
    ]
    assert all(moved)
    result = tournament(
        game, [TianshouPolicy(ppo.policy.actor), "rule", "rule", "rule"], 4, seed=0, workers=1
    )
    assert result.agents[0].games == 4 and result.truncated == 0


def test_the_actor_gives_illegal_actions_no_probability():
    env = make_env("uno", 2)
    ppo = make_ppo(env)
    obs, _ = env.reset(seed=3)
    logits, _ = ppo.policy.actor(Batch(obs=obs["obs"][None], mask=obs["mask"][None]))
    probs = torch.softmax(logits, -1)[0].detach().numpy()
    assert np.all(probs[obs["mask"] == 0] == 0) and np.isclose(probs.sum(), 1.0)
    greedy = TianshouPolicy(ppo.policy.actor).act(obs["obs"], obs["mask"], np.random.default_rng(0))
    assert obs["mask"][greedy] == 1
