"""Tock's action numbers and observation layout (one fixed size for 2 to 6 players).

Seats in the observation are *relative* to the observing player: index 0 is
the observer, index k the player k seats to its left (seat order). Slots of
seats that a smaller table does not have stay 0 (see ``seat_present``).
Actions that name an opponent are relative to the player on turn.
"""

from __future__ import annotations

from card_envs.core.layout import Field, ObservationLayout

MAX_SEATS = 6
NUM_CARDS = 121
TOP_CARD = 21  # El Travieso
ROW_END = 20
MAX_ROWS = 6

# ------------------------------------------------------------------ actions
CENTRE = 0
#: action k (k = 1..5): onto the open pile of the player k seats to the left
FIRST_OPPONENT, LAST_OPPONENT = 1, MAX_SEATS - 1
DRAW = 6
OWN_PILE = 7
KNOCK = 8
PASS = 9
NUM_ACTIONS = 10

ACTION_NAMES = [
    "centre",
    *(f"opponent_{k}" for k in range(FIRST_OPPONENT, LAST_OPPONENT + 1)),
    "draw",
    "own_pile",
    "knock",
    "pass",
]

#: kinds of the last move (``move_kind``) and of the last action (``last_kind``)
MOVE_KINDS = ("centre", "opponent", "draw", "own_pile")
LAST_KINDS = (*MOVE_KINDS, "knock", "pass")
#: phases shown in the observation (`"over"` shows as all zeros)
OBS_PHASES = ("play", "knock")


def action_kind(action: int) -> int:
    """Index in :data:`LAST_KINDS` of an action number."""
    if action == CENTRE:
        return 0
    if action <= LAST_OPPONENT:
        return 1
    return action - DRAW + 2


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
    ]
)

SLICES = LAYOUT.slices
OFF = {name: s.start for name, s in SLICES.items()}
