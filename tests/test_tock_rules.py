"""Tock rules (docs/rules/tock.md), one scenario per rule, each from a known state."""

from __future__ import annotations

from typing import Any

import pytest

from card_envs.core.game import IllegalActionError
from card_envs.games.tock.cards import MAX_ROWS, full_deck
from card_envs.games.tock.encoding import CENTRE, DRAW, KNOCK, OWN_PILE, PASS
from card_envs.games.tock.engine import TockGame


def opp(k: int) -> int:
    """Action: onto the open pile of the player k seats to the left."""
    return k


def make(
    n: int = 3,
    *,
    turn: int = 0,
    supply: list[int] | None = None,
    centre: list[int] | None = None,
    piles: dict[int, list[int]] | None = None,
    stacks: dict[int, list[int]] | None = None,
    drawn: int | None = None,
    finished: list[int] | None = None,
    phase: str = "play",
    window: dict[str, Any] | None = None,
    **rules: Any,
) -> TockGame:
    """A game loaded from a known state; seats not named in piles/stacks hold nothing."""
    game = TockGame(n, **rules)
    game.reset(0)
    game.load_state_dict(
        {
            "game": "tock",
            "num_players": n,
            "turn_player": turn,
            "phase": phase,
            "supply": [9, 9, 9] if supply is None else supply,
            "centre": centre or [],
            "piles": [list((piles or {}).get(s, [])) for s in range(n)],
            "stacks": [list((stacks or {}).get(s, [])) for s in range(n)],
            "drawn": drawn,
            "finished": finished or [],
            "ranks": None,
            "window": window,
        }
    )
    return game


def legal(game: TockGame) -> set[int]:
    return set(game.legal_actions())


# ----------------------------------------------------------- where a card goes
def test_centre_has_priority_over_an_opponent():
    # the 7 fits the row at 6 and player 1's 8
    strict = make(piles={0: [7], 1: [8]}, centre=[6], allow_violations=False)
    assert legal(strict) == {CENTRE}
    loose = make(piles={0: [7], 1: [8]}, centre=[6])
    assert legal(loose) == {CENTRE, opp(1), DRAW}
    assert set(loose.rule_break_actions()) == {opp(1), DRAW}


def test_an_opponent_only_when_the_centre_does_not_fit():
    game = make(piles={0: [7], 1: [8], 2: [6]}, centre=[3], allow_violations=False)
    assert legal(game) == {opp(1), opp(2)}
    game.step(opp(2))
    assert game.state_dict()["piles"] == [[], [8], [6, 7]]
    assert game.current_player == 0 and game.phase == "play"


def test_one_opens_a_row_and_rows_with_the_same_top_are_one_action():
    game = make(piles={0: [2, 1]}, centre=[5, 5], allow_violations=False)
    assert legal(game) == {CENTRE}
    game.step(CENTRE)
    assert game.state_dict()["centre"] == [5, 5, 1]
    game.step(CENTRE)  # the 2 goes onto the new row
    assert game.state_dict()["centre"] == [5, 5, 2]
    # with six rows open a 1 has nowhere to go in the centre; all six 1s are in the centre then,
    # so a loaded state cannot hold a seventh: set the table directly
    with pytest.raises(ValueError, match="kind 1: 7 of 6"):
        make(piles={0: [1]}, centre=[4] * MAX_ROWS)
    full = TockGame(3, allow_violations=False)
    full.reset(0)
    full.table.centre = [4] * MAX_ROWS
    full.table.piles[0] = [1]
    assert legal(full) == {DRAW}


def test_a_row_grows_by_exactly_one():
    game = make(piles={0: [9]}, centre=[7, 10], allow_violations=False)
    assert legal(game) == {DRAW}


def test_the_21_only_onto_an_open_20_and_never_to_the_centre():
    game = make(drawn=21, centre=[20], piles={1: [19], 2: [20]}, allow_violations=False)
    assert legal(game) == {opp(2)}
    game.step(opp(2))
    assert game.state_dict()["piles"][2] == [20, 21]
    # no open 20: the drawn 21 goes on the own pile and the turn ends
    alone = make(drawn=21, centre=[20], piles={1: [19]})
    assert legal(alone) == {OWN_PILE}
    alone.step(OWN_PILE)
    assert alone.state_dict()["piles"][0] == [21] and alone.current_player == 1
    # an own top 21 that fits nowhere: draw
    assert legal(make(piles={0: [21], 1: [18]}, centre=[20])) == {DRAW}


def test_a_20_goes_onto_an_open_21():
    game = make(piles={0: [20], 1: [21]}, centre=[12], allow_violations=False)
    assert legal(game) == {opp(1)}


def test_an_empty_pile_takes_nothing():
    game = make(drawn=5, piles={1: []}, centre=[], allow_violations=False)
    assert legal(game) == {OWN_PILE}


# ----------------------------------------------------------------- a turn
def test_the_turn_goes_on_with_the_newly_visible_top_card():
    game = make(piles={0: [3, 12, 8]}, centre=[7, 11, 2], allow_violations=False)
    for expected in (8, 12, 3):
        assert game.card_in_play() == (expected, "pile")
        game.step(CENTRE)
    assert game.state_dict()["centre"] == [8, 12, 3]
    assert legal(game) == {DRAW} and game.current_player == 0  # empty pile: draw


def test_draw_then_play_then_check_own_pile_again():
    game = make(supply=[4, 9, 20], piles={0: [15]}, centre=[3], allow_violations=False)
    assert legal(game) == {DRAW}
    game.step(DRAW)
    assert game.card_in_play() == (4, "drawn") and legal(game) == {CENTRE}
    game.step(CENTRE)
    assert game.card_in_play() == (15, "pile") and legal(game) == {DRAW}
    game.step(DRAW)  # the 9 fits nowhere
    assert legal(game) == {OWN_PILE}
    game.step(OWN_PILE)
    state = game.state_dict()
    assert state["piles"][0] == [15, 9] and state["turn_player"] == 1 and state["drawn"] is None


def test_keep_drawing_while_the_own_pile_is_empty_and_the_supply_lasts():
    game = make(supply=[1, 2, 3, 17, 5], allow_violations=False)
    for card in (1, 2, 3):
        game.step(DRAW)
        assert game.card_in_play() == (card, "drawn")
        game.step(CENTRE)
        assert game.current_player == 0 and legal(game) == {DRAW}
    game.step(DRAW)
    game.step(OWN_PILE)
    assert game.state_dict()["piles"][0] == [17] and game.current_player == 1


# ------------------------------------------------------------ rule breaks
def test_rule_break_a_draw_although_the_top_card_could_be_played():
    game = make(supply=[11, 12], piles={0: [5]}, centre=[4])
    game.step(DRAW)
    state = game.state_dict()
    assert state["phase"] == "knock" and state["window"]["rule_break"] is True
    assert state["move"]["rule_break"] is True and state["drawn"] == 11
    assert game.player_info(0)["rule_breaks"] == 1


def test_rule_break_b_an_opponent_although_the_card_fits_the_centre():
    game = make(piles={0: [5], 2: [6]}, centre=[4])
    game.step(opp(2))
    state = game.state_dict()
    assert state["piles"][2] == [6, 5] and state["window"]["rule_break"] is True
    assert game.phase == "knock" and game.current_player == 1


def test_rule_break_c_a_fitting_card_onto_the_own_pile():
    game = make(drawn=6, piles={0: [12], 1: [7]})
    assert legal(game) == {opp(1), OWN_PILE}
    game.step(OWN_PILE)
    state = game.state_dict()
    assert state["piles"][0] == [12, 6] and state["window"] == {
        "deciders": [1, 2],
        "rule_break": True,
        "ends_turn": True,
    }
    for _ in range(2):
        game.step(PASS)
    assert game.current_player == 1 and game.phase == "play"  # nobody knocked: the turn is over


def test_no_rule_break_and_no_window_without_violations():
    game = make(piles={0: [5], 2: [6]}, centre=[4], allow_violations=False)
    with pytest.raises(IllegalActionError):
        game.step(opp(2))
    game.step(CENTRE)
    assert game.phase == "play" and game.current_player == 0


def test_a_window_after_a_legal_move_when_a_break_was_available_but_not_after_a_forced_one():
    game = make(supply=[13, 14], piles={0: [5]}, centre=[4])
    game.step(CENTRE)  # a rule break (draw) was available
    assert game.phase == "knock" and game.state_dict()["window"]["rule_break"] is False
    game.step(PASS)
    game.step(PASS)
    assert game.phase == "play" and game.current_player == 0
    game.step(DRAW)  # empty pile: drawing is forced, no break was available
    assert game.phase == "play" and game.card_in_play() == (13, "drawn")
    game.step(OWN_PILE)  # fits nowhere: forced
    assert game.phase == "play" and game.current_player == 1


def test_physically_impossible_moves_are_never_legal():
    game = make(piles={0: [21], 1: [15], 2: [19]}, centre=[20, 3])
    assert legal(game) == {DRAW}
    game = make(drawn=9, piles={1: [15], 2: []}, centre=[3])
    assert legal(game) == {OWN_PILE}


# ------------------------------------------------------------------ knocks
def test_knock_window_order_from_the_active_players_left_and_only_players_still_in():
    game = make(
        5,
        turn=2,
        supply=[],
        piles={0: [7], 1: [3], 2: [9, 5], 4: [6]},
        centre=[4],
        finished=[3],
    )
    game.step(CENTRE)
    assert game.state_dict()["window"]["deciders"] == [4, 0, 1]
    seen = []
    while game.phase == "knock":
        seen.append(game.current_player)
        game.step(PASS)
    assert seen == [4, 0, 1] and game.current_player == 2


def test_correct_knock_moves_bottom_cards_to_the_cheater_and_ends_the_turn():
    game = make(4, piles={0: [10, 5], 1: [2, 6], 2: [11, 12], 3: [18, 19]}, centre=[4])
    game.step(opp(1))  # 5 onto player 1's 6 although it fits the centre
    game.step(PASS)  # player 1
    assert game.current_player == 2
    game.step(KNOCK)  # player 2: correct
    state = game.state_dict()
    # collected from the cheater's left: 1, 2, 3; each goes under, the last one is the new bottom
    assert state["piles"] == [[18, 11, 2, 10], [6, 5], [12], [19]]
    assert state["centre"] == [4]  # the offending card stayed where it was put
    assert state["turn_player"] == 1 and state["phase"] == "play"
    assert game.player_info(2)["knocks_correct"] == 1 and game.player_info(0)["caught"] == 1


def test_correct_knock_on_a_forbidden_draw_puts_the_drawn_card_onto_the_pile():
    game = make(3, supply=[17, 3], piles={0: [8, 5], 1: [1, 2], 2: [13]}, centre=[4])
    game.step(DRAW)
    game.step(KNOCK)
    state = game.state_dict()
    assert state["piles"] == [[13, 1, 8, 5, 17], [2], []]
    assert state["drawn"] is None and state["turn_player"] == 1


def test_false_knock_penalises_the_knocker_and_the_active_player_continues():
    game = make(4, piles={0: [10, 5], 1: [2, 6], 2: [11, 12], 3: [18, 19]}, centre=[4])
    game.step(CENTRE)  # legal, but a break was available
    game.step(KNOCK)  # player 1 knocks falsely
    state = game.state_dict()
    # player 1 collects from its left: 2, 3, 0 (the active player included)
    assert state["piles"] == [[], [10, 18, 11, 2, 6], [12], [19]]
    assert game.current_player == 0 and game.phase == "play"
    assert game.player_info(1)["knocks_false"] == 1
    assert legal(game) == {DRAW}  # player 0 goes on with its turn


def test_knock_when_some_piles_are_empty():
    game = make(4, piles={0: [9], 1: [], 2: [3, 4], 3: []}, centre=[8])
    game.step(CENTRE)  # player 0's pile is now empty too
    game.step(PASS)
    game.step(KNOCK)  # player 2, falsely
    state = game.state_dict()
    assert state["piles"] == [[], [], [3, 4], []]  # nobody had a card to give
    game = make(4, piles={0: [9], 1: [], 2: [3, 10], 3: [7]}, centre=[8])
    game.step(opp(2))  # rule break
    game.step(KNOCK)  # player 1, correctly: only players 2 and 3 have cards to give
    assert game.state_dict()["piles"] == [[7, 3], [], [10, 9], []]


def test_penalty_cards_are_collected_from_the_receivers_left():
    game = make(5, turn=3, piles={0: [1], 1: [2], 2: [3], 3: [5, 6], 4: [4]}, centre=[5])
    game.step(CENTRE)  # the 6
    game.step(KNOCK)  # player 4, falsely: collects 0, 1, 2, 3 in that order
    assert game.state_dict()["piles"][4] == [5, 3, 2, 1, 4]


def test_the_first_knock_ends_the_window():
    game = make(4, piles={0: [12, 5], 1: [7], 2: [8], 3: [9]}, centre=[4])
    game.step(CENTRE)
    game.step(PASS)  # player 1
    game.step(KNOCK)  # player 2, falsely; player 3 is not asked
    assert game.phase == "play" and game.current_player == 0
    assert game.state_dict()["piles"] == [[], [], [7, 12, 9, 8], []]


# --------------------------------------------------------- opponent choice
def test_opponent_choice_nearest_allows_only_the_first_fitting_seat_after_the_player():
    state = {"turn": 2, "piles": {0: [8], 1: [3], 2: [7], 3: [6]}, "centre": [1]}
    free = make(4, **state, allow_violations=False)
    assert legal(free) == {opp(1), opp(2)}  # seats 3 and 0
    nearest = make(4, **state, opponent_choice="nearest", allow_violations=False)
    assert legal(nearest) == {opp(1)}
    cheat = make(4, turn=2, piles={0: [8], 2: [7], 3: [8]}, centre=[6], opponent_choice="nearest")
    assert legal(cheat) == {CENTRE, opp(1), DRAW}  # the rule break also goes to the nearest


# --------------------------------------------------------- empty supply
def test_flipping_the_pile_keeps_its_order():
    game = make(supply=[], piles={0: [4, 9, 14, 18], 1: [1], 2: [15]}, centre=[6])
    assert legal(game) == {DRAW}
    assert game.describe_action(DRAW).startswith("turn the own open pile over")
    game.step(DRAW)
    state = game.state_dict()
    assert state["drawn"] == 4  # the former bottom card is now on top
    assert state["stacks"][0] == [9, 14, 18] and state["piles"][0] == []
    game.step(OWN_PILE)  # the 4 fits nowhere: it starts the open pile again
    state = game.state_dict()
    assert state["piles"][0] == [4] and state["stacks"][0] == [9, 14, 18]
    assert state["turn_player"] == 1


def test_drawing_from_the_own_stack_without_turning_the_open_pile():
    game = make(
        supply=[], piles={0: [15], 1: [2], 2: [19]}, stacks={0: [7, 11]}, centre=[6], allow_violations=False
    )
    game.step(DRAW)
    state = game.state_dict()
    assert state["drawn"] == 7 and state["stacks"][0] == [11] and state["piles"][0] == [15]
    game.step(CENTRE)
    game.step(DRAW)  # 15 still does not fit
    assert game.state_dict()["drawn"] == 11 and game.state_dict()["stacks"][0] == []


def test_other_players_turn_over_only_on_their_own_turn():
    game = make(supply=[5], piles={0: [12], 1: [3, 8], 2: [17]}, centre=[4], allow_violations=False)
    game.step(DRAW)
    game.step(CENTRE)  # the supply is now empty; player 1 keeps its open pile
    assert game.state_dict()["piles"][1] == [3, 8] and game.state_dict()["stacks"][1] == []


# --------------------------------------------------------------- finishing
def test_finishing_by_playing_out_opens_no_window():
    game = make(supply=[], piles={0: [5], 1: [9], 2: [14]}, centre=[4])
    game.step(CENTRE)
    state = game.state_dict()
    assert state["finished"] == [0] and state["phase"] == "play" and state["turn_player"] == 1
    assert game.finished_ranks() == {0: 1}
    assert not game.is_over


def test_a_rule_break_that_finishes_the_player_goes_unpunished():
    game = make(supply=[], piles={0: [5], 1: [6], 2: [14]}, centre=[4])
    game.step(opp(1))
    assert game.phase == "play" and game.state_dict()["finished"] == [0]


def test_no_win_while_the_supply_lasts():
    game = make(supply=[19], piles={0: [5]}, centre=[4], allow_violations=False)
    game.step(CENTRE)
    assert game.state_dict()["finished"] == [] and legal(game) == {DRAW}


def test_finishing_by_giving_up_a_penalty_card():
    game = make(4, supply=[], piles={0: [9, 5], 1: [13], 2: [16], 3: [2, 3]}, centre=[4])
    game.step(DRAW)  # a forbidden draw from the own stack (turns the pile over)
    game.step(KNOCK)  # player 1, correctly: gives its only card and finishes
    state = game.state_dict()
    assert state["finished"] == [1, 2] and state["finish_ranks"] == [None, 1, 1, None]
    assert state["turn_player"] == 3  # player 0's turn ended; players 1 and 2 are out


def test_a_false_knock_can_finish_the_active_player():
    game = make(supply=[], piles={0: [7, 5], 1: [2], 2: [12, 13]}, centre=[4])
    game.step(CENTRE)
    game.step(KNOCK)  # player 1, falsely: takes player 0's last card
    state = game.state_dict()
    assert state["finished"] == [0] and state["piles"] == [[], [7, 12, 2], [13]]
    assert state["turn_player"] == 1 and game.phase == "play"


def test_all_six_rows_at_20_end_the_game_even_with_the_21_still_face_down():
    game = make(2, supply=[21], drawn=20, centre=[20, 20, 20, 20, 20, 19])
    game.step(CENTRE)
    assert game.is_over and game.ranks == [1, 1]


def test_the_game_ends_with_the_21_holder_last():
    rows = [20, 20, 20, 20, 20, 19]
    game = make(3, supply=[], drawn=20, centre=rows, piles={1: [21]}, finished=[2])
    game.step(CENTRE)
    assert game.is_over and game.ranks == [2, 3, 1]
    assert game.state_dict()["centre"] == [20] * 6


def test_the_game_ends_when_at_most_one_player_is_left():
    game = make(2, supply=[], piles={0: [8], 1: [2, 3]}, centre=[7])
    game.step(CENTRE)
    assert game.is_over and game.ranks == [1, 2]
    with pytest.raises(IllegalActionError):
        game.step(DRAW)
    assert not game.action_mask().any()


def test_truncation_ranks_finished_players_first_then_fewest_cards_then_seat():
    game = make(4, supply=[], piles={0: [3, 4], 1: [5, 9], 2: [6, 7]}, stacks={2: [1]}, finished=[3])
    assert game.truncation_ranks() == [2, 3, 4, 1]


def test_truncation_in_the_env_pays_the_truncation_ranks():
    from card_envs import tock_v1

    env = tock_v1.raw_env(num_players=3, max_steps=2)
    env.reset(seed=0)
    supply = full_deck()
    for card in (2, 8, 17, 13, 9, 4):  # on the piles below
        supply.remove(card)
    state = make(3, supply=supply[:50], piles={0: [2, 8, 17], 1: [13], 2: [9, 4]}).state_dict()
    env.game.load_state_dict(state)
    env.agent_selection = env.possible_agents[env.game.current_player]
    env.step(DRAW)  # draws the 1: putting it on the own pile is a rule break, masked in
    assert env.game.action_mask()[OWN_PILE]
    env.step(OWN_PILE)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    ranks = env.game.truncation_ranks()
    assert [env.infos[a]["rank"] for a in env.possible_agents] == ranks
    assert env.rewards["player_1"] == 1.0
