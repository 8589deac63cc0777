"""What both envs share: render modes, the step cap and rendering."""

from __future__ import annotations

import numpy as np
from gymnasium import logger

from card_envs.core.checks import check_int
from card_envs.core.game import CardGame
from card_envs.envs.picture import canvas_lines, text_image

RENDER_MODES = ["ansi", "human", "rgb_array"]


def check_render_mode(render_mode: str | None) -> str | None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
    return render_mode


def check_max_steps(max_steps: int | None, game: CardGame) -> int:
    if max_steps is None:
        return game.default_max_steps
    return check_int("max_steps", max_steps, 1, 10**9)


def render_game(game: CardGame, render_mode: str | None) -> str | np.ndarray | None:
    """``render()`` of both envs: the table as text ("ansi"), printed ("human"), or an image
    ("rgb_array", :mod:`card_envs.envs.picture`)."""
    if render_mode is None:
        logger.warn("render() called without a render_mode; pass one of " + ", ".join(RENDER_MODES))
        return None
    text = game.render_text()
    if render_mode == "rgb_array":
        return text_image(text, canvas_lines(game.num_players))
    if render_mode == "human":
        print(text)
        return None
    return text
