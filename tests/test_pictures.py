"""The tables as drawn cards (``render_mode="rgb_array"``), in every built-in game.

A seeded random game is played through the AEC env with the full view and, in
lockstep, a second env that renders ``player_0``'s view. The table as data
(``table_view``) is checked at every step; pixels at a sample of steps and at
the end, since drawing every frame of a long game would take most of a minute.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from card_envs.core.game import CardGame
from card_envs.core.registry import game_class, game_spec
from card_envs.core.view import TableView

GAMES = ["uno", "tock", "chipit"]
NOTE_WIDTH = 30  # characters of a note the picture shows
SAMPLE = 60  # frames are drawn at steps 0, 1, 60, 61, ... and at the end
#: cards in a hidden hand, per game with private hands (Tock's open piles are public)
HAND_SIZE: dict[str, Callable[[Any, int], int]] = {
    "uno": lambda game, p: game.hand_sizes[p],
    "chipit": lambda game, p: game.table.hand_sizes[p],
}
#: every game at 2 players, and at its largest table under ``slow`` (a long game: many frames)
CASES = [(game, 2) for game in GAMES] + [
    pytest.param(game, game_class(game).max_players, marks=pytest.mark.slow) for game in GAMES
]


def make_env(game: str, num_players: int, render_seat: int | None = None) -> Any:
    module = importlib.import_module(f"card_envs.{game_spec(game).aec_name}")
    env = module.env(num_players=num_players, render_mode="rgb_array", render_seat=render_seat)
    env.reset(seed=7)
    return env


def check_frame(frame: Any, shape: tuple[int, ...] | None) -> tuple[int, ...]:
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
    assert frame.ndim == 3 and frame.shape[2] == 3
    assert shape is None or frame.shape == shape, f"frame {frame.shape}, the game's frames {shape}"
    return frame.shape


def check_view(engine: CardGame, view: TableView, seat: int | None) -> None:
    """One seat per player zone, the text's last line as footer, labels that fit a card."""
    assert len(view.players) == engine.num_players
    assert view.footer == engine.render_text(seat).splitlines()[-1]
    assert view.footer.startswith("Last move: ")
    for zone in [*view.centre, *view.players]:
        assert len(zone.note) <= NOTE_WIDTH, zone.note
        for card in zone.cards:
            assert card.face_down or all(0 < len(line) <= 5 for line in card.label.split("\n")), card
    titles = [zone.title for zone in view.players]
    assert titles == [engine.player_name(p) + (" (you)" if p == seat else "") for p in range(len(titles))]
    assert sum(zone.highlight for zone in view.players) == (0 if engine.is_over else 1)


def check_hidden(game: str, engine: CardGame, seat: int) -> None:
    """A seat sees its own hand face up and only the backs of the others' (Tock: all piles open)."""
    full, own = engine.table_view(), engine.table_view(seat)
    assert full is not None and own is not None
    if game not in HAND_SIZE:
        assert [z.cards for z in own.players] == [z.cards for z in full.players]
        return
    for p, (zone, whole) in enumerate(zip(own.players, full.players, strict=True)):
        assert not any(card.face_down for card in whole.cards)
        if p == seat:
            assert zone.cards == whole.cards
            continue
        assert sum(card.face_down for card in zone.cards) == HAND_SIZE[game](engine, p), zone
        public = [card for card in zone.cards if not card.face_down]  # Chip It: the cards lying out
        assert public == whole.cards[len(whole.cards) - len(public) :]


def random_step(env: Any, twin: Any, rng: np.random.Generator) -> bool:
    """One random legal action in both envs; False once the game is over."""
    observation, _, terminated, truncated, _ = env.last()
    if terminated or truncated:
        return False
    action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
    env.step(action)
    twin.step(action)
    return True


@pytest.mark.parametrize(("game", "num_players"), CASES)
def test_a_whole_game_draws_one_table_size_and_hides_hands(game: str, num_players: int) -> None:
    env, twin = make_env(game, num_players), make_env(game, num_players, render_seat=0)
    engine = env.unwrapped.game
    rng = np.random.default_rng(0)
    centres, shape, step, previous = set(), None, 0, None
    while True:
        for seat in (None, 0):
            view = engine.table_view(seat)
            check_view(engine, view, seat)
            centres.add(len(view.centre))
        over = engine.is_over
        if step % SAMPLE in (0, 1) or over:
            frame, seen = env.render(), twin.render()
            shape = check_frame(seen, check_frame(frame, shape))
            if game in HAND_SIZE:
                assert not np.array_equal(frame, seen), "player_0's view shows the hidden hands"
            if step % SAMPLE == 1:
                assert not np.array_equal(frame, previous), "the frame did not change after a move"
            previous = frame
            check_hidden(game, engine, step % num_players)
        if not random_step(env, twin, rng):
            break
        step += 1
    assert engine.is_over and len(centres) == 1, centres
    env.close()
    twin.close()


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_out_of_range_is_refused(game: str) -> None:
    engine = game_class(game)(2)
    engine.reset(seed=0)
    with pytest.raises(ValueError):
        engine.table_view(2)
