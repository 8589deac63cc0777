"""Cards and chips of Chip It (docs/rules/chipit.md, "Material"); their arithmetic is :mod:`.arith`.

A card *type* is an index 0..29: 0..19 are green 2..21, 20..29 purple 2..11;
there are two copies of every type (60 cards).
"""

from __future__ import annotations

GREEN_VALUES = tuple(range(2, 22))
PURPLE_VALUES = tuple(range(2, 12))
NUM_GREEN = len(GREEN_VALUES)  # 20
NUM_TYPES = NUM_GREEN + len(PURPLE_VALUES)  # 30
COPIES = 2
NUM_CARDS = NUM_TYPES * COPIES  # 60

#: face value and colour of each type
FACE = GREEN_VALUES + PURPLE_VALUES
IS_PURPLE = tuple(t >= NUM_GREEN for t in range(NUM_TYPES))
CODES = tuple(("P" if IS_PURPLE[t] else "G") + str(FACE[t]) for t in range(NUM_TYPES))
TYPE_OF_CODE = {code: t for t, code in enumerate(CODES)}

TOTAL_CHIPS = 108  # 18 chips each of 1, 2 and 3 points
START_CHIPS = 3  # points each player holds at the start
MAX_VALUE = max(PURPLE_VALUES) * (1 + TOTAL_CHIPS)  # 1199: the highest value any card can show
MAX_GREEN_VALUE = max(GREEN_VALUES) + TOTAL_CHIPS  # 129: the highest value a green card can show

#: cards dealt to each player, by player count (the rest is out of play)
DEAL_SIZE = {2: 15, 3: 15, 4: 15, 5: 12, 6: 10}
MAX_HAND = max(DEAL_SIZE.values())

#: chip cost marker for "this card cannot show this value"
IMPOSSIBLE = 1_000_000
