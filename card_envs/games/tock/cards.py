"""Tock's cards (docs/rules/tock.md, "Material and set-up"): six sets of 1..20 and one 21.

Cards are the ints 1..21; 21 is *El Travieso*. A centre row is built upwards
from 1 to 20, so a row whose top card is ``t`` holds the cards 1..t.
"""

from __future__ import annotations

from collections.abc import Iterable

ROW_END = 20  # a centre row runs 1..ROW_END
TOP_CARD = 21  # El Travieso: one copy, never played to the centre
SETS = 6  # copies of each of 1..ROW_END
MAX_ROWS = SETS  # one centre row per 1
NUM_CARDS = SETS * ROW_END + 1  # 121

#: copies of each card in the full set, indexed by the card (index 0 unused)
DECK_COUNTS = (0, *([SETS] * ROW_END), 1)


def full_deck() -> list[int]:
    """The 121 cards: six sets of 1..20 and one 21."""
    return [v for v in range(1, ROW_END + 1) for _ in range(SETS)] + [TOP_CARD]


def row_cards(top: int) -> range:
    """The cards of a centre row whose top card is ``top``."""
    return range(1, top + 1)


def card_counts(cards: Iterable[int]) -> list[int]:
    """Copies of each card in ``cards``, indexed like :data:`DECK_COUNTS`."""
    counts = [0] * (TOP_CARD + 1)
    for card in cards:
        counts[card] += 1
    return counts
