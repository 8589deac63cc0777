"""Checks shared by the tests of every game (imported by the test modules)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

from card_envs.core.game import CardGame, IllegalActionError


def run_pettingzoo_tests(env_module: ModuleType, num_cycles: int = 200, **kwargs: Any) -> None:
    """PettingZoo's api_test, seed_test and render_test on ``env_module.env(**kwargs)``."""
    api_test(env_module.env(**kwargs), num_cycles=num_cycles)
    seed_test(lambda: env_module.env(**kwargs), num_cycles=num_cycles)
    render_test(lambda render_mode=None: env_module.env(render_mode=render_mode, **kwargs))


def run_check_env(env_id: str, **kwargs: Any) -> None:
    """Gymnasium's check_env plus a few masked random episodes of the single-agent env.

    check_env steps with unmasked random actions, so it runs with
    ``illegal_action="random"``; the default env (which raises) is then
    played with masked actions.
    """
    check_env(gymnasium.make(env_id, illegal_action="random", **kwargs).unwrapped)
    env = gymnasium.make(env_id, **kwargs)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    episodes = 0
    while episodes < 3:
        mask = env.unwrapped.action_masks()
        assert mask.dtype == np.int8 and mask.any(), "the learner must always have a legal action"
        assert np.array_equal(mask, info["action_mask"])
        assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            assert -1.0 <= reward <= 1.0
            episodes += 1
            obs, info = env.reset()


def assert_valid_ranks(ranks: list[int] | None, num_players: int) -> None:
    """Ranks are 1-based, the best is 1, and ties share the better rank."""
    assert ranks is not None and len(ranks) == num_players
    for rank in ranks:
        better = sum(1 for r in ranks if r < rank)
        assert rank == better + 1, f"invalid ranks {ranks}"


def random_playouts(
    game: CardGame,
    games: int,
    seed: int = 0,
    check: Callable[[CardGame], None] | None = None,
    max_steps: int | None = None,
) -> dict[str, float]:
    """Play ``games`` games with uniformly random legal actions on the bare engine.

    After every action ``check(game)`` runs (the game's own invariants). The
    mask must never be empty while the game runs, and every game must end with
    valid ranks or reach the step cap. Returns simple statistics.
    """
    rng = np.random.default_rng(seed)
    cap = max_steps or game.default_max_steps
    steps_total = truncated = 0
    for _ in range(games):
        game.reset(rng)
        if check:
            check(game)
        steps = 0
        while not game.is_over and steps < cap:
            mask = game.action_mask()
            assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
            legal = np.flatnonzero(mask)
            assert legal.size > 0, f"empty mask for player {game.current_player} in {game.phase}"
            game.step(int(legal[rng.integers(legal.size)]))
            steps += 1
            if check:
                check(game)
        steps_total += steps
        if game.is_over:
            assert_valid_ranks(game.ranks, game.num_players)
        else:
            truncated += 1
            assert_valid_ranks(game.truncation_ranks(), game.num_players)
    return {"mean_steps": steps_total / games, "truncated": truncated}


def assert_rejects_bad_actions(game: CardGame) -> None:
    """Illegal, out-of-range and wrongly typed actions raise and change nothing."""
    before = json.dumps(game.state_dict(), sort_keys=True)
    mask = game.action_mask()
    illegal = np.flatnonzero(mask == 0)
    bad_actions: list[Any] = [-1, game.num_actions, "1", 1.0, None, True]
    if illegal.size:
        bad_actions.append(int(illegal[0]))
    for action in bad_actions:
        with pytest.raises(IllegalActionError) as excinfo:
            game.step(action)
        assert "legal" in str(excinfo.value)
        assert json.dumps(game.state_dict(), sort_keys=True) == before
    assert np.array_equal(game.action_mask(), mask)


def play_and_record(env, actions_rng: np.random.Generator, max_actions: int = 400) -> list[Any]:
    """Run an AEC env with random legal actions, recording everything observable."""
    record = []
    for agent in env.agent_iter(max_actions):
        obs, reward, term, trunc, _info = env.last()
        record.append(
            (agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc)
        )
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(np.int64(legal[actions_rng.integers(legal.size)]))
    return record


def assert_deepcopy_independent(env) -> None:
    """A deep copy mid-game continues on its own; the original is untouched."""
    clone = copy.deepcopy(env)
    state = json.dumps(env.unwrapped.state_dict(), sort_keys=True)
    play_and_record(clone, np.random.default_rng(1), max_actions=50)
    assert json.dumps(env.unwrapped.state_dict(), sort_keys=True) == state
    # and the copy replays identically to the original from the same point
    a = play_and_record(copy.deepcopy(env), np.random.default_rng(2), max_actions=100)
    b = play_and_record(env, np.random.default_rng(2), max_actions=100)
    assert a == b
