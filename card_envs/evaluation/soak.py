"""Random games with every invariant checked: the library side of ``bench/soak.py`` and the
property tests.

A soak game is fully determined by its table (game, players, rules) and ``seed``: the
deal uses ``seed`` and the random players draw from ``default_rng(seed)``, so a
failure is reproduced by :func:`soak_game` with the same table and seed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from card_envs.core.game import CardGame
from card_envs.core.play import play_game
from card_envs.core.policy import RandomAgent
from card_envs.core.table import Table


class InvariantError(AssertionError):
    """A game broke one of the invariants every engine keeps."""


def check_ranks(ranks: list[int] | None, num_players: int) -> None:
    """Ranks are 1-based, one per seat, the best is 1, and ties share the better rank."""
    if ranks is None or len(ranks) != num_players:
        raise InvariantError(f"expected {num_players} ranks, got {ranks}")
    for rank in ranks:
        if rank != 1 + sum(1 for r in ranks if r < rank):
            raise InvariantError(f"invalid ranks {ranks}")


def check_round_trip(game: CardGame) -> None:
    """The state survives JSON: a fresh engine loaded from it has the same state, decider and mask."""
    state = game.state_dict()
    copy = type(game).from_rules(game.num_players, **game.rules)
    copy.load_state_dict(json.loads(json.dumps(state)))
    if copy.state_dict() != state:
        raise InvariantError("state_dict() changed in a JSON round trip")
    if not game.is_over and (
        copy.current_player != game.current_player
        or not np.array_equal(copy.action_mask(), game.action_mask())
    ):
        raise InvariantError("a loaded state asks another player or allows other actions")


def check_end(game: CardGame, truncated: bool) -> None:
    """What must hold when a game stops: conservation (the game's own check), valid ranks and a
    JSON round trip."""
    try:
        game.check_consistency()
    except ValueError as error:
        raise InvariantError(f"inconsistent state: {error}") from error
    check_ranks(game.truncation_ranks() if truncated else game.final_ranks(), game.num_players)
    check_round_trip(game)


@dataclass(frozen=True)
class SoakResult:
    """One random game: how long it ran, whether it hit the step cap, and the failure if any."""

    steps: int
    truncated: bool
    error: str | None = None


def check_decider(game: CardGame) -> None:
    """What must hold at every decision: the decider has a legal action."""
    if not np.count_nonzero(game.action_mask()):
        raise InvariantError(f"no legal action for player {game.current_player} in {game.phase!r}")


def soak_game(game: Table | CardGame, seed: int, max_steps: int | None = None) -> SoakResult:
    """Play one game with uniformly random legal actions and check it; never raises on a rule bug.

    Every step checks :func:`check_decider`; the end checks :func:`check_end`. An
    exception of the engine is a failure too.
    """
    engine = game if isinstance(game, CardGame) else game.engine()
    steps = 0

    def count(_game: CardGame, _seat: int) -> None:  # the steps so far, for a failure's report
        nonlocal steps
        steps += 1

    players = [RandomAgent()] * engine.num_players
    try:
        played = play_game(
            engine,
            players,
            np.random.default_rng(seed),
            max_steps or None,
            deal=seed,
            observe=False,  # random players read the mask alone; observing costs more than playing
            before_decision=check_decider,
            on_move=count,
        )
        check_end(engine, played.truncated)
    except Exception as error:  # a soak reports every failure with its seed instead of stopping
        return SoakResult(steps, not engine.is_over, f"{type(error).__name__}: {error}")
    return SoakResult(played.steps, played.truncated)
