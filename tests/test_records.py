"""Game records: every env and the tournaments write games that replay exactly, and a changed
or foreign record fails with a message naming its line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import card_envs
from card_envs.core.registry import game_class, game_specs
from card_envs.evaluation.tournament import tournament
from card_envs.records.record import GameRecorder, RecordError, read_record, replay
from tests.test_generic_envs import GYM_IDS, aec_module

GAMES = sorted(game_specs())
REPO = Path(__file__).resolve().parents[1]


def play_random_aec(env, seed: int, max_actions: int = 100_000) -> None:
    """Play one seeded AEC game with random legal actions, to its end or ``max_actions``."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(max_actions):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            return
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def recorded_game(game: str, tmp_path: Path, seed: int = 3) -> tuple[Path, dict]:
    """Record one random game of ``game`` through the AEC env: its file and its final state."""
    env = aec_module(game).raw_env(record_dir=tmp_path)
    play_random_aec(env, seed)
    env.close()
    (path,) = sorted(tmp_path.glob("*.jsonl"))
    return path, env.state_dict()


@pytest.mark.parametrize("game", GAMES)
def test_aec_record_replays_to_the_same_state(game, tmp_path):
    path, final = recorded_game(game, tmp_path)
    header, lines = read_record(path)
    assert (header["game"], header["num_players"]) == (game, game_class(game).default_players)
    assert lines[-1] == {"ranks": replay(path).final_ranks()}
    assert replay(path).state_dict() == final
    assert card_envs.replay(path).state_dict() == final  # the package-level call


@pytest.mark.parametrize("game", GAMES)
def test_single_env_records_every_seat_and_names_the_learner(game, tmp_path):
    env = gymnasium.make(GYM_IDS[game], opponents="rule", record_dir=tmp_path)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    done = False
    while not done:
        mask = env.unwrapped.action_masks()
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        done = term or trunc
    final = env.unwrapped.state_dict()
    env.reset(seed=6)  # the finished game stays written; the new one is kept until close
    env.close()
    first, second = sorted(tmp_path.glob("*.jsonl"))
    header, _ = read_record(first)
    assert header["players"].count("learner") == 1
    assert replay(first).state_dict() == final
    assert not replay(second).is_over  # closed before its end: replayable up to there


def test_the_deal_depends_on_the_seed_only_not_on_the_players_draws():
    game = game_class("uno")()
    states = []
    for extra_draws in (0, 5):
        shared = np.random.default_rng(9)
        game.reset(shared)
        rng = np.random.default_rng(1)
        while not game.is_over:
            shared.random(extra_draws)  # players drawing from the generator the deal came from
            game.step(int(rng.choice(game.legal_actions())))
        states.append(game.state_dict())
    assert states[0] == states[1]


def test_bad_seeds_raise_value_error():
    game = game_class("uno")()
    for seed in (-1, 2**63, 1.5, "7", True):
        with pytest.raises(ValueError, match="seed"):
            game.reset(seed)


def test_a_truncated_game_is_saved_without_ranks(tmp_path):
    env = aec_module("tock").raw_env(record_dir=tmp_path, max_steps=40)
    play_random_aec(env, 1)
    assert env.truncations["player_0"]
    env.close()
    (path,) = tmp_path.glob("*.jsonl")
    _, lines = read_record(path)
    assert len(lines) == 40 and "ranks" not in lines[-1]
    assert replay(path).state_dict() == env.state_dict()


def rewrite(path: Path, line_number: int, change) -> None:
    lines = path.read_text().splitlines()
    data = json.loads(lines[line_number - 1])
    change(data)
    lines[line_number - 1] = json.dumps(data)
    path.write_text("\n".join(lines) + "\n")


def first_choice(path: Path) -> tuple[int, int]:
    """The first line of a record whose player had a choice, and a legal action other than its own."""
    header, lines = read_record(path)
    game = game_class(header["game"]).from_rules(header["num_players"], **header["rules"])
    game.reset(header["seed"])
    for number, line in enumerate(lines, start=2):
        others = [a for a in game.legal_actions() if a != line["action"]]
        if others:
            return number, others[0]
        game.step(line["action"])
    raise AssertionError("nobody had a choice in the whole game")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(action=d["action"] + 1000), "line 5: action .* out of range"),
        (lambda d: d.update(move="something else"), "line 5: the record describes action"),
        (lambda d: d.update(state="0" * 16), "line 5: the state after action"),
        (lambda d: d.update(player=d["player"] + 1), "line 5: the record says player"),
        (lambda d: d.update(step=99), "line 5: expected step 4"),
        (lambda d: d.pop("action"), "line 5: field 'action' must be int"),
    ],
)
def test_a_changed_line_fails_naming_it(tmp_path, change, message):
    path, _ = recorded_game("uno", tmp_path)
    rewrite(path, 5, change)
    with pytest.raises(RecordError, match=message):
        replay(path)


def test_another_legal_action_is_caught_by_the_state_digest(tmp_path):
    path, _ = recorded_game("chipit", tmp_path)
    number, action = first_choice(path)
    rewrite(path, number, lambda d: d.update(action=action))
    with pytest.raises(RecordError, match=f"line {number}: the record describes action {action}"):
        replay(path)


def test_records_from_other_versions_or_not_records_fail_clearly(tmp_path):
    path, final = recorded_game("tock", tmp_path)
    rewrite(path, 1, lambda d: d.update(version="0.0.1"))
    with pytest.raises(RecordError, match=r"line 1: recorded with card_envs 0.0.1, this is"):
        replay(path)
    assert replay(path, check_version=False).state_dict() == final
    rewrite(path, 1, lambda d: d.update(seed=d["seed"] + 1))
    with pytest.raises(RecordError, match="line 1: the dealt state differs"):
        replay(path, check_version=False)
    rewrite(path, 1, lambda d: d.update(game="poker"))
    with pytest.raises(RecordError, match="line 1: unknown game 'poker'"):
        replay(path, check_version=False)
    path.write_text(path.read_text().replace('"step": 7,', '"step": 7'))
    with pytest.raises(RecordError, match="line 8: not JSON"):
        read_record(path)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(RecordError, match="empty"):
        replay(empty)
    with pytest.raises(RecordError, match="cannot read"):
        replay(tmp_path / "missing.jsonl")


@pytest.mark.slow
def test_tournament_records_every_game_with_its_line_up(tmp_path):
    result = tournament(
        "chipit", ["rule", "random", "random"], games=6, seed=2, workers=2, record_dir=tmp_path
    )
    paths = sorted(tmp_path.glob("game-*.jsonl"))
    assert [p.name for p in paths] == [f"game-{i:06d}.jsonl" for i in range(1, 7)]
    wins = 0
    for path in paths:
        header, _ = read_record(path)
        ranks = replay(path).final_ranks()
        wins += ranks[header["players"].index("rule")] == 1
    assert wins == round(result.agents[0].win_rate.value * 6)


def test_recorder_names_and_discards(tmp_path):
    game = game_class("uno")(2)
    game.recorder = recorder = GameRecorder(tmp_path)
    recorder.name_next("first", ["a", "b"])
    game.reset(1)
    recorder.discard()
    game.reset(2)
    assert recorder.save() == tmp_path / "uno-000001.jsonl"
    assert recorder.save() is None  # nothing kept any more
    assert [p.name for p in tmp_path.iterdir()] == ["uno-000001.jsonl"]


@pytest.mark.slow
def test_evaluate_records_and_the_replay_command_prints_the_game(tmp_path):
    run = [sys.executable, "evaluate.py", "--agents", "rule,random", "--game", "uno", "--games", "2"]
    done = subprocess.run(
        [*run, "--workers", "1", "--record", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"recorded 2 games in {tmp_path}" in done.stdout
    shown = subprocess.run(
        [sys.executable, "-m", "card_envs.cli.replay", str(tmp_path / "game-000001.jsonl")],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert shown.startswith("uno, 2 players")
    assert "    1  player_" in shown and "ranks: player_0" in shown
    assert shown.rstrip().endswith("every state matched the record")
    rewrite(tmp_path / "game-000001.jsonl", 3, lambda d: d.update(state="bad"))
    failed = subprocess.run(
        [sys.executable, "-m", "card_envs.cli.replay", str(tmp_path / "game-000001.jsonl")],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert failed.returncode == 2 and "line 3: the state after action" in failed.stderr
    assert failed.stderr.startswith("python -m card_envs.cli.replay: error: ")
    assert len(failed.stderr.splitlines()) == 1 and "Traceback" not in failed.stderr
