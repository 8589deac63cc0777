"""What one Tock seat knows, for :meth:`card_envs.core.game.CardGame.sample_world`.

Nobody holds cards in Tock: everything but the face-down supply is public
history. The centre rows and the open piles are face up, and every card under
a pile's top was seen when it was laid there (penalty cards move from and to
pile bottoms in the open); an own face-down stack is an open pile turned over
as one block, so its order is known too; the drawn card is shown to all.
Unknown, to every seat alike: the order of the supply, which the sample
shuffles anew. (The observation vector shows the same: every pile's top, the card
under it, its bottom card and its contents, each stack's top card and the
supply's contents, though not each stack's full order.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from card_envs.core.worlds import HiddenSlot, SeatView, canonical, plain_copy

if TYPE_CHECKING:
    from card_envs.games.tock.engine import TockGame

NOTE = "every pile, stack, row and the drawn card known; only the supply's order dealt anew"


def seat_view(game: TockGame, seat: int) -> SeatView:
    """The view of ``seat`` (the same for every seat): the supply is the one hidden slot."""
    public = game.state_dict()

    def fill(parts: list[list[int]]) -> dict[str, Any]:
        state = plain_copy(public)
        state["supply"] = parts[0]
        return state

    supply = public["supply"]
    return SeatView(canonical(supply), [HiddenSlot("supply", len(supply))], fill, NOTE)
