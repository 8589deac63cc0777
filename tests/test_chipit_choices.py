"""Chip It's move choices from known states: values by what they cost, cards with their chips,
costly plays marked, passes explained, no step longer than a screen."""

from __future__ import annotations

from card_envs.core.choices import SCREEN, Choice, leaf_actions
from card_envs.games.chipit import encoding as E
from card_envs.games.chipit.cards import TYPE_OF_CODE
from card_envs.games.chipit.choices import MANY_CHIPS, cheapest
from tests.test_chipit_rules import FILLER, card, game_from, pass_, value
from tests.test_choices import steps

BURDEN = "they come back to you as held chips when your turn comes round"


def find(groups, action: int) -> Choice:
    return next(leaf for group in groups for leaf in group.leaves() if leaf.action == action)


def hand_of(*codes: str) -> list[int]:
    counts = [0] * len(TYPE_OF_CODE)
    for code in codes:
        counts[TYPE_OF_CODE[code]] += 1
    return counts


def test_the_cheapest_way_to_show_a_value():
    hand = hand_of("G6", "P3", "P2", "G9")
    assert cheapest(hand, 1, 6) == (0, [(TYPE_OF_CODE["G6"], 0)])
    assert cheapest(hand, 2, 6) == (1, [(TYPE_OF_CODE["G6"], 0), (TYPE_OF_CODE["P3"], 1)])
    assert cheapest(hand, 3, 9) == (
        2 + 3,
        [(TYPE_OF_CODE["G6"], 3), (TYPE_OF_CODE["G9"], 0), (TYPE_OF_CODE["P3"], 2)],
    )
    assert cheapest(hand, 4, 7) is None  # the purple cards cannot show 7


def test_a_lead_offers_the_free_values_first_then_a_few_chips_then_the_costly_ones_behind_one_step():
    game = game_from(hands=[["G6", "P3", "P2", "G9"], FILLER, FILLER])
    groups = game.move_choices()
    assert [g.title for g in groups] == [
        "without chips (your cards show these values as they are)",
        "with 1 to 4 chip points, cheapest first",
        "costly plays, to be confirmed",
    ]
    free = groups[0].choices
    assert [(c.label, c.note, c.action) for c in free] == [
        ("lead at 2", "P2, no chips", value(2)),
        ("lead at 3", "P3, no chips", value(3)),
        ("lead at 6", "G6, no chips", value(6)),
        ("lead at 9", "G9, no chips", value(9)),
    ]
    few = groups[1].choices
    assert (few[0].label, few[0].note) == ("lead at 4", "cheapest: P2+1, 1 chip point")
    costs = [int(c.note.split(", ")[-1].split()[0]) for c in few]
    assert costs == sorted(costs) and max(costs) < MANY_CHIPS and not any(c.warn for c in few)
    (costly,) = groups[2].choices
    assert costly.then and all(leaf.warn for leaf in costly.leaves())
    assert sorted(leaf_actions(groups)) == game.legal_actions()
    assert max(len(step) for step in steps(groups)) <= SCREEN


def test_a_costly_value_and_its_card_are_marked_and_say_the_chips_come_back():
    game = game_from(hands=[["P11", "G2"], FILLER, FILLER], chips=[0, 3, 3])
    block = find(game.move_choices(), value(1056))
    assert block.label == "lead at 1050 to 1059" and block.warn
    assert block.note == "cheapest: P11+95 at 1056, 95 chip points"
    game.step(value(1056))
    (digit,) = [c for g in game.move_choices() for c in g.choices]
    assert (digit.label, digit.action, digit.warn) == ("lead at 1056", E.UNITS + 6, True)
    game.step(E.UNITS + 6)
    (only,) = [leaf for g in game.move_choices() for leaf in g.leaves()]
    assert only.label == "add P11+95" and only.warn
    assert only.note == (f"95 chip points from the supply to show 1056; {BURDEN}")


def test_the_cards_of_a_lead_cheapest_first_then_lay_out_comes_first():
    game = game_from(hands=[["G6", "P3", "P2", "G9"], FILLER, FILLER])
    game.step(value(6))
    (adding,) = game.move_choices()
    assert adding.title == "add a card at 6 (cards that show the value)"
    assert [(c.label, c.note) for c in adding.choices] == [
        ("add G6", "shows 6 without chips"),
        (
            "add P3+1",
            f"1 chip point from the supply to show 6; {BURDEN}",
        ),
        (
            "add P2+2",
            f"2 chip points from the supply to show 6; {BURDEN}",
        ),
    ]
    game.step(card("G6"))
    lay_out, more = game.move_choices()
    assert [(c.label, c.note, c.action) for c in lay_out.choices] == [
        ("lead G6", "1 card at 6, no chips", E.DONE)
    ]
    assert more.title == "add a card at 6" and [c.action for c in more.choices] == [card("P3"), card("P2")]


def test_an_answer_puts_the_passes_between_the_cheap_and_the_costly_plays():
    game = game_from(
        hands=[["G2"], ["G9", "G10", "P5", "G20"], FILLER],
        display=[[{"card": "G2", "chips": 7}], [], []],
        last_play={"seat": 0, "count": 1, "value": 9},
        current_player=1,
        chips=[3, 2, 3],
    )
    groups = game.move_choices()
    assert [g.title for g in groups][:3] == [
        "without chips (your cards show these values as they are)",
        "with 1 to 4 chip points, cheapest first",
        "pass (held chips count against you; a pass gives up to 2 back to the supply)",
    ]
    assert [c.label for c in groups[0].choices] == ["answer at 10", "answer at 20"]
    assert [(c.label, c.note, c.action) for c in groups[2].choices] == [
        ("pass, giving back 2 chip points", "you hold 2, then 0", pass_(2)),
        ("pass, giving back 1 chip point", "you hold 2, then 1", pass_(1)),
        ("pass, giving back nothing", "you hold 2, then 2", pass_(0)),
    ]
    assert groups[3].title == "costly plays, to be confirmed"
    assert sorted(leaf_actions(groups)) == game.legal_actions()


def test_the_final_screen_shows_the_totals_that_decide_the_ranks():
    game = game_from(hands=[["G5"], ["G6", "G7"], ["G8"]], chips=[0, 2, 0])
    game.step(value(5))
    game.step(card("G5"))
    game.step(E.DONE)
    assert game.is_over
    lines = game.render_text().splitlines()
    assert "Final ranks: player_0 1st, player_2 2nd, player_1 3rd" in lines
    assert "Cards + chips (fewest ranks first): player_2 1 + 0 = 1, player_1 2 + 2 = 4" in lines


def test_a_block_of_an_answer_names_its_cheapest_value_above_the_one_to_beat():
    game = game_from(
        hands=[["G2"], ["P11", "P7"], FILLER],
        display=[[{"card": "P11", "chips": 11}], [], []],
        last_play={"seat": 0, "count": 1, "value": 132},
        current_player=1,
    )
    block = find(game.move_choices(), value(130))
    assert block.label == "answer at 130 to 139" and block.warn
    assert (
        block.note == "cheapest: P7+18 at 133, 18 chip points"
    )  # not P11+11 at 132, which does not beat 132


def test_the_legend_explains_the_pass_and_what_ranks():
    legend = game_from(hands=[["G2"], ["G3"], ["G4"]]).legend()
    assert "Or pass, giving 0, 1 or 2 of your held chip points back to the supply" in legend
    assert "the others rank by cards in hand plus chip points (held and lying out), fewest first" in legend
