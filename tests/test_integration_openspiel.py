"""OpenSpiel: every game as a pyspiel Python game (issue 24, item 3).

OpenSpiel's own random-simulation checks at the smallest, default and largest table;
its ISMCTSBot and MCTSBot playing whole games; returns that are the rank rewards of our
engine replaying the same seed and actions; resamples that keep the player's view and
change what it cannot see. Skipped unless the ``openspiel`` extra is installed (CI
installs it in its integrations step).
"""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

pytest.importorskip("pyspiel", reason="the 'openspiel' extra (pyspiel) is not installed")

import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from card_envs.agents.search import SearchSettings
from card_envs.core.ranking import rank_rewards
from card_envs.core.registry import game_class, game_spec
from card_envs.integrations import openspiel
from card_envs.integrations.openspiel import openspiel_game, short_name
from tests.scripts import load_script

GAMES = ["chipit", "tock", "uno"]
TABLES = [(game, n) for game in GAMES for n in game_spec(game).player_counts()]
#: the largest table of each game runs under ``slow`` (its games are the longest)
SHORT_CAP_TABLES = [
    pytest.param(game, n, marks=pytest.mark.slow) if n == max(game_spec(game).player_counts()) else (game, n)
    for game, n in TABLES
]
#: a cap that random games often reach, so the fast checks also cover the ranks of a stopped game
SHORT = 200


def replayed_returns(state) -> list[float]:
    """The rank rewards of our own engine dealt from the state's seed and given its actions."""
    game = state.get_game()
    engine = game_class(game.engine_class).from_rules(game.num_players(), **game.rules)
    engine.reset(state.seed)
    for action in state.history():
        engine.step(action)
    ranks = engine.ranks if engine.is_over else engine.truncation_ranks()
    assert ranks is not None
    return rank_rewards(ranks)


def play_out(state, rng: np.random.Generator):
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize(("game", "players"), SHORT_CAP_TABLES)
def test_openspiel_random_simulation_checks_with_a_short_cap(game, players):
    spiel_game = openspiel_game(game, players, max_steps=SHORT, rng_seed=players)
    pyspiel.random_sim_test(spiel_game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players"), TABLES)
def test_openspiel_random_simulation_checks_to_the_end(game, players):
    spiel_game = openspiel_game(game, players, rng_seed=players)
    pyspiel.random_sim_test(spiel_game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize("game", GAMES)
def test_the_game_facts_are_the_engines(game):
    cls = game_class(game)
    spiel_game = pyspiel.load_game(short_name(game))
    facts = spiel_game.get_type()
    assert spiel_game.num_players() == cls.default_players
    assert (facts.min_num_players, facts.max_num_players) == (cls.min_players, cls.max_players)
    assert spiel_game.num_distinct_actions() == cls.num_actions
    assert spiel_game.max_game_length() == cls.default_max_steps
    assert facts.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert facts.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert spiel_game.observation_tensor_size() == cls().observation_size
    assert spiel_game.information_state_tensor_size() == cls().observation_size
    engine = cls()
    engine.reset(7)
    state = spiel_game.deal(7)
    for seat in range(cls.default_players):
        assert state.observation_tensor(seat) == pytest.approx(engine.observe(seat).tolist())
        assert state.information_state_tensor(seat) == state.observation_tensor(seat)
        assert state.observation_string(seat) == engine.render_text(seat)
        assert state.information_state_string(seat) == engine.render_text(seat)
    assert state.current_player() == engine.current_player
    assert state.legal_actions() == engine.legal_actions()


@pytest.mark.parametrize("game", GAMES)
def test_rng_seed_repeats_the_deals_of_a_fresh_game(game):
    first, second = (openspiel_game(game, rng_seed=5) for _ in range(2))
    seeds = [first.new_initial_state().seed for _ in range(3)]
    assert [second.new_initial_state().seed for _ in range(3)] == seeds
    assert len(set(seeds)) == 3
    state = openspiel_game(game, rng_seed=5).new_initial_state()
    assert str(state) == str(first.deal(seeds[0])), "a state is the deal of its seed"


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_returns_are_the_rank_rewards_of_our_engine_replaying_the_game(game, players):
    rng = np.random.default_rng(players)
    for max_steps in (SHORT, None):  # stopped at the cap, and played to the end
        params = {} if max_steps is None else {"max_steps": max_steps}
        state = play_out(openspiel_game(game, players, rng_seed=0, **params).new_initial_state(), rng)
        assert state.returns() == pytest.approx(replayed_returns(state))
        assert sum(state.returns()) == pytest.approx(0.0)
        if max_steps is not None:
            assert len(state.history()) <= max_steps


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(
    ("players", "max_steps"), [(3, SHORT), pytest.param(None, None, marks=pytest.mark.slow)]
)
def test_ismcts_and_mcts_bots_play_whole_games(game, players, max_steps):
    """ISMCTS (on resamples), MCTS (on the true state) and a random player, to the cap or the end."""
    spiel_game = openspiel_game(game, players, **({} if max_steps is None else {"max_steps": max_steps}))
    rollouts = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0), max_length=20)
    bots = [
        ismcts.ISMCTSBot(spiel_game, rollouts, 2.0, max_simulations=4, random_state=np.random.RandomState(1)),
        mcts.MCTSBot(spiel_game, 2.0, 4, rollouts, random_state=np.random.RandomState(2)),
    ]
    seats = spiel_game.num_players()
    bots += [pyspiel.make_uniform_random_bot(seat, seat) for seat in range(2, seats)]
    state = spiel_game.deal(11)
    moves = [0] * seats
    while not state.is_terminal():
        player = state.current_player()
        action = bots[player].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves[player] += 1
    assert min(moves) > 0
    assert state.returns() == pytest.approx(replayed_returns(state))


@pytest.mark.parametrize("game", GAMES)
def test_a_resample_shows_the_player_the_same_and_deals_what_it_cannot_see_anew(game):
    spiel_game = openspiel_game(game, 4, max_steps=SHORT)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    rng = np.random.default_rng(3)
    differed = 0
    for seed in range(4):
        state = spiel_game.deal(seed)
        for _ in range(int(rng.integers(0, 40))):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        player = state.current_player() if not state.is_terminal() else 0
        truth = state.clone()
        sample = state.resample_from_infostate(player, sampler)
        assert str(state) == str(truth), "the true state is left unchanged"
        assert sample.history() == state.history()
        assert sample.observation_tensor(player) == state.observation_tensor(player)
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.legal_actions() == state.legal_actions()
        differed += str(sample) != str(state)  # the whole table: every hand, the next card drawn
        play_out(sample, rng)  # a sample plays on to the end
        assert str(state) == str(truth)
    assert differed > 0, "a resample deals the other seats' hidden cards anew, it is not a clone"


def test_bad_parameters_get_errors_naming_them():
    cls = game_class("uno")
    with pytest.raises(ValueError, match="num_players of uno"):
        openspiel_game("uno", cls.max_players + 1)
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['colours'\]"):
        openspiel_game("uno", 4, colours=3)
    with pytest.raises(ValueError, match="draw_four"):
        openspiel_game("uno", 4, draw_four="never ever")
    with pytest.raises(ValueError, match="max_steps"):
        openspiel_game("uno", 4, max_steps=0)
    with pytest.raises(ValueError, match="unknown game"):
        openspiel_game("bridge")
    public = pyspiel.IIGObservationType(
        public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
    )
    with pytest.raises(ValueError, match=r"only a seat's own view.*got private_info=NONE"):
        openspiel_game("uno", 4).make_py_observer(public)


def test_registering_again_is_harmless():
    names = set(pyspiel.registered_names())
    importlib.reload(sys.modules[openspiel.__name__])
    assert set(pyspiel.registered_names()) == names
    assert {short_name(g) for g in GAMES} <= names
    assert openspiel.register("uno") == "python_card_envs_uno"


def test_a_position_of_our_engine_becomes_a_state_a_bot_decides_in_and_is_left_alone():
    engine = game_class("chipit")(4)
    engine.reset(8)
    rng = np.random.default_rng(0)
    for _ in range(25):
        engine.step(int(rng.choice(engine.legal_actions())))
    before = engine.state_dict()
    state = openspiel_game("chipit", 4).state_at(engine)
    assert state.current_player() == engine.current_player
    assert state.legal_actions() == engine.legal_actions()
    state.apply_action(state.legal_actions()[0])
    assert engine.state_dict() == before
    with pytest.raises(ValueError, match="does not fit"):
        openspiel_game("chipit", 3).state_at(engine)


@pytest.mark.slow
def test_the_duel_bench_scores_the_same_however_its_games_are_spread() -> None:
    """bench/search.py's duel against ISMCTSBot seeds each game by its number: at equal
    simulations, one worker and two give the same games and so the same figures."""
    bench = load_script("bench/search.py")
    settings = SearchSettings(sims=8)
    one, two = (bench.duel("chipit", settings, 8, 3, 3, workers) for workers in (1, 2))
    assert one == two and -1.0 <= one[1] <= one[0] <= one[2] <= 1.0
