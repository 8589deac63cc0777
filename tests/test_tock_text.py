"""Tock's text: render_text (full and seat view, colour), last_move for every kind of action, legend."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import numpy as np
import pytest

from card_envs.games.tock.encoding import CENTRE, DRAW, KNOCK, NUM_ACTIONS, OWN_PILE, PASS
from card_envs.games.tock.engine import TockGame

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def make(
    n: int = 3,
    *,
    supply: list[int] | None = None,
    centre: list[int] | None = None,
    piles: dict[int, list[int]] | None = None,
    stacks: dict[int, list[int]] | None = None,
    drawn: int | None = None,
) -> TockGame:
    """A game loaded from a known state with player_0 on turn; seats not named hold nothing."""
    game = TockGame(n)
    game.reset(0)
    game.load_state_dict(
        {
            "game": "tock",
            "num_players": n,
            "turn_player": 0,
            "phase": "play",
            "supply": [9, 9, 9] if supply is None else supply,
            "centre": centre or [],
            "piles": [list((piles or {}).get(s, [])) for s in range(n)],
            "stacks": [list((stacks or {}).get(s, [])) for s in range(n)],
            "drawn": drawn,
        }
    )
    return game


def last_line(game: TockGame, seat: int | None = None) -> str:
    return game.render_text(seat).splitlines()[-1]


def player_line(game: TockGame, seat: int) -> str:
    (line,) = [line for line in game.render_text().splitlines() if line[2:].startswith(f"player_{seat} ")]
    return line


def right_knock() -> TockGame:
    """player_0 dumps its 5 on player_1's 6 although the row at 4 takes it; player_1 knocks."""
    game = make(centre=[4], piles={0: [5], 1: [6], 2: [9, 3]})
    game.step(1)
    game.step(KNOCK)
    return game


def false_knock() -> TockGame:
    """player_0 plays its 5 to the centre as it must; player_1 knocks all the same."""
    game = make(centre=[4], piles={0: [3, 5], 1: [6], 2: [9, 8]})
    game.step(CENTRE)
    game.step(KNOCK)
    return game


# ------------------------------------------------------------ last move
def test_last_move_is_empty_before_the_first_action():
    game = TockGame(4)
    game.reset(3)
    assert game.last_move() == ""
    assert last_line(game) == "Last move: none yet"


def test_a_right_knock_names_the_rule_break_and_the_penalty_cards():
    game = right_knock()
    assert game.last_move() == (
        "player_1 knocked TOCK! rightly: player_0 broke a rule (played 5 onto player_1's pile although"
        " it fits the centre) and takes 2 penalty cards (6 from player_1, 9 from player_2);"
        " player_0's turn ends"
    )
    assert game.state_dict()["piles"][0] == [9, 6]  # the cards the line names, under player_0's pile
    assert last_line(game) == "Last move: " + game.last_move()


def test_a_false_knock_says_false_and_which_cards_the_knocker_takes():
    game = false_knock()
    assert game.last_move() == (
        "player_1 knocked TOCK! falsely (player_0's move broke no rule): player_1 takes 2 penalty cards"
        " (9 from player_2, 3 from player_0); player_0 plays on"
    )
    assert game.state_dict()["piles"][1] == [3, 9, 6]
    assert "TOCK!" in last_line(game) and "falsely" in last_line(game)


def test_a_right_knock_after_a_forbidden_draw_puts_the_drawn_card_on_the_own_pile():
    game = make(centre=[4], piles={0: [5], 1: [6, 2]}, supply=[11, 9, 9])
    game.step(DRAW)
    assert game.last_move() == (
        "player_0 drew 11 from the supply (rule break: the own top card could have been played)"
    )
    game.step(KNOCK)
    assert game.last_move() == (
        "player_1 knocked TOCK! rightly: player_0 broke a rule (drew although the own top card could be"
        " played) and takes 1 penalty card (6 from player_1); the drawn 11 goes onto player_0's open pile;"
        " player_0's turn ends"
    )


def test_passes_say_on_whose_move_and_the_last_one_closes_the_window():
    game = make(centre=[4], piles={0: [3, 5], 1: [6], 2: [9, 8]})
    game.step(CENTRE)
    assert game.last_move() == "player_0 played 5 from the own pile to the centre (row 4 -> 5)"
    assert "player_1 may knock (TOCK!) or pass on player_0's move" in game.render_text()
    game.step(PASS)
    assert game.last_move() == "player_1 passed (no TOCK! on player_0's move)"
    game.step(PASS)
    assert game.last_move() == "player_2 passed: nobody knocked on player_0's move"
    assert game.phase == "play"


@pytest.mark.parametrize(
    ("setup", "action", "line"),
    [
        (
            {"centre": [3], "piles": {0: [7], 1: [8]}},
            1,
            "player_0 played 7 from the own pile onto player_1's open pile",
        ),
        ({"drawn": 5, "centre": [4]}, CENTRE, "player_0 played the drawn 5 to the centre (row 4 -> 5)"),
        ({"piles": {0: [1]}}, CENTRE, "player_0 opened a new centre row with 1 from the own pile"),
        (
            {"drawn": 20, "centre": [19], "piles": {1: [3]}},
            CENTRE,
            "player_0 played the drawn 20 to the centre (row 19 -> 20, the row is complete)",
        ),
        ({"supply": [12, 9]}, DRAW, "player_0 drew 12 from the supply"),
        (
            {"n": 2, "supply": [], "stacks": {0: [7, 8]}, "piles": {1: [2]}},
            DRAW,
            "player_0 drew 7 from the own stack",
        ),
        (
            {"n": 2, "supply": [], "centre": [4], "piles": {0: [3, 9], 1: [12]}},
            DRAW,
            "player_0 turned the open pile over and drew 3",
        ),
        (
            {"drawn": 13, "centre": [4], "piles": {1: [15]}},
            OWN_PILE,
            "player_0 put the drawn 13 on the own open pile, ending the turn",
        ),
        (
            {"drawn": 13, "centre": [4], "piles": {1: [14]}},
            OWN_PILE,
            "player_0 put the drawn 13 on the own open pile, ending the turn"
            " (rule break: the drawn 13 fits somewhere)",
        ),
    ],
)
def test_every_kind_of_move_in_one_line(setup: dict[str, Any], action: int, line: str):
    game = make(**setup)
    game.step(action)
    assert game.last_move() == line
    assert last_line(game) == f"Last move: {line}"


def test_finishing_gives_the_rank_once_and_the_end_says_game_over():
    game = make(supply=[], centre=[4], piles={0: [5], 1: [9], 2: [12]})
    game.step(CENTRE)
    assert game.last_move() == (
        "player_0 played 5 from the own pile to the centre (row 4 -> 5); player_0 finishes with rank 1"
    )
    assert player_line(game, 0).split()[1:] == ["finished,", "rank", "1"]

    game = make(2, supply=[], centre=[4], piles={0: [5], 1: [9]})
    game.step(CENTRE)
    assert game.is_over
    assert game.last_move().endswith("; player_0 finishes with rank 1; game over")
    assert player_line(game, 0).count("rank") == 1 and "final" not in player_line(game, 0)
    assert player_line(game, 1).count("rank") == 1 and player_line(game, 1).endswith("final rank 2")


def test_a_penalty_can_finish_the_givers():
    # player_2 gives its only card to the false knocker and is out; the two others play on
    game = make(4, supply=[], centre=[4], piles={0: [2, 3, 5], 1: [6], 2: [11], 3: [15, 16]})
    game.step(CENTRE)
    game.step(KNOCK)
    assert game.last_move().endswith("; player_2 finishes with rank 1")
    assert "11 from player_2" in game.last_move()


def test_every_action_of_random_games_gets_a_line_without_encoding_internals():
    rng = np.random.default_rng(4)
    for n in (2, 4, 6):
        game = TockGame(n)
        game.reset(n)
        kinds = set()
        while not game.is_over:
            action = int(rng.choice(game.legal_actions()))
            game.step(action)
            line = game.last_move()
            assert line.startswith("player_") and "\n" not in line and "action" not in line
            assert "seat" not in line and "rank 1  " not in line
            if action == KNOCK:
                assert "rightly" in line or "falsely" in line
                assert "penalty card" in line
            kinds.add(action)
        assert {CENTRE, DRAW, KNOCK, PASS} <= kinds


# ------------------------------------------------------------ the table
def test_header_says_whose_decision_and_what_kind():
    game = make(centre=[4], piles={0: [5], 1: [6]})
    assert "player_0 to play: the own top card 5, or draw" in game.render_text()
    game.step(1)
    assert "player_1 may knock (TOCK!) or pass on player_0's move: played 5 from the own pile" in (
        game.render_text()
    )
    assert make(drawn=7).render_text().splitlines()[1] == "player_0 to play: place the drawn 7"


def test_the_seat_view_counts_face_down_cards_the_full_view_lists_them():
    game = make(supply=[9, 8, 7], piles={0: [3], 1: [12, 13]}, stacks={1: [4, 5, 6]})
    full = game.render_text()
    assert "supply: 3 (next 9)" in full and "stack   3: next 4 5 6" in full
    for seat in range(3):
        view = game.render_text(seat)
        assert "next" not in view and "supply: 3 |" in view and "stack   3" in view
        (own,) = [line for line in view.splitlines() if "(you)" in line]
        assert own[2:].startswith(f"player_{seat} (you)")
        assert "12 [13]" in view  # open piles are public in every view
    with pytest.raises(ValueError):
        game.render_text(3)


def test_colour_only_when_asked_and_the_same_words():
    for game in (right_knock(), false_knock(), make(2, supply=[], centre=[4], piles={0: [5], 1: [9]})):
        if not game.is_over:
            game.step(game.legal_actions()[0])
        for seat in (None, 0, 1):
            plain = game.render_text(seat)
            painted = game.render_text(seat, color=True)
            assert "\x1b" not in plain and "\x1b[" in painted
            assert ANSI.sub("", painted) == plain
    assert "\x1b[31m" in right_knock().render_text(color=True)  # the knock in red


def test_long_piles_show_bottom_and_top():
    game = make(piles={0: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]})
    assert "open  12: 1 2 .. 7 8 9 10 11 [12]" in game.render_text()


def test_render_after_a_state_round_trip_is_the_same():
    rng = np.random.default_rng(1)
    checked = knocks = 0
    for n in (3, 5):
        game = TockGame(n)
        game.reset(10 + n)
        step = 0
        while not game.is_over:
            action = int(rng.choice(game.legal_actions()))
            game.step(action)
            step += 1
            if action != KNOCK and step % 11 and not game.is_over:
                continue
            clone = TockGame(n)
            clone.load_state_dict(json.loads(json.dumps(game.state_dict())))
            assert clone.last_move() == game.last_move()
            for seat in (None, *range(n)):
                assert clone.render_text(seat) == game.render_text(seat)
                assert clone.render_text(seat, color=True) == game.render_text(seat, color=True)
            checked += 1
            knocks += action == KNOCK
    assert checked > 100 and knocks > 10


# ------------------------------------------------------------ state fields
def test_older_states_without_outcome_or_source_still_load_and_render():
    state = right_knock().state_dict()
    del state["outcome"]
    del state["move"]["source"]
    game = TockGame(3)
    game.load_state_dict(state)
    assert "takes the penalty cards" in game.last_move()
    assert game.state_dict()["move"]["source"] is None


def test_malformed_outcome_or_source_is_refused():
    knocked = right_knock().state_dict()
    played = make(centre=[3], piles={0: [7], 1: [8]})
    played.step(1)
    moved = played.state_dict()
    bad = [
        (knocked, ("outcome", "penalty"), [[1, 7], [2, 9]]),  # not the cards under player_0's pile
        (knocked, ("outcome", "penalty"), [[2, 9], [1, 6]]),  # not in order from the receiver's left
        (knocked, ("outcome", "penalty"), [[0, 6]]),  # the receiver gives nothing to itself
        (knocked, ("outcome", "penalty"), [[1]]),
        (knocked, ("outcome", "finished"), [2]),  # nobody finished
        (knocked, ("outcome", "extra"), 1),
        (moved, ("outcome", "penalty"), []),  # only a knock moves penalty cards
        (moved, ("move", "source"), "supply"),  # a played card comes from the drawn card or the pile
        (moved, ("move", "source"), "hand"),
        (moved, ("outcome",), []),
    ]
    for state, path, value in bad:
        new = copy.deepcopy(state)
        target = new
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        game = TockGame(3)
        with pytest.raises(ValueError):
            game.load_state_dict(new)
    before = TockGame(3)
    before.reset(0)
    with pytest.raises(ValueError):
        before.load_state_dict(before.state_dict() | {"outcome": {"penalty": None, "finished": []}})


# ------------------------------------------------------------ words
def test_legend_explains_the_codes():
    legend = TockGame(4).legend()
    for code in ("21", "[t]", "open N", "stack N", "drawn", "..", ">", "TOCK!"):
        assert code in legend


def test_describe_action_names_players_not_relative_seats():
    game = make(4, centre=[4], piles={0: [5], 1: [6], 2: [4], 3: []})
    texts = [game.describe_action(a) for a in range(NUM_ACTIONS)]
    assert texts[1] == "play 5 onto player_1's open pile (top 6)"
    assert texts[3] == "play 5 onto player_3's open pile (empty)"
    assert texts[5].endswith("(no such seat)")
    assert texts[DRAW] == "draw the top card of the supply"
    assert all("seat(s)" not in text for text in texts)
