"""The gauntlet (card_envs.evaluation.gauntlet) and evaluate.py --gauntlet."""

from __future__ import annotations

import dataclasses
import json

import pytest

from card_envs.agents.policy_spec import rule_spec
from card_envs.agents.registry import rule_agent_spec
from card_envs.cli import evaluate
from card_envs.core.table import Table
from card_envs.evaluation import gauntlet as G
from card_envs.evaluation import report as report_module
from card_envs.evaluation.stats import Estimate


def names(game: str, players: int, extra=()) -> list[str]:
    return [lineup.name for lineup in G.lineups(Table.of(game, players), extra)]


def test_the_line_ups_are_the_rule_agents_other_knobs_random_heuristic_a_mix_and_the_extras():
    knobs = [rule_spec(dict(k)) for k in rule_agent_spec("tock").knob_mix]
    assert len(knobs) == 3
    assert names("tock", 4, ["greedy:runs/old", ("rule", "random", "heuristic")]) == [
        *(f"{spec} x3" for spec in knobs),
        "random x3",
        "heuristic x3",
        "rule, heuristic, random",
        "greedy:old x3",
        "rule, random, heuristic",
    ]
    lineup = G.lineups(Table.of("tock", 4))[0]
    assert lineup.opponents == (knobs[0],) * 3 and "rule x3" not in names("tock", 4)  # not the default


def test_the_mix_fits_the_table_and_a_game_without_a_heuristic_player_goes_without_it():
    assert names("uno", 6)[-1] == "rule, heuristic, random, rule, heuristic"
    assert names("uno", 3)[-1] == "rule, heuristic"
    assert "rule, heuristic" not in " ".join(names("uno", 2))  # one other seat: no mix
    assert names("climb", 4) == ["random x3", "rule, random, rule"]  # the toy game: no knobs, no heuristic


def test_search_players_join_before_the_extras(monkeypatch):
    monkeypatch.setattr(G, "SEARCH_PLAYERS", ("random", "rule"))
    assert names("uno", 3, ["heuristic"])[-3:] == ["random x2", "rule x2", "heuristic x2"]


def test_bad_extra_line_ups_and_tables_are_refused_before_any_game():
    with pytest.raises(ValueError, match="needs 1 spec or 3"):
        G.lineups(Table.of("uno", 4), [("rule", "random")])
    with pytest.raises(ValueError, match="genius"):
        G.gauntlet("uno", "rule", 4, games=2, extra=["genius"])
    with pytest.raises(ValueError, match="games must be >= 1"):
        G.gauntlet("uno", "rule", 4, games=0)


def with_reward(result: G.LineupResult, low: float, high: float) -> G.LineupResult:
    """The same line-up result with the agent's mean-reward interval replaced."""
    tournament = result.result
    agent = dataclasses.replace(tournament.agents[0], mean_reward=Estimate((low + high) / 2, low, high))
    return dataclasses.replace(result, result=dataclasses.replace(tournament, agents=[agent]))


def test_the_verdict_reads_the_agents_mean_reward_interval_in_each_line_up():
    played = G.gauntlet("tock", "heuristic", 3, games=3, workers=1)
    assert [r.lineup.name for r in played.results] == names("tock", 3)
    assert all(r.result.agents[0].name == "heuristic" and r.result.games == 3 for r in played.results)
    first, second, third = played.results[:3]
    beats = G.GauntletResult("A", [with_reward(r, 0.01, 0.3) for r in played.results])
    assert beats.verdict == f"A beats all {len(played.results)} line-ups"
    mixed = G.GauntletResult("A", [with_reward(first, -0.3, -0.01), with_reward(second, -0.1, 0.1)])
    mixed.results.append(with_reward(third, 0.05, 0.2))
    assert [r.outcome for r in mixed.results] == ["loses to", "level with", "beats"]
    assert mixed.verdict == (
        f"A beats 1 of 3 line-ups; loses to: {first.lineup.name}; level with: {second.lineup.name}"
    )
    data = mixed.as_json()
    assert data["verdict"] == mixed.verdict and data["lineups"][0]["outcome"] == "loses to"


@pytest.mark.slow
def test_random_loses_to_every_line_up_but_random_players():
    played = G.gauntlet("tock", "random", 4, games=20, workers=1)
    assert played.names("loses to") == [n for n in names("tock", 4) if n != "random x3"]
    assert played.names("level with") == ["random x3"]


def test_a_gauntlet_on_duplicate_deals_plays_each_deal_in_every_rotation(capsys):
    evaluate.main(["--gauntlet", "rule", "--game", "uno", "--games", "5", "--workers", "1", "--duplicate"])
    text = capsys.readouterr().out
    assert text.count("4-player uno, 8 games (duplicate, 2 deals): rule, ") == len(names("uno", 4))


def test_evaluate_gauntlet_prints_a_table_per_line_up_and_the_verdicts(tmp_path, capsys, monkeypatch):
    out = tmp_path / "report"
    drawn = []  # the plots' panels (tests/test_report.py draws them): 14 here would take seconds
    for plot in ("plot_mean_rewards", "plot_win_rates"):
        monkeypatch.setattr(report_module, plot, lambda results, path: drawn.append(len(results)) or path)
    argv = ["--gauntlet", "heuristic,random", "--game", "tock", "--players", "3", "--games", "3"]
    evaluate.main([*argv, "--workers", "1", "--opponents", "rule", "--out", str(out)])
    text = capsys.readouterr().out
    lineups = len(names("tock", 3, ["rule"]))
    assert text.count("3-player tock, 3 games: heuristic, ") == lineups
    assert text.count("3-player tock, 3 games: random, ") == lineups
    verdicts = [
        line for line in text.splitlines() if " line-ups" in line and line.startswith(("heuristic", "random"))
    ]
    assert len(verdicts) == 2 and f"of {lineups} line-ups" in verdicts[1]
    assert json.loads((out / "results.json").read_text())[0]["games"] == 3
    report = (out / "report.md").read_text()
    assert all(f"- {verdict}" in report for verdict in verdicts)
    assert drawn == [2 * lineups] * 2  # both figures, a panel per agent and line-up


def test_evaluate_gauntlet_takes_a_runs_table_from_its_settings(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    (run / "model.zip").write_bytes(b"")
    settings = {"game": "tock", "num_players": 3, "rules": {"opponent_choice": "nearest"}}
    (run / "settings.json").write_text(json.dumps(settings))
    seen = {}

    def fake_gauntlet(table, agent, **kwargs):
        seen.update(table=table, extra=kwargs["extra"])
        return G.GauntletResult(agent, [])

    monkeypatch.setattr(G, "gauntlet", fake_gauntlet)
    evaluate.main(["--gauntlet", f"greedy:{run}", "--opponents", "rule,random"])
    assert seen == {"table": Table.of("tock", 3, opponent_choice="nearest"), "extra": [["rule", "random"]]}
    with pytest.raises(SystemExit) as exit_info:
        evaluate.main(["--gauntlet", f"greedy:{run}", "--players", "4"])
    assert exit_info.value.code == 2 and "this table is 4-player tock" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--gauntlet", "rule", "--sample"], "--sample does not go with --gauntlet"),
        (["--gauntlet", "rule", "--pool-copies"], "--pool-copies does not go with --gauntlet"),
        (["--gauntlet", "rule", "--opponents", "rule,random"], "--opponents rule,random: needs 1 spec or 3"),
        (["--gauntlet", "rule", "--opponents", "genius"], "--opponents 'genius'"),
        (["--gauntlet", "rule", "--rule", "oops=1"], "oops"),
    ],
)
def test_evaluate_gauntlet_refuses_bad_arguments_in_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        evaluate.main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err and len(err.strip().splitlines()) == 1
