"""Tock's moves as a person chooses them (:mod:`card_envs.core.choices`).

The moves that follow the rules come first; each rule break is marked and says which of
the three breaks it is and what a correct knock would cost (docs/rules/tock.md, "Rule breaks
and TOCK!"). In a knock window the choices say whether the move broke a rule (everybody saw
it) and who takes how many penalty cards, so a person never learns the price from the knock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from card_envs.core.choices import Choice, ChoiceGroup, plural
from card_envs.core.game import CardGame
from card_envs.games.tock.encoding import DRAW, KNOCK, OWN_PILE, PASS
from card_envs.games.tock.state import Table

if TYPE_CHECKING:
    from card_envs.games.tock.engine import TockGame

name = CardGame.player_name

#: why each kind of rule break breaks a rule: (a), (b), (c) of docs/rules/tock.md
WHY = {
    DRAW: "(a) your top card could be played",
    OWN_PILE: "(c) the drawn card fits somewhere",
}
TO_OPPONENT = "(b) the card fits the centre"


def move_choices(game: TockGame) -> list[ChoiceGroup]:
    """The legal moves of the deciding player, grouped: by the rules, rule breaks, or the knock."""
    table = game.table
    if table.phase == "knock":
        return [_knock_window(table)]
    legal = game.legal_actions()
    breaks = set(game.rule_break_actions())
    follow = tuple(Choice(game.describe_action(a), a) for a in legal if a not in breaks)
    groups = [ChoiceGroup("by the rules", follow)]
    if breaks:
        cost = penalty(table, table.turn)
        price = f"if anyone knocks, you take {plural(cost, 'penalty card')} and your turn ends"
        broken = tuple(
            Choice(
                game.describe_action(a), a, note=f"rule break {WHY.get(a, TO_OPPONENT)}: {price}", warn=True
            )
            for a in legal
            if a in breaks
        )
        groups.append(ChoiceGroup("rule breaks (a knock window follows)", broken))
    return groups


def penalty(table: Table, receiver: int) -> int:
    """How many cards a knock gives ``receiver``: the bottom card of every other open pile."""
    return sum(1 for seat, pile in enumerate(table.piles) if seat != receiver and pile)


def _knock_window(table: Table) -> ChoiceGroup:
    """KNOCK or PASS on the last move, with who pays what; the right answer first."""
    window, move = table.window, table.move
    assert window is not None and move is not None  # phase "knock"
    mover = name(move.player)
    title = f"{mover}'s move {'broke a rule' if window.rule_break else 'followed the rules'}"
    if window.rule_break:
        cost = penalty(table, move.player)
        taken = f"a correct knock: {mover} takes {plural(cost, 'card')}, its turn ends"
        knock = Choice("knock (TOCK!)", KNOCK, note=taken)
        let_go = Choice("pass (no knock)", PASS, note="the rule break goes unpunished unless another knocks")
        return ChoiceGroup(title, (knock, let_go))
    cost = penalty(table, window.deciders[0])
    let_go = Choice("pass (no knock)", PASS)
    knock = Choice("knock (TOCK!)", KNOCK, note=f"a false knock: you take {plural(cost, 'card')}", warn=True)
    return ChoiceGroup(title, (let_go, knock))
