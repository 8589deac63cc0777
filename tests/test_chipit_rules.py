"""Scenario tests for every rule and variant of docs/rules/chipit.md, each from a known state."""

from __future__ import annotations

import copy
import itertools
import json

import numpy as np
import pytest

from card_envs.core.game import IllegalActionError
from card_envs.games.chipit import encoding as E
from card_envs.games.chipit.arith import (
    card_cost,
    card_options,
    card_value,
    cheapest_at,
    cheapest_value,
    mark_blocks,
    mark_units,
    mark_values,
    play_costs,
)
from card_envs.games.chipit.cards import (
    CODES,
    COPIES,
    DEAL_SIZE,
    IMPOSSIBLE,
    MAX_VALUE,
    NUM_GREEN,
    NUM_TYPES,
    START_CHIPS,
    TOTAL_CHIPS,
    TYPE_OF_CODE,
)
from card_envs.games.chipit.engine import ChipItGame

FILLER = ["G21", "G20", "G19"]


def value(v: int) -> int:
    """The first action for common value ``v`` (a HIGH block above 129)."""
    return E.VALUE + v - E.MIN_VALUE if v < E.HIGH_START else E.HIGH + (v - E.HIGH_START) // E.BLOCK


def card(code: str) -> int:
    return E.CARD + TYPE_OF_CODE[code]


def pass_(returned: int = 0) -> int:
    return E.PASS + returned


def game_from(num_players: int = 3, play_to_end: bool = False, **state) -> ChipItGame:
    """A game in a known state; the cards not named are out of play, the chips not named in the supply."""
    game = ChipItGame(num_players, play_to_end=play_to_end)
    game.reset(seed=0)
    full = {
        "game": "chipit",
        "num_players": num_players,
        "current_player": 0,
        "hands": [list(FILLER) for _ in range(num_players)],
        "chips": [START_CHIPS] * num_players,
        "display": [[] for _ in range(num_players)],
        "last_play": None,
        "passes": 0,
        "discard": [],
        "finished": [],
        "ranks": None,
        "building": None,
    }
    full.update(state)
    used = [c for h in full["hands"] for c in h] + full["discard"]
    used += [e["card"] for shown in full["display"] for e in shown]
    left = {code: COPIES for code in CODES}
    for code in used:
        left[code] -= 1
    full["out"] = [code for code in CODES for _ in range(left[code])]
    on_display = sum(e["chips"] for shown in full["display"] for e in shown)
    full["supply"] = TOTAL_CHIPS - sum(full["chips"]) - on_display
    game.load_state_dict(full)
    return game


def play(game: ChipItGame, v: int, cards: list[str]) -> None:
    """Choose value ``v`` and the cards (in type order, as the mask asks); a lead ends with DONE."""
    leading = game.table.last is None
    game.step(value(v))
    if v >= E.HIGH_START:
        game.step(E.UNITS + (v - E.HIGH_START) % E.BLOCK)
    for code in sorted(cards, key=TYPE_OF_CODE.get):
        game.step(card(code))
    if leading:
        game.step(E.DONE)


def legal_values(game: ChipItGame) -> list[int]:
    mask = game.action_mask()
    return [v for v in range(E.MIN_VALUE, E.HIGH_START) if mask[value(v)]]


def shown(game: ChipItGame, seat: int) -> list[tuple[str, int]]:
    return [(e["card"], e["chips"]) for e in game.state_dict()["display"][seat]]


# ------------------------------------------------------------- material
def test_material_and_deal_by_player_count():
    assert NUM_TYPES * COPIES == 60
    assert sum(1 for c in CODES if c[0] == "G") == 20 and sum(1 for c in CODES if c[0] == "P") == 10
    for n in range(2, 7):
        game = ChipItGame(n)
        game.reset(seed=n)
        state = game.state_dict()
        assert [len(h) for h in state["hands"]] == [DEAL_SIZE[n]] * n
        assert DEAL_SIZE[n] == {2: 15, 3: 15, 4: 15, 5: 12, 6: 10}[n]
        assert len(state["out"]) == 60 - n * DEAL_SIZE[n]
        assert state["chips"] == [3] * n and state["supply"] == 108 - 3 * n
        assert state["current_player"] == 0 and state["phase"] == "lead" and state["last_play"] is None


# ----------------------------------------------------------- arithmetic
def test_value_arithmetic_for_both_colours():
    assert card_value(TYPE_OF_CODE["G11"], 1) == 12
    assert card_value(TYPE_OF_CODE["P11"], 2) == 33  # the review's example: 11 + 2 x 11
    assert card_cost(TYPE_OF_CODE["G7"], 10) == 3 and card_cost(TYPE_OF_CODE["G7"], 6) is None
    assert card_cost(TYPE_OF_CODE["P5"], 15) == 2 and card_cost(TYPE_OF_CODE["P5"], 12) is None
    assert card_cost(TYPE_OF_CODE["P5"], 5) == 0
    game = game_from(hands=[["G7", "P5"], FILLER, FILLER])
    assert 10 in legal_values(game) and 15 in legal_values(game) and 12 in legal_values(game)
    game.step(value(15))
    mask = game.action_mask()
    assert mask[card("G7")] and mask[card("P5")]
    game.step(card("P5"))
    game.step(E.DONE)
    assert shown(game, 0) == [("P5", 2)]
    assert game.state_dict()["last_play"] == {"seat": 0, "count": 1, "value": 15}
    # P5 cannot show 12 (not a multiple of 5); G7 can, with 5 chips
    game = game_from(hands=[["G7", "P5"], FILLER, FILLER])
    game.step(value(12))
    assert game.action_mask()[card("G7")] and not game.action_mask()[card("P5")]


def test_mixed_colour_set_at_one_value_takes_chips_from_the_supply():
    game = game_from(hands=[["G6", "P3", "P2", "G9"], FILLER, FILLER])
    supply = game.table.supply
    play(game, 6, ["G6", "P3", "P2"])
    assert shown(game, 0) == [("G6", 0), ("P2", 2), ("P3", 1)]
    state = game.state_dict()
    assert state["last_play"] == {"seat": 0, "count": 3, "value": 6}
    assert state["supply"] == supply - 3
    assert state["chips"][0] == START_CHIPS  # the own holding is untouched
    assert state["hands"][0] == ["G9"]


def test_a_lead_may_hold_any_number_of_cards():
    game = game_from(hands=[["G8", "G8", "P8", "P4", "P2"], FILLER, FILLER])
    game.step(value(8))
    for code in ["G8", "G8", "P2", "P4"]:  # cards are added in type order
        game.step(card(code))
        assert game.action_mask()[E.DONE] and game.action_mask()[card("P8")]
        assert not game.action_mask()[card("G8") if code != "G8" else card("G2")]
    play_state = game.state_dict()
    assert play_state["last_play"] is None  # still being built
    game.step(E.DONE)
    assert game.state_dict()["last_play"] == {"seat": 0, "count": 4, "value": 8}


def test_done_only_after_a_card_and_a_leader_with_cards_cannot_pass():
    game = game_from(hands=[["G8", "G9"], FILLER, FILLER])
    mask = game.action_mask()
    assert not mask[E.PASS : E.VALUE].any() and not mask[E.DONE]
    game.step(value(9))
    assert not game.action_mask()[E.DONE]


# --------------------------------------------------------------- answers
def answer_state(hands, last_value=8, last_cards=(("G8", 0),), current=1, **extra):
    shown_cards = [{"card": c, "chips": p} for c, p in last_cards]
    return dict(
        hands=hands,
        display=[shown_cards, [], []],
        last_play={"seat": 0, "count": len(last_cards), "value": last_value},
        current_player=current,
        **extra,
    )


def test_same_count_rule():
    game = game_from(
        **answer_state([FILLER, ["G18"], FILLER], last_value=8, last_cards=(("G8", 0), ("P8", 0)))
    )
    mask = game.action_mask()
    assert not mask[E.VALUE : E.DONE].any(), "one card cannot answer a pair"
    assert mask[pass_(0)]
    game = game_from(
        **answer_state([FILLER, ["G18", "G9", "G3"], FILLER], last_value=8, last_cards=(("G8", 0), ("P8", 0)))
    )
    game.step(value(9))
    game.step(card("G3"))
    assert game.state_dict()["last_play"]["seat"] == 0  # one card is not a complete answer
    game.step(card("G9"))  # the second card completes it, no DONE needed
    state = game.state_dict()
    assert state["last_play"] == {"seat": 1, "count": 2, "value": 9}
    assert shown(game, 1) == [("G3", 6), ("G9", 0)]
    assert state["current_player"] == 2 and state["building"] is None


def test_strictly_higher_value():
    game = game_from(**answer_state([FILLER, ["G8", "P4"], FILLER], last_value=8))
    values = legal_values(game)
    assert 8 not in values and 9 in values
    assert min(values) == 9
    game.step(value(12))
    assert game.action_mask()[card("P4")] and game.action_mask()[card("G8")]


def test_supply_running_out_masks_out_values_and_cards():
    # holdings keep 105 points, the supply has 3
    game = game_from(hands=[["G7", "P5"], FILLER, FILLER], chips=[0, 0, 105])
    assert game.table.supply == 3
    values = legal_values(game)
    assert values == [5, 7, 8, 9, 10, 15, 20]
    assert not game.action_mask()[E.HIGH : E.UNITS].any()
    # an answer of two cards shares the supply: G7 + G7 at 9 would need 4 points
    game = game_from(
        **answer_state(
            [FILLER, ["G7", "G7", "G6"], FILLER],
            last_value=7,
            last_cards=(("G5", 2), ("P7", 0)),
            chips=[0, 0, 102],
        )
    )
    assert game.table.supply == 4
    assert legal_values(game) == [8, 9]  # 9: G7+2 and G7+2; 10 would need 3 + 3 > 4
    game.step(value(9))
    mask = game.action_mask()
    assert mask[card("G7")] and not mask[card("G6")], "G6+3 with G7+2 would need 5 > 4"


def test_card_choice_never_leads_into_a_dead_end():
    # answer 2 cards at 10 with a supply of 6: G3 (7) never fits, G4 (6) only with G10 (0)
    game = game_from(
        **answer_state(
            [FILLER, ["G3", "G4", "G9", "G10"], FILLER],
            last_value=9,
            last_cards=(("G9", 0), ("P3", 2)),
            chips=[0, 0, 100],
        )
    )
    assert game.table.supply == 6
    game.step(value(10))
    mask = game.action_mask()
    assert not mask[card("G3")] and mask[card("G4")] and mask[card("G9")]
    assert not mask[card("G10")], "cards come in type order: nothing above G10 could join it"
    game.step(card("G4"))
    mask = game.action_mask()
    assert mask[card("G10")] and not mask[card("G9")], "G4+6 and G9+1 would need 7 > 6"
    game.step(card("G10"))
    assert game.state_dict()["last_play"] == {"seat": 1, "count": 2, "value": 10}


def test_values_above_129_are_built_by_block_and_units():
    game = game_from(hands=[["P11", "G18"], FILLER, FILLER], chips=[0, 0, 86])
    assert game.table.supply == 22
    mask = game.action_mask()
    assert mask[value(231)] and mask[value(253)] and not mask[value(264)]  # 11 x 24 needs 23 points
    game.step(value(231))
    assert game.phase == "units"
    mask = game.action_mask()
    assert [b for b in range(10) if mask[E.UNITS + b]] == [1]  # 231 is the only multiple of 11 in 230..239
    game.step(E.UNITS + 1)
    assert game.phase == "cards" and game.action_mask()[card("P11")] and not game.action_mask()[card("G18")]
    game.step(card("P11"))
    game.step(E.DONE)
    assert shown(game, 0) == [("P11", 20)]
    assert game.table.supply == 2


def test_answer_with_an_empty_hand_can_only_pass():
    game = game_from(**answer_state([FILLER, [], FILLER], chips=[3, 5, 3]))
    assert game.legal_actions() == [pass_(0), pass_(1), pass_(2)]


# ------------------------------------------------------------------ chips
def test_chips_go_to_the_holding_at_the_start_of_the_next_turn():
    game = game_from(hands=[["G7", "G2"], FILLER, FILLER], chips=[3, 3, 3])
    play(game, 9, ["G7"])
    assert game.state_dict()["chips"][0] == 3 and shown(game, 0) == [("G7", 2)]
    game.step(pass_(0))
    game.step(pass_(0))
    state = game.state_dict()  # seat 0's turn: its play was not beaten, the round ended
    assert state["current_player"] == 0
    assert state["chips"][0] == 5 and state["display"][0] == [] and state["discard"] == ["G7"]
    assert state["phase"] == "lead"


def test_beaten_cards_are_cleared_at_the_own_next_turn_too():
    game = game_from(hands=[["G7", "G2"], ["G12", "G13"], FILLER], chips=[3, 3, 3])
    play(game, 9, ["G7"])
    game.step(value(12))
    game.step(card("G12"))
    assert shown(game, 0) == [("G7", 2)]  # still lying out during seat 1's play
    game.step(pass_(0))  # seat 2 passes; seat 0's turn starts
    state = game.state_dict()
    assert state["current_player"] == 0 and state["phase"] == "answer"
    assert (
        state["chips"][0] == 5
        and state["display"][0] == []
        and state["display"][1] == [{"card": "G12", "chips": 0}]
    )


@pytest.mark.parametrize(("held", "returns"), [(0, [0]), (1, [0, 1]), (2, [0, 1, 2]), (9, [0, 1, 2])])
def test_pass_returns_zero_one_or_two_points_never_more_than_held(held, returns):
    game = game_from(
        **answer_state([FILLER, ["G3"], FILLER], chips=[3, held, 3], last_value=20, last_cards=(("G8", 12),))
    )
    assert [a - E.PASS for a in game.legal_actions() if a < E.VALUE] == returns
    supply = game.table.supply
    game.step(pass_(returns[-1]))
    state = game.state_dict()
    assert state["chips"][1] == held - returns[-1] and state["supply"] == supply + returns[-1]
    assert state["passes"] == 1 and state["last_play"]["seat"] == 0  # passing leaves the round open
    figures = [game.player_info(p)["chips_returned"] for p in range(3)]
    assert state["returned"] == [0, returns[-1], 0] == figures
    with pytest.raises(IllegalActionError):
        game_from(**answer_state([FILLER, ["G3"], FILLER], chips=[3, held, 3])).step(pass_(returns[-1] + 1))


# ------------------------------------------------------------ round end
def test_round_end_and_new_lead_at_a_lower_value():
    game = game_from(hands=[["G15", "G3", "G4"], ["G14"], ["G2"]])
    play(game, 15, ["G15"])
    game.step(pass_(0))
    assert game.state_dict()["passes"] == 1
    game.step(pass_(0))
    state = game.state_dict()
    assert state["current_player"] == 0 and state["phase"] == "lead" and state["last_play"] is None
    assert state["passes"] == 0 and state["discard"] == ["G15"]
    assert 3 in legal_values(game)
    play(game, 3, ["G3"])
    assert game.state_dict()["last_play"] == {"seat": 0, "count": 1, "value": 3}


def test_round_goes_on_while_someone_beats():
    game = game_from(hands=[["G5", "G20"], ["G6", "G9"], ["G7", "G8"]])
    play(game, 5, ["G5"])
    game.step(pass_(0))  # seat 1
    play(game, 7, ["G7"])  # seat 2
    assert game.current_player == 0 and game.phase == "answer"
    game.step(pass_(0))  # seat 0
    play(game, 9, ["G9"])  # seat 1 passed before and plays again
    assert game.state_dict()["last_play"] == {"seat": 1, "count": 1, "value": 9}
    game.step(pass_(0))  # seat 2
    game.step(pass_(0))  # seat 0
    assert game.current_player == 1 and game.phase == "lead"


# -------------------------------------------------------------------- win
def test_win_at_no_cards_and_no_chips_ends_the_game_with_ranks():
    game = game_from(4, hands=[["G5"], ["G2", "G3"], ["G4", "G6", "G7"], ["G8"]], chips=[0, 3, 1, 3])
    play(game, 5, ["G5"])
    assert game.is_over and game.phase == "over"
    # others by hand cards plus chip points: seat 1: 2 + 3, seat 2: 3 + 1, seat 3: 1 + 3
    assert game.ranks == [1, 4, 2, 2]
    with pytest.raises(IllegalActionError):
        game.step(pass_(0))


def test_no_win_while_chips_lie_on_the_own_display():
    game = game_from(hands=[["G5"], ["G2", "G3"], ["G4"]], chips=[0, 3, 3])
    play(game, 6, ["G5"])  # one chip on the last card
    assert not game.is_over and game.state_dict()["hands"][0] == []
    game.step(pass_(0))
    game.step(pass_(0))
    state = game.state_dict()  # seat 0's turn: the chip went into its holding
    assert state["current_player"] == 0 and state["chips"][0] == 1 and not game.is_over
    assert state["phase"] == "lead" and game.legal_actions() == [pass_(0), pass_(1)]
    game.step(pass_(1))
    assert game.is_over and game.ranks[0] == 1


def test_no_win_while_chips_are_held():
    game = game_from(hands=[["G5"], ["G2", "G3"], ["G4"]], chips=[2, 3, 3])
    play(game, 5, ["G5"])
    assert not game.is_over
    game.step(pass_(0))
    game.step(pass_(0))
    game.step(pass_(1))  # seat 0 (empty hand) passes at the lead, still holds 1
    assert not game.is_over and game.current_player == 1 and game.phase == "lead"


def test_empty_hand_lead_passes_and_the_lead_moves_on():
    game = game_from(hands=[["G5"], [], ["G9"]], chips=[3, 4, 3])
    play(game, 5, ["G5"])
    game.step(pass_(2))  # seat 1 (empty hand) answers by passing
    game.step(pass_(0))  # seat 2 passes
    game.step(pass_(0))  # seat 0's round ended; its hand is empty: it passes the lead
    assert game.current_player == 1 and game.phase == "lead"
    assert game.legal_actions() == [pass_(0), pass_(1), pass_(2)]  # seat 1 (empty hand, 2 held)
    game.step(pass_(1))
    assert game.current_player == 2 and game.phase == "lead" and game.state_dict()["last_play"] is None
    assert 9 in legal_values(game)


# ----------------------------------------------------------- play_to_end
def test_play_to_end_false_ends_at_the_first_winner():
    game = game_from(hands=[["G5"], ["G6", "G7"], ["G8"]], chips=[0, 0, 0])
    play(game, 5, ["G5"])
    assert game.is_over and game.ranks == [1, 3, 2]


def test_play_to_end_true_plays_on_for_the_later_ranks():
    game = game_from(hands=[["G5"], ["G6", "G2"], ["G8", "G3"]], chips=[0, 0, 0], play_to_end=True)
    play(game, 5, ["G5"])
    assert not game.is_over and game.finished_ranks() == {0: 1}
    assert game.state_dict()["finished"] == [0] and game.current_player == 1
    game.step(pass_(0))  # seat 1
    game.step(pass_(0))  # seat 2: everyone passed on the finished seat's play
    state = game.state_dict()
    assert state["current_player"] == 1 and state["phase"] == "lead"  # the next seat in leads
    assert state["display"][0] == [] and "G5" in state["discard"]
    play(game, 6, ["G6"])
    play(game, 8, ["G8"])  # seat 2 answers
    assert game.current_player == 1, "the finished seat 0 is never selected"
    game.step(pass_(0))
    assert game.current_player == 2 and game.phase == "lead"
    play(game, 3, ["G3"])  # seat 2 has no cards and no chips: second
    assert game.is_over and game.ranks == [1, 3, 2]


def test_play_to_end_true_finisher_play_can_be_beaten():
    game = game_from(4, hands=[["G5"], ["G6"], ["G2"], ["G3"]], chips=[0, 3, 3, 3], play_to_end=True)
    play(game, 5, ["G5"])
    play(game, 6, ["G6"])  # seat 1 beats the finished seat's play
    game.step(pass_(0))  # seat 2
    game.step(pass_(0))  # seat 3
    assert game.current_player == 1 and game.phase == "lead"  # seat 0 is skipped
    assert game.state_dict()["display"][0] == []


# ---------------------------------------------------------- state handling
def test_a_move_being_built_changes_no_main_key():
    game = game_from(hands=[["G6", "P3", "P2", "G9"], FILLER, FILLER])
    before = game.state_dict()
    game.step(value(6))
    game.step(card("P3"))
    during = game.state_dict()
    assert during["building"] == {"value": 6, "block": None, "cards": ["P3"]}
    assert {k: v for k, v in during.items() if k not in ("building", "phase")} == {
        k: v for k, v in before.items() if k not in ("building", "phase")
    }
    loaded = ChipItGame(3)
    loaded.load_state_dict(json.loads(json.dumps(during)))
    assert loaded.state_dict() == during
    assert np.array_equal(loaded.action_mask(), game.action_mask())
    assert np.array_equal(loaded.observe(0), game.observe(0))


def test_load_state_rejects_inconsistent_positions():
    good = game_from(hands=[["G2"], ["G3"], ["G4"]]).state_dict()
    out_less_g5 = list(good["out"])
    out_less_g5.remove("G5")
    for changes, match in [
        ({"supply": good["supply"] + 1}, "add up to 108"),
        ({"out": good["out"][1:]}, "exactly 2 times"),
        ({"hands": [["X9"], ["G3"], ["G4"]]}, "unknown card code"),
        ({"phase": "answer"}, "does not fit"),
        ({"last_play": {"seat": 1, "count": 1, "value": 9}}, "not what seat 1 has lying out"),
        ({"display": [[{"card": "G5", "chips": 0}], [], []], "out": out_less_g5}, "cleared when its turn"),
        ({"building": {"value": 3, "block": None, "cards": ["G3"]}, "phase": "cards"}, "more often than"),
        ({"building": {"value": 150, "block": None, "cards": []}, "phase": "cards"}, "cannot be completed"),
        ({"building": {"value": None, "block": 130, "cards": []}, "phase": "units"}, "cannot be completed"),
    ]:
        state = copy.deepcopy(good)
        state.update(changes)
        with pytest.raises(ValueError, match=match):
            ChipItGame(3).load_state_dict(state)
    ok = copy.deepcopy(good)
    ok.update({"building": {"value": 40, "block": None, "cards": []}, "phase": "cards"})  # G2 + 38 fits
    ChipItGame(3).load_state_dict(ok)
    # a game whose mask is cached judges the loaded play by the new state's mask
    game = game_from(hands=[["G2"], ["G3"], ["G4"]])
    assert game.action_mask().any()
    dead_end = copy.deepcopy(good)
    dead_end.update({"building": {"value": 150, "block": None, "cards": []}, "phase": "cards"})
    with pytest.raises(ValueError, match="cannot be completed"):
        game.load_state_dict(dead_end)
    assert game.state_dict() == good


def test_load_state_checks_every_field_and_invariant():
    good = game_from(**answer_state([["G2"], ["G3", "G9"], ["G4"]], chips=[0, 3, 3])).state_dict()
    for changes, match in [
        ({"hands": [["G2"], ["G3", "G9"]]}, "hands must have 3 entries"),
        ({"chips": [0, 3, "3"]}, r"chips\[2\] must be an int"),
        ({"display": [[{"card": "G8"}], [], []]}, "lacks the key"),
        ({"last_play": {"seat": 3, "count": 1, "value": 8}}, "last_play.seat"),
        ({"finished": [2, 2]}, "must not repeat a seat"),
        ({"ranks": [1, 2, 3]}, "do not follow from finished"),
        ({"passes": 1}, "passes 1 do not fit"),  # seat 1 answers seat 0's play: nobody passed yet
        (
            {"chips": [0, 3, 0], "supply": good["supply"] + 3, "hands": [["G2"], ["G3", "G9"], []]},
            "finished exactly when",
        ),
        ({"building": {"value": 9, "block": None, "cards": ["G9", "G3"]}, "phase": "cards"}, "ascending"),
        ({"building": {"value": 9, "block": 130, "cards": []}, "phase": "cards"}, "not in its block"),
        (
            {"building": {"value": None, "block": 131, "cards": []}, "phase": "units"},
            "lowest value of a block",
        ),
    ]:
        state = copy.deepcopy(good)
        state.update(changes)
        if "G4" not in [c for h in state["hands"] for c in h]:
            state["out"] = sorted([*state["out"], "G4"], key=TYPE_OF_CODE.get)
        with pytest.raises(ValueError, match=match):
            ChipItGame(3).load_state_dict(state)


# ------------------------------------------------------ mask cross-check
def brute_force_values(hand: list[int], k: int, lo: int, supply: int) -> set[int]:
    """Values some k cards of the hand can show at >= lo, by trying every k-subset."""
    copies = [t for t in range(NUM_TYPES) for _ in range(hand[t])]
    found = set()
    for combo in set(itertools.combinations(copies, k)):
        for v in range(lo, MAX_VALUE + 1):
            costs = [card_cost(t, v) for t in combo]
            if None not in costs and sum(costs) <= supply:
                found.add(v)
    return found


def offered_values(hand: list[int], k: int, lo: int, supply: int) -> set[int]:
    """The values the mask's arithmetic offers ``k`` cards of ``hand`` at >= ``lo``: the VALUE
    actions up to 129, then the UNITS of every HIGH block (offered exactly when one of its
    values is)."""
    cards = np.array(hand, np.int64)
    mask = np.zeros(E.NUM_ACTIONS, np.int8)
    costs = np.empty(E.NUM_DIRECT_VALUES, np.int64)
    play_costs(cards, k, costs)
    mark_values(costs, lo, supply, mask)
    mark_blocks(cards, k, lo, supply, mask)
    values = {int(a) + E.MIN_VALUE for a in np.flatnonzero(mask[E.VALUE : E.HIGH])}
    for j in range(E.NUM_BLOCKS):
        low = E.block_low(j)
        units = np.zeros(E.NUM_ACTIONS, np.int8)
        mark_units(cards, k, lo, low, supply, units)
        found = {low + int(u) for u in np.flatnonzero(units[E.UNITS : E.CARD])}
        assert bool(found) == bool(mask[E.HIGH + j]), f"block {low}"
        values |= found
    return values


def card_options_of(hand: list[int], value: int, need: int, budget: int, min_type: int = 0) -> set[int]:
    out = np.zeros(NUM_TYPES, np.int8)
    card_options(np.array(hand, np.int64), value, need, budget, min_type, out)
    return {int(t) for t in np.flatnonzero(out)}


def test_offered_values_and_card_options_match_brute_force():
    rng = np.random.default_rng(5)
    deck = [t for t in range(NUM_TYPES) for _ in range(COPIES)]
    for _ in range(60):
        cards = rng.choice(deck, size=int(rng.integers(1, 6)), replace=False)
        hand = [0] * NUM_TYPES
        for t in cards:
            hand[int(t)] += 1
        k = int(rng.integers(1, len(cards) + 1))
        lo = int(rng.integers(2, 30))
        supply = int(rng.integers(0, 40))
        expected = brute_force_values(hand, k, lo, supply)
        assert offered_values(hand, k, lo, supply) == expected
        copies = [t for t in range(NUM_TYPES) for _ in range(hand[t])]
        for v in sorted(expected)[:5]:  # exactly the lowest cards of the completing k-sets are offered
            completing = [
                combo
                for combo in itertools.combinations(copies, k)  # sorted by type, as the cards are added
                if None not in (costs := [card_cost(c, v) for c in combo]) and sum(costs) <= supply
            ]
            assert card_options_of(hand, v, k, supply) == {combo[0] for combo in completing}
            first = completing[0][0]  # after adding it, the second cards of those sets follow
            rest = hand[:]
            rest[first] -= 1
            budget = supply - card_cost(first, v)
            seconds = {combo[1] for combo in completing if combo[0] == first and k > 1}
            if k > 1:
                assert card_options_of(rest, v, k - 1, budget, min_type=first) == seconds


def test_cheapest_value_is_the_lowest_value_of_fewest_chips_by_brute_force():
    """The rule players' answer: of every value >= lo up to the highest, the one ``k`` cards
    show with the fewest chips within the limit (the lowest of equals), -1 if none fits; the
    sweep stops early once no higher value can cost less, which must not change it."""
    rng = np.random.default_rng(11)
    deck = [t for t in range(NUM_TYPES) for _ in range(COPIES)]
    purple = [t for t in deck if t >= NUM_GREEN]  # the only cards above 129
    for _ in range(150):
        source = purple if rng.random() < 0.5 else deck
        cards = rng.choice(source, size=int(rng.integers(1, 7)), replace=False)
        hand = np.zeros(NUM_TYPES, np.int64)
        for t in cards:
            hand[int(t)] += 1
        k = int(rng.integers(1, len(cards) + 1))
        lo = int(rng.choice([rng.integers(2, 130), rng.integers(130, MAX_VALUE + 2)]))
        costs = [(int(cheapest_at(hand, k, v)), v) for v in range(lo, MAX_VALUE + 1)]
        fewest = min(costs, default=(IMPOSSIBLE, -1))[0]
        # the limit at random, or just at or below the fewest chips (where an early stop would show)
        for limit in (int(rng.integers(0, TOTAL_CHIPS + 1)), fewest, fewest - 1):
            if not 0 <= limit <= TOTAL_CHIPS:
                continue
            fitting = [(cost, v) for cost, v in costs if cost <= limit]
            expected = min(fitting)[1] if fitting else -1
            assert cheapest_value(hand, k, lo, limit) == expected, (hand.tolist(), k, lo, limit)
