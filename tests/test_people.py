"""Human games as data: the web page records every game it hosts (who sat where, the moves a
stand-in made), ``evaluate.py --people`` reports how people did against the agents, and
``train.py --imitate`` fits a network to the people's own decisions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from card_envs.core.ranking import rank_rewards
from card_envs.core.registry import game_class
from card_envs.evaluation.people import people_results, people_table
from card_envs.records.people import HUMAN, STAND_IN, human_decisions, people_games
from card_envs.records.record import read_record, replay
from card_envs.web.app import WebConfig, make_app
from card_envs.web.security import SECRET_HEADER
from card_envs.web.sessions import Sessions
from card_envs.web.tables import offered_actions
from tests.people_records import SHIPPED, TABLES, play_on_the_page
from tests.web_client import BASE_URL

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("people")
    play_on_the_page(
        folder, [("uno", 3, [0, 2], "rule", 6), ("chipit", 3, [1], "heuristic", 7)], close_after=5
    )
    return folder


def test_the_page_records_each_game_with_who_sat_where_and_they_replay(played):
    paths = sorted(played.glob("*.jsonl"))
    assert len(paths) == 2
    headers = {read_record(path)[0]["game"]: read_record(path)[0] for path in paths}
    assert headers["uno"]["players"] == [HUMAN, "rule", HUMAN]
    assert headers["chipit"]["players"] == ["heuristic", HUMAN, "heuristic"]
    for path in paths:
        replay(path)  # every state checked
    games = {game.game: game for game in people_games([played])}
    assert games["uno"].finished and games["uno"].people == [0, 2]
    assert not games["chipit"].finished  # closed after 5 moves: written as far as it went


def test_a_stand_ins_moves_are_marked_and_left_out_of_the_persons_decisions(tmp_path):
    clock = [0.0]
    sessions = Sessions(clock=lambda: clock[0], away_seconds=10)
    client = TestClient(make_app(WebConfig(record_dir=str(tmp_path)), sessions), base_url=BASE_URL)
    body = {"game": "uno", "players": 2, "seat": [0, 1], "seed": 3}
    data = client.post("/api/games", json=body).json()
    keys = {0: data["secret"], 1: data["invites"][0]["secret"]}
    rng = np.random.default_rng(0)
    while True:
        clock[0] += 1
        state = client.get(f"/api/games/{data['id']}", headers={SECRET_HEADER: keys[0]}).json()["state"]
        if state["result"] is not None:
            break
        if state["your_turn"]:  # seat 1's friend never comes: after 10 s its stand-in plays
            action = int(rng.choice(offered_actions(state["choices"])))
            client.post(
                f"/api/games/{data['id']}/move", json={"action": action}, headers={SECRET_HEADER: keys[0]}
            )
    (path,) = tmp_path.glob("*.jsonl")
    _, lines = read_record(path)
    moves = [line for line in lines if "action" in line]
    marked = [line for line in moves if line.get("by") == STAND_IN]
    assert marked and {line["player"] for line in marked} == {1}
    (game,) = people_games([tmp_path])
    decided = [(seat, action) for _, seat, action in human_decisions(game)]
    assert len(decided) == len(moves) - len(marked)
    assert game.stand_in_moves == {1: len(marked)}


def test_people_results_count_each_persons_seat_against_its_line_up():
    games = people_games([SHIPPED])
    assert len(games) == len(TABLES)
    results = people_results(games)
    by_lineup = {(row.game, row.opponents): row for row in results}
    uno_rule = by_lineup["uno", "rule, rule, rule"]
    rewards = [rank_rewards(g.ranks)[0] for g in games if g.game == "uno" and g.players[1:] == ["rule"] * 3]
    assert uno_rule.seats == 2 and uno_rule.reward.value == pytest.approx(np.mean(rewards))
    for row in results:
        assert -1 <= row.reward.low <= row.reward.value <= row.reward.high <= 1
        assert 0 <= row.win_rate.low <= row.win_rate.high <= 1
    assert sum(row.seats for row in results) == sum(len(g.people) for g in games)
    assert "| uno | 4 | rule, rule, rule | 2 |" in people_table(results)


def test_evaluate_reports_people_and_refuses_what_it_cannot_read(capsys, tmp_path):
    from card_envs.cli.evaluate import main

    main(["--people", str(SHIPPED)])
    out = capsys.readouterr().out
    assert out.startswith("| game | players | opponents |") and "| chipit | 4 | rule, rule, rule |" in out
    (tmp_path / "agents-only.jsonl").write_text("")
    for argv, message in [
        (["--people", "/nowhere/records"], "no such file or folder"),
        (["--people", str(tmp_path / "empty")], "no such file or folder"),
        (["--people", str(tmp_path)], "record is empty"),
    ]:
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err


def test_the_peoples_decisions_are_demonstrations_at_the_learners_table():
    from card_envs.training.imitation import record_demonstrations

    games = [g for g in people_games([SHIPPED]) if g.game == "uno"]
    table = game_class("uno")(num_players=4)
    demos = record_demonstrations(games, table, mask_in_observation=True, gamma=0.99)
    decisions = sum(1 for g in games for _ in human_decisions(g))
    assert (
        len(demos) == decisions and demos.observations.shape[1] == table.observation_size + table.num_actions
    )
    assert demos.masks[np.arange(len(demos)), demos.actions].all()  # every action was legal
    expected = sorted(rank_rewards(g.ranks)[seat] for g in games for seat in g.people)
    assert sorted(demos.rank_rewards.tolist()) == pytest.approx(expected)
    assert np.abs(demos.returns).max() <= 1
    other = game_class("uno")(num_players=3)
    with pytest.raises(ValueError, match="no finished game of uno at 3 players"):
        record_demonstrations(games, other, mask_in_observation=False, gamma=0.99)


def test_train_imitates_the_people_before_ppo(tmp_path, capsys):
    from card_envs.cli.train import main
    from card_envs.training.run import train
    from card_envs.training.settings import TrainSettings

    out = tmp_path / "run"
    settings = TrainSettings.from_options(
        recipe="full", game="chipit", imitate=[str(SHIPPED)], timesteps=0, eval_games=4, envs=1
    )
    train(settings, out, progress=False)
    printed = capsys.readouterr().out
    assert "imitating people:" in printed and "held-out accuracy" in printed
    saved = json.loads((out / "settings.json").read_text())
    assert saved["imitation"]["records"] == [str(SHIPPED)] and saved["imitation"]["teacher"] == ""
    assert json.loads((out / "imitation.json").read_text())["decisions"] > 0
    for argv, message in [
        (["--imitate", "/nowhere/records"], "no such file or folder"),
        (["--imitate", str(SHIPPED), "--teacher", "rule"], "not both"),
    ]:
        with pytest.raises(SystemExit) as stop:
            main([*argv, "--out", str(tmp_path / "refused")])
        assert stop.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "refused").exists()
