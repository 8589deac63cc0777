"""Tock's move choices from known states: rule breaks marked with their price, knocks explained."""

from __future__ import annotations

from card_envs.core.choices import leaf_actions
from card_envs.games.tock.encoding import CENTRE, DRAW, KNOCK, OWN_PILE, PASS
from tests.test_tock_rules import make, opp


def test_rule_breaks_come_after_the_moves_by_the_rules_marked_with_what_a_knock_costs():
    game = make(4, piles={0: [5], 1: [3, 9], 2: [6], 3: []}, centre=[4])
    follow, broken = game.move_choices()
    assert follow.title == "by the rules" and [c.action for c in follow.choices] == [CENTRE]
    assert not follow.choices[0].warn
    assert broken.title == "rule breaks (a knock window follows)"
    assert [(c.action, c.warn) for c in broken.choices] == [(opp(2), True), (DRAW, True)]
    assert broken.choices[0].label == "play 5 onto player_2's open pile (top 6)"
    price = "if anyone knocks, you take 2 penalty cards and your turn ends"  # piles of seats 1 and 2
    assert broken.choices[0].note == f"rule break (b) the card fits the centre: {price}"
    assert broken.choices[1].note == f"rule break (a) your top card could be played: {price}"
    assert sorted(leaf_actions([follow, broken])) == game.legal_actions()


def test_keeping_a_fitting_drawn_card_is_rule_break_c():
    game = make(drawn=6, piles={0: [12], 1: [7]})
    follow, broken = game.move_choices()
    assert [c.action for c in follow.choices] == [opp(1)]
    (keep,) = broken.choices
    assert keep.action == OWN_PILE and keep.warn
    assert keep.note.startswith(
        "rule break (c) the drawn card fits somewhere: if anyone knocks, you take 1 penalty card "
    )


def test_a_forced_move_has_no_rule_break_group():
    game = make(piles={0: [12]}, supply=[9])
    assert [(g.title, [c.action for c in g.choices]) for g in game.move_choices()] == [
        ("by the rules", [DRAW])
    ]


def test_after_a_rule_break_knocking_comes_first_and_says_who_pays():
    game = make(4, piles={0: [5], 1: [2, 7], 2: [6], 3: [18]}, centre=[4])
    game.step(opp(2))
    (group,) = game.move_choices()
    assert group.title == "player_0's move broke a rule"
    assert [(c.action, c.warn) for c in group.choices] == [(KNOCK, False), (PASS, False)]
    assert group.choices[0].note == "a correct knock: player_0 takes 3 cards, its turn ends"


def test_after_a_move_by_the_rules_passing_comes_first_and_a_false_knock_is_marked():
    game = make(4, piles={0: [10, 5], 1: [2, 6], 2: [11, 12], 3: [18, 19]}, centre=[4])
    game.step(CENTRE)
    (group,) = game.move_choices()
    assert group.title == "player_0's move followed the rules"
    assert [(c.action, c.warn) for c in group.choices] == [(PASS, False), (KNOCK, True)]
    assert group.choices[1].note == "a false knock: you take 3 cards"  # from seats 2, 3 and 0


def test_a_false_knock_that_takes_one_card_says_card():
    game = make(4, piles={0: [10, 5], 1: [2, 6], 2: [], 3: []}, centre=[4])
    game.step(CENTRE)  # seat 0 plays its 5; seat 1 decides, and only seat 0's pile (the 10) is not empty
    (group,) = game.move_choices()
    assert group.choices[1].note == "a false knock: you take 1 card"
