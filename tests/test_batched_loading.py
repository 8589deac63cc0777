"""Loading states into a batch, and taking games out of it: the kernels' codec.

``BatchedGame.load(i, state)`` puts a ``state_dict()`` into game ``i`` and
``BatchedGame.engine(i)`` hands game ``i`` over as a reference engine. The
differential tests here start where ``tests/test_batched.py`` cannot: from
mid-game states of random reference play, and from the field-by-field mutations
of those states (``tests/state_mutations.py``) that the reference engine accepts.
Each is loaded into a batch row and into a reference engine whose generator is
in the same state; then both play the same random legal actions, their
``state_dict()``, masks and every seat's observations compared at every step.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from card_envs.batched import BatchedGame, batched_games, random_actions
from card_envs.core.game import CardGame
from card_envs.core.registry import game_spec
from tests.state_mutations import mid_game_states, mutations

#: the one kind of state a reference engine takes and a batch cannot hold: more draws of a
#: last move than an action causes (a hand-made record; the batch keeps two)
BATCH_LIMIT = "a batched game keeps at most"


def reference_twin(batch: BatchedGame, state: dict, seed: int) -> CardGame:
    """A reference engine of the batch's table that loaded ``state``, its generator seeded with ``seed``."""
    game = batch.reference.from_rules(batch.num_players, **batch.reference.rules)
    game.load_state_dict(copy.deepcopy(state))
    game.rng = np.random.default_rng(seed)
    return game


def assert_same(batch: BatchedGame, b: int, game: CardGame, where: str) -> None:
    """Game ``b`` of the batch is ``game``: state, decider, mask and every seat's observation."""
    assert batch.state_dict(b) == game.state_dict(), where
    n = game.num_players
    seen = batch.observe(np.full(n, b), np.arange(n))
    for seat in range(n):
        np.testing.assert_array_equal(seen[seat], game.observe(seat), err_msg=f"{where}, seat {seat}")
    if not game.is_over:
        assert batch.current_players[b] == game.current_player, where
        np.testing.assert_array_equal(batch.masks[b], game.action_mask(), err_msg=where)


def play_loaded(batch: BatchedGame, states: list[dict], steps: int, seed: int) -> int:
    """Load ``states`` into rows 0.. of ``batch`` and into reference twins; play both ``steps``
    steps (or to the end) with the same random legal actions, comparing everything; returns
    the games that ended."""
    refs = []
    for b, state in enumerate(states):
        batch.load(b, state, seed=seed + b)
        refs.append(reference_twin(batch, state, seed + b))
    rng = np.random.default_rng(seed)
    active = np.array([b for b, game in enumerate(refs) if not game.is_over], np.int64)
    ended = len(states) - active.size
    for step in range(steps):
        for b in range(len(refs)):
            assert_same(batch, b, refs[b], f"game {b} at step {step}")
        if not active.size:
            break
        actions = random_actions(batch.masks[active], rng)
        result = batch.step(actions, rows=active, reset_ended=False)
        for i, b in enumerate(active.tolist()):
            game = refs[b]
            game.step(int(actions[i]))
            assert result.terminated[i] == game.is_over, f"game {b} at step {step}"
            if game.is_over:
                assert result.ranks[i].tolist() == game.final_ranks()
        ended += int(result.terminated.sum())
        active = active[~result.terminated]
    return ended


TABLES = [
    pytest.param(name, n, rules, id=f"{name}-{n}p-{i}")
    for name in batched_games()
    for n in game_spec(name).player_counts()
    for i, rules in enumerate([{}, *game_spec(name).rule_mixes])
]


@pytest.mark.parametrize(("name", "n", "rules"), TABLES)
def test_games_loaded_mid_game_play_on_exactly_as_the_reference(name: str, n: int, rules: dict) -> None:
    states = mid_game_states(name, n, range(100 * n, 100 * n + 6), rules)
    batch = BatchedGame(name, len(states), n, **rules)
    batch.reset(seed=0)
    play_loaded(batch, states, steps=120, seed=n)


def accepted_mutations(name: str, n: int, seeds: range, rules: dict) -> list[dict]:
    """The mutated mid-game states a reference engine accepts, as it writes them back."""
    cls = game_spec(name).engine_class()
    accepted = []
    for state in mid_game_states(name, n, seeds, rules):
        for _, bad in mutations(state):
            game = cls.from_rules(n, **rules)
            try:
                game.load_state_dict(bad)
            except ValueError:
                continue
            accepted.append(game.state_dict())
    return accepted


def loadable_mutations(name: str, n: int, seeds: range, rules: dict) -> list[dict]:
    """The accepted mutated states, each checked to load into a batch (bar the batch's one limit)."""
    states = []
    for state in accepted_mutations(name, n, seeds, rules):
        probe = BatchedGame(name, 1, n, **rules)
        probe.reset(seed=0)
        try:
            probe.load(0, state)
        except ValueError as error:
            assert BATCH_LIMIT in str(error), error
            continue
        states.append(state)
    return states


def check_mutated_states(name: str, n: int, seeds: range, rules: dict, steps: int) -> int:
    """Every accepted mutated state loads into a batch (bar the batch's one limit) and plays
    on there exactly as in the reference; returns how many were played."""
    states = loadable_mutations(name, n, seeds, rules)
    assert states, "some mutated states are accepted"
    for start in range(0, len(states), 64):
        chunk = states[start : start + 64]
        batch = BatchedGame(name, len(chunk), n, **rules)
        batch.reset(seed=1)
        play_loaded(batch, chunk, steps=steps, seed=start)
    return len(states)


@pytest.mark.parametrize("name", batched_games())
def test_mutated_states_play_on_in_the_batch_exactly_as_in_the_reference(name: str) -> None:
    n = game_spec(name).engine_class().default_players
    check_mutated_states(name, n, range(2), {}, steps=25)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "n", "rules"), TABLES)
def test_mutated_states_of_every_table_play_on_in_the_batch(name: str, n: int, rules: dict) -> None:
    check_mutated_states(name, n, range(4), rules, steps=80)


@pytest.mark.parametrize("name", batched_games())
def test_a_state_round_trips_through_a_batch_row(name: str) -> None:
    n = game_spec(name).engine_class().default_players
    batch = BatchedGame(name, 3, n)
    batch.reset(seed=5)
    for state in mid_game_states(name, n, range(8), {}):
        batch.load(1, state)
        assert batch.state_dict(1) == state
        assert batch.engine(1).state_dict() == state
        assert batch.kernels.state_dict(1) == state


@pytest.mark.parametrize("name", batched_games())
def test_an_engine_taken_out_plays_on_as_the_batch(name: str) -> None:
    """``engine(i)`` carries the game's generator: UNO's reshuffles draw the same."""
    batch = BatchedGame(name, 4)
    batch.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(40):
        batch.step(random_actions(batch.masks, rng))
    games = [batch.engine(b) for b in range(4)]
    for b, game in enumerate(games):
        assert game.seed == batch.seeds[b]
        assert game.rng.bit_generator.state == batch.generators[b].bit_generator.state
    for step in range(300):
        rows = np.array([b for b, game in enumerate(games) if not game.is_over], np.int64)
        if not rows.size:
            break
        actions = random_actions(batch.masks[rows], rng)
        batch.step(actions, rows=rows, reset_ended=False)
        for i, b in enumerate(rows.tolist()):
            games[b].step(int(actions[i]))
            assert batch.state_dict(b) == games[b].state_dict(), f"game {b} at step {step}"


@pytest.mark.parametrize("name", batched_games())
def test_engine_progress_is_the_references(name: str) -> None:
    """``engine(i).progress()`` counts from the game's deal, as the reference engine's does
    (UNO's ``engine(i)`` once counted from 1.0 card held, not 7: progress -5.0)."""
    batch = BatchedGame(name, 24)
    batch.reset(seed=4)
    refs = []
    for b in range(batch.batch_size):
        game = batch.reference.from_rules(batch.num_players)
        game.reset(int(batch.seeds[b]))
        refs.append(game)
    rng = np.random.default_rng(4)
    for _ in range(6):
        actions = random_actions(batch.masks, rng)
        assert not batch.step(actions).ended.any()
        for b, game in enumerate(refs):
            game.step(int(actions[b]))
    for b, game in enumerate(refs):
        taken = batch.engine(b)
        assert taken.dealt_holding == game.dealt_holding == batch.dealt_holding[b]
        for seat in range(game.num_players):
            assert taken.progress(seat) == game.progress(seat), f"game {b}, seat {seat}"


def test_uno_deals_that_make_seat_0_draw_keep_that_holding() -> None:
    """A Draw Two turned up makes seat 0 draw two at the deal (unless it stacks): 7.5 cards
    held on average at four seats, as the reference engine counts them."""
    batch = BatchedGame("uno", 200, 4)
    batch.reset(seed=0)
    for b in range(batch.batch_size):
        game = batch.reference.from_rules(4)
        game.reset(int(batch.seeds[b]))
        assert batch.dealt_holding[b] == game.dealt_holding, f"game {b}"
    opened = np.flatnonzero(batch.dealt_holding == 7.5)
    assert opened.size, "some of 200 deals make seat 0 draw"
    assert batch.engine(int(opened[0])).dealt_holding == 7.5


@pytest.mark.parametrize("name", batched_games())
def test_a_refused_state_changes_nothing(name: str) -> None:
    batch = BatchedGame(name, 2)
    batch.reset(seed=3)
    state = batch.state_dict(0)
    before = (
        [batch.state_dict(b) for b in range(2)],
        batch.observations.copy(),
        batch.masks.copy(),
        batch.seeds.copy(),
        [g.bit_generator.state for g in batch.generators],
    )
    bad = copy.deepcopy(state)
    bad["num_players"] = 99
    with pytest.raises(ValueError, match="players"):
        batch.load(1, bad, seed=7)
    refused = 0
    for _, mutated in mutations(state):
        try:
            batch.reference.from_rules(batch.num_players).load_state_dict(mutated)
        except ValueError:
            with pytest.raises(ValueError):
                batch.load(1, mutated, seed=7)
            refused += 1
    assert refused > 20
    with pytest.raises(ValueError, match="index"):
        batch.load(2, state)
    with pytest.raises(ValueError, match="not both"):
        batch.load(1, state, seed=1, generator=np.random.default_rng(1))
    with pytest.raises(ValueError, match="PCG64"):
        batch.load(1, state, generator=np.random.Generator(np.random.Philox(1)))
    with pytest.raises(ValueError, match="seed"):
        batch.load(1, state, seed=-1)
    after = (
        [batch.state_dict(b) for b in range(2)],
        batch.observations,
        batch.masks,
        batch.seeds,
        [g.bit_generator.state for g in batch.generators],
    )
    assert before[0] == after[0] and before[3].tolist() == after[3].tolist() and before[4] == after[4]
    np.testing.assert_array_equal(before[1], after[1])
    np.testing.assert_array_equal(before[2], after[2])


def test_uno_refuses_a_last_move_with_more_draws_than_a_batch_keeps() -> None:
    batch = BatchedGame("uno", 1, 2)
    batch.reset(seed=0)
    rng = np.random.default_rng(0)
    while batch.state_dict(0)["last_move"] is None:
        batch.step(random_actions(batch.masks, rng))
    state = batch.state_dict(0)
    state["last_move"]["draws"] = [[0, 1], [1, 1], [0, 1]]
    batch.reference.load_state_dict(state)  # the reference engine takes it
    before = batch.state_dict(0)
    with pytest.raises(ValueError, match=BATCH_LIMIT):
        batch.load(0, state)
    assert batch.state_dict(0) == before


@pytest.mark.parametrize("name", batched_games())
def test_load_sets_the_games_generator(name: str) -> None:
    batch = BatchedGame(name, 2)
    batch.reset(seed=6)
    state = batch.state_dict(0)
    batch.load(1, state, seed=12)
    assert batch.seeds[1] == 12 and batch.steps[1] == 0
    assert batch.generators[1].bit_generator.state == np.random.default_rng(12).bit_generator.state
    mine = np.random.default_rng(99)
    mine.random()
    expected = copy.deepcopy(mine.bit_generator.state)
    batch.load(1, state, generator=mine)
    assert batch.generators[1].bit_generator.state == expected == mine.bit_generator.state
    assert batch.seeds[1] == 12  # a generator sets no seed
    kept = copy.deepcopy(batch.generators[0].bit_generator.state)
    batch.load(0, batch.state_dict(1))
    assert batch.generators[0].bit_generator.state == kept
    np.testing.assert_array_equal(batch.masks[0], batch.masks[1])
    np.testing.assert_array_equal(batch.observations[0], batch.observations[1])


@pytest.mark.parametrize("name", batched_games())
def test_an_engine_loaded_into_a_row_plays_on_as_the_engine_itself(name: str) -> None:
    """``load_engine`` takes the position and the generator; the engine is left untouched."""
    cls = game_spec(name).engine_class()
    batch = BatchedGame(name, 3, 4)
    batch.reset(seed=0)
    rng = np.random.default_rng(5)
    for row in range(3):
        game = cls(4)
        game.reset(40 + row)
        for _ in range(20 * row):
            game.step(int(rng.choice(game.legal_actions())))
        before = game.state_dict()
        batch.load_engine(row, game)
        assert game.state_dict() == before
        for step in range(60):
            assert_same(batch, row, game, f"row {row} step {step}")
            if game.is_over:
                break
            action = int(rng.choice(game.legal_actions()))
            batch.step(np.array([action]), rows=np.array([row]), reset_ended=False)
            game.step(action)
    with pytest.raises(ValueError, match="does not fit"):
        batch.load_engine(0, cls(2))
