"""The search players (sequential halving in shared worlds, and information-set MCTS): budgets
kept, seeded, blind to hidden cards.

Strength is measured by ``bench/search.py``; these tests check behaviour: one simulation
plays the own player's move, the simulations asked for are the simulations run, every root
move is compared in the same worlds, a move replaces the own player's only when it is
clearly better, the same seed gives the same move, two true states the seat cannot tell
apart give the same move, and search players sit at every table of every game through the
specs and the play loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from card_envs.agents.policy_spec import rule_spec
from card_envs.agents.registry import rule_agent_spec
from card_envs.agents.search import SearchPlayer, SearchSettings
from card_envs.agents.search.halving import Halving
from card_envs.agents.specs import check_spec, make_policy
from card_envs.core.game import CardGame
from card_envs.core.play import play_game
from card_envs.core.registry import game_spec
from card_envs.games.chipit.engine import ChipItGame
from card_envs.games.tock.engine import TockGame
from card_envs.games.uno.engine import UnoGame
from tests.test_sample_world import _swap_hidden, positions
from tests.toy_game import ClimbGame

GAMES: list[type[CardGame]] = [UnoGame, TockGame, ChipItGame]


def decisions(game: type[CardGame], n: int, count: int, seed: int = 0) -> list[CardGame]:
    """Mid-game positions with more than one legal move."""
    found = [g for g in positions(game, {}, n, range(seed, seed + 40), every=7) if len(g.legal_actions()) > 1]
    assert len(found) >= count
    return found[:count]


def searcher(game: type[CardGame], n: int, **knobs: Any) -> SearchPlayer:
    """A search player with the search's general defaults (not its game's) under ``knobs``."""
    return SearchPlayer(game.name, n, SearchSettings.from_knobs(knobs), make_policy=make_policy)


def test_a_game_names_its_own_search_defaults_and_a_spec_overrides_them() -> None:
    """Tock's rollouts stop at 200 actions unless ``horizon=none``; UNO keeps the heuristic
    player's move unless another beats it by 3 standard errors; Chip It has the general defaults."""
    general = SearchSettings()
    tock = make_policy("search:sims=25", "tock", 4)
    assert isinstance(tock, SearchPlayer)
    assert (tock.settings.horizon, tock.settings.sims, general.horizon) == (200, 25, None)
    assert SearchPlayer("tock", 4, sims=5).settings.horizon == 200
    to_the_end = make_policy("search:horizon=none", "tock", 4)
    assert isinstance(to_the_end, SearchPlayer) and to_the_end.settings.horizon is None
    uno = make_policy("search", "uno", 4)
    assert isinstance(uno, SearchPlayer)
    assert (uno.settings.default, uno.settings.z) == ("heuristic", 3.0)
    assert make_policy("search:z=1.5:default=own", "uno", 4).settings == general  # type: ignore[attr-defined]
    assert make_policy("search", "chipit", 4).settings == general  # type: ignore[attr-defined]


def test_a_table_size_can_want_other_search_defaults() -> None:
    """Tock's 2-player rollouts stop later (``search_by_players``); its other tables keep 200,
    and a spec's own horizon still wins at 2 players."""
    assert game_spec("tock").search_defaults(2) == {"horizon": 400}
    assert game_spec("tock").search_defaults(6) == {"horizon": 200}
    two = make_policy("search:sims=3", "tock", 2)
    assert isinstance(two, SearchPlayer) and two.settings.horizon == 400
    assert SearchPlayer("tock", 2, sims=3).settings.horizon == 400
    assert make_policy("search:horizon=50", "tock", 2).settings.horizon == 50  # type: ignore[attr-defined]
    assert game_spec("uno").search_defaults(2) == game_spec("uno").search


@pytest.mark.parametrize("algo", ["halving", "puct", "uct"])
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_one_simulation_plays_the_rollout_players_move(game: type[CardGame], algo: str) -> None:
    heuristic = make_policy("heuristic", game.name, 4)  # draws no random numbers
    player = searcher(game, 4, sims=1, rollout="heuristic", algo=algo, leaves=1)
    for g in decisions(game, 4, 6):
        assert player.search(g, np.random.default_rng(0)) == heuristic.act_in(g, np.random.default_rng(1))


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_one_simulation_plays_the_sound_rule_players_move(game: type[CardGame]) -> None:
    """The own seat's player is the rule agent without lapses (``own=sound``): its move is
    the search's default move, not the default knobs' slip."""
    sound = make_policy(rule_spec(dict(rule_agent_spec(game.name).sound_knobs)), game.name, 4)
    player = searcher(game, 4, sims=1)
    for i, g in enumerate(decisions(game, 4, 6)):
        expected = sound.act_in(g, np.random.default_rng(i))
        assert player._candidates(g, np.random.default_rng(i))[0] == expected
        assert player.search(g, np.random.default_rng(i)) == expected


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_default_move_comes_from_the_player_named_by_default(game: type[CardGame]) -> None:
    """``default=heuristic``: the heuristic player's move is the one compared first and kept
    unless another beats it (with ``z`` out of reach, always kept); the rollouts stay rule's."""
    heuristic = make_policy("heuristic", game.name, 4)
    player = searcher(game, 4, sims=12, default="heuristic", z=100.0)
    own = searcher(game, 4, sims=12)
    differs = 0
    for i, g in enumerate(decisions(game, 4, 40)):
        expected = heuristic.act_in(g, np.random.default_rng(i))
        assert player._candidates(g, np.random.default_rng(i))[0] == expected
        if i < 6:
            assert player.search(g, np.random.default_rng(i)) == expected
        differs += expected != own._candidates(g, np.random.default_rng(i))[0]
    # the two players differ in these UNO and Chip It decisions (in Tock's they agree), so the
    # default is seen to be the heuristic player's
    assert differs or game.name == "tock"
    with pytest.raises(ValueError, match="default=net needs net"):
        searcher(game, 4, default="net")
    rolled = searcher(game, 4, sims=6, own="heuristic", leaves=3)  # its rollouts stepped, in Python
    for i, g in enumerate(decisions(game, 4, 3)):
        expected = heuristic.act_in(g, np.random.default_rng(i))
        assert rolled._candidates(g, np.random.default_rng(i))[0] == expected
        assert rolled.search(g, np.random.default_rng(i)) in g.legal_actions()
        assert rolled.last is not None and 0 < rolled.last.sims <= 6


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_halving_spends_its_budget_on_every_move_in_the_same_worlds(game: type[CardGame]) -> None:
    player = searcher(game, 4, sims=45, leaves=8)
    g = decisions(game, 4, 1)[0]
    before = g.state_dict()
    action = player.search(g, np.random.default_rng(3))
    stats = player.last
    assert stats is not None and action in g.legal_actions()
    candidates = min(len(g.legal_actions()), player.settings.width)
    assert 45 - candidates < stats.sims <= 45 and sum(stats.visits.values()) == stats.sims
    assert len(stats.visits) == candidates  # every candidate had its first round
    assert g.state_dict() == before  # the true game is never stepped


def fixed_halving(rewards: dict[int, list[float]], z: float, sims: int) -> tuple[int, Halving]:
    """A halving whose move ``a`` in world ``k`` is worth ``rewards[a][k]`` (world k: the k-th drawn)."""
    worlds = iter(range(10**6))

    def play(drawn: list[int], moves: list[list[int]]) -> list[list[float]]:
        return [[rewards[a][k] for a in its] for k, its in zip(drawn, moves, strict=True)]

    search = Halving(list(rewards), lambda: next(worlds), play)  # type: ignore[arg-type]
    search.run(sims, None)
    return search.choice(z), search


def test_halving_keeps_the_own_move_unless_another_is_better_by_z_standard_errors() -> None:
    noise = np.random.default_rng(0).normal(0, 0.5, 200)
    own, better, worse = noise.tolist(), (noise + 0.2).tolist(), (noise - 0.5).tolist()
    assert fixed_halving({0: own, 1: worse, 2: better}, z=2.0, sims=60)[0] == 2  # same worlds: clear
    own_apart = np.random.default_rng(1).normal(0, 0.5, 200).tolist()  # other worlds' luck: unclear
    assert fixed_halving({0: own_apart, 1: worse, 2: better}, z=2.0, sims=60)[0] == 0
    slightly = noise + 0.01 + np.random.default_rng(2).normal(0, 0.3, 200)  # a hair better, noisily
    assert fixed_halving({0: own, 2: slightly.tolist()}, z=2.0, sims=60)[0] == 0


def test_halving_drops_the_worse_half_each_round_but_never_the_own_move() -> None:
    base = np.zeros(100)
    rewards = {0: (base - 0.3).tolist(), **{a: (base + a / 10).tolist() for a in range(1, 8)}}
    choice, search = fixed_halving(rewards, z=1.0, sims=70)
    visits = search.visits()
    assert choice == 7 and visits[7] == visits[0] == max(visits.values())
    assert all(visits[a] < visits[7] for a in range(1, 7)) and sum(visits.values()) <= 70


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_budget_is_the_simulations_run_and_the_root_visits(game: type[CardGame]) -> None:
    player = searcher(game, 4, sims=45, leaves=8, algo="puct")
    g = decisions(game, 4, 1)[0]
    before = g.state_dict()
    action = player.search(g, np.random.default_rng(3))
    stats = player.last
    assert stats is not None and stats.sims == 45 and stats.waves == 6
    assert sum(stats.visits.values()) == 45
    assert action in g.legal_actions() and stats.visits[action] == max(stats.visits.values())
    assert g.state_dict() == before  # the true game is never stepped


def test_a_time_budget_runs_whole_waves_until_the_time_is_up() -> None:
    player = searcher(UnoGame, 3, sims=None, ms=1.0, leaves=4, algo="puct")
    player.search(decisions(UnoGame, 3, 1)[0], np.random.default_rng(0))
    assert player.last is not None and player.last.sims % 4 == 0 and player.last.sims >= 4


def test_a_time_budget_for_halving_scales_the_rounds_to_the_measured_speed() -> None:
    g = decisions(TockGame, 4, 1)[0]
    quick, slow = searcher(TockGame, 4, sims=None, ms=1.0), searcher(TockGame, 4, sims=None, ms=400.0)
    quick.search(g, np.random.default_rng(0))  # compiles the rollouts first
    slow.search(g, np.random.default_rng(0))
    assert quick.last is not None and slow.last is not None
    assert slow.last.sims > quick.last.sims >= 2 * len(g.legal_actions())  # the probe round at least


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_same_seed_gives_the_same_search(game: type[CardGame]) -> None:
    g = decisions(game, 3, 1, seed=5)[0]
    runs = []
    for _ in range(2):
        player = searcher(game, 3, sims=24, leaves=6)
        runs.append((player.search(g, np.random.default_rng(9)), player.last.visits if player.last else None))
    assert runs[0] == runs[1]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_states_the_seat_cannot_tell_apart_get_the_same_search(game: type[CardGame]) -> None:
    """Hidden cards moved between the places the seat cannot see change nothing it does."""
    rng = np.random.default_rng(0)
    compared = 0
    for g in decisions(game, 4, 8, seed=11):
        other = _swap_hidden(g, g.current_player, rng)
        if other is None:
            continue
        results = []
        for table in (g, other):
            player = searcher(game, 4, sims=8, leaves=4)
            visits = player.last.visits if player.last else None
            results.append((player.search(table, np.random.default_rng(2)), visits))
        assert results[0] == results[1]
        compared += 1
    assert compared >= 3


def test_a_perfect_information_search_simulates_the_true_state() -> None:
    g = decisions(UnoGame, 4, 1)[0]
    perfect = searcher(UnoGame, 4, perfect=True)
    fair = searcher(UnoGame, 4)
    rng = np.random.default_rng(0)
    assert perfect._sampler(g, g.current_player)(rng).state_dict() == g.state_dict()
    sample = fair._sampler(g, g.current_player)
    hidden_differs = any(sample(rng).state_dict() != g.state_dict() for _ in range(5))
    assert hidden_differs


def play_with_a_search_player(game: type[CardGame], n: int, max_steps: int | None) -> None:
    """A search player through its spec and the play loop, beside rule players (a game with no
    batched engine, the toy one, rolls out on the reference engine)."""
    spec, others = "search:sims=6:leaves=3", "rule"
    if game is ClimbGame:  # no hidden-card sampler: only the perfect-information search plays it
        spec, others = spec + ":rollout=random:perfect=true", "random"
    policies = [make_policy(spec, game.name, n), *(make_policy(others, game.name, n) for _ in range(n - 1))]
    outcome = play_game(game(n), policies, np.random.default_rng(n), max_steps=max_steps)
    assert outcome.steps == max_steps or not outcome.truncated


@pytest.mark.parametrize("game", [*GAMES, ClimbGame], ids=lambda g: g.name)
def test_search_players_play_at_the_smallest_and_largest_tables(game: type[CardGame]) -> None:
    for n in (game.min_players, game.max_players):
        play_with_a_search_player(game, n, max_steps=60)


@pytest.mark.slow
@pytest.mark.parametrize("game", [*GAMES, ClimbGame], ids=lambda g: g.name)
def test_search_players_play_whole_games_at_every_table(game: type[CardGame]) -> None:
    for n in range(game.min_players, game.max_players + 1):
        play_with_a_search_player(game, n, max_steps=None)


def test_a_seeded_game_with_search_players_replays_exactly() -> None:
    def play() -> tuple[list[int], int]:
        policies = [make_policy("search:sims=8:leaves=4", "uno", 2), make_policy("rule", "uno", 2)]
        outcome = play_game(UnoGame(2), policies, np.random.default_rng(4))
        return outcome.ranks, outcome.steps

    assert play() == play()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("search:depth=3", "unknown search knob"),
        ("search:sims=0", "search sims"),
        ("search:sims=10:ms=5", "one budget"),
        ("search:rollout=smart", "rollout must be one of"),
        ("search:algo=alphazero", "algo must be one of"),
        ("search:own=perfect", "own must be one of"),
        ("search:width=1", "search width"),
        ("search:z=-1", "search z"),
        ("search:horizon=0", "search horizon"),
        ("search:prior=net", "needs net=RUN_DIR"),
        ("search:rollout=net:net=/no/such/run", "search net"),
        ("search:sims", "key=value"),
    ],
)
def test_bad_search_specs_are_refused_in_one_sentence(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_spec(spec, "uno", 4)


def test_the_shipped_agent_orders_the_moves_halving_compares_and_can_roll_out() -> None:
    """``prior=net:net=pretrained``: the width's other moves are the shipped agent's most probable."""
    g = decisions(TockGame, 4, 1)[0]
    player = make_policy("search:sims=8:width=2:prior=net:net=pretrained:rollout=net", "tock", 4)
    assert isinstance(player, SearchPlayer)
    network = make_policy("pretrained", "tock", 4)
    probabilities = network.probabilities(g.observe(g.current_player), g.action_mask())  # type: ignore[attr-defined]
    default, other = player._candidates(g, np.random.default_rng(0))
    assert other == max((a for a in g.legal_actions() if a != default), key=lambda a: probabilities[a])
    assert player.search(g, np.random.default_rng(0)) in g.legal_actions()


def test_a_search_on_the_shipped_agent_of_a_table_without_one_is_refused(unshipped_table) -> None:
    game, n = unshipped_table
    with pytest.raises(ValueError, match=f"no pretrained agent for {n}-player {game}"):
        check_spec("search:prior=net:net=pretrained", game, n)


def test_a_game_that_cannot_sample_hidden_cards_gets_only_the_perfect_search() -> None:
    with pytest.raises(ValueError, match="cannot sample the cards"):
        check_spec("search", ClimbGame.name, 2)
    check_spec("search:perfect=true:rollout=random", ClimbGame.name, 2)


def test_a_search_player_refuses_another_table_and_asks_for_the_game() -> None:
    player = make_policy("search", "uno", 4)
    with pytest.raises(ValueError, match="built for 4-player uno"):
        player.act_in(decisions(TockGame, 4, 1)[0], np.random.default_rng(0))
    with pytest.raises(TypeError, match="act_in"):
        player.act(np.zeros(3, np.float32), np.ones(3, np.int8), np.random.default_rng(0))


def test_a_search_opponent_plays_in_the_single_agent_env_and_is_refused_by_the_batch() -> None:
    from card_envs.batched.policy import batched_policy
    from card_envs.envs.single import CardGameEnv

    opponent = make_policy("search:sims=4:leaves=2", "uno", 2)
    env = CardGameEnv("uno", num_players=2, opponents=[opponent])
    env.reset(seed=0)
    for _ in range(20):
        mask = env.action_masks()
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
        if terminated or truncated:
            break
    with pytest.raises(ValueError, match="single-agent env"):
        batched_policy(opponent)
