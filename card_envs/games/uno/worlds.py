"""What one UNO seat knows, for :meth:`card_envs.core.game.CardGame.sample_world`.

Known: the seat's own hand; the whole discard pile (every card on it was played
face up); the hand sizes, LETZTE calls, the draw pile's size and every other
public field of the state; the card just drawn that may still be played (the
observation shows it to every seat). Unknown, dealt anew: the other hands
(bar that drawn card) and the draw pile, as one multiset.

Assumed, because the engine keeps no record of it: the hand a Wild Draw Four
challenge showed, and which cards a penalty drew, are forgotten by the sampler
(dealt as unknown like any other card). Whether the Wild Draw Four that may be
challenged was a bluff is hidden from all but its player: for another seat the
sample decides it from the offender's sampled hand against the colour of the
card beneath (held a card of that colour: a bluff), and calls it innocent when
that card is a wild, whose named colour the state does not keep.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from card_envs.core.worlds import SeatView, hands_and_pile_view
from card_envs.games.uno import cards as C

if TYPE_CHECKING:
    from card_envs.games.uno.engine import UnoGame

NOTE = "own hand, discard pile, drawn card and counts known; other hands and the draw pile dealt anew"


def seat_view(game: UnoGame, seat: int) -> SeatView:
    """The view of ``seat``: other hands and the draw pile are its hidden slots."""
    public = game.state_dict()
    drawn, drawer = public["drawn"], public["turn_player"]
    known = (drawer, [drawn]) if drawn is not None and drawer != seat else (None, [])

    def finish(state: dict[str, Any]) -> dict[str, Any]:
        challenge = state["challenge"]
        if challenge is not None and challenge["seat"] != seat:
            challenge["bluff"] = _bluff(state["hands"][challenge["seat"]], state["discard_pile"])
        return state

    return hands_and_pile_view(public, seat, "draw_pile", known, finish, NOTE)


def _bluff(hand: list[str], discard: list[str]) -> bool:
    """Whether ``hand`` holds a card of the colour of the card beneath the Wild Draw Four on top."""
    if len(discard) < 2:
        return False
    beneath = C.parse_card(discard[-2])
    if C.is_wild(beneath):
        return False
    colour = C.colour_of(beneath)
    return any(C.colour_of(C.parse_card(code)) == colour for code in hand)
