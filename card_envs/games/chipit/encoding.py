"""Action numbering and observation layout of Chip It (tables in docs/chipit.md).

A play is built over a few decisions of the same player (see docs/chipit.md):
the common value first (``VALUE`` directly for 2..129, or a ``HIGH`` block of
ten values followed by ``UNITS``), then the cards one type at a time
(``CARD``), then ``DONE`` for a lead; an answer is complete by itself once it
has as many cards as the combination to beat. ``PASS`` returns 0..2 points.
"""

from __future__ import annotations

from functools import cache

from card_envs.core.choices import plural
from card_envs.core.layout import Field, ObservationLayout
from card_envs.games.chipit.cards import (
    CODES,
    MAX_GREEN_VALUE,
    MAX_HAND,
    MAX_VALUE,
    NUM_TYPES,
    TOTAL_CHIPS,
)

# Actions ---------------------------------------------------------------------
MAX_RETURN = 2  # a pass returns at most this many points
PASS = 0  # PASS + r: pass and return r points (0..2) to the general supply
MIN_VALUE = 2  # the lowest value a card can show
VALUE = PASS + MAX_RETURN + 1  # VALUE + (T - 2): common value T = 2..129 (every value a green card can show)
HIGH_START = MAX_GREEN_VALUE + 1  # 130: values above this are built in two steps
BLOCK = 10
NUM_BLOCKS = (MAX_VALUE - HIGH_START) // BLOCK + 1  # 107 blocks: 130..139, ..., 1190..1199
NUM_DIRECT_VALUES = MAX_GREEN_VALUE - MIN_VALUE + 1  # 128 values chosen by one action
HIGH = VALUE + NUM_DIRECT_VALUES  # HIGH + j: the value lies in 130+10j .. 139+10j
UNITS = HIGH + NUM_BLOCKS  # UNITS + b: the value is the block's lowest value + b (b = 0..9)
CARD = UNITS + BLOCK  # CARD + t: add one card of type t to the play being built
DONE = CARD + NUM_TYPES  # lead the cards chosen so far
NUM_ACTIONS = DONE + 1  # 279

PHASES = ("lead", "answer", "units", "cards", "over")

#: ``play_costs`` entry of a value the hand cannot show: more points than the game holds
NO_PLAY = TOTAL_CHIPS + 1


def block_low(j: int) -> int:
    """Lowest value of HIGH block ``j``."""
    return HIGH_START + BLOCK * j


def describe_action(action: int) -> str:
    if action < VALUE:
        return f"pass, returning {plural(action - PASS, 'point')}"
    if action < HIGH:
        return f"value {action - VALUE + MIN_VALUE}"
    if action < UNITS:
        low = block_low(action - HIGH)
        return f"value block {low}..{low + BLOCK - 1}"
    if action < CARD:
        return f"last digit {action - UNITS} of the value"
    if action < DONE:
        return f"add card {CODES[action - CARD]}"
    return "done: lead the chosen cards"


@cache
def observation_layout(num_players: int) -> ObservationLayout:
    """Fields of a seat's observation; per-player fields are in relative seat order (own first)."""
    n = num_players
    return ObservationLayout(
        [
            Field("phase", len(PHASES), 1, f"one-hot phase: {', '.join(PHASES)}"),
            Field("hand", NUM_TYPES, 2, "own cards: count per card type (G2..G21, P2..P11)"),
            Field("chips", 1, TOTAL_CHIPS, "own chip points held"),
            Field("hand_sizes", n, MAX_HAND, "cards in hand, per player (relative seats, own first)"),
            Field("holdings", n, TOTAL_CHIPS, "chip points held, per player (relative seats)"),
            Field(
                "display",
                n * NUM_TYPES,
                2,
                "cards lying out, per player (relative seats) and card type",
            ),
            Field("display_chips", n, TOTAL_CHIPS, "chip points on the cards lying out, per player"),
            Field("discard", NUM_TYPES, 2, "discarded cards per card type"),
            Field("to_beat_count", 1, MAX_HAND, "cards in the combination to beat (0: a lead is due)"),
            Field("to_beat_value", 1, MAX_VALUE, "common value of the combination to beat (0 if none)"),
            Field("to_beat_seat", n, 1, "one-hot relative seat of the player who played it"),
            Field("supply", 1, TOTAL_CHIPS, "chip points in the general supply"),
            Field("passes", 1, n, "passes since the last play or the round start (capped at N)"),
            Field("finished", n, 1, "1 for players who have finished (relative seats)"),
            Field("build_value", 1, MAX_VALUE, "common value of the play being built (0 if not chosen)"),
            Field("build_block", 1, MAX_VALUE, "lowest value of the chosen HIGH block (0 if none)"),
            Field("build_cards", NUM_TYPES, 2, "cards chosen so far for the play being built, per type"),
            Field("build_chips", 1, TOTAL_CHIPS, "chip points the chosen cards need"),
            Field("build_needed", 1, MAX_HAND, "cards still to choose for an answer (0 when leading)"),
            Field(
                "free_cards",
                NUM_DIRECT_VALUES,
                MAX_HAND,
                f"per value T = {MIN_VALUE}..{MAX_GREEN_VALUE}: own cards that show T without chips",
            ),
            Field(
                "play_costs",
                NUM_DIRECT_VALUES,
                NO_PLAY,
                f"per value T = {MIN_VALUE}..{MAX_GREEN_VALUE}: fewest chip points a play at T needs"
                f" from own cards (as many as the combination to beat, one when leading);"
                f" {NO_PLAY} if the hand cannot show T (the supply is not checked)",
            ),
        ]
    )
