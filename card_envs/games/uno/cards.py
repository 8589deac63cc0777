"""UNO-style card types: 54 types (4 colours x 13 ranks, Wild, Wild Draw Four).

A card is an int type ``colour * 13 + rank`` for coloured cards, ``WILD`` and
``WILD_DRAW_FOUR`` for the wilds. Hands are kept as counts per type, so a hand
is a list of 54 ints; codes like ``"R7"``, ``"GS"``, ``"B+2"``, ``"W+4"`` are
the readable form used by ``state_dict()``.
"""

from __future__ import annotations

COLOURS = ("R", "Y", "G", "B")
COLOUR_NAMES = ("red", "yellow", "green", "blue")
RANKS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2")
SKIP, REVERSE, DRAW_TWO = 10, 11, 12
NUM_COLOURED = len(COLOURS) * len(RANKS)  # 52
WILD = NUM_COLOURED  # 52
WILD_DRAW_FOUR = NUM_COLOURED + 1  # 53
NUM_TYPES = NUM_COLOURED + 2  # 54
DECK_SIZE = 108

CODES = [c + r for c in COLOURS for r in RANKS] + ["W", "W+4"]
CODE_TO_TYPE = {code: t for t, code in enumerate(CODES)}


def colour_of(card: int) -> int | None:
    """Colour index of a coloured card, None for a wild."""
    return card // 13 if card < NUM_COLOURED else None


def rank_of(card: int) -> int | None:
    """Rank index (0..9 numbers, SKIP, REVERSE, DRAW_TWO) of a coloured card, None for a wild."""
    return card % 13 if card < NUM_COLOURED else None


def is_wild(card: int) -> bool:
    return card >= NUM_COLOURED


def draw_amount(card: int) -> int:
    """Cards the next player must draw because of this card (0 if none)."""
    if card == WILD_DRAW_FOUR:
        return 4
    return 2 if rank_of(card) == DRAW_TWO else 0


def points(card: int) -> int:
    """Scoring value of a card left in a hand."""
    if is_wild(card):
        return 50
    rank = card % 13
    return rank if rank <= 9 else 20


def deck_counts() -> list[int]:
    """Copies of each type in the 108-card deck."""
    counts = [0] * NUM_TYPES
    for colour in range(len(COLOURS)):
        for rank in range(len(RANKS)):
            counts[colour * 13 + rank] = 1 if rank == 0 else 2
    counts[WILD] = counts[WILD_DRAW_FOUR] = 4
    return counts


def matches(card: int, top: int, colour: int) -> bool:
    """May ``card`` be played on ``top`` while ``colour`` is the colour to match?"""
    if is_wild(card):
        return True
    return card // 13 == colour or (not is_wild(top) and card % 13 == top % 13)


def _matching_types() -> list[list[list[int]]]:
    """MATCHING[top][colour]: the card types that may be played (a table, for speed)."""
    return [
        [[t for t in range(NUM_TYPES) if matches(t, top, c)] for c in range(4)] for top in range(NUM_TYPES)
    ]


MATCHING = _matching_types()


def parse_colour(letter: str) -> int:
    if letter not in COLOURS:
        raise ValueError(f"colour must be one of {COLOURS}, got {letter!r}")
    return COLOURS.index(letter)


def parse_card(code: str) -> int:
    if code not in CODE_TO_TYPE:
        raise ValueError(f"unknown card code {code!r}; e.g. 'R7', 'GS', 'BR', 'Y+2', 'W', 'W+4'")
    return CODE_TO_TYPE[code]


def expand(counts: list[int]) -> list[str]:
    """Card codes of a counts-per-type hand, in type order."""
    return [CODES[t] for t, n in enumerate(counts) for _ in range(n)]


def to_counts(codes: list[str]) -> list[int]:
    counts = [0] * NUM_TYPES
    for code in codes:
        counts[parse_card(code)] += 1
    return counts
