"""Chip It's text: the table a person can follow, the last-move line, the legend, action texts.

Every test starts from a known state (a loaded ``state_dict`` or a seeded game)
and checks the exact words a player reads.
"""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest

from card_envs.games.chipit import encoding as E
from card_envs.games.chipit.engine import ChipItGame
from tests.test_chipit_rules import FILLER, card, game_from, pass_, play, value

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def lines_of(game: ChipItGame, seat: int | None = None) -> list[str]:
    return game.render_text(seat).splitlines()


def played_game(seed: int, num_players: int = 4, play_to_end: bool = False):
    """Every position of a seeded random game, the game itself after each action."""
    game = ChipItGame(num_players, play_to_end=play_to_end)
    game.reset(seed=seed)
    rng = np.random.default_rng(seed)
    yield game
    while not game.is_over:
        game.step(int(rng.choice(game.legal_actions())))
        yield game


# -------------------------------------------------------------- last move
def test_no_last_move_before_the_first_action():
    game = ChipItGame(3)
    game.reset(seed=1)
    assert game.last_move() == ""
    assert lines_of(game)[-1] == "Last move: none yet"
    game.step(game.legal_actions()[0])
    assert game.last_move()
    game.reset(seed=2)
    assert game.last_move() == ""


def test_a_lead_step_by_step_then_laid_out():
    game = game_from(hands=[["G6", "P3", "P2", "G9"], FILLER, FILLER])
    game.step(value(6))
    assert game.last_move() == "player_0 chose the value 6 for its lead"
    assert "player_0 is building a lead at 6: no cards chosen yet" in lines_of(game)
    game.step(card("G6"))
    assert game.last_move() == "player_0 chose G6 for its lead at 6 (1 card chosen)"
    game.step(card("P2"))
    assert game.last_move() == "player_0 chose P2+2 for its lead at 6 (2 cards chosen)"
    assert "player_0 is building a lead at 6: G6 P2+2 so far (2 cards, 2 chip points from the supply)" in (
        lines_of(game)
    )
    game.step(card("P3"))
    game.step(E.DONE)
    assert game.last_move() == "player_0 led G6 P2+2 P3+1 (3 cards at 6)"
    assert lines_of(game)[1] == "To beat: player_0's G6 P2+2 P3+1, 3 cards at 6; 0 passes since"


def answer_then_round_end() -> ChipItGame:
    """Seat 2 played G5+1, seat 0 beat it with G8; seat 1 is to answer."""
    return game_from(
        hands=[FILLER, ["G9", "G2"], FILLER],
        display=[[{"card": "G8", "chips": 0}], [], [{"card": "G5", "chips": 1}]],
        last_play={"seat": 0, "count": 1, "value": 8},
        current_player=1,
    )


def test_an_answer_a_pass_and_the_round_end_with_chips_taken_from_the_cards():
    game = answer_then_round_end()
    assert lines_of(game)[0].endswith("| player_1 to answer 8 (1 card) or pass")
    game.step(value(10))
    assert game.last_move() == "player_1 chose the value 10 for its answer"
    assert "player_1 is building an answer at 10: no cards chosen yet (1 needed)" in lines_of(game)
    game.step(card("G9"))  # one card answers one: complete
    assert (
        game.last_move()
        == "player_1 played G9+1 (1 card at 10); player_2 takes the 1 chip point from its cards"
    )
    game.step(pass_(2))
    assert game.last_move() == "player_2 passed, returning 2 chip points to the supply"
    game.step(pass_(0))
    assert game.last_move() == (
        "player_0 passed, returning no chips; everybody passed on player_1's cards: round over,"
        " player_1 takes the 1 chip point from its cards and leads anew"
    )
    assert lines_of(game)[-1] == "Last move: " + game.last_move()


def test_an_answer_of_several_cards_built_card_by_card():
    game = game_from(
        hands=[FILLER, ["G9", "G10", "G2"], FILLER],
        display=[[{"card": "G3", "chips": 5}, {"card": "G8", "chips": 0}], [], []],
        last_play={"seat": 0, "count": 2, "value": 8},
        current_player=1,
    )
    game.step(value(12))
    game.step(card("G9"))
    assert game.last_move() == "player_1 chose G9+3 for its answer at 12 (1 of 2 cards chosen)"
    assert lines_of(game)[0].endswith("| player_1 to choose card 2 of 2 for its answer at 12")
    assert (
        "player_1 is building an answer at 12: G9+3 so far (1 of 2 cards, 3 chip points from the supply)"
        in (lines_of(game))
    )
    game.step(card("G10"))
    assert game.last_move() == "player_1 played G9+3 G10+2 (2 cards at 12)"


def test_a_value_above_129_is_told_as_a_range_then_a_value_never_as_a_block_action():
    game = game_from(hands=[["P10", "G2"], FILLER, FILLER])
    game.step(value(150))  # the range 150..159, then the last digit
    text = game.render_text()
    assert game.last_move() == "player_0 chose a value from 150 to 159 for its lead (the last digit next)"
    assert "player_0 is building a lead at a value from 150 to 159 (last digit next)" in text.splitlines()
    assert "player_0 to choose the last digit of its lead's value (150 to 159)" in text
    assert "block" not in text and str(value(150)) not in text
    assert game.describe_action(E.UNITS + 4) == "value 154"
    game.step(E.UNITS)
    assert game.last_move() == "player_0 chose the value 150 for its lead"
    assert game.describe_action(card("P10")) == "add card P10 with 14 chip points (P10+14)"
    game.step(card("P10"))
    game.step(E.DONE)
    assert game.last_move() == "player_0 led P10+14 (1 card at 150)"


def test_an_empty_handed_leader_passes_and_the_lead_moves_on():
    game = game_from(hands=[["G5"], [], ["G9"]], chips=[3, 4, 3])
    play(game, 5, ["G5"])
    game.step(pass_(2))
    game.step(pass_(0))
    assert game.last_move() == (
        "player_2 passed, returning no chips;"
        " everybody passed on player_0's cards: round over, player_0 leads anew"
    )
    assert lines_of(game)[0].endswith("| player_0 to lead with no cards: pass, returning up to 2 chip points")
    game.step(pass_(1))
    assert game.last_move() == (
        "player_0 had no cards to lead and passed, returning 1 chip point to the supply;"
        " the lead moves on to player_1"
    )


def test_the_first_finish_ends_the_game_with_ranks():
    game = game_from(hands=[["G5"], ["G6", "G7"], ["G8"]], chips=[0, 0, 0])
    play(game, 5, ["G5"])
    assert (
        game.last_move()
        == "player_0 led G5 (1 card at 5); player_0 finished 1st (no cards, no chips left); game over"
    )
    lines = lines_of(game)
    assert lines[0] == "Chip It, 3 players | supply 108 chip points | game over"
    assert "  player_0: finished 1st | out: G5 (= 5)" in lines
    assert "Final ranks: player_0 1st, player_2 2nd, player_1 3rd" in lines


def test_play_to_end_a_finish_then_the_round_ends_over_the_finished_seat():
    game = game_from(hands=[["G5"], ["G6", "G2"], ["G8", "G3"]], chips=[0, 0, 0], play_to_end=True)
    play(game, 5, ["G5"])
    assert (
        game.last_move() == "player_0 led G5 (1 card at 5); player_0 finished 1st (no cards, no chips left)"
    )
    game.step(pass_(0))
    game.step(pass_(0))
    assert game.last_move() == (
        "player_2 passed, returning no chips;"
        " everybody passed on player_0's cards: round over, player_1 leads"
    )
    assert "  player_0: finished 1st | out: -" in lines_of(game)


# ------------------------------------------------------------------ table
def test_a_seat_sees_its_own_hand_and_only_counts_of_the_others():
    game = game_from(hands=[["G2", "G3"], ["G4", "G5", "P9"], ["G6", "G7"]], current_player=1)
    full = game.render_text()
    assert all(f"hand: {h}" in full for h in ("G2 G3", "G4 G5 P9", "G6 G7"))
    view = game.render_text(seat=1)
    assert "> player_1 (you): 3 chip points held | 3 cards in hand | out: -" in view
    assert "    hand: G4 G5 P9" in view.splitlines()
    assert view.count("hand:") == 1 and not any(c in view for c in ("G2", "G3", "G6", "G7"))
    assert "  player_0: 3 chip points held | 2 cards in hand | out: -" in view
    with pytest.raises(ValueError, match="seat"):
        game.render_text(seat=3)


def test_header_says_whose_decision_and_what_kind():
    game = game_from(hands=[["G2", "G3"], ["G4"], ["G6"]])
    assert lines_of(game)[:2] == [
        "Chip It, 3 players | supply 99 chip points"
        " | player_0 to lead: any value, any number of cards showing it",
        "To beat: nothing, a new round is led",
    ]


def test_names_are_player_n_and_no_escape_codes_without_color_in_a_whole_game():
    for game in played_game(seed=5):
        texts = [game.render_text(), game.render_text(seat=2), game.last_move(), game.legal_actions_text()]
        for text in texts:
            assert "seat" not in text and "\x1b" not in text
            assert {int(n) for n in re.findall(r"player_(\d+)", text)} <= set(range(4))
        assert game.render_text().endswith("Last move: " + (game.last_move() or "none yet"))


def test_color_paints_cards_and_the_decider_and_is_the_plain_text_underneath():
    game = game_from(hands=[["G2", "P3"], ["G4"], ["G6"]])
    play(game, 3, ["P3"])
    colored = game.render_text(color=True)
    assert "\x1b[35mP3\x1b[0m" in colored and "\x1b[32mG4\x1b[0m" in colored
    assert "\x1b[1mplayer_1\x1b[0m to answer" in colored
    assert ANSI.sub("", colored) == game.render_text()
    assert ANSI.sub("", game.render_text(seat=0, color=True)) == game.render_text(seat=0)


# ------------------------------------------------------------ state round trip
@pytest.mark.parametrize(("seed", "players", "play_to_end"), [(3, 4, False), (8, 3, True), (11, 2, False)])
def test_a_loaded_state_renders_exactly_like_the_original(seed, players, play_to_end):
    loaded = ChipItGame(players, play_to_end=play_to_end)
    for game in played_game(seed, players, play_to_end):
        loaded.load_state_dict(json.loads(json.dumps(game.state_dict())))
        assert loaded.last_move() == game.last_move()
        assert loaded.render_text() == game.render_text()
        assert loaded.render_text(seat=1, color=True) == game.render_text(seat=1, color=True)


def test_an_older_state_without_the_last_turn_loads_with_no_last_move():
    game = answer_then_round_end()
    game.step(pass_(1))
    state = game.state_dict()
    assert state["last_turn"] == {"seat": 1, "kind": "pass", "returned": 1, "stood": None, "took": 1}
    del state["last_turn"]
    old = ChipItGame(3)
    old.load_state_dict(state)
    assert old.last_move() == "" and old.render_text().endswith("Last move: none yet")


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"kind": "fold"}, "last_turn.kind"),
        ({"seat": 3}, "last_turn.seat"),
        ({"returned": 3}, "last_turn.returned"),
        ({"took": -1}, "last_turn.took"),
        ({"took": 9}, "holds less than"),
        ({"seat": 2}, "cannot decide now"),
        ({"kind": "answer"}, "must be the combination to beat"),
        ({"stood": 0}, "leaves a lead due"),
        ("not a dict", "last_turn must be a dict"),
    ],
)
def test_a_malformed_last_turn_is_refused(change, match):
    game = answer_then_round_end()
    game.step(pass_(1))  # seat 1 passed, seat 2 deciding
    state = game.state_dict()
    if isinstance(change, dict):
        state["last_turn"] = {**state["last_turn"], **change}
    else:
        state["last_turn"] = change
    before = copy.deepcopy(game.state_dict())
    with pytest.raises(ValueError, match=match):
        game.load_state_dict(state)
    assert game.state_dict() == before


# --------------------------------------------------------- legend, actions
def test_legend_explains_the_card_codes():
    legend = ChipItGame().legend()
    for words in (
        "G7 is a green 7",
        "P7 a purple 7",
        "+N: N chip points",
        "(G7+2 = 9)",
        "(P3+2 = 9)",
        "(= 9)",
    ):
        assert words in legend
    assert "\x1b" not in legend


def test_action_texts_in_game_terms():
    game = game_from(hands=[["G6", "P3", "P2", "G9"], FILLER, FILLER])
    assert game.describe_action(pass_(1)) == "pass, returning 1 point"
    assert game.describe_action(value(6)) == "value 6"
    assert game.describe_action(E.UNITS + 3) == "last digit 3 of the value"
    game.step(value(6))
    assert game.describe_action(card("G6")) == "add card G6"
    assert game.describe_action(card("P2")) == "add card P2 with 2 chip points (P2+2)"
    assert game.describe_action(E.DONE) == "done: lead the chosen cards"
