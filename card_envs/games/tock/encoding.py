"""Tock's action numbers, observation layout (one fixed size for 2 to 6 players) and encoder.

Seats in the observation are *relative* to the observing player: index 0 is
the observer, index k the player k seats to its left (seat order). Slots of
seats that a smaller table does not have stay 0 (see ``seat_present``).
Actions that name an opponent are relative to the player on turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from card_envs.core.layout import Field, ObservationLayout
from card_envs.games.tock.cards import MAX_ROWS, NUM_CARDS, ROW_END, SETS, TOP_CARD

if TYPE_CHECKING:
    from card_envs.games.tock.state import Table

MAX_SEATS = 6

# ------------------------------------------------------------------ actions
CENTRE = 0
#: action k (k = 1..5): onto the open pile of the player k seats to the left
FIRST_OPPONENT, LAST_OPPONENT = 1, MAX_SEATS - 1
DRAW = 6
OWN_PILE = 7
KNOCK = 8
PASS = 9
NUM_ACTIONS = 10

#: kinds of the last move (``move_kind``) and of the last action (``last_kind``)
MOVE_KINDS = ("centre", "opponent", "draw", "own_pile")
LAST_KINDS = (*MOVE_KINDS, "knock", "pass")
#: phases shown in the observation (`"over"` shows as all zeros)
OBS_PHASES = ("play", "knock")


#: the kind of each action number, as an index in :data:`LAST_KINDS`
ACTION_KINDS = (
    LAST_KINDS.index("centre"),
    *[LAST_KINDS.index("opponent")] * (LAST_OPPONENT - FIRST_OPPONENT + 1),
    *(LAST_KINDS.index(kind) for kind in ("draw", "own_pile", "knock", "pass")),
)
assert len(ACTION_KINDS) == NUM_ACTIONS


# -------------------------------------------------------------- observation
LAYOUT = ObservationLayout(
    [
        Field("seat_present", MAX_SEATS, 1, "1 for each relative seat that exists at this table"),
        Field("finished", MAX_SEATS, 1, "1 for each relative seat that has finished (left the game)"),
        Field("turn", MAX_SEATS, 1, "one-hot relative seat of the player on turn"),
        Field("phase", len(OBS_PHASES), 1, "one-hot phase: play, knock (a knock window is open)"),
        Field(
            "centre", MAX_ROWS, ROW_END, "top card of each opened centre row, highest first; 0 = not opened"
        ),
        Field("pile_top", MAX_SEATS, TOP_CARD, "top card of each relative seat's open pile; 0 = empty"),
        Field("pile_size", MAX_SEATS, NUM_CARDS, "cards in each relative seat's open pile"),
        Field("stack_size", MAX_SEATS, NUM_CARDS, "cards in each relative seat's own face-down stack"),
        Field("supply_size", 1, NUM_CARDS, "face-down supply cards left on the table"),
        Field(
            "card", 1, TOP_CARD, "the card in play of the player on turn (drawn card or own top); 0 = none"
        ),
        Field("card_source", 2, 1, "one-hot source of the card in play: own pile top, drawn"),
        Field("move_player", MAX_SEATS, 1, "one-hot relative seat that made the last move (play phase)"),
        Field(
            "move_kind", len(MOVE_KINDS), 1, "one-hot kind of the last move: centre, opponent, draw, own pile"
        ),
        Field("move_target", MAX_SEATS, 1, "one-hot relative seat whose pile got the card of the last move"),
        Field(
            "move_card", 1, TOP_CARD, "card moved by the last move (0 for a draw: the drawn card is `card`)"
        ),
        Field("move_break", 1, 1, "1 if the last move was a rule break (public: everybody saw it)"),
        Field("last_player", MAX_SEATS, 1, "one-hot relative seat of the last action of anyone"),
        Field(
            "last_kind",
            len(LAST_KINDS),
            1,
            "one-hot kind of that action: centre, opponent, draw, own, knock, pass",
        ),
        # Everything below is public history too (docs/rules/tock.md): every card of a pile was
        # seen when laid, a stack is a pile turned over as one block. (v1)
        Field(
            "pile_under_top",
            MAX_SEATS,
            TOP_CARD,
            "card under the top of each relative seat's open pile (shown once the top leaves); 0 = none",
        ),
        Field(
            "pile_bottom",
            MAX_SEATS,
            TOP_CARD,
            "bottom card of each relative seat's open pile (the card a knock takes from it); 0 = empty",
        ),
        Field(
            "stack_top",
            MAX_SEATS,
            TOP_CARD,
            "top card of each relative seat's own stack (known: a pile turned over); 0 = empty",
        ),
        Field(
            "pile_counts",
            MAX_SEATS * TOP_CARD,
            SETS,
            "copies of each card 1..21 in each relative seat's open pile (seat by seat, 21 each)",
        ),
        Field(
            "supply_counts",
            TOP_CARD,
            SETS,
            "copies of each card 1..21 in the face-down supply (the cards in no one's sight)",
        ),
    ]
)


class ObservationBuffer:
    """A reusable observation vector and its named views (``LAYOUT.view``): one per engine.

    :meth:`encode` writes every field by name into the vector and returns a
    copy. Copying or pickling an engine gives the copy a fresh buffer (a deep
    copy of numpy views would no longer share the vector's memory).
    """

    __slots__ = ("fields", "vector")

    def __init__(self) -> None:
        self.vector = LAYOUT.new()
        self.fields = LAYOUT.view(self.vector)

    def __reduce__(self) -> tuple[type[ObservationBuffer], tuple[()]]:
        return ObservationBuffer, ()

    def encode(self, table: Table, player: int) -> np.ndarray:
        """The observation of ``player``: the public table, seats relative to ``player`` (docs/tock.md)."""
        vector = self.vector
        vector.fill(0.0)
        v = self.fields
        n = len(table.piles)
        piles, stacks, alive = table.piles, table.stacks, table.alive
        v["seat_present"][:n] = 1.0
        finished, pile_top = v["finished"], v["pile_top"]
        pile_size, stack_size = v["pile_size"], v["stack_size"]
        under_top, bottom, stack_top = v["pile_under_top"], v["pile_bottom"], v["stack_top"]
        counts = [0] * (MAX_SEATS * TOP_CARD)  # pile_counts; Python ints are the fast way here
        for r in range(n):
            s = (player + r) % n
            if not alive[s]:
                finished[r] = 1.0
            pile = piles[s]
            if pile:
                pile_top[r] = pile[-1]
                pile_size[r] = len(pile)
                bottom[r] = pile[0]
                if len(pile) > 1:
                    under_top[r] = pile[-2]
                counts_at = r * TOP_CARD - 1  # card c counts at counts_at + c
                for card in pile:
                    counts[counts_at + card] += 1
            stack = stacks[s]
            stack_size[r] = len(stack)
            if stack:
                stack_top[r] = stack[-1]
        v["pile_counts"][:] = counts
        v["supply_counts"][:] = np.bincount(table.supply, minlength=TOP_CARD + 1)[1:]
        v["turn"][(table.turn - player) % n] = 1.0
        if table.phase != "over":  # "over" shows as no phase and no card in play
            v["phase"][1 if table.phase == "knock" else 0] = 1.0
            if table.drawn is not None:  # the card in play: the drawn card, else the own top card
                v["card"][0] = table.drawn
                v["card_source"][1] = 1.0
            else:
                own = piles[table.turn]
                if own:
                    v["card"][0] = own[-1]
                    v["card_source"][0] = 1.0
        if table.centre:
            tops = sorted(table.centre, reverse=True)
            v["centre"][: len(tops)] = tops
        v["supply_size"][0] = len(table.supply)
        move = table.move
        if move is not None:
            v["move_player"][(move.player - player) % n] = 1.0
            v["move_kind"][ACTION_KINDS[move.action]] = 1.0
            if move.target >= 0:
                v["move_target"][(move.target - player) % n] = 1.0
            v["move_card"][0] = move.card
            if move.rule_break:
                v["move_break"][0] = 1.0
        last = table.last_action
        if last is not None:
            v["last_player"][(last.player - player) % n] = 1.0
            v["last_kind"][ACTION_KINDS[last.action]] = 1.0
        return vector.copy()
