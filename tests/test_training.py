"""MaskablePPO on the single-agent env, the evaluation maths and the two CLIs."""

from __future__ import annotations

import numpy as np
import pytest

import evaluate
import train
from agents import make_policy
from agents.model import ModelPolicy
from card_envs.evaluation import evaluate as evaluate_policy
from card_envs.evaluation import wilson_interval
from card_envs.training import make_vec_env
from card_envs.training import train as train_model

TINY_PPO = {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "policy_kwargs": {"net_arch": [32]}}


def test_maskable_ppo_learns_on_subproc_vec_env(tmp_path):
    path = tmp_path / "uno.zip"
    model = train_model(
        "uno", 4, timesteps=256, n_envs=2, save_path=path, progress_bar=False, ppo_kwargs=TINY_PPO
    )
    assert model.num_timesteps >= 256
    assert path.exists()
    policy = ModelPolicy(str(path))
    result = evaluate_policy(policy, "uno", 4, "random", episodes=5, seed=1)
    assert result.episodes == 5 and 0 <= result.wins <= 5


def test_vec_env_exposes_action_masks_through_subprocesses():
    vec = make_vec_env({"game": "uno", "num_players": 3}, n_envs=2)
    try:
        vec.reset()
        masks = np.stack(vec.env_method("action_masks"))
        assert masks.shape == (2, 117) and masks.dtype == np.int8 and masks.any(axis=1).all()
    finally:
        vec.close()


def test_model_policy_is_deterministic_given_rng_and_legal(tmp_path):
    path = tmp_path / "m.zip"
    train_model("uno", 2, timesteps=64, n_envs=1, save_path=path, progress_bar=False, ppo_kwargs=TINY_PPO)
    policy = ModelPolicy(path)
    from card_envs.games.uno.engine import UnoGame

    game = UnoGame(2)
    game.reset(seed=0)
    obs, mask = game.observe(game.current_player), game.action_mask()
    picks = [policy.act(obs, mask, np.random.default_rng(5)) for _ in range(2)]
    assert picks[0] == picks[1] and mask[picks[0]]
    with pytest.raises(ValueError, match="no saved model"):
        ModelPolicy(tmp_path / "missing.zip")


def test_wilson_interval():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.404, abs=1e-3) and high == pytest.approx(0.596, abs=1e-3)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_rule_agent_beats_random_players_clearly():
    result = evaluate_policy(make_policy("rule", "uno", 4), "uno", 4, "random", episodes=200, seed=0)
    assert result.ci_low > 0.5  # a random seat would win 25%


def test_train_and_evaluate_cli(tmp_path, capsys):
    out = tmp_path / "cli.zip"
    train.main(
        ["--timesteps", "64", "--envs", "1", "--eval-episodes", "3", "--no-progress", "--out", str(out)]
    )
    assert "win rate" in capsys.readouterr().out and out.exists()
    evaluate.main(["--model", str(out), "--episodes", "3", "--opponents", "random"])
    assert "vs random" in capsys.readouterr().out
    evaluate.main(["--policy", "rule", "--episodes", "3", "--rule", "stacking=false", "--players", "3"])
    assert "vs rule" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        evaluate.main(["--policy", "rule", "--rule", "oops"])
    with pytest.raises(SystemExit):
        train.main(["--rule", "stacking=maybe"])
    assert "stacking must be one of" in capsys.readouterr().err
