"""Property tests (hypothesis): arbitrary legal action sequences at every player count and
variant keep every invariant, survive JSON, clone exactly and replay from their records."""

from __future__ import annotations

import copy
import tempfile

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from card_envs.core.game import SEED_BOUND, CardGame
from card_envs.core.registry import game_class, game_spec, game_specs
from card_envs.evaluation.soak import check_end, check_ranks, check_round_trip
from card_envs.records.record import GameRecorder, replay

#: every table of every registered game: all player counts, default rules and each rule mix
ALL_TABLES = [
    (name, n, rules)
    for name in sorted(game_specs())
    for rules in [{}, *(dict(mix) for mix in game_spec(name).rule_mixes)]
    for n in range(game_class(name).min_players, game_class(name).max_players + 1)
]

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def games_in_play(draw) -> tuple[CardGame, list[int]]:
    """A dealt game of any table and a sequence of choices (each picks a legal action by index)."""
    name, n, rules = draw(st.sampled_from(ALL_TABLES))
    game = game_class(name).from_rules(n, **rules)
    game.reset(draw(st.integers(0, SEED_BOUND - 1)))
    choices = draw(st.lists(st.integers(0, 2**16), max_size=400))
    return game, choices


def step_by_choice(game: CardGame, choice: int) -> None:
    legal = game.legal_actions()
    assert legal, f"no legal action for player {game.current_player} in {game.phase!r}"
    game.step(legal[choice % len(legal)])


def observations_fit(game: CardGame) -> None:
    layout = game.observation_layout
    for seat in range(game.num_players):
        obs = game.observe(seat)
        assert obs.dtype == np.float32 and obs.shape == (layout.size,)
        assert np.all(obs >= layout.low) and np.all(obs <= layout.high), f"seat {seat} out of bounds"


@PROPERTY
@given(games_in_play())
def test_any_legal_sequence_keeps_the_invariants(case):
    game, choices = case
    for choice in choices:
        if game.is_over:
            break
        step_by_choice(game, choice)
        game.check_consistency()  # cards and chips conserved, counts agree
    observations_fit(game)
    if game.is_over:
        check_ranks(game.final_ranks(), game.num_players)
        assert not game.action_mask().any()


@PROPERTY
@given(games_in_play(), st.integers(0, 2**16))
def test_state_survives_json_and_clones_evolve_identically(case, split):
    game, choices = case
    head, tail = choices[: split % (len(choices) + 1)], choices[split % (len(choices) + 1) :]
    for choice in head:
        if game.is_over:
            break
        step_by_choice(game, choice)
    check_round_trip(game)
    loaded = type(game).from_rules(game.num_players, **game.rules)
    loaded.load_state_dict(game.state_dict())
    loaded.rng.bit_generator.state = game.rng.bit_generator.state  # what the game draws next
    clones = [copy.deepcopy(game), loaded]
    for choice in tail:
        if game.is_over:
            break
        for g in (game, *clones):
            step_by_choice(g, choice)
        state = game.state_dict()
        assert all(clone.state_dict() == state for clone in clones)


@PROPERTY
@given(games_in_play())
def test_a_recorded_game_replays_to_the_same_state(case):
    game, choices = case
    with tempfile.TemporaryDirectory() as directory:
        game.recorder = GameRecorder(directory)
        game.reset(game.seed)  # deal again, recording
        for choice in choices:
            if game.is_over:
                break
            step_by_choice(game, choice)
        path = game.recorder.save() or game.recorder.saved[-1]
        assert replay(path).state_dict() == game.state_dict()
    if game.is_over:
        check_end(game, truncated=False)
