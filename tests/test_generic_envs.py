"""Behaviour that every game shares through the generic AEC and single-agent envs."""

from __future__ import annotations

import copy
import importlib
from types import SimpleNamespace

import gymnasium
import numpy as np
import pytest

from card_envs.agents import make_env, make_policy
from card_envs.agents.policy_spec import rule_spec
from card_envs.agents.registry import rule_agent_spec
from card_envs.core.game import IllegalActionError
from card_envs.core.ranking import rank_rewards, ranks_after_finishers, ranks_by_key
from card_envs.core.registry import game_class, game_spec, game_specs
from card_envs.envs.aec import aec_constructors
from tests.env_checks import (
    assert_deepcopy_independent,
    assert_rejects_bad_actions,
    play_and_record,
    run_check_env,
    run_pettingzoo_tests,
)

#: every registered game: the built-in ones and the toy game of the test tree (tests/toy_game.py)
GAMES = sorted(game_specs())
GYM_IDS = {name: spec.gym_id for name, spec in game_specs().items()}
#: (game, num_players, rules): each game at its smallest, default and largest table with default
#: rules, and each of its rule mixes at the smallest and the default table
TABLES = [
    (name, players, {}) for name, spec in sorted(game_specs().items()) for players in spec.player_counts()
] + [
    (name, players, dict(rules))
    for name, spec in sorted(game_specs().items())
    for rules in spec.rule_mixes
    for players in sorted({game_class(name).min_players, game_class(name).default_players})
]


def aec_module(game: str):
    """The game's PettingZoo module (a built-in game's ``card_envs.<game>_v<version>``), or the same
    two constructors for a game registered elsewhere (the toy game)."""
    spec = game_spec(game)
    try:
        return importlib.import_module(f"card_envs.{spec.aec_name}")
    except ModuleNotFoundError:
        env, raw_env = aec_constructors(spec)
        return SimpleNamespace(env=env, raw_env=raw_env)


@pytest.mark.parametrize(("game", "num_players", "rules"), TABLES)
def test_pettingzoo_api_seed_and_render(game, num_players, rules):
    run_pettingzoo_tests(aec_module(game), num_players=num_players, **rules)


@pytest.mark.parametrize(("game", "num_players", "rules"), TABLES)
def test_gymnasium_check_env(game, num_players, rules):
    run_check_env(GYM_IDS[game], num_players=num_players, **rules)


def test_rank_rewards_are_zero_sum_and_share_ties():
    assert rank_rewards([1, 2, 3, 4]) == pytest.approx([1, 1 / 3, -1 / 3, -1])
    assert rank_rewards([2, 1]) == [-1.0, 1.0]
    tied = rank_rewards([1, 2, 2, 4])
    assert tied[1] == tied[2] == pytest.approx(0.0)
    assert sum(tied) == pytest.approx(0.0)
    assert ranks_by_key([0, 1, 2, 3], key=lambda p: [5, 3, 5, 9][p]) == {1: 1, 0: 2, 2: 2, 3: 4}
    held = [4, 0, 2, 2, 0]
    assert ranks_after_finishers(5, {1: 1, 4: 2}, key=held.__getitem__) == [5, 1, 3, 3, 2]


@pytest.mark.parametrize("game", GAMES)
def test_bad_constructor_arguments_raise_value_error(game):
    cls = game_class(game)
    for players in (cls.min_players - 1, cls.max_players + 1, "4", 2.5):
        with pytest.raises(ValueError):
            aec_module(game).env(num_players=players)
    with pytest.raises(ValueError):
        aec_module(game).env(no_such_rule=1)
    with pytest.raises(ValueError):
        aec_module(game).env(max_steps=0)
    with pytest.raises(ValueError):
        aec_module(game).env(render_mode="svg")
    with pytest.raises(ValueError):
        gymnasium.make(GYM_IDS[game], opponents="nobody")
    with pytest.raises(ValueError):
        gymnasium.make(GYM_IDS[game], learner_seat=cls.max_players)


def test_unknown_game_raises():
    with pytest.raises(ValueError, match="unknown game"):
        game_class("chess")


@pytest.mark.parametrize("game", GAMES)
def test_illegal_actions_raise_and_change_nothing(game):
    env = aec_module(game).env()
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(30):  # at several points of a game
        assert_rejects_bad_actions(env.unwrapped.game)
        mask = env.last()[0]["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        if env.unwrapped.game.is_over:
            break


@pytest.mark.parametrize("game", GAMES)
def test_aec_same_seed_same_actions_same_game(game):
    records = []
    for _ in range(2):
        env = aec_module(game).env()
        env.reset(seed=11)
        records.append(play_and_record(env, np.random.default_rng(7), max_actions=600))
    assert records[0] == records[1]
    env = aec_module(game).env()
    env.reset(seed=12)
    assert play_and_record(env, np.random.default_rng(7), max_actions=600) != records[0]


@pytest.mark.parametrize("game", GAMES)
def test_single_env_same_seed_same_game_with_scripted_opponents(game):
    def episode() -> list:
        env = gymnasium.make(GYM_IDS[game], opponents="rule")
        obs, info = env.reset(seed=21)
        rng = np.random.default_rng(4)
        out = [obs.tobytes(), info["learner_seat"]]
        for _ in range(300):
            mask = env.unwrapped.action_masks()
            obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            out.append((obs.tobytes(), info["action_mask"].tobytes(), reward, term, trunc))
            if term or trunc:
                break
        return out

    assert episode() == episode()


@pytest.mark.parametrize("game", GAMES)
def test_deepcopy_mid_game_continues_independently(game):
    env = aec_module(game).env()
    env.reset(seed=3)
    play_and_record(env, np.random.default_rng(0), max_actions=20)
    assert_deepcopy_independent(env)
    single = gymnasium.make(GYM_IDS[game]).unwrapped
    single.reset(seed=1)
    clone = copy.deepcopy(single)
    action = int(np.flatnonzero(single.action_masks())[0])
    assert [x.tobytes() if isinstance(x, np.ndarray) else x for x in single.step(action)[:4]] == [
        x.tobytes() if isinstance(x, np.ndarray) else x for x in clone.step(action)[:4]
    ]


@pytest.mark.parametrize("game", GAMES)
def test_truncation_ends_all_agents_with_rank_rewards(game):
    env = aec_module(game).env(max_steps=5)
    env.reset(seed=0)
    rewards = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and not term
            assert all(isinstance(v, (int, float)) for v in info.values())
            rewards[agent] = reward
            env.step(None)
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert len(rewards) == env.unwrapped.game.num_players
    assert sum(rewards.values()) == pytest.approx(0.0)
    assert max(rewards.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("game", GAMES)
def test_full_aec_game_pays_zero_sum_rewards_once(game):
    env = aec_module(game).env(num_players=3)
    env.reset(seed=8)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(3)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward  # last() returns each reward once, when the agent is next selected
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not env.agents
    assert sum(totals.values()) == pytest.approx(0.0)
    assert max(totals.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("game", GAMES)
def test_single_env_rejects_illegal_learner_action(game):
    env = gymnasium.make(GYM_IDS[game]).unwrapped
    env.reset(seed=2)
    state = env.state_dict()
    illegal = np.flatnonzero(env.action_masks() == 0)
    with pytest.raises(IllegalActionError, match="legal"):
        env.step(int(illegal[0]))
    assert env.state_dict() == state


@pytest.mark.parametrize("game", GAMES)
def test_spaces_are_cached_objects(game):
    env = aec_module(game).env()
    agent = env.possible_agents[0]
    assert env.observation_space(agent) is env.observation_space(agent)
    assert env.action_space(agent) is env.action_space(agent)


@pytest.mark.parametrize("game", GAMES)
def test_single_env_illegal_action_modes_for_unmasked_algorithms(game):
    lose = gymnasium.make(GYM_IDS[game], illegal_action="lose").unwrapped
    lose.reset(seed=2)
    illegal = int(np.flatnonzero(lose.action_masks() == 0)[0])
    _, reward, term, trunc, info = lose.step(illegal)
    assert (reward, term, trunc, info["illegal_action"]) == (-1.0, True, False, 1)
    with pytest.raises(RuntimeError, match="reset"):
        lose.step(illegal)
    played = gymnasium.make(GYM_IDS[game], illegal_action="random").unwrapped
    played.reset(seed=2)
    before = played.state_dict()
    *_, info = played.step(illegal)
    assert info["illegal_action"] == 1 and played.state_dict() != before
    with pytest.raises(ValueError, match="illegal_action"):
        gymnasium.make(GYM_IDS[game], illegal_action="ignore")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("spec", ["rule", "random"])
def test_scripted_agents_always_legal_and_deterministic_given_rng(game, spec):
    game_facts = game_spec(game)
    players = min(5, game_class(game).max_players)
    knobs = dict(rule_agent_spec(game).random_knobs) if spec == "rule" else {}
    agent = make_policy(spec, game, players, **knobs)
    for seed in range(10):  # the default rules, then the first rule mix
        rules = dict(game_facts.rule_mixes[0]) if seed % 2 and game_facts.rule_mixes else {}
        engine = game_class(game)(players, **rules)
        engine.reset(seed=seed)
        rng_a, rng_b = np.random.default_rng(seed), np.random.default_rng(seed)
        for _ in range(3000):
            if engine.is_over:
                break
            obs, mask = engine.observe(engine.current_player), engine.action_mask()
            action = agent.act(obs, mask, rng_a)
            assert mask[action] and action == agent.act(obs, mask, rng_b)
            engine.step(action)


@pytest.mark.parametrize("game", GAMES)
def test_the_knob_mix_of_each_spec_builds_rule_agents(game):
    for knobs in rule_agent_spec(game).knob_mix:
        agent = make_policy(rule_spec(dict(knobs)), game, game_class(game).default_players)
        assert all(getattr(agent, k) == v for k, v in knobs.items())


@pytest.mark.parametrize("game", GAMES)
def test_unknown_opponent_knob_is_a_value_error(game):
    with pytest.raises(ValueError, match="unknown knob"):
        gymnasium.make(GYM_IDS[game], opponents="rule", opponent_knobs={"no_such_knob": 1})


@pytest.mark.parametrize("game", GAMES)
def test_early_finishers_stay_agents_and_all_terminate_together(game):
    """Tianshou ends the episode at the first termination and TorchRL crashes on a partial one."""
    early_finish_rules = game_spec(game).early_finish_rules
    players = min(4, game_class(game).max_players)
    env = aec_module(game).env(num_players=players, **(early_finish_rules or {}))
    rng = np.random.default_rng(0)
    saw_early_finisher = False
    for seed in range(3):
        env.reset(seed=seed)
        engine = env.unwrapped.game
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            terminations = env.terminations.values()
            assert any(terminations) == all(terminations)
            if term or trunc:
                env.step(None)
                continue
            finished = engine.finished_ranks()
            saw_early_finisher |= bool(finished)
            assert env.agents == env.possible_agents, "nobody leaves before the end"
            assert int(agent.split("_")[1]) not in finished, "a finished player is never selected"
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert saw_early_finisher or early_finish_rules is None


@pytest.mark.parametrize("game", GAMES)
def test_a_bad_state_raises_value_error_and_changes_nothing(game):
    engine = game_class(game)()
    engine.reset(seed=4)
    for _ in range(10):
        if not engine.is_over:
            engine.step(engine.legal_actions()[-1])
    before = engine.state_dict()
    mask = engine.action_mask().copy()
    for bad in (
        {**before, "phase": "no_such_phase"},
        {k: v for k, v in before.items() if k not in ("supply", "hands", "draw_pile")},
        {**before, "num_players": before["num_players"] + 1},
        {**before, "rules": {"no_such_rule": 1}},
        [before],
    ):
        with pytest.raises(ValueError):
            engine.load_state_dict(bad)
        assert engine.state_dict() == before
        assert np.array_equal(engine.action_mask(), mask)


def _lead(env) -> float:
    progress = [env.game.progress(seat) for seat in range(env.game.num_players)]
    mine = progress.pop(env.learner)
    return mine - sum(progress) / len(progress)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("discount", [1.0, 0.97])
def test_reward_shaping_moves_credit_but_adds_nothing_to_a_game(game, discount):
    """Same game, the true rank reward in info at the end, and the shaped rewards, discounted
    with the learner's discount, sum to the rank reward less the lead after the deal: the
    potential returns to 0 at the end, so no play earns more shaping than another."""
    plain = make_env(game, opponents="random")
    shaped = make_env(game, opponents="random", reward_shaping=0.5, shaping_discount=discount)
    rng = np.random.default_rng(0)
    for env in (plain, shaped):
        env.reset(seed=5)
    start_lead, returns, weight, shaped_any = _lead(shaped), [0.0, 0.0], 1.0, False
    while True:
        action = int(rng.choice(np.flatnonzero(plain.action_masks())))
        results = [env.step(action) for env in (plain, shaped)]
        assert results[0][0].tobytes() == results[1][0].tobytes()
        returns = [g + weight * r[1] for g, r in zip(returns, results, strict=True)]
        shaped_any = shaped_any or results[1][1] != results[0][1]
        weight *= discount
        if results[0][2] or results[0][3]:
            break
    assert results[1][4]["rank_reward"] == results[0][4]["rank_reward"] == results[0][1]
    assert shaped_any and _lead(shaped) != 0
    assert returns[1] - returns[0] == pytest.approx(-0.5 * start_lead, abs=1e-9)
    for bad in ({"reward_shaping": -1}, {"shaping_discount": 1.5}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            make_env(game, **bad)


@pytest.mark.parametrize("game", GAMES)
def test_mask_in_observation_appends_the_legal_moves(game):
    env = make_env(game, opponents="random", mask_in_observation=True)
    obs, info = env.reset(seed=2)
    size = env.game.observation_size
    assert env.observation_space.shape == (size + env.game.num_actions,)
    assert np.array_equal(obs[:size], env.game.observe(env.learner))
    assert np.array_equal(obs[size:], info["action_mask"]) and env.observation_space.contains(obs)


@pytest.mark.parametrize("game", GAMES)
def test_aec_illegal_action_random_plays_a_legal_move_instead(game):
    """RLlib's env pre-check steps unmasked samples of the action space."""
    env = aec_module(game).env(illegal_action="random")
    env.reset(seed=3)
    mask = env.last()[0]["action_mask"]
    actor = env.agent_selection
    before = env.unwrapped.state_dict()
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert env.unwrapped.state_dict() != before and env.infos[actor]["illegal_action"] == 1
    mover = env.agent_selection
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    assert env.infos[mover]["illegal_action"] == 0  # the flag is about each agent's own last action
    with pytest.raises(ValueError, match="illegal_action"):
        aec_module(game).env(illegal_action="lose")


@pytest.mark.parametrize("game", GAMES)
def test_a_0d_integer_array_is_an_action_as_model_predict_returns_it(game):
    single = gymnasium.make(GYM_IDS[game]).unwrapped
    single.reset(seed=4)
    action = np.array(np.flatnonzero(single.action_masks())[0])  # shape (), as model.predict(obs)[0]
    assert single.action_space.contains(action)
    single.step(action)
    env = aec_module(game).env()
    env.reset(seed=4)
    env.step(np.array(np.flatnonzero(env.last()[0]["action_mask"])[0], dtype=np.int32))
    for bad in (np.array(1.0), np.array([1])):  # a float, a 1-element vector: not actions
        with pytest.raises(IllegalActionError, match="int"):
            single.step(bad)


@pytest.mark.parametrize("game", GAMES)
def test_info_keys_stay_the_same_from_reset_to_the_end(game):
    """TorchRL fixes the info keys at reset."""
    env = aec_module(game).env()
    env.reset(seed=6)
    keys = {agent: set(info) for agent, info in env.infos.items()}
    assert all({"rank", "illegal_action"} <= k for k in keys.values())
    rng = np.random.default_rng(1)
    for _ in env.agent_iter():
        assert all(set(info) == keys[agent] for agent, info in env.infos.items())
        observation, _, terminated, truncated, _ = env.last()
        env.step(
            None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        )
    single = make_env(game, opponents="rule")
    _, info = single.reset(seed=6)
    first, done = set(info), False
    while not done:
        _, _, terminated, truncated, info = single.step(
            int(rng.choice(np.flatnonzero(single.action_masks())))
        )
        assert set(info) == first
        done = terminated or truncated
    assert info["rank"] >= 1


@pytest.mark.parametrize("game", GAMES)
def test_rgb_array_frames_keep_one_shape_and_sb3_make_vec_env_works(game):
    """SB3's make_vec_env asks every env id for render_mode="rgb_array"."""
    from stable_baselines3.common.env_util import make_vec_env

    env = make_env(game, opponents="rule", render_mode="rgb_array")
    env.reset(seed=1)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3 and first.std() > 0
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert env.render().shape == first.shape  # videos need frames of one size
        done = terminated or truncated
    vec = make_vec_env(GYM_IDS[game], n_envs=2, env_kwargs={"opponents": "rule"})
    assert vec.reset().shape[0] == 2 and np.asarray(vec.env_method("action_masks")).shape[0] == 2
    vec.close()


def test_choose_from_logits_plays_legal_actions_by_their_softmax():
    from card_envs.core.policy import choose_from_logits

    logits = np.array([5.0, 1.0, 0.0, 1.0])
    mask = np.array([0, 1, 1, 0], dtype=np.int8)  # the best logit is illegal
    rng = np.random.default_rng(0)
    assert choose_from_logits(logits, mask, rng, greedy=True) == 1
    draws = [choose_from_logits(logits, mask, rng, greedy=False) for _ in range(4000)]
    assert set(draws) == {1, 2}
    assert abs(draws.count(1) / 4000 - np.e / (np.e + 1)) < 0.03  # softmax of 1 against 0
