"""``BatchedGame.play_out``: whole play-outs in one compiled call, exactly as stepping them.

Mid-game states (``tests/state_mutations.py``) are loaded into the rows of two batches with
the same generator states; one is played out by ``play_out`` (compiled, or stepped for a twin
without row functions), the other by the loop a caller would write around ``step()``. Both
must give the same ranks, truncations and step counts, and leave every row (state, generator,
observation, mask, decider, step count) the same.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pytest

from card_envs.agents.registry import rule_agent_spec
from card_envs.batched import BatchedGame, PlayOut, batched_games, random_actions
from card_envs.batched.playout import play_out_loop
from card_envs.batched.policy import BatchedPolicy, BatchedRandomAgent, batched_policy
from card_envs.core.compiled import compiled_dependencies
from card_envs.core.game import IllegalActionError
from card_envs.core.registry import game_spec
from tests.state_mutations import mid_game_states
from tests.test_batched_loading import loadable_mutations

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def one_thread():
    """Stepped loops of a few rows, as a search runs them: the parallel kernels' threads only
    cost there (milliseconds a step on a busy machine)."""
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(threads)


class SteppedOnly(BatchedPolicy):
    """A twin's decisions without its row act: ``play_out`` must fall back to stepping."""

    def __init__(self, twin: BatchedPolicy) -> None:
        self.twin = twin

    def act(
        self, observations: np.ndarray, masks: np.ndarray, generators: Any, rows: np.ndarray
    ) -> np.ndarray:
        return self.twin.act(observations, masks, generators, rows)


def twins(name: str, n: int) -> list[BatchedPolicy]:
    """The rule agent's twin at its default knobs and at each of its knob mix, and the random agent."""
    spec = rule_agent_spec(name)
    rule = [batched_policy(spec.agent(n, **knobs)) for knobs in [{}, *spec.knob_mix]]
    return [*rule, BatchedRandomAgent()]


def loaded(
    name: str, n: int, rules: dict, states: list[dict], max_steps: int | None, warm_up: int
) -> BatchedGame:
    """A batch with ``states`` in its rows (seeded by row), each then stepped ``warm_up`` random
    steps (unless it ends), so that the play-outs start from step counts other than 0."""
    batch = BatchedGame(name, len(states) + 2, n, max_steps=max_steps, **rules)
    batch.reset(seed=5)
    for b, state in enumerate(states):
        batch.load(b, state, seed=1000 + b)
    live = np.flatnonzero(batch.masks[: len(states)].any(axis=1))
    rng = np.random.default_rng(7)
    for _ in range(warm_up):
        if not live.size:
            break
        result = batch.step(random_actions(batch.masks[live], rng), live, reset_ended=False)
        live = live[~result.ended]
    return batch


def live_rows(batch: BatchedGame, count: int) -> np.ndarray:
    """The first ``count`` rows that can still move, in reverse order (rows need not be sorted)."""
    return np.flatnonzero(batch.masks[:count].any(axis=1))[::-1].astype(np.int64)


def stepped_play_out(
    batch: BatchedGame, rows: np.ndarray, twin: BatchedPolicy | list[BatchedPolicy]
) -> PlayOut:
    """The loop around ``step()`` that ``play_out`` replaces (as the search's rollouts wrote it);
    with one twin per seat, each row asks its decider's twin alone."""
    seat_twins = twin if isinstance(twin, list) else [twin] * batch.num_players
    start = batch.steps[rows].copy()
    ranks = np.zeros((rows.size, batch.num_players), np.int64)
    truncated = np.zeros(rows.size, bool)
    live = np.arange(rows.size)
    while live.size:
        played = rows[live]
        actions = np.array(
            [
                seat_twins[batch.current_players[b]].act(
                    batch.observations[[b]], batch.masks[[b]], batch.generators, np.array([b])
                )[0]
                for b in played.tolist()
            ],
            dtype=np.int64,
        )
        result = batch.step(actions, played, reset_ended=False)
        ranks[live[result.ended]] = result.ranks[result.ended]
        truncated[live[result.ended]] = result.truncated[result.ended]
        live = live[~result.ended]
    return PlayOut(ranks, truncated, batch.steps[rows] - start)


def assert_same_rows(played: BatchedGame, stepped: BatchedGame, where: str) -> None:
    for b in range(played.batch_size):
        assert played.state_dict(b) == stepped.state_dict(b), f"{where}, row {b}"
        assert played.engine(b).rng.bit_generator.state == stepped.engine(b).rng.bit_generator.state, where
    for field in ("observations", "masks", "current_players", "steps"):
        np.testing.assert_array_equal(
            getattr(played, field), getattr(stepped, field), err_msg=f"{where}: {field}"
        )


def check_play_outs(
    name: str, n: int, rules: dict, seeds: range, *, max_steps: int | None = None, warm_up: int = 0
) -> list[PlayOut]:
    """Every twin's play-out (compiled, and through the stepped fallback) from mid-game states
    equals the stepped loop's; returns the stepped loop's play-outs."""
    return check_states(name, n, rules, mid_game_states(name, n, seeds, rules), max_steps, warm_up)


def check_states(
    name: str, n: int, rules: dict, states: list[dict], max_steps: int | None, warm_up: int
) -> list[PlayOut]:
    results = []
    for twin in twins(name, n):
        stepped = loaded(name, n, rules, states, max_steps, warm_up)
        rows = live_rows(stepped, len(states))
        expected = stepped_play_out(stepped, rows, twin)
        for player in (twin, SteppedOnly(twin)):
            where = f"{name} {n}p {rules} {player!r}"
            batch = loaded(name, n, rules, states, max_steps, warm_up)
            result = batch.play_out(rows, player)
            for field in PlayOut._fields:
                np.testing.assert_array_equal(getattr(result, field), getattr(expected, field), err_msg=where)
            assert_same_rows(batch, stepped, where)
        results.append(expected)
    return results


@pytest.mark.parametrize("name", batched_games())
def test_play_outs_from_mid_game_states_are_the_stepped_loops(name: str) -> None:
    n = game_spec(name).engine_class().default_players
    results = check_play_outs(name, n, {}, range(2))
    assert all(not r.truncated.any() and (r.steps > 0).all() for r in results)
    assert all(sorted(ranks.tolist())[0] == 1 for r in results for ranks in r.ranks)  # someone wins


@pytest.mark.parametrize("name", batched_games())
def test_truncated_play_outs_count_from_each_rows_steps_and_rank_as_step_does(name: str) -> None:
    n = game_spec(name).engine_class().default_players
    results = check_play_outs(name, n, {}, range(4), max_steps=12, warm_up=4)
    assert any(r.truncated.any() for r in results)
    for r in results:  # 12 steps in all, 4 (or fewer, where a row ended) of them before the play-out
        assert (r.steps[r.truncated] <= 12).all() and (r.steps[r.truncated] >= 8).all()


@pytest.mark.parametrize("name", batched_games())
def test_each_seat_plays_with_its_own_knobs_compiled_or_stepped(name: str) -> None:
    """One twin per seat (the searching seat lapse-free, say): the same play-outs as asking
    each row's decider's twin alone, in one compiled call and through the stepped fallback."""
    n = game_spec(name).engine_class().default_players
    kinds = twins(name, n)[:-1]  # the rule agent at its default knobs and its knob mix
    seated = [kinds[seat % len(kinds)] for seat in range(n)]
    states = mid_game_states(name, n, range(4), {})
    stepped = loaded(name, n, {}, states, None, 0)
    rows = live_rows(stepped, len(states))
    expected = stepped_play_out(stepped, rows, seated)
    for players in (seated, [SteppedOnly(t) for t in seated]):
        batch = loaded(name, n, {}, states, None, 0)
        result = batch.play_out(rows, players)
        for field in PlayOut._fields:
            np.testing.assert_array_equal(getattr(result, field), getattr(expected, field), err_msg=name)
        assert_same_rows(batch, stepped, f"{name} seated {players!r}")
    fresh = loaded(name, n, {}, states, None, 0)
    with pytest.raises(ValueError, match=f"one player or {n}"):
        fresh.play_out(rows, seated[:-1])
    mixed = [BatchedRandomAgent(), *seated[1:]]  # two kinds of player: stepped, seat by seat
    assert (fresh.play_out(rows, mixed).steps > 0).all()


class NoStateArrays:
    """A game's kernels without the ``state`` tuple: ``copy_row`` must go through the codec."""

    def __init__(self, kernels: Any) -> None:
        self._kernels = kernels

    def __getattr__(self, name: str) -> Any:
        if name == "state":
            raise AttributeError(name)
        return getattr(self._kernels, name)


@pytest.mark.parametrize("name", batched_games())
def test_a_copied_row_is_the_same_game_and_plays_on_alike(name: str) -> None:
    n = game_spec(name).engine_class().default_players
    for codec in (False, True):
        batch = loaded(name, n, {}, mid_game_states(name, n, range(3), {}), None, 2)
        if codec:
            batch.kernels = NoStateArrays(batch.kernels)  # type: ignore[assignment]
        source = int(live_rows(batch, 3)[0])
        others = [b for b in range(batch.batch_size) if b != source][:2]
        batch.copy_row(source, others)
        for b in others:
            assert batch.state_dict(b) == batch.state_dict(source), (name, codec)
            assert batch.engine(b).rng.bit_generator.state == batch.engine(source).rng.bit_generator.state
            for field in ("observations", "masks", "current_players", "steps", "seeds"):
                np.testing.assert_array_equal(getattr(batch, field)[b], getattr(batch, field)[source])
        played = batch.play_out(np.array([source, *others], np.int64), twins(name, n)[0])
        assert len({tuple(r) for r in played.ranks.tolist()}) == 1 and len(set(played.steps.tolist())) == 1


def test_the_loop_compiles_once_per_game_and_player_kind_not_per_knob_setting() -> None:
    name = "uno"
    states = mid_game_states(name, 2, range(3), {})
    batch = loaded(name, 2, {}, states, None, 0)
    batch.play_out(live_rows(batch, 3), twins(name, 2)[0])
    loop = play_out_loop(tuple(batch.kernels.row_functions()[1:]), twins(name, 2)[0].row_act()[1])
    compiled = len(loop.overloads)
    for twin in twins(name, 2)[1:-1]:  # the knob mix
        batch = loaded(name, 2, {}, states, None, 0)
        batch.play_out(live_rows(batch, 3), twin)
    assert len(loop.overloads) == compiled


@pytest.mark.slow
def test_a_new_process_loads_the_loop_from_the_disk_cache() -> None:
    """The loop of a game and player kind is compiled once, then read from numba's cache (a
    search's first rollouts in every worker used to compile it, about 2 s a table)."""
    script = (
        "from card_envs.batched import BatchedGame\n"
        "from card_envs.batched.playout import _LOOPS\n"
        "from card_envs.batched.policy import BatchedRandomAgent\n"
        "batch = BatchedGame('chipit', 2, 3)\n"
        "batch.reset(seed=1)\n"
        "batch.play_out([0, 1], BatchedRandomAgent())\n"
        "(loop,) = _LOOPS.values()\n"
        "print(loop.stats.cache_hits[loop.signatures[0]], loop.stats.cache_misses[loop.signatures[0]])\n"
    )
    batch = BatchedGame("chipit", 2, 3)
    batch.reset(seed=1)
    batch.play_out([0, 1], BatchedRandomAgent())  # compiled here if it was not cached yet
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    hits, misses = map(int, run.stdout.split())
    assert (hits, misses) == (1, 0), run.stdout + run.stderr


def test_a_cached_loop_is_stamped_with_the_game_and_player_modules_and_what_they_read() -> None:
    """A change to a rule, to a player or to a constant they read compiles the loop again
    (card_envs.core.compiled stamps numba's cache with these files' contents)."""
    batch = loaded("uno", 4, {}, mid_game_states("uno", 4, range(2), {}), None, 0)
    twin = twins("uno", 4)[0]
    batch.play_out(live_rows(batch, 2), twin)
    loop = play_out_loop(tuple(batch.kernels.row_functions()[1:]), twin.row_act()[1])
    stamped = {
        Path(f).relative_to(ROOT).as_posix()
        for f in compiled_dependencies(sys.modules[loop.py_func.__module__].__file__)
    }
    assert {
        "card_envs/games/uno/kernels.py",
        "card_envs/games/uno/encoding.py",
        "card_envs/agents/uno/compiled.py",
    } <= stamped


@pytest.mark.slow  # it compiles the loop, a few seconds
def test_a_row_act_that_cannot_be_imported_by_name_plays_through_a_loop_of_its_process() -> None:
    @numba.njit
    def first_legal(a, observation, mask, gen):  # defined here: no module name reaches it
        return np.flatnonzero(mask)[0]

    class FirstLegal(BatchedPolicy):
        def act(self, observations, masks, generators, rows):
            return np.array([np.flatnonzero(m)[0] for m in masks], np.int64)

        def row_act(self):
            return (), first_legal

    states = mid_game_states("uno", 3, range(3), {})
    stepped = loaded("uno", 3, {}, states, None, 0)
    rows = live_rows(stepped, len(states))
    expected = stepped_play_out(stepped, rows, SteppedOnly(FirstLegal()))
    batch = loaded("uno", 3, {}, states, None, 0)
    result = batch.play_out(rows, FirstLegal())
    for field in PlayOut._fields:
        np.testing.assert_array_equal(getattr(result, field), getattr(expected, field))
    assert_same_rows(batch, stepped, "first legal")


def test_bad_rows_are_refused_as_step_refuses_them_and_nothing_changes() -> None:
    batch = BatchedGame("tock", 4, 2)
    with pytest.raises(RuntimeError, match="reset"):
        batch.play_out([0], BatchedRandomAgent())
    batch.reset(seed=3)
    before = [batch.state_dict(b) for b in range(4)]
    for rows in ([0, 0], [4], [-1], np.array([[0]]), [0.5]):
        with pytest.raises(ValueError, match="rows must"):
            batch.play_out(rows, BatchedRandomAgent())
    batch.play_out([1], BatchedRandomAgent())
    ended = batch.state_dict(1)
    with pytest.raises(IllegalActionError, match="game 1 has ended"):
        batch.play_out([0, 1], BatchedRandomAgent())
    with pytest.raises(IllegalActionError, match="legal: none"):  # as step() refuses the row
        batch.step([0], [1])
    assert batch.state_dict(0) == before[0] and batch.state_dict(1) == ended


def test_a_policy_is_played_through_its_twin() -> None:
    spec = rule_agent_spec("chipit")
    states = mid_game_states("chipit", 3, range(3), {})
    first, second = (loaded("chipit", 3, {}, states, None, 0) for _ in range(2))
    rows = live_rows(first, 3)
    a = first.play_out(rows, spec.agent(3))
    b = second.play_out(rows, batched_policy(spec.agent(3)))
    assert a.ranks.tolist() == b.ranks.tolist() and a.steps.tolist() == b.steps.tolist()


TABLES = [
    pytest.param(name, n, rules, id=f"{name}-{n}p-{i}")
    for name in batched_games()
    for n in game_spec(name).player_counts()
    for i, rules in enumerate([{}, *game_spec(name).rule_mixes])
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "n", "rules"), TABLES)
def test_play_outs_of_every_table_are_the_stepped_loops(name: str, n: int, rules: dict) -> None:
    check_play_outs(name, n, rules, range(10 * n, 10 * n + 24))
    check_play_outs(name, n, rules, range(8), max_steps=40, warm_up=10)


@pytest.mark.slow
@pytest.mark.parametrize("name", batched_games())
def test_play_outs_from_mutated_states_are_the_stepped_loops(name: str) -> None:
    n = game_spec(name).engine_class().default_players
    states = loadable_mutations(name, n, range(2), {})
    assert states
    for start in range(0, len(states), 64):
        check_states(name, n, {}, states[start : start + 64], None, 0)
