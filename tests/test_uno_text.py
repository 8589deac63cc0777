"""The UNO table as text: the last-move line, seat views, colour, the legend, and state round trips.

Every line is checked from a known state (``load_state_dict``) and the action that leads to it.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from card_envs.games.uno import encoding as E
from card_envs.games.uno.engine import UnoGame
from tests.test_uno_rules import colour, game_from, play

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def lines_after(game: UnoGame, *actions: int) -> list[str]:
    """The last-move line after each action."""
    lines = []
    for action in actions:
        game.step(action)
        lines.append(game.last_move())
    return lines


def hands(*first: list[str], num_players: int = 4) -> list[list[str]]:
    """The given hands for the first seats, filler for the rest."""
    filler = [[f"{'GYB'[p % 3]}{rank}" for rank in (5, 6, 7)] for p in range(num_players)]
    return [*first, *filler[len(first) :]]


# ------------------------------------------------------------------ last move
def test_no_last_move_before_the_first_action():
    game = UnoGame(4)
    game.reset(seed=3)
    assert game.last_move() == ""
    assert game.render_text().splitlines()[-1] == "Last move: none yet"


def test_a_first_card_draw_two_is_part_of_the_deal_not_a_move_but_the_last_move_line_says_it():
    game = UnoGame(2)
    game.reset(seed=0)
    game.deal([f"Y{rank}" for rank in range(1, 8) for _ in range(2)] + ["R+2", "B1", "B2", "B3"])
    assert game.hand_sizes[0] == 9 and game.state_view().last is None
    assert game.last_move() == "the first card, R+2, made player_0 draw 2 and skipped it; player_1 starts"


PLAYS = [
    ({}, play("G5"), "player_0 played G5"),
    (
        {"hands": hands(["R+2", "G6", "G7"], ["Y+2", "Y6", "Y7"])},
        play("R+2"),
        "player_0 played R+2; player_1 must draw 2 or stack a +2",
    ),
    (
        {"hands": hands(["R+2", "G6", "G7"])},
        play("R+2"),
        "player_0 played R+2; player_1 draws 2 and is skipped",
    ),
    ({"hands": hands(["RS", "G6", "G7"])}, play("RS"), "player_0 played RS; player_1 is skipped"),
    (
        {"hands": hands(["RR", "G6", "G7"])},
        play("RR"),
        "player_0 played RR; play now goes counter-clockwise",
    ),
    ({"hands": hands(["W", "G6", "G7"])}, play("W"), "player_0 played W"),
    ({"hands": hands(["G5", "G6"])}, play("G5", call=True), "player_0 played G5 and called LETZTE"),
    (
        {"hands": hands(["G5", "G6"])},
        play("G5"),
        "player_0 played G5; no LETZTE called: the others may catch player_0",
    ),
    (
        {"hands": hands(["RS", "G6"])},
        play("RS"),
        "player_0 played RS; no LETZTE called: the others may catch player_0; player_1 will be skipped",
    ),
    (
        {"hands": hands(["G5"]), "called": [True, False, False, False]},
        play("G5"),
        "player_0 played its last card, G5, and wins the round",
    ),
    (
        {"hands": hands(["R+2"]), "called": [True, False, False, False]},
        play("R+2"),
        "player_0 played its last card, R+2, and wins the round; player_1 still draws 2",
    ),
]


@pytest.mark.parametrize(("state", "action", "line"), PLAYS)
def test_the_last_move_of_a_play_says_what_it_caused(state, action, line):
    game = game_from(**state)
    assert lines_after(game, action) == [line]
    assert game.render_text().splitlines()[-1] == f"Last move: {line}"


def test_a_reverse_with_two_players_skips():
    game = game_from(2, hands=hands(["RR", "G6", "G7"], num_players=2))
    assert lines_after(game, play("RR")) == ["player_0 played RR; player_1 is skipped"]


def test_the_colour_chosen_and_the_stack_it_leaves():
    game = game_from(hands=hands(["W+4", "G6", "G7"], ["W+4", "Y6", "Y7"]))
    assert lines_after(game, play("W+4"), colour("B")) == [
        "player_0 played W+4",
        "player_0 chose colour blue; player_1 must draw 4 or stack a W+4",
    ]
    game = game_from(hands=hands(["W+4", "G6", "G7"]))
    assert lines_after(game, play("W+4"), colour("B")) == [
        "player_0 played W+4",
        "player_0 chose colour blue; player_1 draws 4 and is skipped",
    ]


def test_the_colour_of_a_first_card_wild_draw_four():
    game = game_from(phase="choose_colour", opening=True, colour=None, discard_pile=["W+4"])
    assert lines_after(game, colour("Y")) == ["player_0 chose colour yellow; player_0 draws 4 and is skipped"]


def test_a_wild_played_without_the_call_opens_the_window_after_the_colour():
    game = game_from(hands=hands(["W", "G6"]))
    assert lines_after(game, play("W"), colour("G")) == [
        "player_0 played W",
        "player_0 chose colour green; no LETZTE called: the others may catch player_0",
    ]


@pytest.mark.parametrize(
    ("pile", "actions", "lines"),
    [
        (["B1", "B2"], [E.DRAW], ["player_0 drew a card (kept it: no match)"]),
        (
            ["R2", "B2"],
            [E.DRAW, E.KEEP],
            ["player_0 drew a card that matches: play it or keep it", "player_0 kept the drawn card"],
        ),
        (
            ["R2", "B2"],
            [E.DRAW, play("R2")],
            ["player_0 drew a card that matches: play it or keep it", "player_0 played R2"],
        ),
        ([], [E.DRAW], ["player_0 could not draw (no cards left)"]),
    ],
)
def test_drawing_a_card(pile, actions, lines):
    assert lines_after(game_from(draw_pile=pile), *actions) == lines


def test_drawing_the_stack_names_the_stacked_cards():
    game = game_from(phase="pending", discard_pile=["R5", "Y+2", "R+2"], pending_draw=4)
    assert lines_after(game, E.DRAW) == ["player_0 drew 4 (penalty of the stacked +2 +2)"]
    game = game_from(phase="pending", discard_pile=["R+2"], pending_draw=2, draw_pile=["B1"])
    assert lines_after(game, E.DRAW) == ["player_0 drew 1 (penalty of the +2; only 1 of 2 were left)"]


@pytest.mark.parametrize(
    ("bluff", "line"),
    [
        (True, "player_1 challenged player_0's W+4: a bluff, player_0 draws 4; player_1 plays on"),
        (
            False,
            "player_1 challenged player_0's W+4 and was wrong (no bluff): player_1 draws 6 and is skipped",
        ),
    ],
)
def test_a_challenge_and_its_result(bluff, line):
    game = game_from(
        draw_four="official",
        phase="pending",
        turn_player=1,
        discard_pile=["R5", "W+4"],
        colour="B",
        pending_draw=4,
        challenge={"seat": 0, "bluff": bluff},
    )
    assert "player_1 to draw 4, stack a W+4 or challenge player_0" in game.render_text()
    assert lines_after(game, E.CHALLENGE) == [line]


def test_a_catch_and_the_passes_of_a_catch_window():
    game = game_from(hands=hands(["G5", "G6"]))
    game.step(play("G5"))
    assert "player_1 to catch player_0 (no LETZTE called) or pass" in game.render_text()
    assert lines_after(game, E.CATCH) == ["player_1 caught player_0 without LETZTE: player_0 draws 1"]
    game = game_from(hands=hands(["RS", "G6"]))
    game.step(play("RS"))
    assert lines_after(game, E.PASS, E.PASS, E.PASS) == [
        "player_1 did not catch player_0",
        "player_2 did not catch player_0",
        "player_3 did not catch player_0; nobody caught player_0; player_1 is skipped",
    ]


def test_a_catch_with_a_stack_waiting_behind_it():
    game = game_from(hands=hands(["R+2", "G6"]))
    game.step(play("R+2"))
    assert lines_after(game, E.CATCH) == [
        "player_1 caught player_0 without LETZTE: player_0 draws 1; player_1 draws 2 and is skipped"
    ]


def test_every_kind_of_action_has_a_line_in_random_games():
    """No action leaves the line empty or shows an action number, in any phase and variant."""
    kinds: set[int] = set()
    for seed, rules in enumerate(
        [{}, {"draw_four": "official"}, {"stacking": False, "voluntary_draw": False}]
    ):
        game = UnoGame(3, **rules)
        game.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(600):
            if game.is_over:
                game.reset(seed=int(rng.integers(1000)))
            action = int(rng.choice(game.legal_actions()))
            game.step(action)
            kinds.add(min(action, E.CHOOSE_COLOUR) if action < E.DRAW else action)
            line = game.last_move()
            assert line.startswith("player_") and "action" not in line and "\n" not in line
    assert {E.PLAY, E.CHOOSE_COLOUR, E.DRAW, E.KEEP, E.CHALLENGE, E.CATCH, E.PASS} <= kinds


# ---------------------------------------------------------------------- table
def test_the_full_view_shows_every_hand_and_a_seat_only_its_own():
    game = game_from(
        hands=[["G5", "G6", "G7"], ["Y1", "Y2"], ["B9"], ["RS", "W"]], called=[False, False, True, False]
    )
    full = game.render_text()
    for codes in (["G5", "G6", "G7"], ["Y1", "Y2"], ["B9"], ["RS", "W"]):
        assert " ".join(codes) in full
    seat = game.render_text(1)
    assert "  player_1 (2 cards, you): Y1 Y2" in seat.splitlines()
    assert "> player_0 (3 cards)" in seat.splitlines()
    assert "  player_2 (1 card, LETZTE)" in seat.splitlines()
    assert not {"G5", "G6", "B9", "RS", "W"} & set(re.findall(r"[RYGBW][^\s,()]*", seat))


def test_the_header_says_the_table_and_the_decision_in_words():
    game = game_from(phase="pending", discard_pile=["R5", "Y+2", "R+2"], pending_draw=4, draw_pile=["B1"])
    header, decision = game.render_text().splitlines()[:2]
    assert header == "UNO, 4 players | top R+2 | colour red | clockwise | stack: 4 to draw | draw pile 1"
    assert decision == "player_0 to draw 4 or stack a +2"
    game = game_from(phase="choose_colour", opening=True, colour=None, discard_pile=["W"])
    assert game.render_text().splitlines()[1] == "player_0 to choose a colour for the first card"
    assert "colour not named yet" in game.render_text()


def test_only_the_drawer_sees_the_drawn_card():
    game = game_from(draw_pile=["R2", "B2"])
    game.step(E.DRAW)
    assert game.render_text(0).splitlines()[1] == "player_0 to play the drawn card (R2) or keep it"
    assert game.render_text(1).splitlines()[1] == "player_0 to play the drawn card or keep it"
    assert "R2" not in game.render_text(1)


def test_the_final_table_has_no_dangling_letzte():
    game = game_from(hands=hands(["G5"], ["Y6", "Y7"]), called=[True, False, False, False])
    game.step(play("G5"))
    lines = game.render_text().splitlines()
    assert lines[1].startswith("Round over: player_0 wins, scoring ")
    assert "  player_0 (0 cards, winner, 0 points)" in lines
    assert not [line for line in lines if "(0 cards" in line and ("LETZTE" in line or ":" in line)]


def test_colour_only_when_asked_and_the_same_text_underneath():
    game = UnoGame(4)
    game.reset(seed=2)
    for _ in range(3):
        game.step(game.legal_actions()[0])
    for seat in (None, 0, 1):
        plain, coloured = game.render_text(seat), game.render_text(seat, color=True)
        assert "\x1b" not in plain
        assert "\x1b[" in coloured and ANSI.sub("", coloured) == plain
    coloured = game.render_text(color=True)
    assert "\x1b[1m>\x1b[0m" in coloured  # the decider's marker in bold


def test_wild_cards_and_colours_have_their_paint():
    game = game_from(hands=hands(["W+4", "G6", "G7"]))
    coloured = game.render_text(color=True)
    assert "\x1b[35mW+4\x1b[0m" in coloured and "\x1b[32mG6\x1b[0m" in coloured
    assert "\x1b[31mR5\x1b[0m" in coloured and "colour \x1b[31mred\x1b[0m" in coloured


def test_a_bad_seat_is_refused():
    with pytest.raises(ValueError, match="seat"):
        game_from().render_text(4)


# ------------------------------------------------------------- state_dict
@pytest.mark.parametrize("rules", [{}, {"draw_four": "official", "missed_call_penalty": 2}])
def test_a_loaded_state_renders_exactly_like_the_original(rules):
    game = UnoGame(3, **rules)
    game.reset(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(150):
        if game.is_over:
            break
        game.step(int(rng.choice(game.legal_actions())))
        clone = UnoGame(3, **rules)
        clone.load_state_dict(json.loads(json.dumps(game.state_dict())))
        assert clone.last_move() == game.last_move() != ""
        for seat in (None, 0, 1, 2):
            assert clone.render_text(seat, color=True) == game.render_text(seat, color=True)


def test_a_state_without_a_last_move_still_loads():
    game = game_from()
    game.step(play("G5"))
    state = game.state_dict()
    assert state["last_move"] == {
        "seat": 0,
        "action": play("G5"),
        "turn_player": 0,
        "pending_draw": 0,
        "draws": [],
    }
    del state["last_move"]
    game.load_state_dict(state)
    assert game.last_move() == "" and game.render_text().endswith("Last move: none yet")


@pytest.mark.parametrize(
    "bad",
    [
        "played G5",
        [],
        {"seat": 0, "action": 1},
        {"seat": 9, "action": 1, "turn_player": 0, "pending_draw": 0, "draws": []},
        {"seat": 0, "action": E.NUM_ACTIONS, "turn_player": 0, "pending_draw": 0, "draws": []},
        {"seat": 0, "action": True, "turn_player": 0, "pending_draw": 0, "draws": []},
        {"seat": 0, "action": 1, "turn_player": 0, "pending_draw": -1, "draws": []},
        {"seat": 0, "action": 1, "turn_player": 0, "pending_draw": 0, "draws": [[1]]},
        {"seat": 0, "action": 1, "turn_player": 0, "pending_draw": 0, "draws": [[1, 500]]},
        {"seat": 0, "action": 1, "turn_player": 0, "pending_draw": 0, "draws": None},
        {"seat": 0, "action": 1, "turn_player": 0, "pending_draw": 0, "draws": [], "extra": 1},
    ],
)
def test_a_malformed_last_move_is_refused(bad):
    game = game_from()
    before = game.state_dict()
    with pytest.raises(ValueError, match="last_move"):
        game.load_state_dict({**before, "last_move": bad})
    assert game.state_dict() == before


# ------------------------------------------------------------ legend, actions
def test_the_legend_explains_every_code_family():
    legend = UnoGame(4).legend()
    for words in ("R red", "Y yellow", "G green", "B blue", "0-9", "S skip", "R reverse", "+2 draw two"):
        assert words in legend
    for words in ("W wild", "W+4 wild draw four", "LETZTE", "Stack"):
        assert words in legend
    assert "challenge" in UnoGame(4, draw_four="official").legend()
    assert "two players" in UnoGame(2).legend() and "two players" not in UnoGame(3).legend()


def test_action_descriptions_are_words_and_card_codes():
    texts = [E.describe_action(a) for a in range(E.NUM_ACTIONS)]
    assert len(set(texts)) == E.NUM_ACTIONS
    for text in texts:
        assert not re.search(r"\d{2,}", text) and "action" not in text
    assert texts[play("G+2")] == "play G+2"
    assert texts[play("W+4", call=True)] == "play W+4 and call LETZTE"
    assert texts[colour("R")] == "choose colour red"
