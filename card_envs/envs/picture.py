"""``render_mode="rgb_array"``: the table as an image, for Gymnasium's RecordVideo and SB3.

A game that describes its table as data (:meth:`CardGame.table_view`, zones of
:class:`~card_envs.core.view.Card`) is drawn with cards as shapes: rounded
cards with their codes in their colours, face-down cards hatched, the player
to decide highlighted. Other games get their text table drawn as text. Only
Pillow's built-in font is used (no downloaded assets), and the canvas size
depends only on the table, so every frame of a video has the same shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core.view import Card, TableView, Zone

COLUMNS = 128  # characters per line of a text frame; longer lines are cut
MARGIN = 8
BACKGROUND = (250, 250, 245)
TABLE = (32, 96, 64)  # the felt behind the cards
INK = (20, 20, 20)
LIGHT_INK = (240, 240, 230)
HIGHLIGHT = (255, 210, 60)
RGB = {
    "red": (200, 30, 30),
    "green": (20, 130, 50),
    "yellow": (190, 150, 0),
    "blue": (30, 80, 200),
    "magenta": (150, 40, 150),
    "cyan": (0, 140, 150),
    "grey": (110, 110, 110),
    "bold": INK,
    None: INK,
}
WIDTH = 1200
CARD_W, CARD_H, CARD_GAP = 34, 48, 4
ROW_H = CARD_H + 16
TITLE_W = 190
LINE_H = 18
FOOTER_LINES = 2  # the last move, wrapped (a Tock knock with its penalty cards is long)


def _font(size: int = 12) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: a fixed bitmap font
        return ImageFont.load_default()


def canvas_lines(num_players: int) -> int:
    """Lines of text a text frame holds: enough for every game's table at this player count."""
    return 2 * num_players + 12


def text_image(text: str, lines: int) -> np.ndarray:
    """``text`` drawn on a ``lines`` x COLUMNS canvas: uint8 [height, width, 3]."""
    from PIL import Image, ImageDraw

    font = _font()
    left, top, right, bottom = font.getbbox("M" * COLUMNS)
    line_height = bottom - top + 4
    size = (int(right - left) + 2 * MARGIN, lines * int(line_height) + 2 * MARGIN)
    image = Image.new("RGB", size, BACKGROUND)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(text.splitlines()[:lines]):
        draw.text((MARGIN, MARGIN + i * line_height), line[:COLUMNS], fill=INK, font=font)
    return np.asarray(image, dtype=np.uint8)


def _draw_card(draw: Any, x: int, y: int, card: Card, font: Any) -> None:
    box = (x, y, x + CARD_W, y + CARD_H)
    if card.face_down:
        draw.rounded_rectangle(box, radius=5, fill=(40, 60, 140), outline=LIGHT_INK, width=2)
        w, h = CARD_W - 6, CARD_H - 6  # a hatched back: diagonals u + v = c inside the card
        for c in range(6, w + h, 8):
            u0, u1 = min(c, w), max(0, c - h)
            draw.line((x + 3 + u0, y + 3 + c - u0, x + 3 + u1, y + 3 + c - u1), fill=(90, 110, 190))
        draw.rounded_rectangle(box, radius=5, outline=LIGHT_INK, width=2)
        return
    color = RGB.get(card.color, INK)
    draw.rounded_rectangle(box, radius=5, fill=(255, 255, 255), outline=color, width=2)
    draw.rectangle((x + 3, y + 3, x + CARD_W - 3, y + 9), fill=color)  # a colour band
    centre = (x + CARD_W / 2, y + CARD_H / 2 + 4)
    draw.multiline_text(centre, card.label, fill=color, font=font, anchor="mm", align="center", spacing=1)


def _draw_zone(draw: Any, y: int, zone: Zone, font: Any, small: Any) -> None:
    ink = HIGHLIGHT if zone.highlight else LIGHT_INK
    draw.text((MARGIN, y + 6), ("> " if zone.highlight else "") + zone.title, fill=ink, font=font)
    if zone.note:
        draw.text((MARGIN, y + 26), zone.note[:30], fill=ink, font=small)
    room = (WIDTH - TITLE_W - MARGIN) // (CARD_W + CARD_GAP)
    shown = zone.cards if len(zone.cards) <= room else zone.cards[: room - 1]
    for i, card in enumerate(shown):
        _draw_card(draw, TITLE_W + i * (CARD_W + CARD_GAP), y + 8, card, small)
    if len(shown) < len(zone.cards):
        x = TITLE_W + len(shown) * (CARD_W + CARD_GAP)
        draw.text((x + 4, y + 26), f"+{len(zone.cards) - len(shown)}", fill=LIGHT_INK, font=font)


def table_image(view: TableView) -> np.ndarray:
    """The table as uint8 [height, width, 3]: header, centre zones, player zones, last move."""
    from PIL import Image, ImageDraw

    zones = [*view.centre, *view.players]
    height = 2 * MARGIN + (1 + FOOTER_LINES) * LINE_H + len(zones) * ROW_H + 6
    image = Image.new("RGB", (WIDTH, height), TABLE)
    draw = ImageDraw.Draw(image)
    font, small = _font(14), _font(12)
    draw.text((MARGIN, MARGIN), view.header, fill=LIGHT_INK, font=font)
    y = MARGIN + LINE_H
    for i, zone in enumerate(zones):
        if i == len(view.centre):
            draw.line((MARGIN, y + 2, WIDTH - MARGIN, y + 2), fill=(70, 130, 95), width=1)
        _draw_zone(draw, y + 3, zone, font, small)
        y += ROW_H
    for i, line in enumerate(wrap(view.footer, small, WIDTH - 2 * MARGIN, FOOTER_LINES)):
        draw.text((MARGIN, y + 6 + i * LINE_H), line, fill=LIGHT_INK, font=small)
    return np.asarray(image, dtype=np.uint8)


def wrap(text: str, font: Any, width: float, lines: int) -> list[str]:
    """``text`` cut at spaces into at most ``lines`` lines of at most ``width`` pixels (the last
    one ending in "..." if text is left over)."""
    out: list[str] = []
    words = text.split(" ")
    while words and len(out) < lines:
        line = words.pop(0)
        while words and font.getlength(f"{line} {words[0]}") <= width:
            line = f"{line} {words.pop(0)}"
        out.append(line)
    if words:
        out[-1] = out[-1].rstrip() + " ..."
    return out
