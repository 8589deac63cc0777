"""ANSI colours for text tables: on in terminals, off when output is piped or ``NO_COLOR`` is set."""

from __future__ import annotations

import os
from typing import TextIO

#: the colours the games use, as ANSI foreground codes
CODES = {
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
    "grey": "90",
    "bold": "1",
}


def paint(text: str, color: str | None, enabled: bool = True) -> str:
    """``text`` in ``color`` (a key of :data:`CODES`) when ``enabled``, else unchanged."""
    if not enabled or color is None:
        return text
    return f"\033[{CODES[color]}m{text}\033[0m"


def use_color(stream: TextIO) -> bool:
    """Colour for ``stream``: only a terminal, and never with ``NO_COLOR`` set (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
