"""The heuristic players (card_envs/agents/<game>/heuristic.py): always legal, draw no random
numbers, play what their design says from known states, and beat the rule-based players."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs.agents import make_policy
from card_envs.agents.chipit.heuristic import ChipItHeuristicAgent
from card_envs.agents.registry import heuristic_class, register_heuristic
from card_envs.agents.tock.heuristic import TockHeuristicAgent
from card_envs.agents.uno.heuristic import UnoHeuristicAgent
from card_envs.core.game import CardGame
from card_envs.core.policy import RandomAgent
from card_envs.core.registry import game_class, game_spec
from card_envs.evaluation.tournament import tournament
from card_envs.games.chipit import encoding as CE
from card_envs.games.tock.encoding import CENTRE, DRAW, KNOCK, PASS
from card_envs.games.uno import encoding as UE
from tests.test_chipit_rules import answer_state
from tests.test_chipit_rules import game_from as chipit_game
from tests.test_tock_rules import make as tock_game
from tests.test_uno_rules import colour, play
from tests.test_uno_rules import game_from as uno_game

HEURISTICS = {"uno": UnoHeuristicAgent, "tock": TockHeuristicAgent, "chipit": ChipItHeuristicAgent}


def decide(game: CardGame, agent=None) -> int:
    """What the game's heuristic player does in the seat that decides now."""
    agent = agent or make_policy("heuristic", game.name, game.num_players)
    seat = game.current_player
    return agent.act(game.observe(seat), game.action_mask(), np.random.default_rng(0))


# ------------------------------------------------------------------ registry
@pytest.mark.parametrize("game", sorted(HEURISTICS))
def test_the_heuristic_spec_builds_the_games_heuristic_player(game):
    assert heuristic_class(game) is HEURISTICS[game]
    agent = make_policy("heuristic", game, 3)
    assert type(agent) is HEURISTICS[game] and agent.num_players == 3
    with pytest.raises(ValueError, match="takes no knobs"):
        make_policy("heuristic:depth=2", game, 3)


def test_a_game_without_a_heuristic_player_and_a_second_class_are_refused():
    with pytest.raises(ValueError, match=r"'climb' has no heuristic player; games with one: .*uno"):
        make_policy("heuristic", "climb", 3)
    assert register_heuristic("uno", UnoHeuristicAgent) is UnoHeuristicAgent  # the same class again
    with pytest.raises(ValueError, match="a different heuristic player is already registered for 'uno'"):
        register_heuristic("uno", RandomAgent)


@pytest.mark.parametrize("game", sorted(HEURISTICS))
def test_a_table_size_the_game_does_not_have_is_refused(game):
    with pytest.raises(ValueError, match="num_players"):
        HEURISTICS[game](num_players=game_class(game).max_players + 1)


# ------------------------------------------------- legal and deterministic
def tables(game: str) -> list[tuple[int, dict]]:
    """Every table size with the default rules and with each rule mix."""
    cls = game_class(game)
    mixes = [{}, *map(dict, game_spec(game).rule_mixes)]
    return [(n, rules) for n in range(cls.min_players, cls.max_players + 1) for rules in mixes]


@pytest.mark.parametrize("game", sorted(HEURISTICS))
def test_heuristic_players_are_always_legal_and_draw_no_random_numbers(game):
    """The smallest and largest tables with the default rules (every table and rule mix:
    the slow test below)."""
    cls = game_class(game)
    assert check_heuristic_games(game, [(cls.min_players, {}), (cls.max_players, {})], range(3)) > 200


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(HEURISTICS))
def test_heuristic_players_are_legal_at_every_table_and_rule_mix(game):
    assert check_heuristic_games(game, tables(game), range(6)) > 1000


def check_heuristic_games(game: str, tables: list[tuple[int, dict]], seeds: range) -> int:
    """Whole games at ``tables``: the heuristic in every seat (even seeds), or beside random
    players (odd seeds: they reach positions heuristic players avoid); a legal action every
    time, the same one whatever the generator, which is left as it was. Returns the decisions."""
    decisions = 0
    for n, rules in tables:
        agent = make_policy("heuristic", game, n)
        for seed in seeds:
            engine = game_class(game)(n, **rules)
            engine.reset(seed=seed)
            rng = np.random.default_rng(seed)
            random_seats = set() if seed % 2 == 0 else set(range(1, n, 2))
            for _ in range(5000):
                if engine.is_over:
                    break
                seat, mask = engine.current_player, engine.action_mask()
                obs = engine.observe(seat)
                if seat in random_seats:
                    action = RandomAgent().act(obs, mask, rng)
                else:
                    before = np.random.default_rng(seed + 1)
                    state = before.bit_generator.state
                    action = agent.act(obs, mask, before)
                    assert before.bit_generator.state == state, "the heuristic drew a random number"
                    assert mask[action], (game, n, rules, engine.describe_action(action))
                    assert action == agent.act(obs.copy(), mask.copy(), np.random.default_rng(seed + 99))
                    decisions += 1
                engine.step(action)
            assert engine.is_over, (game, n, rules, seed)
    return decisions


# ------------------------------------------------------------ UNO scenarios
def test_uno_calls_letzte_with_its_second_to_last_card():
    game = uno_game(hands=[["R9", "G5"], ["G1"], ["G1"], ["Y1"]])
    assert decide(game) == play("R9", call=True)


def test_uno_catches_every_missed_call():
    game = uno_game(hands=[["R9", "G5"], ["G1", "G2"], ["G1", "B2"], ["Y1", "Y2"]])
    game.step(play("R9"))  # no call
    assert game.phase == "catch" and decide(game) == UE.CATCH


def test_uno_stacks_a_draw_two_rather_than_drawing():
    game = uno_game(hands=[["R+2", "G5", "G6"], ["Y+2", "G1", "B3"], ["G1", "B2"], ["Y1", "Y2"]])
    game.step(play("R+2"))
    assert game.phase == "pending" and game.action_mask()[UE.DRAW]
    assert decide(game) == play("Y+2")


def test_uno_keeps_its_wild_while_a_coloured_card_plays():
    hands = [["R3", "W", "G6", "B7"], ["G1", "G2", "G3"], ["G1", "B2", "B3"], ["Y1", "Y2", "Y3"]]
    assert decide(uno_game(hands=hands)) == play("R3")


def test_uno_hits_a_next_player_about_to_go_out():
    hands = [["R3", "R+2", "G5", "B7"], ["G1"], ["G2", "B2", "B3"], ["Y1", "Y2", "Y3"]]
    assert decide(uno_game(hands=hands)) == play("R+2")
    hands[0][1] = "RS"
    assert decide(uno_game(hands=hands)) == play("RS")


def test_uno_names_the_colour_it_holds_most():
    game = uno_game(hands=[["W", "G1", "G2", "B7"], ["Y1", "Y2"], ["G1", "B2"], ["Y1", "Y3"]])
    game.step(play("W"))
    assert game.phase == "choose_colour" and decide(game) == colour("G")


def test_uno_challenges_a_draw_four_laid_from_a_big_hand_but_not_from_a_small_one():
    big = ["W+4", "R1", "R2", "R3", "R4", "G5", "G6", "Y7", "Y8", "B8"]  # 9 cards kept
    game = uno_game(hands=[big, ["G1", "G2"], ["G1"], ["Y1"]], draw_four="official")
    game.step(play("W+4"))
    game.step(colour("B"))
    assert game.action_mask()[UE.CHALLENGE] and decide(game) == UE.CHALLENGE
    game = uno_game(hands=[["W+4", "G5"], ["G1", "G2"], ["G1"], ["Y1"]], draw_four="official")
    game.step(play("W+4", call=True))
    game.step(colour("B"))
    assert game.action_mask()[UE.CHALLENGE] and decide(game) == UE.DRAW


# ----------------------------------------------------------- Tock scenarios
def test_tock_knocks_every_rule_break_and_nothing_else():
    game = tock_game(supply=[11, 12], piles={0: [5], 1: [3], 2: [9]}, centre=[4])
    game.step(DRAW)  # rule break (a): the 5 fits the row at 4
    assert game.phase == "knock" and decide(game) == KNOCK
    game = tock_game(supply=[11, 12], piles={0: [5], 1: [3], 2: [6]}, centre=[4])
    game.step(CENTRE)  # a break was available (the 6), the move was fair
    assert game.phase == "knock" and decide(game) == PASS


def test_tock_never_breaks_a_rule_and_gives_a_card_to_the_leader():
    game = tock_game(piles={0: [7], 1: [8]}, centre=[6])
    assert decide(game) == CENTRE  # also fits player 1's 8, but the centre comes first
    game = tock_game(n=4, piles={0: [9], 1: [3, 4, 10], 2: [12], 3: [5, 8]}, centre=[3])
    assert decide(game) == 3  # the 9 fits the 10 and the 8; player 3 holds fewer cards
    game = tock_game(n=4, piles={0: [9], 1: [10], 2: [12], 3: [5, 8]}, centre=[3])
    assert decide(game) == 1


def test_tock_dumps_its_last_card_on_an_opponent_as_no_window_opens():
    game = tock_game(supply=[], piles={0: [5], 1: [3, 6], 2: [2, 9]}, centre=[4])
    action = decide(game)
    assert action == 1 and action in game.rule_break_actions()
    game.step(action)
    assert game.finished_ranks() == {0: 1} and game.phase == "play"  # no knock window


# -------------------------------------------------------- Chip It scenarios
def play_out_turn(game: CardGame) -> list[int]:
    """Let the heuristic play the deciding seat's whole turn (a play built over several actions)."""
    seat, actions = game.current_player, []
    while not game.is_over and game.current_player == seat:
        actions.append(decide(game))
        game.step(actions[-1])
        if actions[-1] < CE.VALUE:  # a pass ends the turn even if the seat decides again
            break
    return actions


def test_chipit_goes_out_with_its_last_card_when_it_needs_no_chips():
    game = chipit_game(chips=[3, 0, 3], **answer_state([["G21", "G20"], ["G18"], ["G19"]], last_value=8))
    play_out_turn(game)
    assert game.is_over and game.ranks[1] == 1


def test_chipit_leads_its_biggest_set_that_needs_no_chips():
    hand = ["G5", "G5", "P5", "G12", "G15", "G20"]
    game = chipit_game(hands=[hand, ["G2", "G3"], ["G4", "G6"]])
    play_out_turn(game)
    state = game.state_dict()
    assert state["last_play"] == {"seat": 0, "count": 3, "value": 5}
    assert all(shown["chips"] == 0 for shown in state["display"][0])


def test_chipit_answers_with_the_cheapest_cards_and_passes_returning_all_it_may():
    hands = [["G21"], ["G9", "G15", "P3"], ["G19"]]
    game = chipit_game(chips=[3, 0, 3], **answer_state(hands, last_value=8))
    play_out_turn(game)
    assert game.state_dict()["display"][1] == [{"card": "G9", "chips": 0}]
    hands = [["G21"], ["G3", "G4"], ["G19"]]
    game = chipit_game(**answer_state(hands, last_value=20, last_cards=(("G20", 0),)))
    assert decide(game) == CE.PASS + 2  # 17 chips for one card: not worth it


# ---------------------------------------------------------------- strength
@pytest.mark.slow
@pytest.mark.parametrize(("game", "games"), [("uno", 8000), ("tock", 1000), ("chipit", 1000)])
def test_the_heuristic_player_beats_three_rule_players(game, games):
    """The docs' strength figures (docs/gauntlet.md): one heuristic against three rule-based
    players, seats rotated; its mean reward's 95% interval above 0."""
    result = tournament(game, ["heuristic", "rule", "rule", "rule"], games, seed=0, workers=2)
    assert result.agents[0].mean_reward.low > 0, result.table()
