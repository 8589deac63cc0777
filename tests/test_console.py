"""Playing and watching in the terminal: whole games driven by scripted input, for every game."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np
import pytest

from card_envs.agents import make_policy
from card_envs.cli.console import PlayerQuitError, play_against, watch
from card_envs.core.registry import game_class

BUILT_IN = ["chipit", "tock", "uno"]
REPO = Path(__file__).resolve().parents[1]


def scripted(answers: list[str], then: str | None = "1"):
    """An ``input`` replacement: the answers in order, then ``then`` forever (None: end of input)."""
    queue = list(answers)
    asked: list[str] = []

    def read(prompt: str) -> str:
        asked.append(prompt)
        if queue:
            return queue.pop(0)
        if then is None:
            raise EOFError
        return then

    read.asked = asked  # type: ignore[attr-defined]
    return read


def play(game_name: str, read, seed: int = 1, players: int = 3) -> tuple[list[int], list[str]]:
    game = game_class(game_name)(players)
    opponents = [make_policy("rule", game_name, players) for _ in range(players - 1)]
    lines: list[str] = []
    ranks = play_against(game, 1, opponents, seed, read=read, write=lines.append, names=["rule"] * 2)
    return ranks, lines


@pytest.mark.parametrize("game", BUILT_IN)
def test_a_person_plays_a_whole_game(game):
    read = scripted([])
    ranks, lines = play(game, read)
    assert sorted(ranks)[0] == 1 and len(ranks) == 3
    text = "\n".join(lines)
    assert "you are player_1; player_0: rule, player_1: you, player_2: rule" in text
    assert "player_1 (you), your decision" in text and "game over:" in text
    assert read.asked, "the person was never asked"
    assert f"{'1st':>6}  player_" in text


def test_same_seed_and_answers_give_the_same_game():
    assert play("uno", scripted([]), seed=4) == play("uno", scripted([]), seed=4)
    assert play("uno", scripted([]), seed=4) != play("uno", scripted([]), seed=5)


def test_bad_answers_are_asked_again_and_question_mark_explains_the_codes():
    read = scripted(["", "abc", "0", "999", "-1", "?"])
    _, lines = play("uno", read)
    text = "\n".join(lines)
    for answer in ("''", "'abc'", "'0'", "'999'", "'-1'"):
        assert f"{answer} is not a move: type a number from 1 to" in text
    assert "W+4" in text.split("'-1' is not a move")[1]  # the legend followed the ?


@pytest.mark.parametrize("answer", ["q", None])
def test_quit_or_end_of_input_stops_the_game(answer):
    read = scripted([answer] if answer else [], then=None)
    with pytest.raises(PlayerQuitError):
        play("chipit", read)


def test_watch_shows_the_deal_and_every_move_then_the_ranks():
    game = game_class("tock")(2)
    lines: list[str] = []
    ranks = watch(game, [make_policy("rule", "tock", 2)] * 2, seed=3, write=lines.append, names=["a", "b"])
    assert lines[0].startswith("player_0: a, player_1: b")
    assert sum("Last move" in line for line in lines) >= 10
    assert lines[-1].endswith(("player_0 (a)", "player_1 (b)")) and sorted(ranks) == [1, 2]


def test_watch_step_by_step_stops_on_q():
    game = game_class("uno")(2)
    with pytest.raises(PlayerQuitError):
        watch(
            game,
            [make_policy("random", "uno", 2)] * 2,
            seed=3,
            write=lambda _: None,
            step=scripted(["", "q"]),
        )


def run_module(module: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", module, *args], input=stdin, cwd=REPO, env=env, capture_output=True, text=True
    )


@pytest.mark.parametrize("game", BUILT_IN)
def test_play_command_plays_to_the_end_with_scripted_stdin(game):
    done = run_module(
        "card_envs.cli.play", "--game", game, "--players", "3", "--seed", "2", stdin="1\n" * 5000
    )
    assert done.returncode == 0, done.stderr
    assert "seed 2 (play this deal again with --seed 2)" in done.stdout and "game over:" in done.stdout
    assert "\033[" not in done.stdout  # NO_COLOR


@pytest.mark.slow
def test_play_command_rejects_bad_arguments_and_ends_cleanly_at_end_of_input():
    for args, message in [
        (("--seat", "5"), "--seat must be a seat 0..3, got 5"),
        (("--opponents", "rule,rule"), "--opponents names 2 agents for the 3 other seats"),
        (("--opponents", "nobody"), "unknown policy spec 'nobody'"),
        (("--game", "uno", "--players", "11"), "num_players of uno must be an int in 2..10"),
    ]:
        done = run_module("card_envs.cli.play", *args)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    done = run_module("card_envs.cli.play", "--seed", "1", stdin="")
    assert done.returncode == 0 and "game abandoned" in done.stdout


def _default_sigint() -> None:
    """A pytest-xdist worker may ignore SIGINT, and a child inherits that: Python then
    installs no KeyboardInterrupt handler, and Ctrl-C would not reach the game."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_play_command_ends_cleanly_on_ctrl_c():
    process = subprocess.Popen(
        [sys.executable, "-m", "card_envs.cli.play", "--game", "chipit", "--seed", "1", "--no-color"],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        bufsize=0, preexec_fn=_default_sigint,
    )  # fmt: skip
    shown = b""
    deadline = time.monotonic() + 60
    while b"your move" not in shown and time.monotonic() < deadline:  # wait until it asks
        if select.select([process.stdout], [], [], 1)[0]:
            shown += os.read(process.stdout.fileno(), 65536)
    assert b"your move" in shown
    # The prompt is written just before input() blocks in read(); a SIGINT that lands in
    # between leaves its KeyboardInterrupt pending behind a read that never returns (a
    # CPython race, seen on a loaded machine). A person's Ctrl-C comes later than that.
    time.sleep(1)
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)  # before stdin closes: an end of input also ends the game, with code 0
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130 and "game abandoned" in out and "Traceback" not in err


@pytest.mark.slow
def test_watch_command_plays_a_game():
    done = run_module(
        "card_envs.cli.watch", "--game", "chipit", "--agents", "rule,random,rule", "--pace", "0"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("player_0: rule, player_1: random, player_2: rule")
    legend = run_module("card_envs.cli.watch", "--game", "uno", "--pace", "0", "--legend").stdout
    assert legend.startswith(game_class("uno")().legend())
    assert "game over:" in done.stdout
    done = run_module("card_envs.cli.watch", "--pace", "-1")
    assert done.returncode == 2 and "--pace: must be a number >= 0" in done.stderr


def test_human_mode_shows_the_deal_and_every_opponent_move(capsys):
    from tests.test_generic_envs import GYM_IDS, aec_module

    env = aec_module("uno").env(render_mode="human", num_players=3)
    env.reset(seed=1)
    assert "Last move: none yet" in capsys.readouterr().out  # the deal, before any move
    single = gymnasium.make(GYM_IDS["uno"], opponents="rule", render_mode="human", learner_seat=0).unwrapped
    single.reset(seed=2)
    capsys.readouterr()
    single.step(int(np.flatnonzero(single.action_masks())[0]))
    shown = capsys.readouterr().out
    opponent_lines = [
        line for line in shown.splitlines() if line.startswith(("player_1 ", "player_2 ", "player_3 "))
    ]
    assert opponent_lines, "each opponent's move is shown as a line"
    assert "\033[" not in shown  # captured output is not a terminal: no colour


def test_render_seat_hides_the_other_hands():
    from tests.test_generic_envs import aec_module

    full = aec_module("uno").env(render_mode="ansi")
    mine = aec_module("uno").env(render_mode="ansi", render_seat=1)
    full.reset(seed=3)
    mine.reset(seed=3)
    hands = {line.split(":")[0]: line for line in full.render().splitlines() if line[2:9] == "player_"}
    seen = mine.render()
    assert hands["  player_1 (7 cards)"].split(": ")[1] in seen
    assert hands["> player_0 (7 cards)"].split(": ")[1] not in seen
    with pytest.raises(ValueError, match="seat"):
        aec_module("uno").env(render_seat=4)


def _ask_once(game, answers: list[str]) -> tuple[int, list[str], list[str]]:
    """One decision of a person at seat 0: the action chosen, what was written, the prompts."""
    from card_envs.cli.console import HumanPlayer

    read = scripted(answers, then=None)
    lines: list[str] = []
    action = HumanPlayer(game, game.current_player, read=read, write=lines.append).act(
        game.observe(game.current_player), game.action_mask(), np.random.default_rng(0)
    )
    return action, lines, read.asked


def test_a_play_built_in_parts_is_walked_step_by_step_with_back_and_a_confirmation():
    from tests.test_chipit_rules import FILLER, game_from, value

    game = game_from(hands=[["P11", "G2"], FILLER, FILLER], chips=[0, 3, 3])
    top = [choice for group in game.move_choices() for choice in group.choices]
    costly = len(top)  # the last choice opens the costly plays
    assert top[-1].then and not top[0].then
    # open the costly plays, go back, open them again, the first band, a marked value:
    # no to the confirmation, then the same value again, yes
    action, lines, asked = _ask_once(game, [str(costly), "b", str(costly), "1", "1", "n", "1", "y"])
    band = top[-1].then[0].choices[0]
    chosen = band.then[0].choices[0] if band.then else band
    assert action == chosen.action and chosen.warn
    assert any(prompt.startswith(f"{chosen.label} - {chosen.note}: play it? [y/N]") for prompt in asked)
    assert f"your move [1-{len(top)}, ? codes, q quit]: " in asked
    assert any(", b back, ? codes" in prompt for prompt in asked)
    assert any(line.endswith(" ...") and "with 5 or more chip points" in line for line in lines)
    assert f"    1! {chosen.label} - {chosen.note}" in lines
    assert game.action_mask()[value(11)]  # the game itself did not move


def test_a_forced_move_is_said_with_its_consequence():
    from tests.test_chipit_rules import FILLER, game_from, value

    game = game_from(hands=[["P11", "G2"], FILLER, FILLER], chips=[0, 3, 3])
    game.step(value(1056))
    game.step(game.legal_actions()[0])  # the last digit 6
    action, lines, asked = _ask_once(game, [])
    assert not asked and action == game.legal_actions()[0]
    assert lines[-1] == (
        "your only move: add P11+95 - 95 chip points from the supply to show 1056;"
        " they come back to you as held chips when your turn comes round"
    )


def test_typing_one_out_of_habit_plays_and_calls_letzte():
    from tests.test_uno_rules import game_from, play

    game = game_from(
        hands=[["B7", "B8"], ["G5"] * 2, ["G6"] * 2, ["G7"] * 2], discard_pile=["B5"], colour="B"
    )
    action, lines, _ = _ask_once(game, ["1"])
    assert action == play("B7", call=True)
    assert "  play without the call:" in lines


def test_watch_a_seat_s_view_without_calling_it_you_and_the_opening_draw_two_is_the_first_move():
    game = game_class("uno")(4)
    lines: list[str] = []
    watch(game, [make_policy("rule", "uno", 4)] * 4, seed=2, write=lines.append, seat=1)
    text = "\n".join(lines)
    assert "you)" not in text and "> player_1 (7 cards, watched): " in lines[0]
    assert lines[0].endswith(
        "Last move: the first card, R+2, made player_0 draw 2 and skipped it; player_1 starts"
    )
    lines.clear()
    watch(game_class("tock")(2), [make_policy("rule", "tock", 2)] * 2, seed=3, write=lines.append, seat=0)
    assert "player_0 (watched)" in lines[0] and "(you)" not in "\n".join(lines)
