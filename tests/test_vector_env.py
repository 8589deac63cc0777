"""The batched single-agent env plays each game exactly as CardGameEnv does.

Game ``b`` of a BatchedCardGameEnv reset with seed ``s`` must match a CardGameEnv reset
with seed ``s + b`` and fed the same learner actions: observations, rewards (shaping
included), ends, ranks and masks, through many episodes and automatic re-deals.
"""

from __future__ import annotations

import numpy as np
import pytest

from card_envs.agents.registry import rule_agent_spec
from card_envs.agents.specs import make_policies
from card_envs.batched.game import batched_games
from card_envs.core.table import Table
from card_envs.envs.single import CardGameEnv
from card_envs.envs.vector import BatchedCardGameEnv


def side_by_side(
    game: str, n: int, opponents: str, shaping: float, num_envs: int, steps: int, **kwargs
) -> int:
    knobs = dict(rule_agent_spec(game).random_knobs) if opponents == "rule" else {}
    policies = make_policies(opponents, Table.of(game, n), **knobs)
    vector = BatchedCardGameEnv(
        game, num_envs, n, opponents=policies, reward_shaping=shaping, mask_in_observation=True, **kwargs
    )
    singles = [
        CardGameEnv(game, n, opponents=policies, reward_shaping=shaping, mask_in_observation=True, **kwargs)
        for _ in range(num_envs)
    ]
    observations, infos = vector.reset(seed=7)
    for b, env in enumerate(singles):
        obs, info = env.reset(seed=7 + b)
        np.testing.assert_array_equal(observations[b], obs)
        assert infos["learner_seat"][b] == info["learner_seat"]
    rng = np.random.default_rng(0)
    episodes = 0
    for step in range(steps):
        masks = vector.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        observations, rewards, terminated, truncated, infos = vector.step(actions)
        for b, env in enumerate(singles):
            np.testing.assert_array_equal(masks[b], env.action_masks(), err_msg=f"game {b} step {step}")
            obs, reward, term, trunc, info = env.step(int(actions[b]))
            assert (terminated[b], truncated[b]) == (term, trunc), f"game {b} step {step}"
            assert rewards[b] == pytest.approx(reward, abs=1e-5), f"game {b} step {step}"
            assert (infos["rank"][b], infos["rank_reward"][b]) == pytest.approx(
                (info["rank"], info["rank_reward"])
            )
            if term or trunc:
                np.testing.assert_array_equal(infos["final_obs"][b], obs)
                obs, info = env.reset()
                episodes += 1
            np.testing.assert_array_equal(observations[b], obs, err_msg=f"game {b} step {step}")
            assert infos["learner_seat"][b] == info["learner_seat"]
    return episodes


@pytest.mark.parametrize("game", batched_games())
def test_vector_env_matches_the_single_agent_env(game: str) -> None:
    assert side_by_side(game, 4, "rule", 1.0, num_envs=3, steps=600, shaping_discount=0.9) >= 2


@pytest.mark.parametrize("game", batched_games())
def test_vector_env_matches_with_random_opponents_and_truncation(game: str) -> None:
    assert side_by_side(game, 2, "random", 0.5, num_envs=3, steps=300, learner_seat=1, max_steps=60) >= 3


def test_vector_env_arguments() -> None:
    with pytest.raises(ValueError, match="opponents needs 3"):
        BatchedCardGameEnv("uno", 2, 4, opponents=make_policies("rule", Table.of("uno", 3)))
    with pytest.raises(ValueError, match="learner_seat"):
        BatchedCardGameEnv("uno", 2, 4, learner_seat=4)
    with pytest.raises(ValueError, match="no batched engine"):
        BatchedCardGameEnv("climb", 2)
