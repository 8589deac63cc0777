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

import copy
from typing import TYPE_CHECKING, Any

from card_envs.core.worlds import HiddenSlot, SeatView, canonical

if TYPE_CHECKING:
    from card_envs.games.chipit.engine import ChipItGame

NOTE = "own hand, the table, chips and a play being built known; other hands and the cards out dealt anew"


def seat_view(game: ChipItGame, seat: int) -> SeatView:
    """The view of ``seat``: other hands and the cards out of play are its hidden slots."""
    public = game.state_dict()
    others = [p for p in range(game.num_players) if p != seat]
    building = public["building"]
    builder = public["current_player"] if building is not None and public["current_player"] != seat else None
    chosen = [] if builder is None else list(building["cards"])
    unknown: list[str] = []
    slots = []
    for p in others:
        hand = list(public["hands"][p])
        if p == builder:
            for code in chosen:
                hand.remove(code)
        unknown += hand
        slots.append(HiddenSlot(f"hands[{p}]", len(hand)))
    unknown += public["out"]
    slots.append(HiddenSlot("out", len(public["out"])))

    def fill(parts: list[list[str]]) -> dict[str, Any]:
        state = copy.deepcopy(public)
        for p, cards in zip(others, parts, strict=False):
            state["hands"][p] = canonical(cards + (chosen if p == builder else []))
        state["out"] = canonical(parts[-1])
        return state

    return SeatView(canonical(unknown), slots, fill, NOTE)
