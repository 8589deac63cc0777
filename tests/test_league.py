"""League training (--opponents league): the pool, its prioritized draws, the results fed
back to it, and a short run per game that writes the pool to settings.json."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

from card_envs.agents.knob_ranges import Choice, Integers, Uniform
from card_envs.agents.policy_spec import PolicySpec
from card_envs.agents.registry import rule_agent_spec
from card_envs.agents.specs import check_spec, make_policy
from card_envs.cli import train as train_cli
from card_envs.core.registry import game_spec
from card_envs.core.table import Table
from card_envs.envs.vector import BatchedCardGameEnv
from card_envs.training.league import LeagueSettings, league_pool
from card_envs.training.league_play import Entry, League, LeagueVecEnv
from card_envs.training.run import train
from card_envs.training.settings import TrainSettings

GAMES = ("uno", "tock", "chipit")
#: Tock in the fast suite, the slower games (their short runs take 10-25 s) in the slow one
ONE_FAST = [pytest.param(g, marks=[] if g == "tock" else [pytest.mark.slow]) for g in GAMES]
TINY_PPO = {"n_steps": 64, "batch_size": 256, "n_epochs": 1, "net_arch": [32]}


@pytest.mark.parametrize("game", GAMES)
def test_the_knob_ranges_name_real_knobs_and_every_drawn_player_is_built(game):
    spec = rule_agent_spec(game)
    knobs = set(inspect.signature(spec.agent.__init__).parameters) - {"self", "num_players"}
    assert set(spec.knob_ranges) == knobs  # every knob is drawn, and only real ones
    drawn = set()
    for seed in range(20):
        pool = league_pool(game, LeagueSettings(rule_players=5), seed)
        assert pool[0] == "rule" and len(pool) == 6
        for drawn_spec in pool[1:]:
            check_spec(drawn_spec, game, 4)
            for name, value in PolicySpec.parse(drawn_spec).knobs().items():
                assert spec.knob_ranges[name].contains(value), (drawn_spec, name)
            drawn.add(drawn_spec)
    assert len(drawn) >= 50  # the knobs differ from player to player and seed to seed (a few may repeat)
    assert league_pool(game, LeagueSettings(), 3) == league_pool(game, LeagueSettings(), 3)


@pytest.mark.parametrize("game", GAMES)
def test_the_knob_ranges_span_the_defaults_and_every_knob_setting_the_agent_names(game):
    """One source of a game's knobs: the ranges the league draws from hold the rule agent's
    defaults, its lapse-free knobs and every knob setting of its mix."""
    spec = rule_agent_spec(game)
    defaults = {
        name: parameter.default
        for name, parameter in inspect.signature(spec.agent.__init__).parameters.items()
        if name in spec.knob_ranges
    }
    for setting in (defaults, spec.sound_knobs, *spec.knob_mix):
        for name, value in setting.items():
            assert spec.knob_ranges[name].contains(value), (game, name, value)


def test_a_knob_range_holds_only_its_own_values():
    assert Uniform(0.0, 0.5).contains(0.5) and not Uniform(0.0, 0.5).contains(0.51)
    assert not Uniform(0.0, 1.0).contains(True)  # a flag is not a rate
    assert Integers(1, 6).contains(6) and not Integers(1, 6).contains(2.5)
    assert Choice(("a", "b")).contains("b") and not Choice(("a", "b")).contains("c")


def test_the_pool_takes_other_specs_and_a_game_without_ranges_has_the_default_player_only():
    assert league_pool("uno", LeagueSettings(rule_players=1, others=("random",)), 0)[-1] == "random"
    assert league_pool("climb", LeagueSettings(rule_players=4), 0) == ["rule"]


def test_the_weights_favour_the_entries_the_learner_does_worst_against():
    league = League(LeagueSettings(exponent=2.0, floor=0.05))
    league.entries = [Entry(name, None, score=p) for name, p in (("a", 0.0), ("b", 0.5), ("c", 1.0))]  # type: ignore[arg-type]
    raw = np.array([1.0 + 0.05, 0.25 + 0.05, 0.0 + 0.05])
    np.testing.assert_allclose(league.weights(), raw / raw.sum())
    rng = np.random.default_rng(0)
    counts = np.bincount([league.draw(rng, league.weights()) for _ in range(20_000)], minlength=3)
    np.testing.assert_allclose(counts / counts.sum(), raw / raw.sum(), atol=0.02)


def test_an_entry_scores_its_first_window_games_as_a_mean_then_as_a_moving_average():
    entry = Entry("rule", None)  # type: ignore[arg-type]
    for score in (1.0, 0.0, 0.5):
        entry.record(score, score == 1.0, window=4)
    assert entry.score == pytest.approx(0.5) and (entry.games, entry.wins) == (3, 1)
    entry.record(1.0, True, window=4)
    entry.record(1.0, True, window=4)  # past the window: a quarter of the way to 1
    assert entry.score == pytest.approx(0.625 + (1.0 - 0.625) / 4)
    assert entry.score_total == pytest.approx(3.5)


def test_snapshots_join_the_pool_and_the_oldest_leave_beyond_the_count():
    league = League.build(Table.of("uno", 4), LeagueSettings(rule_players=1, snapshots=2), seed=0)
    for steps in (0, 100, 200):
        league.add_snapshot(object(), steps)
    assert [e.name for e in league.entries][2:] == ["self@100", "self@200"]
    none_kept = League.build(Table.of("uno", 4), LeagueSettings(rule_players=0, snapshots=0), seed=0)
    none_kept.add_snapshot(object(), 5)
    assert [e.name for e in none_kept.entries] == ["rule"]


def league_env(game: str, seed: int, num_envs: int = 16) -> LeagueVecEnv:
    league = League.build(Table.of(game, 4), LeagueSettings(rule_players=3, others=("random",)), seed=0)
    env = BatchedCardGameEnv(game, num_envs, 4, opponents=league.seats(3, num_envs))
    vec_env = LeagueVecEnv(env, league)
    vec_env.seed(seed)
    return vec_env


def play(vec_env: LeagueVecEnv, steps: int) -> tuple[list[tuple[str, ...]], int, float]:
    """Random learner moves; the tables drawn at every step, the games ended, their score sum."""
    rng = np.random.default_rng(1)
    vec_env.reset()
    tables, ended, scores = [], 0, 0.0
    for _ in range(steps):
        tables.append(tuple(e.name for seat in vec_env.league_seats for e in seat.assigned))
        masks = vec_env.env.action_masks()
        actions = [rng.choice(np.flatnonzero(m)) for m in masks]
        vec_env.step_async(np.array(actions))
        _, _, dones, infos = vec_env.step_wait()
        ended += int(dones.sum())
        scores += sum((infos[b]["rank_reward"] + 1) / 2 for b in np.flatnonzero(dones))
    return tables, ended, scores


@pytest.mark.parametrize("game", ONE_FAST)
def test_each_game_draws_its_opponents_at_its_deal_and_reports_to_them(game):
    vec_env = league_env(game, seed=4)
    tables, ended, scores = play(vec_env, 300)
    assert ended > 0
    league = vec_env.league
    # each game's result goes once to every distinct entry at its table
    assert sum(e.games for e in league.entries) >= ended
    assert sum(e.games for e in league.entries) <= 3 * ended
    assert sum(e.score_total for e in league.entries) >= scores - 1e-9
    assert len({name for table in tables for name in table}) > 3  # the tables mix the pool
    assert tables == play(league_env(game, seed=4), 300)[0]  # seeded: the same draws again
    assert tables != play(league_env(game, seed=5), 300)[0]


def test_the_shipped_agent_plays_in_the_league_on_the_batched_engine():
    """``--league-others pretrained``: another trained agent in the pool, one pass for its rows."""
    league = League.build(Table.of("tock", 4), LeagueSettings(rule_players=0, others=("pretrained",)), seed=0)
    env = BatchedCardGameEnv("tock", 8, 4, opponents=league.seats(3, 8))
    vec_env = LeagueVecEnv(env, league)
    vec_env.seed(3)
    tables, ended, _ = play(vec_env, 600)
    assert ended > 0 and {"pretrained"} <= {name for table in tables for name in table}
    assert next(e for e in league.entries if e.name == "pretrained").games > 0


def test_a_table_of_one_entry_reports_each_game_once_with_its_score():
    league = League.build(Table.of("tock", 4), LeagueSettings(rule_players=0), seed=0)
    env = BatchedCardGameEnv("tock", 8, 4, opponents=league.seats(3, 8))
    vec_env = LeagueVecEnv(env, league)
    vec_env.seed(0)
    _, ended, scores = play(vec_env, 400)
    (entry,) = league.entries
    assert entry.games == ended > 0 and entry.score_total == pytest.approx(scores)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({}, "needs vectorized"),
        ({"vectorized": True, "opponents": ["league", "rule", "rule"]}, "give it alone"),
        ({"vectorized": True, "league_others": ["self"]}, "league_others takes policy specs"),
        ({"vectorized": True, "league_others": ["genius"]}, "league opponent 'genius'"),
        ({"vectorized": True, "league_others": ["search:sims=4"]}, "a search player decides from the engine"),
        ({"vectorized": True, "league_floor": 0.0}, "league_floor must be"),
        ({"vectorized": True, "league_snapshots": -1}, "league_snapshots must be"),
    ],
)
def test_bad_league_settings_are_refused_before_any_work(change, message):
    options = {"game": "tock", "opponents": ["league"], **change}
    with pytest.raises(ValueError, match=message):
        TrainSettings.from_options(**options).check()


def test_the_league_pool_is_in_the_settings_without_building_an_env():
    settings = TrainSettings.from_options(
        game="chipit", opponents=["league"], vectorized=True, league_rule_players=2, league_others=["random"]
    )
    settings.check()
    saved = settings.as_json()["league"]
    assert saved["pool"] == league_pool("chipit", settings.league, 0) and len(saved["pool"]) == 4
    assert saved["rule_players"] == 2 and saved["others"] == ["random"]
    assert "league" not in TrainSettings.from_options(game="chipit").as_json()


def test_the_league_priority_options_set_how_strongly_the_hardest_entry_is_preferred():
    argv = ["--opponents", "league", "--league-exponent", "6", "--league-floor", "0.001"]
    settings = train_cli.settings_from(train_cli.build_parser().parse_args(argv), {})
    saved = settings.as_json()["league"]
    assert (
        (settings.league.exponent, settings.league.floor)
        == (saved["exponent"], saved["floor"])
        == (6.0, 0.001)
    )
    ratios = []
    for league_settings in (settings.league, LeagueSettings()):
        league = League(league_settings)
        league.entries = [Entry(name, None, score=p) for name, p in (("easy", 0.75), ("hard", 0.55))]  # type: ignore[arg-type]
        ratios.append(league.weights()[1] / league.weights()[0])
    # close scores: the hard entry 7.5 times as often as the easy one here, 2.2 at the defaults
    assert ratios[0] == pytest.approx((0.45**6 + 0.001) / (0.25**6 + 0.001)) and ratios[1] < 2.5
    with pytest.raises(ValueError, match="league_exponent must be"):
        TrainSettings.from_options(game="tock", opponents=["league"], league_exponent=11.0).check()


def test_train_cli_refuses_a_league_off_the_batched_engine_in_one_line(tmp_path, capsys):
    for argv in (
        ["--opponents", "league", "--no-vectorized"],
        ["--opponents", "league,rule,rule"],
        ["--opponents", "league", "--league-others", "self"],
        ["--opponents", "league", "--backend", "rllib"],
    ):
        with pytest.raises(SystemExit) as exit_info:
            train_cli.main(["--game", "tock", *argv, "--out", str(tmp_path / "never")])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("train.py: error:")
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize("game", ONE_FAST)
def test_a_short_league_run_writes_its_pool_with_weights_and_results(game, tmp_path):
    settings = TrainSettings.from_options(
        recipe="quick",  # the game's recipe (its teacher, if any, briefly), scaled down below
        game=game,
        opponents=["league"],
        envs=8,
        timesteps=2048,
        imitation_steps=200,  # the teacher plays the league seats meanwhile
        imitation_epochs=1,
        ppo=TINY_PPO,
        eval_every=2048,
        eval_games=2,
        snapshot_every=1024,
        league_rule_players=2,
        league_others=["random"],
    )
    train(settings, tmp_path / "run", progress=False)
    everything = json.loads((tmp_path / "run" / "settings.json").read_text())
    assert everything["recipe"]["name"] == "quick" and everything["run"]["vectorized"]
    teacher = game_spec(game).recipe["teacher"]
    assert (everything["imitation"] or {}).get("teacher", "") == teacher  # Tock's recipe: none
    saved = everything["league"]
    names = [entry["name"] for entry in saved["pool"]]
    assert names[:4] == league_pool(game, settings.league, 0)
    assert names[4:] == ["self@0", "self@1024", "self@2048"][-settings.league.snapshots :]
    assert sum(entry["weight"] for entry in saved["pool"]) == pytest.approx(1.0, abs=1e-3)
    played = [entry for entry in saved["pool"] if entry["games"]]
    assert played and all(0 <= entry["win_rate"] <= 1 for entry in played)
    for entry in saved["pool"]:
        policy_spec = entry["name"]
        if not policy_spec.startswith("self@"):
            make_policy(policy_spec, game, 4)  # what the pool names can be played again
