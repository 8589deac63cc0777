"""MaskablePPO training runs, self-play, and the two CLIs (short runs: learning itself is benchmarked)."""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace

import numba
import numpy as np
import pytest
import torch

import evaluate
import train
from card_envs.agents import make_policy
from card_envs.agents.model import ModelPolicy, SelfPlayPool
from card_envs.cli.train import free_run_dir
from card_envs.core.registry import game_spec
from card_envs.evaluation.against import evaluate as evaluate_policy
from card_envs.training.run import make_vec_env
from card_envs.training.run import train as train_model
from card_envs.training.settings import PPOSettings, TrainSettings

TINY_PPO = {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [32]}
FAST_RUN = {"eval_every": 128, "eval_games": 2, "checkpoint_every": 128, "teacher": ""}


@pytest.mark.slow
def test_a_run_directory_holds_model_settings_checkpoints_and_evaluations(tmp_path):
    settings = TrainSettings.from_options(
        game="uno", num_players=4, timesteps=256, envs=2, ppo=TINY_PPO, **FAST_RUN
    )
    model = train_model(settings, tmp_path / "run", progress=False)
    assert model.num_timesteps >= 256
    run = tmp_path / "run"
    saved = json.loads((run / "settings.json").read_text())
    assert (saved["game"], saved["num_players"], saved["observation_size"], saved["num_actions"]) == (
        "uno",
        4,
        252,
        117,
    )
    assert saved["versions"]["torch"] and saved["ppo"]["net_arch"] == [32]
    assert (run / "model.zip").exists() and list((run / "checkpoints").glob("model_*_steps.zip"))
    rows = (run / "evaluations.csv").read_text().splitlines()
    assert rows[0].startswith("steps,games,win_rate") and len(rows) >= 3
    with pytest.raises(FileExistsError, match="force"):
        train_model(settings, run, progress=False)
    policy = ModelPolicy(run)
    result = evaluate_policy(policy, "uno", 4, "random", episodes=5, seed=1)
    assert result.episodes == 5 and 0 <= result.wins <= 5


def test_a_run_stops_at_the_first_evaluation_ahead_of_the_rule_players(tmp_path, monkeypatch):
    """``stop_when_ahead`` (``--stop-when-ahead``): the run ends at the first evaluation whose
    mean-reward interval lies above 0 (here the second, made to look ahead), and each row's
    ``seconds`` is the run's time so far without the evaluations."""
    from card_envs.evaluation.stats import Estimate
    from card_envs.training import callbacks

    real, looks = callbacks.tournament, []

    def second_look_ahead(*args, **kwargs):
        result = real(*args, **kwargs)
        looks.append(result)
        if len(looks) < 2:
            return result
        agent = replace(result.agents[0], mean_reward=Estimate(0.5, 0.1, 0.9, "test"))
        return replace(result, agents=[agent, *result.agents[1:]])

    monkeypatch.setattr(callbacks, "tournament", second_look_ahead)
    options = {**FAST_RUN, "eval_every": 64}
    settings = TrainSettings.from_options(
        game="uno", num_players=3, timesteps=2048, envs=1, ppo=TINY_PPO, stop_when_ahead=True, **options
    )
    model = train_model(settings, tmp_path / "run", progress=False)
    rows = (tmp_path / "run" / "evaluations.csv").read_text().splitlines()
    assert len(looks) == 2 and len(rows) == 3 and model.num_timesteps < 256  # header and two looks
    assert rows[1].startswith("0,")  # the first look: the untrained network, where the curve starts
    seconds = [float(row.split(",")[-1]) for row in rows[1:]]
    assert rows[0].endswith(",seconds") and 0 <= seconds[0] <= seconds[1]
    assert json.loads((tmp_path / "run" / "settings.json").read_text())["run"]["stop_when_ahead"] is True


@pytest.mark.slow
def test_self_play_sends_snapshots_into_the_env_workers(tmp_path):
    settings = TrainSettings.from_options(
        game="tock",
        num_players=3,
        opponents=["self", "rule"],
        timesteps=192,
        envs=2,
        ppo=TINY_PPO,
        snapshot_every=64,
        **FAST_RUN,
    )
    model = train_model(settings, None, progress=False)
    assert model.num_timesteps >= 192
    pool = SelfPlayPool(size=2)
    for network in ("a", "b", "c"):
        pool.add_snapshot(network)
    assert pool.snapshots == ["b", "c"]


def test_vectorized_self_play_run_trains_on_the_batched_engine_and_plays_in_evaluate(tmp_path):
    settings = TrainSettings.from_options(
        game="uno",
        num_players=3,
        opponents=["self", "rule"],
        timesteps=512,
        envs=8,
        vectorized=True,
        ppo={**TINY_PPO, "n_steps": 16},
        snapshot_every=128,
        **FAST_RUN,
    )
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    model = train_model(settings, tmp_path / "run", progress=False)
    assert model.num_timesteps >= 512
    assert json.loads((tmp_path / "run" / "settings.json").read_text())["run"]["vectorized"] is True
    assert numba.get_num_threads() == torch.get_num_threads() == 1  # idle numba workers slow torch
    episodes = [info for info in model.ep_info_buffer]
    assert episodes and all(info["l"] >= 1 for info in episodes)
    pool = model.get_env().env.opponents[0].policy
    assert (
        isinstance(pool, SelfPlayPool) and len(pool.snapshots) >= 2
    )  # added once per snapshot, not per game
    result = evaluate_policy(ModelPolicy(tmp_path / "run"), "uno", 3, "rule", episodes=3, seed=1)
    assert result.episodes == 3


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    """A short 3-player Tock run that the continuing runs start from, and its model."""
    path = tmp_path_factory.mktemp("first")
    first = TrainSettings.from_options(
        game="tock", num_players=3, timesteps=64, envs=1, ppo=TINY_PPO, **FAST_RUN
    )
    return path, train_model(first, path, progress=False)


def test_a_run_continues_from_another_run_and_refuses_one_of_another_table(tmp_path, first_run):
    path, before = first_run
    settings = TrainSettings.from_options(
        game="tock",
        num_players=3,
        opponents=["self", "rule"],
        timesteps=64,
        envs=1,
        ppo={**TINY_PPO, "learning_rate": 0.0},
        init_from=str(path),
        **FAST_RUN,
    )
    after = train_model(settings, tmp_path / "second", progress=False)
    for name, weights in before.policy.state_dict().items():  # learning rate 0: nothing moved
        assert np.array_equal(weights.numpy(), after.policy.state_dict()[name].numpy()), name
    rows = (tmp_path / "second" / "evaluations.csv").read_text().splitlines()
    assert rows[1].startswith("0,")  # where the continued run started
    assert settings.ppo_settings()["ent_coef"] == 0.001  # fine-tuning settings, as after imitation
    with pytest.raises(ValueError, match=r"trained for 3-player tock .* this table is 3-player uno"):
        TrainSettings.from_options(game="uno", num_players=3, init_from=str(path)).check()
    with pytest.raises(ValueError, match="does not fit"):
        wider = {**TINY_PPO, "net_arch": [16]}
        train_model(replace(settings, ppo=PPOSettings.from_mapping(wider)), None, progress=False)


def test_a_short_fresh_run_has_rows_at_its_start_and_its_end(tmp_path):
    """A run shorter than half an evaluation interval: the untrained network at step 0, the
    trained one at the end (the step-0 row does not stand in for it)."""
    settings = TrainSettings.from_options(
        game="uno", num_players=3, timesteps=64, envs=1, ppo=TINY_PPO, **{**FAST_RUN, "eval_every": 50_000}
    )
    train_model(settings, tmp_path / "run", progress=False)
    rows = (tmp_path / "run" / "evaluations.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in rows[1:]] == ["0", "64"]


def test_a_model_of_an_older_observation_is_refused_with_the_reason(first_run):
    path, _ = first_run
    policy = ModelPolicy(str(path))
    from card_envs.games.tock.engine import TockGame

    game = TockGame(3)
    newer = SimpleNamespace(  # the same table after an env version grew the observation
        name="tock", num_players=3, observation_size=game.observation_size + 1, num_actions=game.num_actions
    )
    with pytest.raises(ValueError, match=r"3-player tock .* observation changed since"):
        policy.check_table(newer)  # type: ignore[arg-type]
    policy.check_table(game)


def test_a_continued_run_imitates_a_teacher_named_for_it_and_not_the_recipes(tmp_path, first_run):
    path, before = first_run
    options = {"game": "tock", "num_players": 3, "init_from": str(path)}
    assert TrainSettings.from_options(**options, recipe="quick").teacher() == ""  # the recipe's is dropped
    tuned = TrainSettings.from_options(
        **options,
        timesteps=0,  # the imitation alone, no PPO
        envs=1,
        seed=5,  # a fresh network of this seed would lie far from the first run's
        ppo=TINY_PPO,
        **{**FAST_RUN, "teacher": "rule"},
        imitation_steps=200,
        imitation_epochs=1,
        imitation_lr=1e-4,
    )
    after = train_model(tuned, tmp_path / "tuned", progress=False)
    moved = [
        float(np.abs(weights.numpy() - after.policy.state_dict()[name].numpy()).max())
        for name, weights in before.policy.state_dict().items()
    ]
    assert 0 < max(moved) < 0.01  # one small imitation step from the continued network
    saved = json.loads((tmp_path / "tuned" / "settings.json").read_text())
    assert saved["imitation"]["teacher"] == "rule" and saved["imitation"]["learning_rate"] == 1e-4
    assert (tmp_path / "tuned" / "imitation.json").exists()
    with pytest.raises(ValueError, match=r"imitation_lr must be a number in \(0.0, 1.0\]"):
        TrainSettings.from_options(**options, teacher="rule", imitation_lr=0.0).check()
    with pytest.raises(ValueError, match=r"timesteps 0 .* needs a teacher"):
        TrainSettings.from_options(**options, timesteps=0).check()


def test_self_play_pool_plays_its_snapshots_with_the_env_generator():
    settings = TrainSettings.from_options(
        game="uno", num_players=2, timesteps=64, envs=1, ppo=TINY_PPO, **FAST_RUN
    )
    model = train_model(settings, None, progress=False)
    pool = make_policy("self", "uno", 2)
    assert isinstance(pool, SelfPlayPool)
    from card_envs.games.uno.engine import UnoGame

    game = UnoGame(2)
    game.reset(seed=0)
    obs, mask = game.observe(game.current_player), game.action_mask()
    pool.new_game(np.random.default_rng(0))
    assert mask[pool.act(obs, mask, np.random.default_rng(1))]  # no snapshot yet: uniformly random
    pool.add_snapshot(model.policy)
    pool.new_game(np.random.default_rng(0))
    picks = {pool.act(obs, mask, np.random.default_rng(5)) for _ in range(3)}
    assert len(picks) == 1 and mask[picks.pop()]


def test_a_model_trained_with_the_mask_in_its_observation_gets_it_when_it_plays():
    settings = TrainSettings.from_options(
        game="tock", num_players=3, timesteps=64, envs=1, ppo=TINY_PPO, mask_in_observation=True, **FAST_RUN
    )
    model = train_model(settings, None, progress=False)
    policy = make_policy(ModelPolicy(model), "tock", 3)
    from card_envs.games.tock.engine import TockGame

    game = TockGame(3)
    game.reset(seed=1)
    ModelPolicy(model).check_table(game)
    for _ in range(20):
        action = policy.act(game.observe(game.current_player), game.action_mask(), np.random.default_rng(0))
        game.step(action)  # legal, with the engine's plain observation


@pytest.mark.slow
def test_vec_env_exposes_action_masks_through_subprocesses():
    vec = make_vec_env({"game": "uno", "num_players": 3}, n_envs=2)
    try:
        vec.reset()
        masks = np.stack(vec.env_method("action_masks"))
        assert masks.shape == (2, 117) and masks.dtype == np.int8 and masks.any(axis=1).all()
    finally:
        vec.close()


def test_model_policy_is_deterministic_given_rng_legal_and_refuses_another_table(tmp_path):
    settings = TrainSettings.from_options(
        game="uno", num_players=2, timesteps=64, envs=1, ppo=TINY_PPO, **FAST_RUN
    )
    train_model(settings, tmp_path / "m", progress=False)
    policy = ModelPolicy(tmp_path / "m")
    from card_envs.games.uno.engine import UnoGame

    game = UnoGame(2)
    game.reset(seed=0)
    obs, mask = game.observe(game.current_player), game.action_mask()
    picks = [policy.act(obs, mask, np.random.default_rng(5)) for _ in range(2)]
    assert picks[0] == picks[1] and mask[picks[0]]
    with pytest.raises(ValueError, match="no saved model"):
        ModelPolicy(tmp_path / "missing.zip")
    with pytest.raises(ValueError, match=r"trained for 2-player uno .* this table is 4-player uno"):
        make_policy(f"model:{tmp_path / 'm'}", "uno", 4)
    with pytest.raises(ValueError, match="4-player tock"):
        make_policy(f"model:{tmp_path / 'm'}", "tock", 4)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"timesteps": -5}, "timesteps must be"),
        ({"timesteps": 0, "teacher": ""}, "timesteps 0 .* needs a teacher"),
        ({"envs": 0}, "envs must be"),
        ({"eval_games": 0}, "eval_games must be"),
        ({"opponents": ["rule", "rule"]}, "opponents needs"),
        ({"opponents": ["genius"]}, "unknown policy spec"),
        ({"ppo": {"n_stepz": 3}}, "unknown PPO setting"),
        ({"num_players": 11}, "num_players"),
        ({"max_minutes": 0}, "max_minutes must be"),
        ({"imitation_steps": 0}, "imitation_steps must be"),
        ({"imitation_smoothing": 1.0}, "imitation_smoothing must be"),
        ({"imitation_rounds": 0}, "imitation_rounds must be"),
        ({"imitation_lr": 0.0}, "imitation_lr must be"),
        ({"imitation_rounds": 2, "teacher": "rule"}, "needs a search teacher"),
        ({"game": "climb", "vectorized": True}, "needs a batched engine"),
        ({"opponents": ["search:sims=5"], "vectorized": True}, "without --vectorized"),
        ({"teacher": "search:sims=0"}, "search sims"),
        ({"seed": -3}, "seed must be"),
        ({"ppo": {"n_steps": 0}}, "n_steps must be"),
        ({"ppo": {"batch_size": 0}}, "batch_size must be"),
        ({"ppo": {"learning_rate": -1}}, "learning_rate must be"),
        ({"ppo": {"gamma": 5}}, "gamma must be"),
        ({"ppo": {"ent_coef": float("nan")}}, "ent_coef must be"),
        ({"ppo": {"net_arch": [0]}}, "net_arch layer width"),
        ({"ppo": {"n_steps": 1}, "envs": 1}, "n_steps x envs"),
        ({"threads": 0}, "threads must be"),
        ({"reward_shaping": -1}, "reward_shaping must be"),
        ({"teacher": "genius"}, "teacher 'genius'"),
        ({"init_from": "/nowhere/run"}, "init_from: no saved model"),
        ({"game": "uno", "init_from": "pretrained:tock"}, "names another game"),
        ({"init_from": "pretrained", "ppo": {"net_arch": [64]}}, r"shipped network is .*layers': \[64\]"),
        ({"opponents": ["model:/nowhere/run"]}, "opponent 'model:/nowhere/run': no saved model"),
        ({"improve_games": -1}, "improve_games must be"),
        ({"improve_width": 1}, "improve_width must be"),
        ({"improve_worlds": 1}, "improve_worlds must be"),
        ({"improve_beta": -1.0}, "improve_beta must be"),
        ({"improve_epochs": 0}, "improve_epochs must be"),
        ({"improve_lr": 0.0}, "improve_lr must be"),
        ({"improve_rollout": "genius"}, "improve_rollout 'genius'"),
        ({"improve_rollout": "search:sims=4"}, "a search player cannot decide from"),
        ({"improve_games": 2, "teacher": ""}, "improve_games improves a network that plays: it needs"),
    ],
)
def test_nonsense_settings_are_refused_before_any_work(change, message):
    with pytest.raises(ValueError, match=message):
        TrainSettings.from_options(**change).check()


def test_starting_from_the_shipped_agent_of_a_table_without_one_is_refused(unshipped_table):
    game, n = unshipped_table
    with pytest.raises(ValueError, match=f"no pretrained agent for {n}-player {game}"):
        TrainSettings.from_options(game=game, num_players=n, init_from="pretrained").check()


def test_unknown_setting_names_are_refused():
    with pytest.raises(ValueError, match="unknown training setting 'timestep'"):
        TrainSettings.from_options(timestep=5)


def test_rule_agent_beats_random_players_clearly():
    result = evaluate_policy(make_policy("rule", "uno", 4), "uno", 4, "random", episodes=200, seed=0)
    assert result.ci_low > 0.5  # a random seat would win 25%


def test_train_cli_refuses_nonsense_with_one_line_and_exit_code_2(tmp_path, capsys):
    for argv in (
        ["--timesteps", "-5"],
        ["--envs", "0"],
        ["--eval-games", "0"],
        ["--rule", "stacking=maybe"],
        ["--opponents", "rule,rule"],
        ["--env-runners", "2"],  # a Ray setting without --backend rllib
        ["--backend", "rllib", "--env-runners", "-1"],
        ["--backend", "rllib", "--teacher", "rule"],  # RLlib starts from random play
        ["--lr", "-1"],
        ["--seed", "-3"],
        ["--n-steps", "0"],
        ["--batch-size", "0"],
        ["--gamma", "5"],
        ["--final-games", "0"],
    ):
        with pytest.raises(SystemExit) as exit_info:
            train.main([*argv, "--out", str(tmp_path / "never")])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("train.py: error:")
    assert not (tmp_path / "never").exists()


def test_train_cli_refuses_an_out_that_is_no_folder(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("")
    for out in (afile, afile / "below"):
        with pytest.raises(SystemExit) as exit_info:
            train.main(["--timesteps", "64", "--out", str(out)])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "cannot write to" in err[0]


def test_an_interrupted_run_is_not_a_trained_one_and_runs_again_without_force(tmp_path):
    """A run directory counts as finished only once model.zip is saved, at the very end."""
    out = tmp_path / "run"
    settings = TrainSettings.from_options(
        game="uno", num_players=2, timesteps=64, envs=1, ppo=TINY_PPO, **FAST_RUN
    )

    def interrupt(self, *args, **kwargs):
        raise KeyboardInterrupt

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sb3_contrib.MaskablePPO.learn", interrupt)
        with pytest.raises(KeyboardInterrupt):
            train_model(settings, out, progress=False)
    assert (out / "settings.json").exists() and not (out / "model.zip").exists()
    assert free_run_dir(out) == out  # the next default run goes there again
    train_model(settings, out, progress=False)  # no --force needed
    assert (out / "model.zip").exists() and not list(out.glob("partial-*"))


@pytest.mark.slow  # a whole command in a subprocess or a bench; the library side is tested fast
def test_train_and_evaluate_cli(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["--timesteps", "64", "--envs", "1", "--n-steps", "64", "--batch-size", "64", "--net-arch", "16"]
    args += ["--imitation-steps", "100"]  # the game's default teacher, briefly
    args += [
        "--eval-every",
        "64",
        "--eval-games",
        "2",
        "--final-games",
        "2",
        "--no-progress",
        "--out",
        str(out),
    ]
    train.main(args)
    assert "trained agent" in capsys.readouterr().out and (out / "model.zip").exists()
    with pytest.raises(SystemExit) as exit_info:
        train.main(args)  # the model is there: never overwritten without --force
    assert exit_info.value.code == 2 and "--force" in capsys.readouterr().err
    evaluate.main(
        [
            "--model",
            str(out),
            "--games",
            "4",
            "--opponents",
            "random",
            "--workers",
            "1",
            "--out",
            str(tmp_path / "rep"),
        ]
    )
    text = capsys.readouterr().out
    assert "greedy:" in text and "random (3)" in text
    assert (tmp_path / "rep" / "results.json").exists() and (tmp_path / "rep" / "report.md").exists()
    with pytest.raises(SystemExit) as exit_info:
        evaluate.main(["--model", str(out), "--game", "tock", "--games", "2", "--workers", "1"])
    assert exit_info.value.code == 2 and "trained for 4-player uno" in capsys.readouterr().err
    evaluate.main(
        ["--policy", "rule", "--games", "3", "--rule", "stacking=false", "--players", "3", "--workers", "1"]
    )
    assert "rule" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        evaluate.main(["--policy", "rule", "--rule", "oops"])


@pytest.mark.slow
@pytest.mark.parametrize("game", ["uno", "tock", "chipit"])
def test_every_game_trains_with_its_defaults_and_the_run_plays_in_evaluate(game, tmp_path, capsys):
    """The game's own defaults (its recipe: teacher or none, shaping, features), 2 env workers,
    a few thousand steps."""
    out = tmp_path / game
    run = "--timesteps 2048 --envs 2 --no-vectorized --n-steps 512 --imitation-steps 500"
    run += " --eval-every 2048 --eval-games 4"
    train.main(["--game", game, *run.split(), "--final-games", "4", "--no-progress", "--out", str(out)])
    saved = json.loads((out / "settings.json").read_text())
    assert saved["recipe"]["name"] == "full"
    if game_spec(game).recipe["teacher"]:
        assert saved["imitation"]["teacher"] == game_spec(game).recipe["teacher"]
        assert json.loads((out / "imitation.json").read_text())["decisions"] >= 500
    else:  # PPO from random play (Tock's recipe)
        assert saved["imitation"] is None and not (out / "imitation.json").exists()
    capsys.readouterr()
    evaluate.main(["--model", str(out), "--games", "8", "--opponents", "rule", "--workers", "2"])
    assert f"greedy:{game}" in capsys.readouterr().out


def test_a_run_improves_the_shipped_network_towards_valued_moves_and_says_how(tmp_path):
    """No PPO: the shipped actor, fitted to the soft targets of its own valued decisions."""
    from card_envs.agents.pretrained import load_pretrained
    from card_envs.training.export import actor_arrays

    improve = {"improve_games": 3, "improve_width": 2, "improve_worlds": 2, "improve_rollout": "rule"}
    settings = TrainSettings.from_options(
        game="uno", num_players=2, init_from="pretrained", timesteps=0, envs=1, improve_epochs=2, **improve
    )
    model = train_model(settings, tmp_path / "run", progress=False)
    arrays, _ = actor_arrays(model)
    shipped = load_pretrained("uno", 2)
    moved = max(float(np.abs(arrays[f"weight{i}"] - w).max()) for i, (w, _) in enumerate(shipped.layers))
    assert 0 < moved < 0.05  # two passes of small steps from the shipped actor
    report = json.loads((tmp_path / "run" / "improvement.json").read_text())
    assert report["games"] == 3 and report["decisions"] > 0 and 0 <= report["changed"] <= 1
    saved = json.loads((tmp_path / "run" / "settings.json").read_text())
    assert saved["improvement"]["games"] == 3 and saved["improvement"]["rollout"] == "rule"


@pytest.mark.parametrize("game", ["uno", "tock", "chipit"])
def test_a_games_defaults_are_its_recipes_whether_or_not_a_recipe_is_asked_for(game):
    """One source of a game's defaults: a run without ``recipe`` imitates the teacher, with the
    reward shaping, that the game's recipe names (Tock's said none while a second table of
    per-game defaults named a teacher)."""
    spec = game_spec(game)
    plain = TrainSettings.from_options(game=game)
    with_recipe = TrainSettings.from_options(game=game, recipe="quick")
    assert plain.teacher() == with_recipe.teacher() == spec.recipe.get("teacher", "")
    shaping = spec.recipe.get("reward_shaping", 0.0)
    assert plain.learner_env().reward_shaping == with_recipe.learner_env().reward_shaping == shaping
