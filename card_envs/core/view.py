"""What a table looks like, as data: the picture renderer draws it (``render_mode="rgb_array"``).

A game describes its table for one seat's eyes (or all of them) as zones of
cards: the centre (piles, rows, the card to beat) and one zone per player.
The renderer knows nothing of any game; a game knows nothing of pixels. The
number of centre zones must not change during a game, so every frame of a
video has the same size.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Card:
    """One card as drawn: its code (``"G8"``, ``"W+4"``), a colour name of
    :data:`card_envs.core.colors.CODES` (None: plain), or face down."""

    label: str = ""
    color: str | None = None
    face_down: bool = False


@dataclass(frozen=True)
class Zone:
    """A row of cards with a title (``"player_2 (7)"``) and a short note (``"LETZTE"``)."""

    title: str
    cards: list[Card] = field(default_factory=list)
    note: str = ""
    highlight: bool = False  # the player to decide


@dataclass(frozen=True)
class TableView:
    """A whole table: a header line, centre zones, one zone per player, and the last move."""

    header: str
    centre: list[Zone]
    players: list[Zone]
    footer: str = ""
