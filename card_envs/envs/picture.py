"""``render_mode="rgb_array"``: the table as an image, for Gymnasium's RecordVideo and SB3.

For now the image is the text table drawn in Pillow's built-in font (no
downloaded assets) on a canvas of a fixed size per table, so every frame of a
video has the same shape. SB3's ``make_vec_env`` asks every env id for
``rgb_array``, so the mode has to exist.
"""

from __future__ import annotations

import numpy as np

COLUMNS = 128  # characters per line; longer lines are cut
MARGIN = 8
BACKGROUND = (250, 250, 245)
INK = (20, 20, 20)


def canvas_lines(num_players: int) -> int:
    """Lines of text a frame holds: enough for every game's table at this player count."""
    return 2 * num_players + 12


def text_image(text: str, lines: int) -> np.ndarray:
    """``text`` drawn on a ``lines`` x COLUMNS canvas: uint8 [height, width, 3]."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default()
    left, top, right, bottom = font.getbbox("M" * COLUMNS)
    line_height = bottom - top + 4
    size = (int(right - left) + 2 * MARGIN, lines * int(line_height) + 2 * MARGIN)
    image = Image.new("RGB", size, BACKGROUND)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(text.splitlines()[:lines]):
        draw.text((MARGIN, MARGIN + i * line_height), line[:COLUMNS], fill=INK, font=font)
    return np.asarray(image, dtype=np.uint8)
