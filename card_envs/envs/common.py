"""What both envs share: render modes, the step cap and rendering."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from gymnasium import logger

from card_envs.core.checks import check_int
from card_envs.core.colors import use_color
from card_envs.core.game import CardGame
from card_envs.envs.picture import canvas_lines, table_image, text_image
from card_envs.records.record import GameRecorder

RENDER_MODES = ["ansi", "human", "rgb_array"]


def check_render_mode(render_mode: str | None) -> str | None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
    return render_mode


def check_seat(seat: object, game: CardGame) -> int | None:
    """A seat whose view to render, or None for the full table."""
    return None if seat is None else check_int("seat", seat, 0, game.num_players - 1)


def render_game(game: CardGame, render_mode: str | None, seat: int | None = None) -> str | np.ndarray | None:
    """``render()`` of both envs: the table as text ("ansi"), printed ("human", in colour on a
    terminal), or an image ("rgb_array", :mod:`card_envs.envs.picture`); ``seat``: that
    player's view, others' hands hidden (None: the full table)."""
    if render_mode is None:
        logger.warn("render() called without a render_mode; pass one of " + ", ".join(RENDER_MODES))
        return None
    if render_mode == "human":
        print(game.render_text(seat, color=use_color(sys.stdout)), end="\n\n", flush=True)
        return None
    if render_mode == "rgb_array":
        view = game.table_view(seat)
        if view is not None:
            return table_image(view)
        return text_image(game.render_text(seat), canvas_lines(game.num_players))
    return game.render_text(seat)


def attach_recorder(game: CardGame, record_dir: str | Path | None) -> GameRecorder | None:
    """``record_dir`` of both envs: every game dealt is written there as a record."""
    if record_dir is None:
        return None
    if not isinstance(record_dir, (str, Path)):
        raise ValueError(f"record_dir must be a directory path, got {record_dir!r}")
    recorder = game.recorder = GameRecorder(record_dir)
    return recorder
