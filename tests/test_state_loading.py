"""Every engine validates a loaded state: a bad one raises ValueError and changes nothing.

A property test over field-by-field mutations of real mid-game states, for
every registered game: each mutation either loads a state that plays on
correctly, or raises ValueError with the old state intact; never a later
IndexError, KeyError or TypeError.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from card_envs.core.registry import game_specs
from tests.env_checks import assert_valid_ranks
from tests.state_mutations import mid_game_states, mutations

SPECS = game_specs()


def play_on(game, steps: int, rng: np.random.Generator) -> None:
    """A loaded state must play on: consistent, a legal move for the decider, every query answered."""
    for _ in range(steps):
        game.check_consistency()
        json.dumps(game.state_dict())
        for seat in range(game.num_players):
            game.observe(seat)
        if game.is_over:
            assert_valid_ranks(game.ranks, game.num_players)
            return
        game.render_text()
        legal = game.legal_actions()
        assert legal, f"empty mask for player {game.current_player} in phase {game.phase}"
        game.step(int(rng.choice(legal)))
    assert_valid_ranks(game.truncation_ranks(), game.num_players)


def check_mutations(name: str, num_players: int, seeds: range, rules: dict | None = None) -> None:
    rules = rules or {}
    cls = SPECS[name].engine_class()
    rng = np.random.default_rng(0)
    for state in mid_game_states(name, num_players, seeds, rules):
        game = cls(num_players, **rules)
        game.load_state_dict(state)
        assert game.state_dict() == state, "a valid state loads unchanged"
        for what, bad in mutations(state):
            before = copy.deepcopy(game)
            try:
                game.load_state_dict(bad)
            except ValueError:
                assert game.state_dict() == state, f"{what}: a refused state changed the game"
                continue
            except Exception as error:  # any other exception is the failure to name
                pytest.fail(f"{what}: {type(error).__name__} instead of ValueError: {error}")
            try:
                play_on(game, 40, rng)
            except Exception as error:
                pytest.fail(f"{what}: loaded, then failed to play on: {type(error).__name__}: {error}")
            game = before


@pytest.mark.parametrize("name", sorted(SPECS))
def test_mutated_states_raise_value_error_or_play_on(name):
    cls = SPECS[name].engine_class()
    check_mutations(name, cls.default_players, range(1))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SPECS))
def test_mutated_states_all_table_sizes_and_variants(name):
    spec = SPECS[name]
    for players in spec.player_counts():
        for rules in ({}, *spec.rule_mixes):
            check_mutations(name, players, range(6), dict(rules))


def test_a_clone_plays_on_exactly_as_the_original_and_leaves_it_alone() -> None:
    import numpy as np

    from card_envs.core.registry import game_class

    for name in ("uno", "tock", "chipit"):
        game = game_class(name)(3)
        game.reset(11)
        rng = np.random.default_rng(0)
        for _ in range(30):
            game.step(int(rng.choice(game.legal_actions())))
        twin = game.clone()
        before = game.state_dict()
        assert twin.state_dict() == before and twin.dealt_holding == game.dealt_holding
        moves = np.random.default_rng(1)
        for _ in range(40):
            if twin.is_over:
                break
            twin.step(int(moves.choice(twin.legal_actions())))
        assert game.state_dict() == before
        replay, moves = game, np.random.default_rng(1)
        for _ in range(40):
            if replay.is_over:
                break
            replay.step(int(moves.choice(replay.legal_actions())))
        assert replay.state_dict() == twin.state_dict()
