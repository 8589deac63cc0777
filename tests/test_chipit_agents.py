"""The scripted Chip It player: knobs, sensible choices, legality, determinism, strength."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs.agents import RandomAgent, make_policy
from card_envs.agents.chipit.rules import ChipItRuleAgent
from card_envs.core.ranking import rank_rewards
from card_envs.games.chipit import encoding as E
from card_envs.games.chipit.engine import ChipItGame
from tests.test_chipit_rules import FILLER, answer_state, card, game_from, pass_, value


def decide(agent, game: ChipItGame, seed: int = 0) -> int:
    return agent.act(game.observe(game.current_player), game.action_mask(), np.random.default_rng(seed))


def play_turn(agent, game: ChipItGame) -> list[int]:
    """The agent's actions until its turn's play or pass is complete."""
    seat = game.current_player
    actions = []
    while not game.is_over and game.current_player == seat:
        actions.append(decide(agent, game))
        game.step(actions[-1])
        if game.table.build is None:
            break
    return actions


def test_knobs_are_validated():
    for bad in (
        {"max_chips": -1},
        {"max_chips": 2.5},
        {"max_chips": True},
        {"return_points": 3},
        {"prefer_sets": 1},
        {"mistake_rate": 1.5},
        {"mistake_rate": "often"},
        {"num_players": 7},
    ):
        kwargs = {"num_players": 4, **bad}
        with pytest.raises(ValueError):
            ChipItRuleAgent(**kwargs)
    with pytest.raises(ValueError):
        make_policy("rule", "chipit", 4, max_chips=-3)
    assert "max_chips=5" in repr(make_policy("rule", "chipit", 4, max_chips=5))


def test_leads_the_largest_set_without_chips_lowest_first():
    agent = ChipItRuleAgent(3)
    game = game_from(hands=[["G9", "P9", "G4", "G4", "P4", "G2", "G3"], FILLER, FILLER])
    assert play_turn(agent, game) == [value(4), card("G4"), card("G4"), card("P4"), E.DONE]
    assert game.state_dict()["display"][0] == [{"card": c, "chips": 0} for c in ("G4", "G4", "P4")]
    singles = ChipItRuleAgent(3, prefer_sets=False)
    game = game_from(hands=[["G9", "P9", "G4", "G4", "P4", "G2", "G3"], FILLER, FILLER])
    assert play_turn(singles, game) == [value(2), card("G2"), E.DONE]


def test_beats_with_the_fewest_chips():
    agent = ChipItRuleAgent(3)
    # to beat a pair at 8: G9 + P3 at 9 needs 2 points; G10 + G9 at 10 needs 1; G12 + G10 at 12 needs 2
    game = game_from(
        **answer_state([FILLER, ["G9", "G10", "P3", "G12"], FILLER], last_cards=(("G8", 0), ("P8", 0)))
    )
    actions = play_turn(agent, game)
    assert actions[0] == value(10)
    assert sorted(e["card"] for e in game.state_dict()["display"][1]) == ["G10", "G9"]
    assert game.state_dict()["last_play"] == {"seat": 1, "count": 2, "value": 10}


@pytest.mark.parametrize(("max_chips", "expected"), [(3, "pass"), (4, "play")])
def test_passes_returning_two_points_when_beating_costs_too_much(max_chips, expected):
    agent = ChipItRuleAgent(3, max_chips=max_chips)
    game = game_from(**answer_state([FILLER, ["G5", "G2"], FILLER], chips=[3, 5, 3]))  # G5 + 4 beats 8
    action = decide(agent, game)
    assert action == (pass_(2) if expected == "pass" else value(9))
    low = ChipItRuleAgent(3, return_points=1)
    assert decide(low, game_from(**answer_state([FILLER, ["G2"], FILLER], chips=[3, 5, 3]))) == pass_(1)
    assert decide(agent, game_from(**answer_state([FILLER, ["G2"], FILLER], chips=[3, 1, 3]))) == pass_(1)


def test_empty_hand_passes_with_the_most_points():
    agent = ChipItRuleAgent(3)
    game = game_from(**answer_state([FILLER, [], FILLER], chips=[3, 7, 3]))
    assert decide(agent, game) == pass_(2)


def test_high_values_via_block_and_units():
    agent = ChipItRuleAgent(3, max_chips=108)
    # only P11 can beat 200 (11 x 19 = 209 needs 18 points)
    game = game_from(
        **answer_state(
            [FILLER, ["P11", "G2"], FILLER], last_value=200, last_cards=(("P10", 19),), chips=[0, 0, 0]
        )
    )
    assert play_turn(agent, game) == [value(209), E.UNITS + 9, card("P11")]
    assert game.state_dict()["last_play"] == {"seat": 1, "count": 1, "value": 209}


def test_rule_agents_alone_finish_their_games():
    for n in range(2, 7):
        agent = ChipItRuleAgent(n)
        game = ChipItGame(n)
        rng = np.random.default_rng(n)
        for _ in range(10):
            game.reset(rng)
            steps = 0
            while not game.is_over:
                game.step(agent.act(game.observe(game.current_player), game.action_mask(), rng))
                steps += 1
                assert steps < game.default_max_steps


@pytest.mark.parametrize(
    ("num_players", "games", "min_reward"),
    [
        (2, 60, 0.8),
        (4, 90, 0.6),
        (6, 60, 0.4),
        pytest.param(2, 200, 0.8, marks=pytest.mark.slow),
        pytest.param(4, 300, 0.6, marks=pytest.mark.slow),
        pytest.param(6, 200, 0.4, marks=pytest.mark.slow),
    ],
)
def test_rule_agent_beats_random_players(num_players, games, min_reward):
    rule = ChipItRuleAgent(num_players)
    rnd = RandomAgent()
    game = ChipItGame(num_players)
    rng = np.random.default_rng(123)
    total = 0.0
    for i in range(games):
        seat = i % num_players  # every seat in turn
        game.reset(rng)
        while not game.is_over:
            p = game.current_player
            policy = rule if p == seat else rnd
            game.step(policy.act(game.observe(p), game.action_mask(), rng))
        total += rank_rewards(game.ranks)[seat]
    assert total / games > min_reward  # a random seat averages 0
