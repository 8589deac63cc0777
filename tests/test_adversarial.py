"""Adversarial input through both envs: every kind of bad action or reset argument either
works as documented or raises a clear error, and leaves ``state_dict()`` byte-for-byte as it was."""

from __future__ import annotations

import copy
import json

import gymnasium
import numpy as np
import pytest

from card_envs.core.game import IllegalActionError
from tests.test_generic_envs import GAMES, GYM_IDS, aec_module

INTEGER_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, int]


def frozen(env) -> str:
    return json.dumps(env.unwrapped.state_dict(), sort_keys=True)


def bad_actions(num_actions: int, mask: np.ndarray) -> list:
    """One of every kind: masked out, out of range, negative, float, text, None, bools, arrays."""
    illegal = np.flatnonzero(mask == 0)
    legal = int(np.flatnonzero(mask)[0])
    actions = [
        num_actions,
        num_actions + 10**9,
        -1,
        -num_actions,
        float(legal),
        np.float32(legal),
        str(legal),
    ]
    actions += [None, True, np.bool_(False), [legal], np.array([legal]), np.array(float(legal)), 2**70]
    return actions + ([int(illegal[0])] if illegal.size else [])


def aec_in_play(game: str, moves: int = 7):
    env = aec_module(game).env()
    env.reset(seed=13)
    rng = np.random.default_rng(13)
    for _ in range(moves):
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    return env


@pytest.mark.parametrize("game", GAMES)
def test_aec_bad_actions_raise_naming_the_legal_choices_and_change_nothing(game):
    env = aec_in_play(game)
    before, selected = frozen(env), env.agent_selection
    mask = env.last()[0]["action_mask"]
    for action in bad_actions(env.unwrapped.game.num_actions, mask):
        with pytest.raises(IllegalActionError, match="legal: ") as raised:
            env.step(action)
        assert repr(action)[:5] in str(raised.value) or str(action)[:5] in str(raised.value)
        assert frozen(env) == before and env.agent_selection == selected
    env.step(int(np.flatnonzero(mask)[0]))  # and the game goes on


@pytest.mark.parametrize("game", GAMES)
def test_every_numpy_integer_type_and_0d_array_is_a_valid_action(game):
    env = aec_in_play(game)
    legal = np.flatnonzero(env.last()[0]["action_mask"])
    expected = copy.deepcopy(env)
    expected.step(int(legal[-1]))
    for kind in INTEGER_TYPES:
        if legal[-1] > np.iinfo(np.int64 if kind is int else kind).max:
            continue  # int8 cannot hold every action number
        for action in (kind(legal[-1]), np.array(legal[-1], dtype=np.int64 if kind is int else kind)):
            clone = copy.deepcopy(env)
            clone.step(action)
            assert frozen(clone) == frozen(expected), f"{type(action).__name__} {action!r}"


@pytest.mark.parametrize("game", GAMES)
def test_aec_after_the_end_only_none_is_taken_and_nothing_changes(game):
    env = aec_module(game).env(max_steps=30)
    env.reset(seed=2)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            final = frozen(env)
            with pytest.raises(ValueError, match="None"):
                env.unwrapped.step(0)  # a dead agent may only pass None
            assert frozen(env) == final
            env.step(None)
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert not env.agents and frozen(env) == final


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [-1, 1.5, "7", np.float64(3.0), [1, 2]])
def test_reset_with_a_bad_seed_raises_and_changes_nothing(game, seed):
    for env in (aec_in_play(game), gymnasium.make(GYM_IDS[game]).unwrapped):
        env.reset(seed=4)
        before = frozen(env)
        with pytest.raises(Exception, match=r"(?i)seed"):
            env.reset(seed=seed)
        assert frozen(env) == before


@pytest.mark.parametrize("game", GAMES)
def test_reset_takes_huge_seeds_and_unknown_options(game):
    for seed in (0, 2**64 + 5, 2**200):
        env = aec_module(game).env()
        env.reset(seed=seed)
        again = aec_module(game).env()
        again.reset(seed=seed, options={"ignored": True})
        assert frozen(env) == frozen(again)
    single = gymnasium.make(GYM_IDS[game]).unwrapped
    single.reset(seed=2**100, options={"whatever": 1})
    assert single.action_masks().any()


@pytest.mark.parametrize("game", GAMES)
def test_single_env_bad_actions_and_steps_after_the_end(game):
    env = gymnasium.make(GYM_IDS[game], opponents="rule").unwrapped
    env.reset(seed=6)
    before, mask = frozen(env), env.action_masks()
    for action in bad_actions(env.game.num_actions, mask):
        with pytest.raises(IllegalActionError, match="legal: "):
            env.step(action)
        assert frozen(env) == before
    for kind in INTEGER_TYPES:
        legal = int(np.flatnonzero(mask)[0])
        if legal <= np.iinfo(np.int64 if kind is int else kind).max:
            copy.deepcopy(env).step(kind(legal))
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        done = term or trunc
    final = frozen(env)
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(int(np.flatnonzero(mask)[0]))
    assert frozen(env) == final


@pytest.mark.parametrize("game", GAMES)
def test_engine_step_before_reset_and_after_the_end(game):
    env = aec_module(game).env(max_steps=10**6)
    engine = env.unwrapped.game
    with pytest.raises(RuntimeError, match="reset"):
        type(engine)().step(0)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    while not engine.is_over:
        engine.step(int(rng.choice(engine.legal_actions())))
    final = json.dumps(engine.state_dict(), sort_keys=True)
    with pytest.raises(IllegalActionError, match="the game is over"):
        engine.step(0)
    assert json.dumps(engine.state_dict(), sort_keys=True) == final
