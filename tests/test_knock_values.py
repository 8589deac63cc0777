"""bench/knock_values.py's parts: the order it adds is the engine's, its windows are seat 0's
knock windows, and a knock's value is a difference of two rank rewards."""

from __future__ import annotations

import numpy as np

from card_envs.agents import make_policy
from card_envs.batched import BatchedGame
from card_envs.batched.policy import batched_policy
from card_envs.games.tock.encoding import KNOCK, LAYOUT
from tests.scripts import load_script

bench = load_script("bench/knock_values.py")
MOVES = 20  # batched moves per part: a fixed amount of play, so no machine sees fewer windows


def played_batch(steps: int) -> BatchedGame:
    """Eight 4-player Tock games on the compiled engine, ``steps`` actions of rule-based play in."""
    batch = BatchedGame("tock", 8, 4)
    batch.reset(3)
    twin = batched_policy(make_policy("rule", "tock", 4))
    rows = batch.all_rows
    for _ in range(steps):
        batch.step(twin.act(batch.observations, batch.masks, batch.generators, rows), rows)
    return batch


def test_the_order_it_adds_is_each_pile_and_stack_from_the_top_as_the_engine_holds_them() -> None:
    batch = played_batch(600)  # far enough in that piles are deep and some stacks turned over
    features = bench.order_features(batch.kernels.state, batch.all_rows)
    deep = False
    for row in range(batch.batch_size):
        table = batch.engine(row).table
        for seat in range(4):
            pile = features[row, seat * 2 * bench.DEPTH : (seat * 2 + 1) * bench.DEPTH]
            stack = features[row, (seat * 2 + 1) * bench.DEPTH : (seat + 1) * 2 * bench.DEPTH]
            expected_pile = table.piles[seat][::-1][: bench.DEPTH]
            expected_stack = table.stacks[seat][::-1][: bench.DEPTH]
            assert pile.tolist() == expected_pile + [0] * (bench.DEPTH - len(expected_pile))
            assert stack.tolist() == expected_stack + [0] * (bench.DEPTH - len(expected_stack))
            deep |= len(table.piles[seat]) > 2 and len(table.stacks[seat]) > 2
    assert deep  # the order beyond the top cards was compared somewhere


def test_it_values_a_knock_at_each_knock_window_of_seat_0_and_keeps_workers_games_apart() -> None:
    parts = [bench.collect(seed, 0.0, order=True, moves=MOVES) for seed in (1, 2)]
    for part in parts:
        assert part.d.size and part.features.shape == (part.d.size, LAYOUT.size + 4 * 2 * bench.DEPTH)
        phase = part.features[:, LAYOUT.slices["phase"]]
        turn = part.features[:, LAYOUT.slices["turn"]]
        assert (phase[:, 1] == 1).all() and (turn[:, 0] != 1).all()  # a knock window, another's move
        steps = part.d * 3 / 2  # rank rewards of 4 players differ by multiples of 2/3
        assert np.allclose(steps, np.round(steps), atol=1e-5) and np.abs(part.d).max() <= 2
        assert (part.d != 0).any()
    both = bench.Windows.concatenate(parts)
    assert both.d.size == sum(p.d.size for p in parts) and both.played == sum(p.played for p in parts)
    assert not set(both.games[: parts[0].d.size]) & set(both.games[parts[0].d.size :])


def test_with_a_horizon_each_copy_is_cut_that_many_actions_after_the_window() -> None:
    batch = BatchedGame("tock", 64, 4)
    batch.reset(5)
    twin = batched_policy(make_policy(bench.LAPSE_FREE, "tock", 4))
    rows = np.arange(16, dtype=np.int64)
    for _ in range(400):  # until some of the first 16 games wait on seat 0's knock
        windows = rows[(batch.current_players[rows] == 0) & (batch.masks[rows, KNOCK] > 0)]
        if windows.size:
            break
        batch.step(twin.act(batch.observations[rows], batch.masks[rows], batch.generators, rows), rows)
    assert windows.size
    scratch = np.arange(16, 64, dtype=np.int64)
    d = bench.knock_values(batch, windows, scratch, twin, horizon=3)
    played = scratch[: 2 * windows.size]
    cut = batch.max_steps
    assert (
        d.shape == (windows.size,) and ((batch.steps[played] >= cut - 3) & (batch.steps[played] <= cut)).all()
    )
    assert not batch.masks[played].any()  # every copy ended within its 3 actions (cut, or over)
