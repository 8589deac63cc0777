"""The agents shipped with the package (``pretrained``): they load with numpy alone, play legal
moves at their tables (alone, in batches, as opponents), refuse other tables in one sentence,
and play exactly as the trained network they were exported from."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from card_envs.agents.pretrained import (
    DATA,
    PretrainedPolicy,
    file_stem,
    load_pretrained,
    shipped_tables,
)
from card_envs.agents.specs import check_spec, make_policy
from card_envs.batched import BatchedGame
from card_envs.batched.policy import batched_policy
from card_envs.core.play import play_game
from card_envs.core.registry import game_class
from tests.scripts import load_script

SHIPPED = shipped_tables()
#: the issue's promise: every game at 4 players ships an agent
MAIN_TABLES = [("tock", 4), ("chipit", 4), ("uno", 4)]


def test_every_game_ships_a_4_player_agent_under_2_mb() -> None:
    assert set(MAIN_TABLES) <= set(SHIPPED)
    for game, n in SHIPPED:
        stem = DATA / file_stem(game, n)
        assert stem.with_suffix(".npz").stat().st_size < 2 * 2**20
        card = json.loads(stem.with_suffix(".json").read_text())
        assert all(command.startswith("python train.py") for command in card["training"]["commands"])
        assert card["results"]["agent"]["games"] >= 400
        assert card["beats_rule_players"] or n == 4  # another table ships only an agent that beats them


@pytest.mark.parametrize(("game", "n"), SHIPPED, ids=[file_stem(*t) for t in SHIPPED])
def test_a_shipped_agent_plays_whole_games_against_rule_players(game: str, n: int) -> None:
    for spec in ("pretrained", f"pretrained:{game}"):
        policies = [make_policy(spec, game, n), *(make_policy("rule", game, n) for _ in range(n - 1))]
        outcome = play_game(game_class(game)(n), policies, np.random.default_rng(n))
        assert not outcome.truncated and sorted(outcome.ranks)[0] == 1


@pytest.mark.parametrize(("game", "n"), SHIPPED, ids=[file_stem(*t) for t in SHIPPED])
def test_its_batched_twin_plays_the_same_moves(game: str, n: int) -> None:
    agent = make_policy("pretrained", game, n)
    batch = BatchedGame(game, 16, n)
    batch.reset(seed=1)
    rows = np.arange(16)
    twin = batched_policy(agent)
    rng = np.random.default_rng(0)
    for _ in range(30):
        actions = twin.act(batch.observations, batch.masks, batch.generators, rows)
        expected = [agent.act(batch.observations[b], batch.masks[b], rng) for b in rows]
        assert actions.tolist() == expected
        assert all(batch.masks[b, a] for b, a in enumerate(actions))
        batch.step(actions)


def test_every_table_of_every_game_ships_an_agent() -> None:
    games = [game_class(game) for game in ("tock", "chipit", "uno")]
    expected = {(g.name, n) for g in games for n in range(g.min_players, g.max_players + 1)}
    assert set(SHIPPED) == expected


def test_a_table_without_an_agent_is_refused_naming_those_that_have_one(unshipped_table) -> None:
    game, n = unshipped_table
    with pytest.raises(ValueError, match=rf"no pretrained agent for {n}-player {game}; shipped: .*tock"):
        make_policy("pretrained", game, n)
    with pytest.raises(ValueError, match="pretrained:uno names another game"):
        check_spec("pretrained:uno", "tock", 4)


def test_it_plays_as_an_opponent_of_the_single_agent_and_batched_envs() -> None:
    from card_envs.agents.envs import make_batched_env, make_env

    env = make_env("tock", num_players=4, opponents="pretrained")
    env.reset(seed=0)
    batched = make_batched_env("tock", num_envs=4, num_players=4, opponents="pretrained")
    batched.reset(seed=0)
    for _ in range(40):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
        batched.step(np.array([int(np.flatnonzero(m)[0]) for m in batched.action_masks()]))


def test_the_core_install_plays_it_without_torch() -> None:
    code = (
        "import sys; from card_envs.agents.specs import make_policy;"
        "make_policy('pretrained', 'tock', 4); assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_a_run_started_from_a_shipped_agent_plays_as_it_before_learning(tmp_path: Path) -> None:
    """``--init-from pretrained``: the shipped actor, loaded into a MaskablePPO policy, gives the
    shipped agent's move probabilities (learning rate 0, so PPO's steps move nothing)."""
    pytest.importorskip("sb3_contrib")
    from card_envs.agents.model import ModelPolicy
    from card_envs.training.run import train
    from card_envs.training.settings import TrainSettings

    settings = TrainSettings.from_options(
        game="uno", num_players=4, teacher="", timesteps=64, envs=1, vectorized=False,
        ppo={"n_steps": 64, "batch_size": 32, "learning_rate": 0.0}, eval_every=10**6,
        init_from="pretrained:uno",
    )  # fmt: skip
    train(settings, tmp_path / "run", progress=False)
    shipped, started = make_policy("pretrained", "uno", 4), ModelPolicy(tmp_path / "run", deterministic=True)
    game = game_class("uno")(4)
    game.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(30):
        observation, mask = game.observe(game.current_player), game.action_mask()
        np.testing.assert_allclose(
            shipped.probabilities(observation, mask), started.probabilities(observation, mask), atol=1e-5
        )
        game.step(shipped.act(observation, mask, rng))
        if game.is_over:
            break


def test_an_exported_run_plays_as_its_trained_network(tmp_path: Path) -> None:
    """The exporter keeps the actor exactly: the same move probabilities as the SB3 model."""
    pytest.importorskip("sb3_contrib")
    from card_envs.agents.model import ModelPolicy
    from card_envs.training.export import export_pretrained
    from card_envs.training.run import train
    from card_envs.training.settings import TrainSettings

    settings = TrainSettings.from_options(
        game="uno", num_players=3, teacher="", timesteps=64, envs=1, vectorized=False,
        ppo={"n_steps": 64, "batch_size": 32}, eval_every=10**6,
    )  # fmt: skip
    train(settings, tmp_path / "run", progress=False)
    export_pretrained(tmp_path / "run", tmp_path / "agents", {"note": "a test"})
    shipped = PretrainedPolicy(load_pretrained("uno", 3, tmp_path / "agents"))
    trained = ModelPolicy(tmp_path / "run", deterministic=True)
    game = game_class("uno")(3)
    game.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(40):
        if game.is_over:
            break
        observation, mask = game.observe(game.current_player), game.action_mask()
        np.testing.assert_allclose(
            shipped.probabilities(observation, mask), trained.probabilities(observation, mask), atol=1e-5
        )
        assert shipped.act(observation, mask, rng) == trained.act(observation, mask, rng)
        game.step(shipped.act(observation, mask, rng))


def test_the_pretrain_bench_reuses_a_stage_only_when_the_same_command_trained_it(tmp_path, monkeypatch):
    bench = load_script("bench/pretrain.py")
    trained: list[Path] = []
    monkeypatch.setattr(bench, "train", lambda settings, run, **kw: trained.append(run))
    run = tmp_path / "chipit-4p"
    run.mkdir()
    (run / "model.zip").write_bytes(b"finished")
    (run / bench.STAGE_FILE).write_text(json.dumps({"command": "python train.py A", "seconds": 60}))
    assert bench.train_stage(None, "python train.py A", run, reuse=True) == 60.0 and not trained
    bench.train_stage(None, "python train.py B", run, reuse=True)  # another command: trained again
    bench.train_stage(None, "python train.py A", run, reuse=False)
    assert trained == [run, run]
    assert json.loads((run / bench.STAGE_FILE).read_text())["command"] == "python train.py A"


@pytest.mark.parametrize(
    ("table", "recipe"),
    [(("chipit", 2), "full"), (("chipit", 3), "quick"), (("tock", 3), "full"), (("uno", 4), "full")],
)
def test_the_pretrain_bench_trains_the_tables_of_full_recipe_with_it(table, recipe):
    """FULL_RECIPE names whole games (Tock) and single tables (Chip It at 2 players)."""
    bench = load_script("bench/pretrain.py")
    args = type("Args", (), {"seed": 0, "quick": False, "minutes": 15.0})()
    settings, command = bench.training_settings(*table, args)
    assert f"--recipe {recipe} " in command and settings.recipe == recipe


@pytest.mark.parametrize("table", ["chipit-4p", "uno-4p", "chipit-2p", "chipit-3p", "chipit-5p", "chipit-6p"])
def test_each_further_stage_continues_the_run_before_and_its_command_trains_the_same(tmp_path, table):
    """The further stages (Chip It at 4 players: a league, then heuristic players, then its own
    valued moves; UNO at 4: heuristic players; Chip It at 2: both; at 3, 5, 6: its valued moves)
    continue the run before at the same table without imitating again, and train.py given the
    card's command line builds the same settings."""
    from card_envs.cli.train import build_parser, settings_from

    bench = load_script("bench/pretrain.py")
    game, n = bench.parse_table(table)
    args = type("Args", (), {"seed": 3, "quick": False})()
    before = tmp_path / table
    stages = bench.FOLLOW_STAGES[table]
    expected = {  # None: no PPO, the network fitted to its own valued moves (improve_games)
        "chipit-4p": [["league"], *[["heuristic"]] * 3, None, None],
        "uno-4p": [["heuristic"]] * 3,
        "chipit-2p": [["heuristic"], ["heuristic"], None],
        "chipit-3p": [None],
        "chipit-5p": [None],
        "chipit-6p": [None],
    }
    assert [stage.get("opponents") for stage in stages] == expected[table]
    for stage in stages:
        settings, command = bench.stage_settings(game, n, stage, before, args)
        assert settings.run.init_from == str(before) and settings.teacher() == ""
        assert settings.num_players == n and f"--players {n} " in command
        assert f"--init-from {before}" in command and command.endswith(f"--seed {3 + stage['seed_offset']}")
        parsed = settings_from(build_parser().parse_args(command.split()[2:]), {})
        assert parsed.as_json() == settings.as_json(), command
        before = tmp_path / f"{table}-{stage['name']}"


def test_chipits_first_further_stage_is_a_league_with_the_heuristic_player(tmp_path):
    bench = load_script("bench/pretrain.py")
    args = type("Args", (), {"seed": 3, "quick": False})()
    league, _ = bench.stage_settings("chipit", 4, bench.FOLLOW_STAGES["chipit-4p"][0], tmp_path, args)
    assert league.trains_in_league() and league.league.others == ("heuristic",)


def test_a_table_trained_on_against_heuristic_players_is_judged_against_them(monkeypatch):
    """Away from 4 players (no gauntlet there), a table whose further stages trained against
    heuristic players is judged against them too, and its card section says how it did."""
    from types import SimpleNamespace

    bench = load_script("bench/pretrain.py")
    played: list[list[str]] = []

    def fake_tournament(game, seats, games, **kw):
        played.append(list(seats))
        share = SimpleNamespace(value=0.5, low=0.4, high=0.6)
        agent = SimpleNamespace(mean_reward=SimpleNamespace(value=0.1, low=0.0, high=0.2), win_rate=share)
        return SimpleNamespace(agents=[agent], games=games, duplicate=True)

    monkeypatch.setattr(bench, "tournament", fake_tournament)
    args = SimpleNamespace(games=10, seed=0, workers=1)
    results = bench.judge("chipit", 2, "greedy:RUN", args)
    assert ["greedy:RUN", "heuristic"] in played and "against_heuristic" in results
    played.clear()
    assert "against_heuristic" not in bench.judge("uno", 3, "greedy:RUN", args)  # no stages there
    assert all("heuristic" not in seats for seats in played)
    card = {
        "game": "chipit", "num_players": 2, "network": {"sizes": [1, 2], "activation": "tanh"},
        "training": {"commands": ["python train.py"], "rebuild": "r", "seconds": 60, "max_timesteps": 1,
                     "date": "2026-12-06", "machine": "m"},
        "results": results,
    }  # fmt: skip
    assert any(line.startswith("- **Against 1 heuristic player**") for line in bench.card_section(card))
