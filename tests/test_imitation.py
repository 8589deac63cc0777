"""The warm start by imitation and the observation scaling of the trained networks."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from card_envs.agents import make_policy
from card_envs.agents.envs import make_env
from card_envs.agents.networks import ScaledObservation
from card_envs.training.imitation import Demonstrations, collect, discounted, imitate
from card_envs.training.run import train as train_model
from card_envs.training.settings import TrainSettings

TOCK = {"game": "tock", "num_players": 3, "opponents": "rule"}
TINY_PPO = {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [32]}


def tiny_run(**options) -> TrainSettings:
    """A run of 64 PPO steps in one env after a short imitation (``options`` name the rest)."""
    shared = {"timesteps": 64, "envs": 1, "imitation_epochs": 1, "ppo": TINY_PPO, "eval_every": 64}
    return TrainSettings.from_options(**{**shared, "eval_games": 2, **options})


def test_discounted_returns_run_backwards_from_the_end():
    assert discounted([0.0, 0.0, 1.0], 0.5) == [0.25, 0.5, 1.0]
    assert discounted([1.0, -1.0], 1.0) == [0.0, -1.0]


def test_the_teachers_games_are_reproducible_and_whole():
    first = collect(TOCK, "rule", 300, 0.99, seed=4)
    again = collect(TOCK, "rule", 300, 0.99, seed=4)
    for name in ("observations", "masks", "actions", "returns", "rank_rewards"):
        np.testing.assert_array_equal(getattr(first, name), getattr(again, name))
    assert len(first) >= 300 and len(first.rank_rewards) >= 1
    assert first.masks[np.arange(len(first)), first.actions].all()  # the teacher only plays legal moves
    # whole games: with gamma 1 and no shaping, the return of each game's first decision is its rank reward
    flat = collect(TOCK, "rule", 1, 1.0, seed=4)
    assert flat.returns[0] == pytest.approx(flat.rank_rewards[0])


def teacher_through_the_env(env_kwargs: dict, teacher: str, steps: int, gamma: float, seed: int):
    """The teacher's games as play_teacher played them before the one play loop: step by step
    through the single-agent env."""
    env = make_env(**env_kwargs)
    policy = make_policy(teacher, env.game.name, env.game.num_players)
    rng = np.random.default_rng([seed, 1])
    observations, masks, actions, returns, rank_rewards = [], [], [], [], []
    observation, _ = env.reset(seed=seed)
    while len(actions) < steps:
        policy.new_game(rng)
        rewards, done = [], False
        while not done:
            mask = env.action_masks()
            action = policy.act(observation, mask.astype(np.int8), rng)
            observations.append(observation)
            masks.append(mask)
            actions.append(action)
            observation, reward, terminated, truncated, info = env.step(action)
            rewards.append(float(reward))
            done = terminated or truncated
        rank_rewards.append(info["rank_reward"])
        returns.extend(discounted(rewards, gamma))
        observation, _ = env.reset()
    return [np.asarray(c) for c in (observations, masks, actions, returns, rank_rewards)]


@pytest.mark.parametrize(
    "env_kwargs",
    [TOCK, {"game": "chipit", "num_players": 3, "reward_shaping": 1.0, "mask_in_observation": True}],
)
def test_the_teachers_games_through_the_play_loop_are_those_through_the_env(env_kwargs):
    demos = collect(env_kwargs, "rule", 250, 0.9, seed=6)
    expected = teacher_through_the_env(env_kwargs, "rule", 250, 0.9, seed=6)
    for name, column in zip(Demonstrations.__dataclass_fields__, expected, strict=True):
        np.testing.assert_array_equal(getattr(demos, name), column.astype(getattr(demos, name).dtype))
    if env_kwargs.get("reward_shaping"):  # shaped: the returns vary within a game
        assert len(set(demos.returns.tolist())) > len(demos.rank_rewards)


def test_imitation_makes_the_network_pick_the_teachers_moves_and_smoothing_keeps_it_uncertain():
    demos = collect(TOCK, "rule:cheat_rate=0.0:false_knock_rate=0.0", 3000, 0.99, seed=1)
    choices = demos.masks.sum(axis=1) >= 2
    obs, masks = torch.as_tensor(demos.observations[choices]), demos.masks[choices]
    certainty = {}
    for smoothing in (0.0, 0.2):
        env = make_env(**TOCK)
        model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu", policy_kwargs={"net_arch": [64]})
        untrained = imitate(model.policy, demos, epochs=0, seed=0).accuracy
        result = imitate(model.policy, demos, epochs=6, seed=0, smoothing=smoothing)
        assert result.accuracy > 0.95 and result.accuracy > untrained + 0.15
        assert result.decisions == len(demos) and result.teacher_games == len(demos.rank_rewards)
        with torch.no_grad():
            probs = model.policy.get_distribution(obs, action_masks=masks).distribution.probs
        certainty[smoothing] = float(probs.max(dim=1).values.mean())
    # a plain fit is all but certain; the smoothed target gives the teacher's action at most 0.9
    assert certainty[0.2] < 0.92 < certainty[0.0]
    with pytest.raises(ValueError, match="smoothing"):
        imitate(model.policy, demos, smoothing=1.0)


def test_scaled_observation_divides_by_the_declared_bounds():
    env = make_env(game="chipit", num_players=4)
    extractor = ScaledObservation(env.observation_space)
    obs, _ = env.reset(seed=0)
    features = extractor(torch.as_tensor(obs[None]))[0].numpy()
    np.testing.assert_allclose(features, obs / env.observation_space.high, rtol=1e-6)
    assert features.max() <= 1.0 and features.shape == obs.shape


def test_a_run_with_a_teacher_starts_from_it_and_says_so(tmp_path):
    settings = tiny_run(game="tock", num_players=3, teacher="rule:cheat_rate=0.0", imitation_steps=400)
    train_model(settings, tmp_path / "run", progress=False)
    saved = json.loads((tmp_path / "run" / "imitation.json").read_text())
    assert saved["decisions"] >= 400 and 0 <= saved["accuracy"] <= 1
    rows = (tmp_path / "run" / "evaluations.csv").read_text().splitlines()
    assert rows[1].startswith("0,")  # the imitated network is evaluated before PPO changes it
    assert (
        json.loads((tmp_path / "run" / "settings.json").read_text())["imitation"]["teacher"]
        == "rule:cheat_rate=0.0"
    )


def test_a_bad_teacher_is_refused_before_any_work():
    with pytest.raises(ValueError, match="nonsense"):
        TrainSettings.from_options(game="tock", teacher="rule:nonsense=1").check()
    assert make_policy("rule:cheat_rate=0.0", "tock", 3)  # the spec form the teacher takes


def test_a_time_limit_ends_training_early():
    settings = TrainSettings.from_options(
        game="uno",
        num_players=2,
        timesteps=1_000_000,
        envs=1,
        teacher="",
        max_minutes=0.001,
        ppo=TINY_PPO,
    )
    assert train_model(settings, None, progress=False).num_timesteps < 1_000


def test_a_search_teacher_plays_the_learners_seat_from_the_engine():
    """Expert iteration's first half: the search's decisions are collected like any teacher's."""
    uno = {"game": "uno", "num_players": 2, "opponents": "rule"}
    demos = collect(uno, "search:sims=4:leaves=2", 40, 0.99, seed=2)
    again = collect(uno, "search:sims=4:leaves=2", 40, 0.99, seed=2)
    np.testing.assert_array_equal(demos.actions, again.actions)
    assert len(demos) >= 40 and demos.masks[np.arange(len(demos)), demos.actions].all()


@pytest.mark.slow
def test_expert_iteration_rounds_search_with_the_network_as_it_stands(tmp_path, capsys):
    """Round 2's search takes round 1's network (saved in the run) as its prior and rollout
    player, and the network imitates it; each round's result is kept."""
    settings = tiny_run(
        game="uno", num_players=2, teacher="search:sims=4:leaves=2", imitation_steps=60, imitation_rounds=2
    )
    out = tmp_path / "run"
    train_model(settings, out, progress=False)
    printed = capsys.readouterr().out
    saved = out / "teacher-round-1.zip"
    assert f"imitating search:sims=4:leaves=2:prior=net:rollout=net:net={saved}" in printed
    assert make_policy(f"greedy:{saved}", "uno", 2)  # round 1's network, as round 2's search loaded it
    for name in ("imitation-round-1.json", "imitation.json"):
        assert json.loads((out / name).read_text())["decisions"] >= 60
    assert json.loads((out / "settings.json").read_text())["imitation"]["rounds"] == 2
