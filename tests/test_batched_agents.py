"""The batched rule-based agents decide exactly as the reference agents do.

States come from random play in the reference engine; in each, the reference agent
and its batched twin act from the same observation, mask and generator state, and
must pick the same action and leave the generator in the same state (the same draws).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from numba import typed

from card_envs.agents.registry import heuristic_class, rule_agent_spec
from card_envs.agents.specs import rule_agent_class
from card_envs.batched.policy import BatchedRandomAgent, LoopedPolicy, batched_policy
from card_envs.core.policy import Policy, RandomAgent
from card_envs.core.registry import game_spec, game_specs
from card_envs.games.uno.encoding import CHALLENGE as UNO_CHALLENGE

GAMES = [name for name in game_specs() if getattr(rule_agent_class(name), "compiled", None)]
COMPILED_HEURISTICS = [
    name for name in ("uno", "tock", "chipit") if getattr(heuristic_class(name), "compiled", None)
]


#: a rule variant whose states the heuristic twins are also compared in, and the action it
#: brings into play (UNO's official Draw Four: challenges)
VARIANT_STATES: dict[str, tuple[dict[str, Any], int]] = {"uno": ({"draw_four": "official"}, UNO_CHALLENGE)}
#: knob values the specs' mixes leave out
MORE_KNOBS = {"tock": [{"target": "random", "cheat_rate": 0.5, "false_knock_rate": 0.5}]}


def knob_settings(name: str) -> list[dict]:
    spec = rule_agent_spec(name)
    return [{}, dict(spec.random_knobs), *map(dict, spec.knob_mix), *MORE_KNOBS.get(name, [])]


def sample_states(
    name: str, n: int, count: int, seed: int, player: Policy | None = None, stride: int = 1, **rules: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the deciding seat in ``count`` states of random play (or of
    ``player`` in every seat: the plays and endings it reaches, which random play seldom does),
    every ``stride``-th decision (several whole games: their ends too), under the game's
    default rules or ``rules``."""
    game = game_spec(name).engine_class()(n, **rules)
    player = player or RandomAgent()
    rng = np.random.default_rng(seed)
    game.reset(seed)
    observations, masks = [], []
    decisions = 0
    while len(observations) < count:
        if game.is_over:
            game.reset(rng)
        observation, mask = game.observe(game.current_player), game.action_mask().copy()
        if decisions % stride == 0:
            observations.append(observation)
            masks.append(mask)
        decisions += 1
        game.step(player.act(observation, mask, rng))
    return np.array(observations), np.array(masks)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("n", [pytest.param(2, marks=pytest.mark.slow), 4])
def test_batched_rule_agent_decides_as_the_reference(name: str, n: int) -> None:
    observations, masks = sample_states(name, n, 1500, seed=n)
    rows = np.arange(len(observations))
    for knobs in knob_settings(name):
        reference = rule_agent_class(name)(num_players=n, **knobs)
        batched = batched_policy(reference)
        assert type(batched).__name__.endswith("BatchedRuleAgent"), batched
        gens = [np.random.default_rng(i) for i in rows]
        twins = typed.List(copy.deepcopy(gens))
        expected = [reference.act(o, m, g) for o, m, g in zip(observations, masks, gens, strict=True)]
        actions = batched.act(observations, masks, twins, rows)
        assert actions.tolist() == expected, knobs
        assert all(masks[rows, actions] == 1)
        assert [g.random() for g in gens] == [g.random() for g in twins]  # the same draws were made


@pytest.mark.parametrize("name", COMPILED_HEURISTICS)
@pytest.mark.parametrize("n", [pytest.param(n, marks=pytest.mark.slow) if n != 4 else n for n in (2, 4, 6)])
def test_batched_heuristic_player_decides_as_the_reference(name: str, n: int) -> None:
    own = heuristic_class(name)(num_players=n)
    rules, variant_action = VARIANT_STATES.get(name, ({}, None))
    samples = [
        sample_states(name, n, 800, seed=n),
        sample_states(name, n, 800, seed=n, player=own, stride=10),
        sample_states(name, n, 800, seed=n, **rules),
    ]
    observations, masks = (np.concatenate(parts) for parts in zip(*samples, strict=True))
    reference = heuristic_class(name)(num_players=n)
    batched = batched_policy(reference)
    assert type(batched).__name__.endswith("BatchedHeuristicAgent"), batched
    rows = np.arange(len(observations))
    rng = np.random.default_rng(0)  # drawn from by neither player
    expected = [reference.act(o, m, rng) for o, m in zip(observations, masks, strict=True)]
    actions = batched.act(observations, masks, typed.List([rng for _ in rows]), rows)
    assert actions.tolist() == expected
    kinds = min(20, masks.shape[1] // 2)  # Tock has 10 actions in all
    assert len(set(expected)) > kinds  # leads, answers, cards and passes of many kinds were compared
    assert variant_action is None or variant_action in expected  # the variant's decisions too


def test_batched_random_agent_draws_as_random_agent() -> None:
    observations, masks = sample_states("uno", 4, 500, seed=1)
    rows = np.arange(len(masks))
    gens = [np.random.default_rng(i) for i in rows]
    twins = typed.List(copy.deepcopy(gens))
    expected = [RandomAgent().act(o, m, g) for o, m, g in zip(observations, masks, gens, strict=True)]
    batched = batched_policy(RandomAgent())
    assert isinstance(batched, BatchedRandomAgent)
    assert batched.act(observations, masks, twins, rows).tolist() == expected


def test_other_policies_are_looped_row_by_row() -> None:
    class First(RandomAgent):
        def act(self, observation, action_mask, rng):  # type: ignore[no-untyped-def]
            return int(np.flatnonzero(action_mask)[0])

    observations, masks = sample_states("uno", 4, 50, seed=2)
    looped = batched_policy(First())
    assert isinstance(looped, LoopedPolicy)
    rows = np.arange(50)
    gens = typed.List([np.random.default_rng(0) for _ in rows])
    assert looped.act(observations, masks, gens, rows).tolist() == [int(np.flatnonzero(m)[0]) for m in masks]


def test_network_players_act_in_many_games_as_they_do_one_by_one() -> None:
    """A model and a self-play pool in the batched engine: one forward pass per network, and
    each game draws its snapshot and its actions from its own generator, as the policy
    itself does game by game."""
    from sb3_contrib import MaskablePPO

    from card_envs.agents.model import BatchedNetworks, ModelPolicy, SelfPlayPool
    from card_envs.envs.single import CardGameEnv

    env = CardGameEnv("uno", num_players=4)
    networks = [MaskablePPO("MlpPolicy", env, seed=s, device="cpu").policy for s in range(2)]
    pool = SelfPlayPool()
    for network in networks:
        pool.add_snapshot(network)
    empty_pool = SelfPlayPool()
    observations, masks = sample_states("uno", 4, 40, seed=3)
    rows = np.arange(40)
    for policy in (pool, empty_pool, ModelPolicy(MaskablePPO("MlpPolicy", env, seed=5, device="cpu"))):
        gens = [np.random.default_rng(100 + row) for row in rows]
        expected = []
        for obs, mask, gen in zip(observations, masks, copy.deepcopy(gens), strict=True):
            policy.new_game(gen)
            expected.append(policy.act(obs, mask, gen))
        batched = batched_policy(policy)
        assert isinstance(batched, BatchedNetworks) and batched.policy is policy
        twins = typed.List(gens)
        batched.new_games(twins, rows)
        assert batched.act(observations, masks, twins, rows).tolist() == expected
    drawn = {id(batched_policy(pool).policy.draw(np.random.default_rng(s))) for s in range(20)}
    assert drawn == {id(n) for n in networks}  # each game may draw any snapshot
