"""Chip It through the PettingZoo and Gymnasium APIs, plus invariants over many random games."""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest

from card_envs import chipit_v0
from card_envs.games.chipit import encoding as E
from card_envs.games.chipit.cards import COPIES, FACE, NUM_CARDS, NUM_GREEN, NUM_TYPES, TOTAL_CHIPS
from card_envs.games.chipit.engine import ChipItGame
from tests.env_checks import assert_valid_ranks, random_playouts, run_check_env

MAIN_KEYS = (
    "hands",
    "chips",
    "supply",
    "display",
    "last_play",
    "discard",
    "out",
    "finished",
    "ranks",
    "passes",
)


def check_invariants(game: ChipItGame) -> None:
    """60 cards and 108 chip points accounted for; nothing negative (runs after every action)."""
    n = game.num_players
    tb = game.table
    cards = sum(tb.hand_sizes) + sum(len(d) for d in tb.display) + len(tb.discard) + len(tb.out)
    assert cards == NUM_CARDS, f"{cards} cards accounted for"
    chips = tb.supply + sum(tb.held) + sum(s.chips for d in tb.display for s in d)
    assert chips == TOTAL_CHIPS, f"{chips} chip points accounted for"
    assert tb.supply >= 0 and min(tb.held) >= 0
    if not game.is_over:
        assert not tb.is_finished[game.current_player]
        assert not tb.display[game.current_player], "own cards are cleared at the start of the turn"
    assert len(tb.finished) <= (n if game.play_to_end else 1)
    game.check_consistency()  # the engine's own, fuller check must agree


def check_card_types(game: ChipItGame) -> None:
    tb = game.table
    counts = [0] * NUM_TYPES
    for p in range(game.num_players):
        for t in range(NUM_TYPES):
            counts[t] += tb.hands[p][t]
        assert sum(tb.hands[p]) == tb.hand_sizes[p]
        for s in tb.display[p]:
            counts[s.card] += 1
    for t in tb.discard + tb.out:
        counts[t] += 1
    assert counts == [COPIES] * NUM_TYPES


# ------------------------------------------------------------------ APIs
# PettingZoo's api/seed/render tests and check_env at 2, 4 and 6 players and with
# play_to_end run for every game in tests/test_generic_envs.py.
@pytest.mark.parametrize(
    "kwargs",
    [{"num_players": 2, "opponents": "random"}, {"num_players": 6, "learner_seat": 5, "play_to_end": True}],
)
def test_gymnasium_check_env_with_other_opponents_and_seats(kwargs):
    run_check_env("card_envs/ChipIt-v0", **kwargs)


def test_bad_rule_values_raise():
    for bad in (1, "yes", None):
        with pytest.raises(ValueError):
            chipit_v0.env(play_to_end=bad)
    with pytest.raises(ValueError):
        ChipItGame(7)


def test_action_space_and_descriptions():
    game = ChipItGame()
    assert game.num_actions == E.NUM_ACTIONS == 279 <= 300
    texts = [game.describe_action(a) for a in range(game.num_actions)]
    assert len(set(texts)) == len(texts) and all(texts)
    assert texts[E.PASS + 2] == "pass, returning 2 points"
    assert texts[E.VALUE + 15] == "value 17"
    assert (
        texts[E.HIGH] == "value block 130..139"
        and texts[E.HIGH + E.NUM_BLOCKS - 1] == "value block 1190..1199"
    )
    assert texts[E.CARD] == "add card G2" and texts[E.DONE - 1] == "add card P11"


def test_render_text_shows_the_table():
    env = chipit_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    assert "Chip It, 3 players" in text and "player_0 to lead" in text and "3 chip points held" in text
    game = env.unwrapped.game
    game.step(int(np.flatnonzero(game.action_mask())[0]))
    assert "player_0 is building a lead at 2" in game.render_text()


def test_observation_fields_and_bounds():
    game = ChipItGame(4)
    game.reset(seed=3)
    layout = game.observation_layout
    rng = np.random.default_rng(0)
    for _ in range(300):
        if game.is_over:
            game.reset(rng)
        for seat in range(4):
            obs = game.observe(seat)
            assert obs.dtype == np.float32 and obs.shape == (layout.size,)
            assert np.all(obs >= layout.low) and np.all(obs <= layout.high)
            v = layout.view(obs)
            assert v["hand"].tolist() == game.table.hands[seat]
            assert v["hand_sizes"][0] == game.table.hand_sizes[seat] and v["supply"][0] == game.table.supply
            assert v["phase"][E.PHASES.index(game.phase)] == 1
            assert v["hand_sizes"][1] == game.table.hand_sizes[(seat + 1) % 4]  # relative seats
        legal = np.flatnonzero(game.action_mask())
        game.step(int(legal[rng.integers(legal.size)]))


def test_observation_shows_the_play_being_built():
    game = ChipItGame(3)
    game.reset(seed=0)
    t = next(t for t in range(NUM_GREEN) if game.table.hands[0][t])  # a green card of seat 0
    game.step(E.VALUE + FACE[t] + 1 - E.MIN_VALUE)  # one above its face: 1 chip
    game.step(E.CARD + t)
    v = game.observation_layout.view(game.observe(0))
    assert v["build_value"][0] == FACE[t] + 1 and v["build_cards"][t] == 1 and v["build_chips"][0] == 1
    assert v["phase"][E.PHASES.index("cards")] == 1


def test_value_features_say_what_each_value_costs_the_hand():
    from tests.test_chipit_rules import answer_state, game_from

    lead = game_from(hands=[["G5", "P5", "G9"], ["G3"], ["G4"]])
    v = lead.observation_layout.view(lead.observe(0))
    at = lambda value: value - E.MIN_VALUE  # noqa: E731
    assert v["free_cards"][at(5)] == 2 and v["free_cards"][at(9)] == 1 and v["free_cards"][at(6)] == 0
    # leading: the cheapest single card; 10 = P5 with 1 point (G5 needs 5), 4 = nobody
    assert (
        v["play_costs"][at(10)] == 1 and v["play_costs"][at(9)] == 0 and v["play_costs"][at(4)] == E.NO_PLAY
    )
    # answering a pair: the two cheapest cards at each value
    answer = game_from(
        **answer_state([["G21"], ["G5", "P5", "G9"], ["G4"]], last_value=4, last_cards=(("G4", 0), ("P2", 1)))
    )
    v = answer.observation_layout.view(answer.observe(1))
    assert v["play_costs"][at(10)] == 1 + 1 and v["play_costs"][at(9)] == 0 + 4  # P5+G9; G9+G5
    assert v["play_costs"][at(5)] == 0 and v["free_cards"][at(5)] == 2


# ------------------------------------------------------------ invariants
def check_invariants_over_random_games(num_players: int, games: int) -> None:
    game = ChipItGame(num_players)
    stats = random_playouts(game, games=games, seed=num_players, check=check_invariants)
    check_card_types(game)
    assert stats["truncated"] == 0  # random games end well inside the default step cap
    assert 50 < stats["mean_steps"] < game.default_max_steps / 5


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_invariants_over_random_games(num_players):
    check_invariants_over_random_games(num_players, games=30)


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_invariants_over_2000_random_games(num_players):
    check_invariants_over_random_games(num_players, games=2000)


@pytest.mark.parametrize(
    ("num_players", "games"),
    [
        (3, 40),
        (6, 30),
        pytest.param(3, 300, marks=pytest.mark.slow),
        pytest.param(6, 300, marks=pytest.mark.slow),
    ],
)
def test_invariants_play_to_end(num_players, games):
    game = ChipItGame(num_players, play_to_end=True)

    def check(g: ChipItGame) -> None:
        check_invariants(g)
        if g.is_over:
            check_card_types(g)
            assert len(g.table.finished) == num_players - 1
            assert sorted(g.ranks) == list(range(1, num_players + 1))

    random_playouts(game, games=games, seed=1, check=check)


def test_truncated_games_have_valid_ranks():
    game = ChipItGame(5, play_to_end=True)
    stats = random_playouts(game, games=100, seed=2, max_steps=150)
    assert stats["truncated"] > 50
    rng = np.random.default_rng(0)
    game.reset(rng)
    for _ in range(200):
        legal = np.flatnonzero(game.action_mask())
        game.step(int(legal[rng.integers(legal.size)]))
        if game.table.finished:
            break
    ranks = game.truncation_ranks()
    assert_valid_ranks(ranks, 5)
    for seat, rank in game.finished_ranks().items():
        assert ranks[seat] == rank


@pytest.mark.parametrize("states", [50, pytest.param(150, marks=pytest.mark.slow)])
def test_every_move_being_built_completes_and_touches_no_main_key(states):
    """From sampled states, every masked-in choice leads to a completed play (no dead end)."""
    rng = np.random.default_rng(9)
    for num_players in (2, 4, 6):
        game = ChipItGame(num_players)
        for _ in range(states):
            game.reset(rng)
            for _ in range(int(rng.integers(0, 60))):
                if game.is_over:
                    break
                legal = np.flatnonzero(game.action_mask())
                game.step(int(legal[rng.integers(legal.size)]))
            if game.is_over:
                continue
            start = game.state_dict()
            for action in game.legal_actions():
                explore(game, start, action, rng)


def explore(game: ChipItGame, start: dict, action: int, rng: np.random.Generator) -> None:
    """Take ``action`` then random legal choices until the turn's play is complete."""
    game.load_state_dict(start)
    seat = start["current_player"]
    game.step(action)
    while game.table.build is not None:
        assert game.current_player == seat
        state = game.state_dict()
        assert all(state[k] == start[k] for k in MAIN_KEYS)
        legal = np.flatnonzero(game.action_mask())
        assert legal.size, f"dead end after {game.describe_action(action)}: {state['building']}"
        game.step(int(legal[rng.integers(legal.size)]))
    assert game.current_player != seat or game.is_over


def test_state_dict_round_trip_through_json():
    rng = np.random.default_rng(4)
    for num_players in (2, 5):
        game = ChipItGame(num_players)
        other = ChipItGame(num_players)
        game.reset(rng)
        for _ in range(250):
            state = game.state_dict()
            other.load_state_dict(json.loads(json.dumps(state)))
            assert other.state_dict() == state
            assert np.array_equal(other.action_mask(), game.action_mask())
            assert np.array_equal(other.observe(game.current_player), game.observe(game.current_player))
            if game.is_over:
                game.reset(rng)
                continue
            legal = np.flatnonzero(game.action_mask())
            game.step(int(legal[rng.integers(legal.size)]))


def test_same_seed_same_deal():
    a, b = ChipItGame(4), ChipItGame(4)
    a.reset(seed=17)
    b.reset(seed=17)
    assert a.state_dict() == b.state_dict()
    b.reset(seed=18)
    assert a.state_dict() != b.state_dict()


def test_single_env_plays_whole_games_against_rule_opponents():
    env = gymnasium.make("card_envs/ChipIt-v0", num_players=4, opponents="rule")
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(1)
    done = 0
    while done < 5:
        mask = env.unwrapped.action_masks()
        obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert env.observation_space.contains(obs)
        if term or trunc:
            assert "rank" in info and -1 <= reward <= 1
            done += 1
            _, info = env.reset()
