"""The scripted Tock agent: knob validation, and statistics showing that each knob does what it says."""

from __future__ import annotations

import math

import numpy as np
import pytest

from card_envs.agents import RandomAgent, make_policy
from card_envs.agents.base import Policy
from card_envs.agents.tock.rules import TockRuleAgent
from card_envs.games.tock.encoding import CENTRE, DRAW, FIRST_OPPONENT, KNOCK, LAST_OPPONENT, PASS
from card_envs.games.tock.engine import TockGame

OPPONENT_ACTIONS = range(FIRST_OPPONENT, LAST_OPPONENT + 1)


def play(policies: list[Policy], games: int, seed: int, **rules) -> dict[str, float]:
    """Play whole games; count seat 0's moves that opened a knock window and how the others answered.

    ``break_windows``/``legal_windows``: windows after a rule break / a legal move of seat 0,
    ``*_knocked``: how many of them ended with a knock. ``dump_chances``: seat 0's play
    decisions where it could dump a centre card on an opponent; ``dumps``: how often it did.
    """
    n = len(policies)
    game = TockGame(n, **rules)
    rng = np.random.default_rng(seed)
    c = dict.fromkeys(
        [
            "break_windows",
            "break_knocked",
            "legal_windows",
            "legal_knocked",
            "dump_chances",
            "dumps",
            "breaks_by_rule_agents",
        ],
        0,
    )
    ranks = []
    for _ in range(games):
        game.reset(rng)
        steps = 0
        while not game.is_over and steps < game.default_max_steps:
            seat = game.current_player
            mask = game.action_mask()
            was_play = game.phase == "play"
            breaks = game.rule_break_actions() if was_play else []
            action = policies[seat].act(game.observe(seat), mask, rng)
            assert mask[action], f"{policies[seat]!r} chose illegal action {action}"
            if seat == 0 and was_play and mask[CENTRE] and any(mask[a] for a in OPPONENT_ACTIONS):
                c["dump_chances"] += 1
                c["dumps"] += action in OPPONENT_ACTIONS
            if action in breaks and isinstance(policies[seat], TockRuleAgent):
                c["breaks_by_rule_agents"] += 1
            game.step(action)
            steps += 1
            if seat == 0 and was_play and game.phase == "knock":
                key = "break" if action in breaks else "legal"
                c[f"{key}_windows"] += 1
                while game.phase == "knock":  # the window: only the other players decide
                    decider = game.current_player
                    answer = policies[decider].act(game.observe(decider), game.action_mask(), rng)
                    game.step(answer)
                    steps += 1
                c[f"{key}_knocked"] += answer == KNOCK
        ranks.append(game.ranks if game.is_over else game.truncation_ranks())
    c["mean_rank_0"] = float(np.mean([r[0] for r in ranks]))
    return c


def assert_rate(hits: int, trials: int, p: float) -> None:
    """``hits`` out of ``trials`` is within 4.5 standard deviations of rate ``p``."""
    assert trials > 200, trials
    sd = math.sqrt(p * (1 - p) / trials)
    assert abs(hits / trials - p) <= 4.5 * sd + 1e-9, (hits, trials, p)


# ------------------------------------------------------------------ knobs
@pytest.mark.parametrize(
    "knobs",
    [
        {"vigilance": -0.1},
        {"vigilance": 1.5},
        {"vigilance": "high"},
        {"vigilance": True},
        {"false_knock_rate": 2},
        {"cheat_rate": None},
        {"target": "leader"},
        {"num_players": 1},
        {"num_players": 7},
        {"num_players": "4"},
    ],
)
def test_bad_knobs_raise_value_error(knobs):
    with pytest.raises(ValueError):
        TockRuleAgent(**knobs)


def test_make_policy_builds_the_rule_agent_with_knobs():
    agent = make_policy("rule", "tock", 5, vigilance=0.25, target="random")
    assert isinstance(agent, TockRuleAgent)
    assert (agent.num_players, agent.vigilance, agent.target) == (5, 0.25, "random")


def vigilant(vigilance: float, false_knock_rate: float = 0.0) -> TockRuleAgent:
    return TockRuleAgent(vigilance=vigilance, false_knock_rate=false_knock_rate, cheat_rate=0.0)


# two players give seat 0 more windows per game: fewer games reach the same sample size
@pytest.mark.parametrize(("num_players", "games"), [(2, 20), (4, 60)])
def test_vigilance_one_knocks_every_rule_break_it_sees(num_players, games):
    policies = [RandomAgent()] + [vigilant(1.0) for _ in range(num_players - 1)]
    c = play(policies, games, seed=1)
    assert c["break_windows"] > 300
    assert c["break_knocked"] == c["break_windows"]
    assert c["legal_knocked"] == 0 and c["legal_windows"] > 100


@pytest.mark.parametrize(("num_players", "games"), [(2, 20), (4, 60)])
def test_vigilance_zero_knocks_no_rule_break(num_players, games):
    policies = [RandomAgent()] + [vigilant(0.0) for _ in range(num_players - 1)]
    c = play(policies, games, seed=2)
    assert c["break_windows"] > 300
    assert c["break_knocked"] == 0 and c["legal_knocked"] == 0


def test_vigilance_and_false_knock_rate_are_knock_probabilities():
    # two players: exactly one decider per window, so the knock rates are the knobs
    c = play([RandomAgent(), vigilant(0.6, false_knock_rate=0.2)], 15, seed=3)
    assert_rate(c["break_knocked"], c["break_windows"], 0.6)
    assert_rate(c["legal_knocked"], c["legal_windows"], 0.2)
    # three vigilant deciders: a rule break goes unnoticed only if all three miss it
    c = play([RandomAgent()] + [vigilant(0.5) for _ in range(3)], 40, seed=4)
    assert_rate(c["break_knocked"], c["break_windows"], 1 - 0.5**3)


@pytest.mark.parametrize(
    "cheat_rate", [pytest.param(0.0, marks=pytest.mark.slow), 0.3, pytest.param(1.0, marks=pytest.mark.slow)]
)
def test_cheat_rate_is_the_probability_to_dump_a_centre_card(cheat_rate):
    cheater = TockRuleAgent(cheat_rate=cheat_rate, vigilance=1.0, false_knock_rate=0.0)
    policies = [cheater] + [vigilant(1.0) for _ in range(3)]
    c = play(policies, 50, seed=5)
    if 0 < cheat_rate < 1:
        assert_rate(c["dumps"], c["dump_chances"], cheat_rate)
    else:
        assert c["dump_chances"] > 200 and c["dumps"] == cheat_rate * c["dump_chances"]
    # the cheater breaks rules in no other way; the honest agents never do
    assert c["breaks_by_rule_agents"] == c["dumps"]
    if cheat_rate == 1.0:
        assert c["break_knocked"] == c["break_windows"] > 50


def test_honest_agents_make_no_rule_breaks_and_no_false_knocks():
    policies = [vigilant(1.0) for _ in range(4)]
    c = play(policies, 5, seed=6)
    assert c["breaks_by_rule_agents"] == 0 and c["break_windows"] == 0 and c["legal_knocked"] == 0


def test_rule_agent_beats_random_agents():
    c = play([TockRuleAgent()] + [RandomAgent() for _ in range(3)], 15, seed=7)
    assert c["mean_rank_0"] < 1.5, c["mean_rank_0"]


def test_rule_agent_plays_by_the_rules_without_violations_and_with_nearest():
    policies = [TockRuleAgent(cheat_rate=1.0, target="random") for _ in range(3)]
    c = play(policies, 5, seed=8, allow_violations=False, opponent_choice="nearest")
    assert c["break_windows"] == c["legal_windows"] == c["breaks_by_rule_agents"] == 0


# --------------------------------------------------------------- targets
def game_with_two_fitting_opponents() -> TockGame:
    """Player 0's 7 fits player 1's 8 (3 cards held) and player 3's 6 (1 card held), not the centre."""
    game = TockGame(4)
    game.reset(0)
    piles = [[7], [1, 5, 8], [11], [6]]
    supply = list(game.state_dict()["supply"])
    for card in [1, 2, *(c for pile in piles for c in pile)]:  # the centre row holds 1 and 2
        supply.remove(card)
    game.load_state_dict(
        game.state_dict() | {"piles": piles, "stacks": [[], [], [], []], "centre": [2], "supply": supply}
    )
    assert set(game.legal_actions()) == {1, 3, DRAW}
    return game


@pytest.mark.parametrize(("target", "expected"), [("fewest_cards", 3), ("most_cards", 1), ("nearest", 1)])
def test_target_choice_among_fitting_opponents(target, expected):
    game = game_with_two_fitting_opponents()
    agent = TockRuleAgent(target=target)
    rng = np.random.default_rng(0)
    picks = {agent.act(game.observe(0), game.action_mask(), rng) for _ in range(50)}
    assert picks == {expected}


def test_random_target_picks_each_fitting_opponent():
    game = game_with_two_fitting_opponents()
    agent = TockRuleAgent(target="random")
    rng = np.random.default_rng(0)
    picks = [agent.act(game.observe(0), game.action_mask(), rng) for _ in range(400)]
    assert set(picks) == {1, 3}
    assert_rate(picks.count(1), len(picks), 0.5)


def test_rule_agent_is_deterministic_given_the_generator():
    game = game_with_two_fitting_opponents()
    agent = TockRuleAgent(target="random", cheat_rate=0.5)
    obs, mask = game.observe(0), game.action_mask()
    a = [agent.act(obs, mask, np.random.default_rng(3)) for _ in range(5)]
    assert len(set(a)) == 1
    assert TockRuleAgent().act(obs, np.array([0] * 8 + [1, 1], dtype=np.int8), np.random.default_rng(0)) in (
        KNOCK,
        PASS,
    )
