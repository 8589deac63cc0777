"""The scripted UNO players: knobs, legality, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs.agents import make_policy
from card_envs.agents.uno.rules import UnoRuleAgent
from card_envs.games.uno import cards as C
from card_envs.games.uno import encoding as E
from card_envs.games.uno.engine import UnoGame
from tests.test_uno_rules import game_from, play


def decide(agent, game: UnoGame, seed: int = 0) -> int:
    p = game.current_player
    return agent.act(game.observe(p), game.action_mask(), np.random.default_rng(seed))


def test_knobs_are_validated():
    for bad in ({"forget_call": 1.5}, {"catch_rate": -0.1}, {"challenge_rate": "often"}):
        with pytest.raises(ValueError):
            UnoRuleAgent(4, **bad)
    with pytest.raises(ValueError, match="unknown policy spec"):
        make_policy("genius", "uno", 4)


@pytest.mark.parametrize(("forget", "expected_call"), [(0.0, True), (1.0, False)])
def test_forget_call_knob(forget, expected_call):
    game = game_from(hands=[["R9", "G5"], ["G1"], ["G1"], ["Y1"]])
    agent = UnoRuleAgent(4, forget_call=forget)
    calls = {decide(agent, game, seed) >= E.PLAY_CALL for seed in range(50)}
    assert calls == {expected_call}


def test_forget_call_rate_is_roughly_the_knob():
    game = game_from(hands=[["R9", "G5"], ["G1"], ["G1"], ["Y1"]])
    agent = UnoRuleAgent(4, forget_call=0.3)
    forgot = sum(decide(agent, game, seed) < E.PLAY_CALL for seed in range(2000))
    assert 500 < forgot < 700


@pytest.mark.parametrize(("rate", "expected"), [(1.0, E.CATCH), (0.0, E.PASS)])
def test_catch_rate_knob(rate, expected):
    game = game_from(hands=[["R9", "G5"], ["G1"], ["G1"], ["Y1"]])
    game.step(play("R9"))  # missed call: the catch window opens
    agent = UnoRuleAgent(4, catch_rate=rate)
    assert {decide(agent, game, seed) for seed in range(30)} == {expected}


def test_rule_agent_plays_sensibly():
    agent = UnoRuleAgent(4)
    # dumps the highest-scoring card, keeps the wild
    game = game_from(hands=[["R2", "R+2", "W", "G5"], ["G1", "G2", "G3"], ["G1"], ["Y1"]])
    assert decide(agent, game) == play("R+2")
    # names the colour it holds most
    game = game_from(hands=[["W", "B1", "B2", "G5"], ["G1"], ["G1"], ["Y1"]])
    game.step(play("W"))
    assert decide(agent, game) == E.CHOOSE_COLOUR + C.COLOURS.index("B")
    # stacks when it can
    game = game_from(hands=[["R+2", "G5", "G6"], ["B+2", "G1", "G2"], ["G1"], ["Y1"]])
    game.step(play("R+2"))
    assert decide(agent, game) == play("B+2")
    # draws only when nothing fits
    game = game_from(hands=[["B9", "G6"], ["G1"], ["G1"], ["Y1"]])
    assert decide(agent, game) == E.DRAW
