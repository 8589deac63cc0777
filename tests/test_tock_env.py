"""Tock through the envs: PettingZoo and Gymnasium checks, state round trips, observations, invariants."""

from __future__ import annotations

import json
from collections import Counter

import gymnasium
import numpy as np
import pytest

from card_envs import tock_v1
from card_envs.games.tock.cards import TOP_CARD, full_deck
from card_envs.games.tock.encoding import (
    CENTRE,
    DRAW,
    KNOCK,
    LAYOUT,
    MAX_ROWS,
    MAX_SEATS,
    NUM_ACTIONS,
    OWN_PILE,
    PASS,
)
from card_envs.games.tock.engine import TockGame
from tests.env_checks import assert_valid_ranks

DECK = Counter(full_deck())


def supply_without(supply: list[int], *cards: int) -> list[int]:
    """``supply`` less ``cards``: a scenario that puts them elsewhere holds no card too often."""
    rest = list(supply)
    for card in cards:
        rest.remove(card)
    return rest


# ------------------------------------------------------------ API checks
# PettingZoo's api/seed/render tests and check_env at 2, 4 and 6 players, with and without
# rule breaks, run for every game in tests/test_generic_envs.py (the rule mixes of its spec).


def test_single_env_with_random_and_rule_opponents_and_variants():
    for opponents in ("random", "rule"):
        env = gymnasium.make(
            "card_envs/Tock-v1",
            num_players=3,
            opponents=opponents,
            opponent_knobs={"vigilance": 1.0, "target": "random"} if opponents == "rule" else None,
            opponent_choice="nearest",
            max_steps=400,
        )
        _, info = env.reset(seed=1)
        rng = np.random.default_rng(0)
        for _ in range(400):
            _, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if term or trunc:
                break
        assert (term or trunc) and -1.0 <= reward <= 1.0


def test_bad_rule_values_raise_value_error():
    with pytest.raises(ValueError, match="opponent_choice"):
        TockGame(opponent_choice="left")
    with pytest.raises(ValueError, match="allow_violations"):
        TockGame(allow_violations=1)
    with pytest.raises(ValueError):
        tock_v1.env(opponent_choice="far")
    game = TockGame(3, opponent_choice="nearest", allow_violations=False)
    assert (game.opponent_choice, game.allow_violations, game.num_players) == ("nearest", False, 3)
    assert TockGame().num_players == 4


# ------------------------------------------------------------ state dict
def random_states(num_players: int, count: int, seed: int = 0, **rules) -> list[TockGame]:
    """Games stopped at random points of random play."""
    games = []
    rng = np.random.default_rng(seed)
    for _ in range(count):
        game = TockGame(num_players, **rules)
        game.reset(rng)
        for _ in range(int(rng.integers(0, 2500))):
            if game.is_over:
                break
            game.step(int(rng.choice(game.legal_actions())))
        games.append(game)
    return games


def test_state_dict_has_the_documented_keys_and_is_json():
    game = TockGame(4)
    game.reset(3)
    state = game.state_dict()
    for key in (
        "game",
        "num_players",
        "current_player",
        "turn_player",
        "phase",
        "supply",
        "centre",
        "piles",
        "stacks",
        "drawn",
        "finished",
        "ranks",
        "window",
        "move",
        "last_action",
    ):
        assert key in state
    assert state["game"] == "tock" and state["phase"] == "play" and state["ranks"] is None
    assert len(state["supply"]) == 121 and Counter(state["supply"]) == DECK
    assert json.loads(json.dumps(state)) == state


@pytest.mark.parametrize("num_players", [2, 5])
def test_state_dict_round_trip_and_identical_continuation(num_players):
    for game in random_states(num_players, 12, seed=num_players):
        state = game.state_dict()
        clone = TockGame(num_players)
        clone.load_state_dict(json.loads(json.dumps(state)))
        assert clone.state_dict() == state
        assert np.array_equal(clone.action_mask(), game.action_mask())
        for seat in range(num_players):
            assert np.array_equal(clone.observe(seat), game.observe(seat))
        assert clone.render_text() == game.render_text()
        rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
        game.rng, clone.rng = np.random.default_rng(1), np.random.default_rng(1)
        for _ in range(200):
            if game.is_over:
                break
            game.step(int(rng_a.choice(game.legal_actions())))
            clone.step(int(rng_b.choice(clone.legal_actions())))
        assert clone.state_dict() == game.state_dict()


def test_load_state_rejects_bad_states_and_keeps_the_old_one():
    game = TockGame(3)
    game.reset(0)
    state = game.state_dict()
    good = state | {"piles": [[5], [], []], "supply": supply_without(state["supply"], 5)}
    game.load_state_dict(good)
    window = {"deciders": [1, 2], "rule_break": False, "ends_turn": False}
    bad_states = [
        good | {"game": "uno"},
        good | {"num_players": 4},
        good | {"piles": [[5], []]},
        good | {"piles": [[22], [], []]},
        good | {"centre": [3, 21]},
        good | {"centre": [1] * 7},
        good | {"phase": "dance"},
        good | {"phase": "knock", "window": None},
        good | {"turn_player": 3},
        good | {"drawn": 0},
        good | {"phase": "over"},
        good | {"phase": "over", "ranks": [1, 2]},
        good | {"phase": "knock", "window": window | {"deciders": [0, 1]}},
        good | {"phase": "knock", "window": window, "finished": [2]},
        good | {"supply": []},  # players 1 and 2 would hold nothing with the supply empty
        good | {"finished": [1], "finish_ranks": [None, None, 1]},
        {key: value for key, value in good.items() if key != "piles"},
    ]
    game.load_state_dict(good | {"phase": "knock", "window": window})  # these two are fine
    game.load_state_dict(good | {"supply": [], "stacks": [[], [3], [4, 4]]})
    game.load_state_dict(good)
    for bad in bad_states:
        with pytest.raises(ValueError):
            game.load_state_dict(bad)
        assert game.state_dict() == good | {"current_player": 0}


# ----------------------------------------------------------- observation
def test_observation_is_relative_to_the_observer_and_matches_the_state():
    game = TockGame(4)
    game.reset(0)
    game.load_state_dict(
        game.state_dict()
        | {
            "turn_player": 1,
            "piles": [[3, 9], [12], [], [20, 21]],
            "stacks": [[], [4, 5, 6], [], []],
            "centre": [4, 17, 1],
            "drawn": 7,
            "finished": [2],
            "finish_ranks": [None, None, 1, None],
            "supply": [8, 19] * 5,
        }
    )
    obs = game.observe(3)
    assert LAYOUT.size == obs.size and obs.dtype == np.float32
    assert np.all(obs >= LAYOUT.low) and np.all(obs <= LAYOUT.high)
    v = LAYOUT.view(obs)
    # relative seats of observer 3: 3, 0, 1, 2, then two absent slots
    assert v["seat_present"].tolist() == [1, 1, 1, 1, 0, 0]
    assert v["pile_top"].tolist() == [21, 9, 12, 0, 0, 0]
    assert v["pile_size"].tolist() == [2, 2, 1, 0, 0, 0]
    assert v["stack_size"].tolist() == [0, 0, 3, 0, 0, 0]
    assert v["finished"].tolist() == [0, 0, 0, 1, 0, 0]
    assert v["turn"].tolist() == [0, 0, 1, 0, 0, 0]
    assert v["centre"].tolist() == [17, 4, 1, 0, 0, 0]
    assert v["supply_size"][0] == 10 and v["card"][0] == 7 and v["card_source"].tolist() == [0, 1]
    assert v["phase"].tolist() == [1, 0]
    # v1: what lies below the tops, all public (piles bottom first, stacks top first)
    assert v["pile_under_top"].tolist() == [20, 3, 0, 0, 0, 0]
    assert v["pile_bottom"].tolist() == [20, 3, 12, 0, 0, 0]
    assert v["stack_top"].tolist() == [0, 0, 4, 0, 0, 0]
    pile_counts = v["pile_counts"].reshape(MAX_SEATS, TOP_CARD)
    assert {(r, c + 1): n for (r, c), n in np.ndenumerate(pile_counts) if n} == {
        (0, 20): 1,
        (0, 21): 1,
        (1, 3): 1,
        (1, 9): 1,
        (2, 12): 1,
    }
    assert {c + 1: n for c, n in enumerate(v["supply_counts"]) if n} == {8: 5, 19: 5}
    assert game.legal_actions() == [OWN_PILE]  # the 7 fits nowhere (player 2 is out, its pile empty)
    game.step(OWN_PILE)
    v = LAYOUT.view(game.observe(3))
    assert v["move_player"].tolist() == [0, 0, 1, 0, 0, 0]  # player 1 is two seats to 3's left
    assert v["move_kind"].tolist() == [0, 0, 0, 1] and v["move_card"][0] == 7 and v["move_break"][0] == 0
    assert v["last_player"].tolist() == [0, 0, 1, 0, 0, 0] and v["last_kind"].tolist() == [0, 0, 0, 1, 0, 0]
    assert v["turn"].tolist() == [1, 0, 0, 0, 0, 0]  # the turn skips the finished player 2
    assert v["card"][0] == 21 and v["card_source"].tolist() == [1, 0]  # player 3's own top card
    assert v["pile_top"][2] == 7


def test_the_retired_v0_env_names_its_successor():
    import card_envs

    replaced = r"card_envs.tock_v0 was replaced by card_envs.tock_v1"
    with pytest.raises(ImportError, match=replaced):
        card_envs.tock_v0  # noqa: B018 (the attribute access is the test)
    with pytest.raises(ImportError, match=replaced):
        from card_envs import tock_v0  # noqa: F401
    with pytest.raises(AttributeError):  # not a game's env: the usual error
        card_envs.tock_v9  # noqa: B018


def test_observation_shows_a_rule_break_and_its_target_to_the_knocker():
    game = TockGame(3)
    game.reset(0)
    supply = supply_without(game.state_dict()["supply"], 5, 6, 1, 2, 3, 4)
    game.load_state_dict(game.state_dict() | {"piles": [[5], [], [6]], "centre": [4], "supply": supply})
    game.step(2)  # the 5 onto player 2's 6 although it fits the centre
    assert game.current_player == 1 and game.phase == "knock"
    v = LAYOUT.view(game.observe(1))
    assert v["phase"].tolist() == [0, 1] and v["move_break"][0] == 1
    assert v["move_target"].tolist() == [0, 1, 0, 0, 0, 0] and v["move_kind"].tolist() == [0, 1, 0, 0]
    assert v["move_player"].tolist() == [0, 0, 1, 0, 0, 0]


# ------------------------------------------------------------- text
def test_describe_action_and_render_text():
    game = TockGame(3)
    game.reset(0)
    texts = [game.describe_action(a) for a in range(NUM_ACTIONS)]
    assert len(set(texts)) == NUM_ACTIONS and all(texts)
    assert "centre" in texts[CENTRE] and "draw" in texts[DRAW] and "TOCK" in texts[KNOCK]
    assert "no such seat" in texts[5]
    text = game.render_text()
    assert "player_0" in text and "supply: 121" in text and "Centre" in text
    env = tock_v1.env(render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == env.unwrapped.game.render_text()


# ------------------------------------------------------------ invariants
def expected_options(state: dict, nearest: bool) -> tuple[set[int], set[int]]:
    """Rule-following moves and rule breaks, worked out afresh from the public state."""
    n, t, piles, rows = state["num_players"], state["turn_player"], state["piles"], state["centre"]
    card, other = state["drawn"], OWN_PILE
    if card is None:
        if not piles[t]:
            return {DRAW}, set()
        card, other = piles[t][-1], DRAW
    centre = (card == 1 and len(rows) < MAX_ROWS) or (2 <= card <= 20 and card - 1 in rows)
    fits = [k for k in range(1, n) if piles[(t + k) % n] and abs(piles[(t + k) % n][-1] - card) == 1]
    if nearest:
        fits = fits[:1]
    if centre:
        return {CENTRE}, {*fits, other}
    if fits:
        return set(fits), {other}
    return {other}, set()


def census(state: dict) -> Counter:
    cards = Counter(state["supply"])
    for top in state["centre"]:
        cards.update(range(1, top + 1))
    for pile in (*state["piles"], *state["stacks"]):
        cards.update(pile)
    if state["drawn"] is not None:
        cards[state["drawn"]] += 1
    return cards


def check_full(game: TockGame, rules: dict) -> None:
    """The slower checks, on sampled states: every card once, the mask from an independent oracle."""
    state = game.state_dict()
    assert census(state) == DECK
    mask = set(np.flatnonzero(game.action_mask()).tolist())
    if state["phase"] == "knock":
        assert rules["allow_violations"]
        assert mask == {KNOCK, PASS}
        assert game.current_player != state["turn_player"] and game.current_player not in state["finished"]
    else:
        rule, breaks = expected_options(state, rules["opponent_choice"] == "nearest")
        assert mask == (rule | breaks if rules["allow_violations"] else rule)
        assert set(game.rule_break_actions()) == (breaks if rules["allow_violations"] else set())
    assert state["turn_player"] not in state["finished"]
    obs = game.observe(game.current_player)
    assert np.all(obs >= LAYOUT.low) and np.all(obs <= LAYOUT.high)


def play_checked(num_players: int, games: int, seed: int, rules: dict, sample: int = 53) -> dict:
    """Random games with cheap checks after every action and full ones every ``sample`` actions."""
    game = TockGame(num_players, **rules)
    rng = np.random.default_rng(seed)
    cap = game.default_max_steps
    lengths, truncated = [], 0
    actions = range(NUM_ACTIONS)
    for _ in range(games):
        game.reset(rng)
        coins = rng.random(cap).tolist()
        rows_before: list[int] = []
        steps = 0
        g = game
        while not g.is_over and steps < cap:
            if steps % sample == 0:
                check_full(g, rules)
            mask = g.action_mask().tolist()
            legal = [a for a in actions if mask[a]]
            assert legal, f"empty mask for player {g.current_player} in {g.phase}"
            g.step(legal[int(coins[steps] * len(legal))])
            steps += 1
            # cheap checks on the engine's lists: the card count, and rows grow by +1 (so a row
            # with top t holds 1..t)
            tb = g.table
            total = len(tb.supply) + sum(map(len, tb.piles)) + sum(map(len, tb.stacks)) + sum(tb.centre)
            assert total + (tb.drawn is not None) == 121
            rows = tb.centre
            if rows != rows_before:
                if len(rows) == len(rows_before) + 1:
                    assert rows[:-1] == rows_before and rows[-1] == 1
                else:
                    changed = [(a, b) for a, b in zip(rows_before, rows, strict=True) if a != b]
                    assert len(changed) == 1 and changed[0][1] == changed[0][0] + 1
                rows_before = list(rows)
            if not rules["allow_violations"]:
                assert g.phase != "knock"
        if game.is_over:
            assert_valid_ranks(game.ranks, num_players)
            ranks = game.ranks
            for seat, rank in game.finished_ranks().items():
                assert ranks[seat] == rank
            state = game.state_dict()
            assert census(state) == DECK
            still_in = [s for s in range(num_players) if s not in state["finished"]]
            assert len(still_in) <= 1 or state["centre"] == [20] * MAX_ROWS
        else:
            truncated += 1
            assert_valid_ranks(game.truncation_ranks(), num_players)
        lengths.append(steps)
    return {"mean": float(np.mean(lengths)), "max": max(lengths), "truncated": truncated}


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_invariants_over_random_games_with_rule_breaks(num_players):
    stats = play_checked(num_players, 10, seed=100 + num_players, rules=RULES_FREE)
    assert stats["truncated"] == 0, stats


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_invariants_over_2000_random_games_with_rule_breaks(num_players):
    stats = play_checked(num_players, 2000, seed=100 + num_players, rules=RULES_FREE)
    assert stats["truncated"] == 0, stats


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_invariants_over_random_games_without_rule_breaks(num_players):
    for rules in (RULES_STRICT, RULES_STRICT_NEAREST):
        stats = play_checked(num_players, 10, seed=200 + num_players, rules=rules)
        assert stats["truncated"] == 0, stats


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_invariants_over_200_random_games_without_rule_breaks(num_players):
    for rules in (RULES_STRICT, RULES_STRICT_NEAREST):
        stats = play_checked(num_players, 200, seed=200 + num_players, rules=rules)
        assert stats["truncated"] == 0, stats


RULES_FREE = {"allow_violations": True, "opponent_choice": "free"}
RULES_STRICT = {"allow_violations": False, "opponent_choice": "free"}
RULES_STRICT_NEAREST = {"allow_violations": False, "opponent_choice": "nearest"}


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_invariants_with_nearest_and_rule_breaks_slow(num_players):
    rules = {"allow_violations": True, "opponent_choice": "nearest"}
    stats = play_checked(num_players, 2000, seed=300 + num_players, rules=rules, sample=7)
    assert stats["truncated"] == 0, stats
