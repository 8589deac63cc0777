"""What one Chip It seat knows, for :meth:`card_envs.core.game.CardGame.sample_world`.

Known: the seat's own hand; the table (the cards lying out and their chips,
the discard pile of cleared cards, the combination to beat); every chip count
(holdings, the general supply, points returned); the hand sizes; the cards
chosen so far for a play being built (the observation shows them to every
seat), which stay in the builder's hand. Unknown, dealt anew as one multiset:
the other hands and the cards out of play (face down, unknown to everybody).
A play half built must stay completable from the builder's hand: a deal that
cannot finish it is refused by the loader and dealt again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from card_envs.core.worlds import SeatView, canonical, hands_and_pile_view

if TYPE_CHECKING:
    from card_envs.games.chipit.engine import ChipItGame

NOTE = "own hand, the table, chips and a play being built known; other hands and the cards out dealt anew"


def seat_view(game: ChipItGame, seat: int) -> SeatView:
    """The view of ``seat``: other hands and the cards out of play are its hidden slots."""
    public = game.state_dict()
    building, builder = public["building"], public["current_player"]
    known = (builder, list(building["cards"])) if building is not None and builder != seat else (None, [])

    def finish(state: dict[str, Any]) -> dict[str, Any]:
        state["out"] = canonical(state["out"])  # a set: the deal keeps it in order
        return state

    return hands_and_pile_view(public, seat, "out", known, finish, NOTE)
