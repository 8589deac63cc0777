"""UNO-style card types: 54 types (4 colours x 13 ranks, Wild, Wild Draw Four).

A card is an int type ``colour * NUM_RANKS + rank`` for coloured cards,
``WILD`` and ``WILD_DRAW_FOUR`` for the wilds. Hands are kept as counts per
type, so a hand is a list of 54 ints; codes like ``"R7"``, ``"GS"``, ``"B+2"``,
``"W+4"`` are the readable form used by ``state_dict()`` (docs/uno.md, "Card
types"). The deck and the card values are those of docs/rules/uno.md.

The functions here are the one home of the card arithmetic; compiled code (the kernels,
the compiled agent) reads the same facts from tables built from them (``RANK_OF``...),
while the reference engine calls the plain functions, which are faster than compiled ones
called one card at a time from Python.
"""

from __future__ import annotations

import numpy as np

COLOURS = ("R", "Y", "G", "B")
COLOUR_NAMES = ("red", "yellow", "green", "blue")
RANKS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2")
NUM_COLOURS = len(COLOURS)  # 4
NUM_RANKS = len(RANKS)  # 13
SKIP, REVERSE, DRAW_TWO = 10, 11, 12
NUM_COLOURED = NUM_COLOURS * NUM_RANKS  # 52
WILD = NUM_COLOURED  # 52
WILD_DRAW_FOUR = NUM_COLOURED + 1  # 53
NUM_TYPES = NUM_COLOURED + 2  # 54
DECK_SIZE = 108

CODES = [c + r for c in COLOURS for r in RANKS] + ["W", "W+4"]
CODE_TO_TYPE = {code: t for t, code in enumerate(CODES)}

#: the card types of each colour, as slices of a counts-per-type hand
COLOUR_SLICES = tuple(slice(c * NUM_RANKS, (c + 1) * NUM_RANKS) for c in range(NUM_COLOURS))
#: the Draw Two of each colour
DRAW_TWOS = tuple(c * NUM_RANKS + DRAW_TWO for c in range(NUM_COLOURS))


def colour_of(card: int) -> int | None:
    """Colour index of a coloured card, None for a wild."""
    return card // NUM_RANKS if card < NUM_COLOURED else None


def rank_of(card: int) -> int | None:
    """Rank index (0..9 numbers, SKIP, REVERSE, DRAW_TWO) of a coloured card, None for a wild."""
    return card % NUM_RANKS if card < NUM_COLOURED else None


def is_wild(card: int) -> bool:
    return card >= NUM_COLOURED


def draw_amount(card: int) -> int:
    """Cards the next player must draw because of this card (0 if none)."""
    if card == WILD_DRAW_FOUR:
        return 4
    return 2 if rank_of(card) == DRAW_TWO else 0


def points(card: int) -> int:
    """Scoring value of a card left in a hand: face value, 20 for an action card, 50 for a wild."""
    if is_wild(card):
        return 50
    rank = card % NUM_RANKS
    return rank if rank < SKIP else 20


def deck_counts() -> list[int]:
    """Copies of each type in the 108-card deck: one 0 and two of every other rank per colour."""
    counts = [0] * NUM_TYPES
    for colour in range(NUM_COLOURS):
        for rank in range(NUM_RANKS):
            counts[colour * NUM_RANKS + rank] = 1 if rank == 0 else 2
    counts[WILD] = counts[WILD_DRAW_FOUR] = 4
    return counts


#: the most copies of one card type (the wilds): the bound of a per-type count
MAX_COPIES = max(deck_counts())


def matches(card: int, top: int, colour: int) -> bool:
    """May ``card`` be played on ``top`` while ``colour`` is the colour to match?"""
    if is_wild(card):
        return True
    return card // NUM_RANKS == colour or (not is_wild(top) and card % NUM_RANKS == top % NUM_RANKS)


def _matching_types() -> list[list[list[int]]]:
    """MATCHING[top][colour]: the card types that may be played (a table, for speed)."""
    return [
        [[t for t in range(NUM_TYPES) if matches(t, top, c)] for c in range(NUM_COLOURS)]
        for top in range(NUM_TYPES)
    ]


MATCHING = _matching_types()

# The functions above as tables by card type, the form compiled code reads them in (-1: none).
RANK_OF = np.array([-1 if (rank := rank_of(t)) is None else rank for t in range(NUM_TYPES)], np.int64)
COLOUR_OF = np.array([-1 if (c := colour_of(t)) is None else c for t in range(NUM_TYPES)], np.int64)
POINTS = np.array([points(t) for t in range(NUM_TYPES)], np.int64)
DRAW_AMOUNT = np.array([draw_amount(t) for t in range(NUM_TYPES)], np.int64)
#: MATCHES[top, colour, card]: may ``card`` be played (MATCHING as a table)
MATCHES = np.array(
    [[[card in row for card in range(NUM_TYPES)] for row in by_colour] for by_colour in MATCHING], np.bool_
)


def parse_colour(letter: object) -> int:
    if not isinstance(letter, str) or letter not in COLOURS:
        raise ValueError(f"colour must be one of {COLOURS}, got {letter!r}")
    return COLOURS.index(letter)


def parse_card(code: object, field: str | None = None) -> int:
    """The type of a card code; ValueError (naming the state ``field`` if given) for anything else."""
    if not isinstance(code, str) or code not in CODE_TO_TYPE:
        where = f" in {field}" if field else ""
        raise ValueError(f"unknown card code {code!r}{where}; e.g. 'R7', 'GS', 'BR', 'Y+2', 'W', 'W+4'")
    return CODE_TO_TYPE[code]


def expand(counts: list[int]) -> list[str]:
    """Card codes of a counts-per-type hand, in type order."""
    return [CODES[t] for t, n in enumerate(counts) for _ in range(n)]


def to_counts(codes: list[str]) -> list[int]:
    counts = [0] * NUM_TYPES
    for code in codes:
        counts[parse_card(code)] += 1
    return counts


#: drawn on top of the stack by a player who challenges an innocent Draw Four
CHALLENGE_PENALTY = 2
