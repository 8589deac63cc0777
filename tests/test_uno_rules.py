"""Scenario tests for every rule and variant of docs/rules/uno.md, each from a known state."""

from __future__ import annotations

import json

import pytest

from card_envs.core.game import IllegalActionError
from card_envs.games.uno import cards as C
from card_envs.games.uno import encoding as E
from card_envs.games.uno.engine import UnoGame


def play(card: str, call: bool = False) -> int:
    return (E.PLAY_CALL if call else E.PLAY) + C.parse_card(card)


def colour(letter: str) -> int:
    return E.CHOOSE_COLOUR + C.COLOURS.index(letter)


def game_from(num_players: int = 4, **state_and_rules) -> UnoGame:
    """A game in a known state; unspecified hands get harmless filler cards.

    A state may leave cards of the deck out, but holds no card more often than the deck has it.
    """
    rules = {k: state_and_rules.pop(k) for k in list(state_and_rules) if k in UnoGame(2).rules}
    game = UnoGame(num_players, **rules)
    game.reset(seed=0)
    state = {
        "game": "uno",
        "num_players": num_players,
        "phase": "play",
        "turn_player": 0,
        "hands": [[f"{'GYB'[p % 3]}{rank}" for rank in (5, 6, 7)] for p in range(num_players)],
        "draw_pile": ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8"],
        "discard_pile": ["R5"],
        "colour": "R",
    }
    state.update(state_and_rules)
    game.load_state_dict(state)
    return game


def deal_with_first(first: str, num_players: int = 4, hands=None, **rules) -> UnoGame:
    """Deal so that ``first`` is the card turned up; hands default to plain numbers."""
    hands = hands or [["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"] for _ in range(num_players)]
    pile = []
    for i in range(7):  # dealt one at a time from seat 0
        pile += [hands[p][i] for p in range(num_players)]
    pile += [first, "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9"]
    game = UnoGame(num_players, **rules)
    game.reset(seed=0)
    game.deal(pile)
    return game


# ----------------------------------------------------------------- first card
def test_deal_gives_seven_each_and_turns_up_one_card():
    game = UnoGame(4)
    game.reset(seed=1)
    state = game.state_dict()
    assert [len(h) for h in state["hands"]] == [7, 7, 7, 7]
    assert len(state["discard_pile"]) == 1
    assert len(state["draw_pile"]) == 108 - 29


def test_first_number_card_seat_zero_plays_clockwise():
    game = deal_with_first("G4")
    assert (game.current_player, game.phase, game.colour, game.direction) == (0, "play", 2, 1)


def test_first_wild_starting_player_names_colour_then_plays():
    game = deal_with_first("W")
    assert (game.phase, game.current_player, game.state_dict()["colour"]) == ("choose_colour", 0, None)
    game.step(colour("Y"))
    assert (game.phase, game.current_player, game.state_dict()["colour"]) == ("play", 0, "Y")
    assert game.action_mask()[play("Y1")]


def test_first_draw_two_starting_player_draws_two_and_is_skipped():
    game = deal_with_first("R+2")
    assert game.hand_sizes[0] == 9
    assert (game.current_player, game.pending) == (1, 0)


def test_first_draw_two_may_be_stacked_by_starting_player():
    hands = [["B+2", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"]] + [["Y1"] * 7 for _ in range(3)]
    game = deal_with_first("R+2", hands=hands)
    assert (game.phase, game.current_player, game.pending) == ("pending", 0, 2)
    game.step(play("B+2"))
    assert game.hand_sizes[1] == 11  # seat 1 could not stack: drew the total of 4
    assert game.current_player == 2


def test_first_wild_draw_four_names_colour_then_draws_four_and_is_skipped():
    game = deal_with_first("W+4")
    assert (game.phase, game.current_player) == ("choose_colour", 0)
    game.step(colour("B"))
    assert game.hand_sizes[0] == 11
    assert (game.current_player, game.phase, game.state_dict()["colour"]) == (1, "play", "B")


def test_first_skip_skips_starting_player():
    game = deal_with_first("GS")
    assert game.current_player == 1


def test_first_reverse_dealer_starts_counter_clockwise():
    game = deal_with_first("GR", num_players=5)
    assert (game.current_player, game.direction) == (4, -1)
    game.step(E.DRAW)  # draws B1, which does not match: the turn passes on
    assert game.current_player == 3


# -------------------------------------------------------------------- matching
def test_match_by_colour_or_rank_wilds_always():
    game = game_from(hands=[["R9", "G5", "G6", "B7", "W", "W+4"], ["G1"], ["G1"], ["Y1"]])
    mask = game.action_mask()
    assert mask[play("R9")] and mask[play("G5")] and mask[play("W")] and mask[play("W+4")]
    assert not mask[play("G6")] and not mask[play("B7")]
    with pytest.raises(IllegalActionError, match="B7"):
        game.step(play("B7"))


def test_named_colour_after_wild_is_matched_not_the_wild():
    game = game_from(discard_pile=["R5", "W"], colour="B", hands=[["B2", "R5", "W"], ["G1"], ["G1"], ["Y1"]])
    mask = game.action_mask()
    assert mask[play("B2")] and mask[play("W")] and not mask[play("R5")]


def test_playing_a_wild_asks_for_a_colour_then_passes_turn():
    game = game_from(hands=[["W", "G5", "G6"], ["G1"], ["G1"], ["Y1"]])
    game.step(play("W"))
    assert (game.phase, game.current_player) == ("choose_colour", 0)
    assert game.legal_actions() == [colour(c) for c in C.COLOURS]
    game.step(colour("G"))
    assert (game.current_player, game.state_dict()["colour"]) == (1, "G")


# ---------------------------------------------------------------- skip/reverse
def test_skip_misses_next_player():
    game = game_from(hands=[["RS", "G5", "G6"], ["G1"], ["G1"], ["Y1"]])
    game.step(play("RS"))
    assert game.current_player == 2


def test_reverse_with_four_players_flips_direction():
    game = game_from(turn_player=1, hands=[["G1"], ["RR", "G5", "G6"], ["G1"], ["Y1"]])
    game.step(play("RR"))
    assert (game.current_player, game.direction) == (0, -1)


def test_reverse_with_two_players_acts_as_skip():
    game = game_from(2, hands=[["RR", "G5", "G6"], ["G1", "G2"]])
    game.step(play("RR"))
    assert game.current_player == 0


def test_reverse_with_two_players_without_skip_variant_passes_turn():
    game = game_from(2, hands=[["RR", "G5", "G6"], ["G1", "G2"]], two_player_reverse_skips=False)
    game.step(play("RR"))
    assert (game.current_player, game.direction) == (1, -1)


# -------------------------------------------------------------------- stacking
def test_draw_two_stacks_and_totals_add_up():
    game = game_from(hands=[["R+2", "G5", "G6"], ["B+2", "G1", "G2"], ["G1", "G2"], ["Y1"]])
    game.step(play("R+2"))
    assert (game.phase, game.current_player, game.pending) == ("pending", 1, 2)
    assert set(game.legal_actions()) == {play("B+2"), E.DRAW}
    game.step(play("B+2"))
    assert game.hand_sizes[2] == 6  # seat 2 could not stack: drew 4 and lost the turn
    assert (game.current_player, game.pending) == (3, 0)


def test_facing_a_stack_a_player_may_draw_the_total_and_lose_the_turn():
    game = game_from(hands=[["R+2", "G5", "G6"], ["B+2", "G1", "G2"], ["G1", "G2"], ["Y1"]])
    game.step(play("R+2"))
    game.step(E.DRAW)
    assert game.hand_sizes[1] == 5 and game.current_player == 2


def test_draw_four_stacks_on_draw_four():
    game = game_from(hands=[["W+4", "G5", "G6"], ["W+4", "G1", "G2"], ["G1", "G2"], ["Y1"]])
    game.step(play("W+4"))
    game.step(colour("G"))
    assert set(game.legal_actions()) == {play("W+4"), E.DRAW}
    game.step(play("W+4"))
    game.step(colour("B"))
    assert game.hand_sizes[2] == 10 and game.current_player == 3


def test_draw_two_and_draw_four_never_mix():
    game = game_from(hands=[["R+2", "G5", "G6"], ["W+4", "G1", "G2"], ["G1"], ["Y1"]])
    game.step(play("R+2"))
    assert game.hand_sizes[1] == 5 and game.current_player == 2  # no choice: drew at once
    game = game_from(hands=[["W+4", "G5", "G6"], ["R+2", "G+2", "G1"], ["G1"], ["Y1"]])
    game.step(play("W+4"))
    game.step(colour("G"))
    assert game.hand_sizes[1] == 7 and game.current_player == 2


def test_without_stacking_the_next_player_draws_and_is_skipped():
    game = game_from(hands=[["R+2", "G5", "G6"], ["B+2", "G1", "G2"], ["G1"], ["Y1"]], stacking=False)
    game.step(play("R+2"))
    assert game.hand_sizes[1] == 5 and game.current_player == 2


# ------------------------------------------------------------------ drawing
def test_voluntary_draw_then_play_the_drawn_card():
    game = game_from(hands=[["R9", "G5"], ["G1"], ["G1"], ["Y1"]], draw_pile=["R2", "B1"])
    assert game.action_mask()[E.DRAW]
    game.step(E.DRAW)
    assert (game.phase, game.state_dict()["drawn"]) == ("play_drawn", "R2")
    assert set(game.legal_actions()) == {play("R2"), E.KEEP}
    game.step(play("R2"))
    assert game.current_player == 1 and game.state_dict()["discard_pile"][-1] == "R2"


def test_keep_the_drawn_card_ends_the_turn():
    game = game_from(hands=[["R9", "G5"], ["G1"], ["G1"], ["Y1"]], draw_pile=["R2", "B1"])
    game.step(E.DRAW)
    game.step(E.KEEP)
    assert game.current_player == 1 and game.hand_sizes[0] == 3


def test_drawn_card_that_does_not_match_ends_the_turn():
    game = game_from(hands=[["R9", "G5"], ["G1"], ["G1"], ["Y1"]], draw_pile=["B2", "B1"])
    game.step(E.DRAW)
    assert game.current_player == 1 and game.hand_sizes[0] == 3


def test_no_voluntary_draw_variant_forbids_drawing_with_a_playable_card():
    game = game_from(hands=[["R9", "G5"], ["G1"], ["G1"], ["Y1"]], voluntary_draw=False)
    assert not game.action_mask()[E.DRAW]
    game = game_from(hands=[["B9", "G6"], ["G1"], ["G1"], ["Y1"]], voluntary_draw=False)
    assert game.legal_actions() == [E.DRAW]


def test_empty_draw_pile_reshuffles_discard_except_top():
    game = game_from(
        hands=[["B9", "G6"], ["G1"], ["G1"], ["Y1"]], draw_pile=[], discard_pile=["Y3", "R7", "B2", "R5"]
    )
    game.step(E.DRAW)
    state = game.state_dict()
    assert state["discard_pile"] == ["R5"]
    assert len(state["draw_pile"]) == 2 and len(state["hands"][0]) == 3
    assert sorted(state["draw_pile"] + state["hands"][0]) == sorted(["Y3", "R7", "B2", "B9", "G6"])


def test_nothing_to_draw_passes():
    game = game_from(hands=[["B9", "G6"], ["G1"], ["G1"], ["Y1"]], draw_pile=[], discard_pile=["R5"])
    game.step(E.DRAW)
    assert game.current_player == 1 and game.hand_sizes[0] == 2


# ------------------------------------------------------------------- LETZTE
def test_call_is_offered_only_when_playing_the_second_to_last_card():
    game = game_from(hands=[["R9", "R8", "G5"], ["G1"], ["G1"], ["Y1"]])
    assert not game.action_mask()[play("R9", call=True)]
    game = game_from(hands=[["R9", "G5"], ["G1"], ["G1"], ["Y1"]])
    assert game.action_mask()[play("R9", call=True)] and game.action_mask()[play("R9")]


def test_calling_letzte_opens_no_catch_window():
    game = game_from(hands=[["R9", "G5"], ["G1"], ["G1"], ["Y1"]])
    game.step(play("R9", call=True))
    assert game.called[0] and game.current_player == 1 and game.phase == "play"


def test_missed_call_catch_window_in_seat_order_and_first_catch_penalises():
    game = game_from(turn_player=2, hands=[["G1"], ["G1"], ["R9", "G5"], ["Y1"]])
    game.step(play("R9"))
    assert (game.phase, game.current_player) == ("catch", 3)
    assert set(game.legal_actions()) == {E.CATCH, E.PASS}
    game.step(E.PASS)
    assert game.current_player == 0
    game.step(E.CATCH)
    assert game.hand_sizes[2] == 2 and game.phase == "play" and game.current_player == 3


def test_missed_call_nobody_catches_no_penalty():
    game = game_from(hands=[["R9", "G5"], ["G1"], ["G1"], ["Y1"]])
    game.step(play("R9"))
    for _ in range(3):
        game.step(E.PASS)
    assert game.hand_sizes[0] == 1 and game.current_player == 1


def test_missed_call_penalty_variant():
    game = game_from(hands=[["R9", "G5"], ["G1"], ["G1"], ["Y1"]], missed_call_penalty=2)
    game.step(play("R9"))
    game.step(E.CATCH)
    assert game.hand_sizes[0] == 3
    game = game_from(hands=[["R9", "G5"], ["G1"], ["G1"], ["Y1"]], missed_call_penalty=0)
    game.step(play("R9"))
    assert game.phase == "play" and game.current_player == 1


def test_skip_still_applies_after_the_catch_window():
    game = game_from(hands=[["RS", "G5"], ["G1"], ["G1"], ["Y1"]])
    game.step(play("RS"))
    game.step(E.CATCH)
    assert game.current_player == 2


# ------------------------------------------------------------- challenge
def test_official_draw_four_guilty_challenge():
    game = game_from(hands=[["W+4", "R1", "G5"], ["G1", "G2"], ["G1"], ["Y1"]], draw_four="official")
    game.step(play("W+4"))  # holds R1 of the colour to match: a bluff
    game.step(colour("B"))
    assert game.phase == "pending" and game.action_mask()[E.CHALLENGE]
    game.step(E.CHALLENGE)
    assert game.hand_sizes[0] == 6  # the offender draws 4
    assert (game.current_player, game.phase, game.hand_sizes[1]) == (1, "play", 2)


def test_official_draw_four_innocent_challenge():
    game = game_from(hands=[["W+4", "G5", "G6"], ["G1", "G2"], ["G1"], ["Y1"]], draw_four="official")
    game.step(play("W+4"))
    game.step(colour("B"))
    game.step(E.CHALLENGE)
    assert game.hand_sizes[1] == 8 and game.hand_sizes[0] == 2  # challenger draws 6
    assert game.current_player == 2


def test_any_time_draw_four_cannot_be_challenged():
    game = game_from(hands=[["W+4", "R1", "G5"], ["G1", "G2"], ["G1"], ["Y1"]])
    game.step(play("W+4"))
    game.step(colour("B"))
    assert game.hand_sizes[1] == 6 and game.current_player == 2


# ------------------------------------------------------------ end and score
def test_last_card_wins_and_scores_others_hands():
    game = game_from(hands=[["R9"], ["G1", "W"], ["B+2", "YS", "Y9"], ["GR"]])
    game.step(play("R9"))
    assert game.is_over and game.winner == 0
    assert game.score() == 1 + 50 + 20 + 20 + 9 + 20
    assert game.ranks == [1, 4, 3, 2]  # 51, 49 and 20 points left
    assert game.player_info(0)["score"] == 120 and game.player_info(1)["score"] == 0


def test_final_draw_two_is_still_drawn_and_counted():
    game = game_from(hands=[["R+2"], ["G1"], ["G1"], ["Y1"]], draw_pile=["B9", "B8", "B7"])
    game.step(play("R+2"))
    assert game.is_over and game.hand_sizes[1] == 3
    assert game.score() == 1 + 9 + 8 + 1 + 1


def test_tied_hand_points_share_a_rank():
    game = game_from(hands=[["R9"], ["G1"], ["B1"], ["G7"]])
    game.step(play("R9"))
    assert game.ranks == [1, 2, 2, 4]


# ----------------------------------------------------------------- state
def test_state_dict_round_trip_and_is_json():
    game = UnoGame(5, draw_four="official")
    game.reset(seed=3)
    for _ in range(40):
        game.step(game.legal_actions()[0])
        state = game.state_dict()
        clone = UnoGame(5, draw_four="official")
        clone.load_state_dict(json.loads(json.dumps(state)))
        assert clone.state_dict() == state
        assert (clone.action_mask() == game.action_mask()).all()


def test_state_dict_has_documented_keys():
    game = UnoGame(3)
    game.reset(seed=0)
    keys = {
        "game", "num_players", "current_player", "phase", "hands", "draw_pile", "discard_pile",
        "colour", "direction", "pending_draw", "drawn", "called", "ranks",
    }  # fmt: skip
    assert keys <= set(game.state_dict())


def test_load_state_rejects_too_many_cards():
    with pytest.raises(ValueError, match="more than"):
        game_from(draw_pile=["R1"] * 120)


BAD_FIELDS = [
    ({"turn_player": 99}, "turn_player"),
    ({"direction": 7}, "direction"),
    ({"direction": 0}, "direction"),
    ({"phase": "catch", "catchers": [42]}, "catchers"),
    ({"called": [False, False]}, "called"),
    ({"called": [True, False, False, False]}, "called"),
    ({"colour": None}, "colour"),
    ({"colour": "B"}, "colour"),
    ({"hands": [["G5"], ["Q9"], ["G6"], ["G7"]]}, "Q9"),
    ({"hands": [["G5"], ["G6"], ["G7"]]}, "hands"),
    ({"hands": [["G5"], [], ["G6"], ["G7"]]}, "without cards"),
    ({"draw_pile": ["W+4"] * 5}, "not conserved"),
    ({"discard_pile": []}, "discard pile"),
    ({"pending_draw": 2}, "pending_draw"),
    ({"phase": "pending", "pending_draw": 0}, "pending"),
    ({"phase": "play_drawn", "drawn": None}, "drawn"),
    ({"phase": "play_drawn", "drawn": "R7"}, "not in the hand"),
    ({"phase": "play_drawn", "drawn": "B7", "hands": [["B7", "G5"], ["G1"], ["G2"], ["G3"]]}, "match"),
    ({"skip_next": True}, "skip_next"),
    ({"opening": True}, "opening"),
    ({"winner": 0}, "winner"),
    ({"phase": "over", "winner": 1}, "winner"),
    (
        {
            "discard_pile": ["W+4"],
            "phase": "pending",
            "pending_draw": 4,
            "challenge": {"seat": 3, "bluff": True},
        },
        "challenged",
    ),
    ({"challenge": {"seat": 3}}, "challenge"),
    ({"phase": "catch", "catchers": [1, 2, 3]}, "missed LETZTE"),
    ({"phase": "catch", "hands": [["G5"], ["G1"], ["G2"], ["G3"]], "catchers": [2, 1]}, "catchers"),
    ({"phase": "catch", "hands": [["G5"], ["G1"], ["G2"], ["G3"]], "catchers": [0, 2, 3]}, "catchers"),
]


@pytest.mark.parametrize(("change", "named"), BAD_FIELDS)
def test_load_state_rejects_bad_fields_and_keeps_the_old_state(change, named):
    game = game_from()
    before = game.state_dict()
    state = {**before, **change}
    with pytest.raises(ValueError, match=named):
        game.load_state_dict(state)
    assert game.state_dict() == before


def test_load_state_accepts_a_catch_window_and_a_challenge():
    game = game_from(phase="catch", hands=[["G5"], ["G1"], ["G2"], ["G3"]], catchers=[2, 3])
    assert game.current_player == 2 and game.legal_actions() == [E.CATCH, E.PASS]
    game = game_from(
        discard_pile=["R5", "W+4"],
        colour="B",
        phase="pending",
        pending_draw=4,
        turn_player=1,
        challenge={"seat": 0, "bluff": True},
        draw_four="official",
    )
    assert game.action_mask()[E.CHALLENGE]
    game.check_consistency()


@pytest.mark.parametrize(("top", "kind"), [("R+2", [1, 0]), ("W+4", [0, 1])])
def test_the_pending_stack_kind_is_one_hot(top, kind):
    """Draw Two first, Draw Four second (it once read [0, 0] and [1, 1]: a bool index masks)."""
    hands = [["R+2", "G5"], ["G1", "W+4"], ["G2", "B7"], ["G3", "Y4"]]
    game = game_from(discard_pile=["R5", top], colour="R", phase="pending", pending_draw=4, hands=hands)
    v = game.observation_layout.view(game.observe(0))
    assert v["pending_kind"].tolist() == kind and v["pending_draw"].tolist() == [4]


def test_a_last_card_sets_its_colour_before_the_round_ends():
    """The final table shows the colour of the last card played (it was set after the round
    ended, so the old colour stayed)."""
    game = game_from(hands=[["R7"], ["G5"] * 2, ["G6"] * 2, ["G7"] * 2], discard_pile=["B7"], colour="B")
    game.step(play("R7"))
    assert game.is_over and game.state_dict()["colour"] == "R"
    assert "top R7 | colour red" in game.render_text()
    wild = game_from(hands=[["W"], ["G5"] * 2, ["G6"] * 2, ["G7"] * 2], discard_pile=["B7"], colour="B")
    wild.step(play("W"))
    assert wild.is_over and "top W | colour none (the round ended on a wild)" in wild.render_text()


def test_the_opening_draw_two_is_the_first_last_move():
    game = deal_with_first("R+2")
    assert game.turn == 1
    assert game.last_move() == "the first card, R+2, made player_0 draw 2 and skipped it; player_1 starts"
    assert deal_with_first("R5").last_move() == ""
