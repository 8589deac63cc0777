"""UNO's move choices from known states: the call first when it is due, every consequence said."""

from __future__ import annotations

from card_envs.core.choices import leaf_actions
from card_envs.games.uno import encoding as E
from tests.test_uno_rules import colour, deal_with_first, game_from, play


def labels(game) -> list[tuple[str, str, bool]]:
    return [(leaf.label, leaf.note, leaf.warn) for group in game.move_choices() for leaf in group.leaves()]


def test_with_two_cards_play_and_call_comes_first_and_the_play_without_it_is_marked():
    game = game_from(
        hands=[["B+2", "Y9"], ["G5"] * 2, ["G6"] * 2, ["G7"] * 2], discard_pile=["B5"], colour="B"
    )
    groups = game.move_choices()
    assert [g.title for g in groups] == [
        "play and call LETZTE (one card left after it)",
        "play without the call",
        "or",
    ]
    first = groups[0].choices[0]
    assert (first.label, first.action, first.warn) == ("play B+2 and call LETZTE", play("B+2", True), False)
    assert first.note == "player_1 draws 2"
    without = groups[1].choices[0]
    assert without.action == play("B+2") and without.warn
    assert without.note == "player_1 draws 2; no LETZTE: anyone may catch you (you draw 1)"
    assert sorted(leaf_actions(groups)) == game.legal_actions()


def test_a_last_card_wins_and_a_draw_says_what_follows():
    game = game_from(hands=[["B7"], ["G5"] * 2, ["G6"] * 2, ["G7"] * 2], discard_pile=["B5"], colour="B")
    assert labels(game) == [
        ("play B7", "your last card: you win the round", False),
        ("draw", "play it at once if it matches, else your turn ends", False),
    ]


def test_facing_a_stack_the_choices_say_the_totals():
    game = deal_with_first("R+2", hands=[["Y+2", "Y1", "Y2", "Y3", "Y4", "Y5", "Y6"]] * 4)
    assert game.phase == "pending"
    assert labels(game) == [
        ("play Y+2", "adds to the stack: player_1 faces 4", False),
        ("draw the stack of 2", "your turn ends", False),
    ]


def test_the_colour_choice_counts_the_cards_of_each_colour():
    game = game_from(
        hands=[["W", "R1", "R2", "B3"], ["G5"] * 2, ["G6"] * 2, ["G7"] * 2], discard_pile=["B5"], colour="B"
    )
    game.step(play("W"))
    assert [note for _, note, _ in labels(game)] == [
        "you hold 2 red",
        "you hold 0 yellow",
        "you hold 0 green",
        "you hold 1 blue",
    ]
    assert leaf_actions(game.move_choices()) == [colour(c) for c in "RYGB"]


def test_the_catch_window_says_what_catching_costs():
    game = game_from(
        hands=[["B7", "B8"], ["G5"] * 2, ["G6"] * 2, ["G7"] * 2], discard_pile=["B5"], colour="B"
    )
    game.step(play("B7"))
    assert game.phase == "catch"
    (group,) = game.move_choices()
    assert group.title == "player_0 has one card and did not call LETZTE"
    assert [(c.label, c.action, c.note) for c in group.choices] == [
        ("catch player_0", E.CATCH, "player_0 did not call LETZTE: it draws 1"),
        ("let it go", E.PASS, "the next player in seat order may still catch"),
    ]
