"""The one play loop (card_envs.core.play): what it plays, the step cap, and each hook."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs.agents import make_policy
from card_envs.core.game import CardGame
from card_envs.core.play import UNOBSERVED, Outcome, play_game, play_out
from card_envs.core.policy import Policy, RandomAgent
from card_envs.core.registry import game_class

GAMES = ["uno", "tock", "chipit", "climb"]


def lineup(game: str, n: int) -> list[Policy]:
    return [make_policy("rule" if seat % 2 else "random", game, n) for seat in range(n)]


def reference_game(game: CardGame, policies: list[Policy], rng: np.random.Generator, cap: int):
    """The loop as tournaments wrote it before there was one loop: ranks, steps, truncated."""
    game.reset(rng)
    steps = 0
    while not game.is_over and steps < cap:
        seat = game.current_player
        game.step(policies[seat].act(game.observe(seat), game.action_mask(), rng))
        steps += 1
    return (game.truncation_ranks() if not game.is_over else game.final_ranks()), steps, not game.is_over


@pytest.mark.parametrize("game", GAMES)
def test_a_seeded_game_is_the_one_the_plain_loop_plays(game):
    table = game_class(game)(4)
    for seed in range(3):
        for cap in (table.default_max_steps, 40):
            expected = reference_game(table, lineup(game, 4), np.random.default_rng([seed, 1]), cap)
            outcome = play_game(table, lineup(game, 4), np.random.default_rng([seed, 1]), cap)
            assert (outcome.ranks, outcome.steps, outcome.truncated) == expected


@pytest.mark.parametrize("game", GAMES)
def test_every_decision_is_the_deciders_and_every_hook_sees_it(game):
    table = game_class(game)(3)
    deciders, decisions, moves, dealt = [], [], [], []

    def before(g: CardGame) -> None:
        deciders.append((g.current_player, g.observe(g.current_player)))

    def decided(seat: int, observation: np.ndarray, mask: np.ndarray, action: int) -> None:
        decisions.append((seat, observation, mask, action))

    outcome = play_game(
        table,
        lineup(game, 3),
        np.random.default_rng(2),
        on_deal=lambda g: dealt.append(g.seed),
        before_decision=before,
        on_decision=decided,
        on_move=lambda g, seat: moves.append(seat),
    )
    assert isinstance(outcome, Outcome) and not outcome.truncated
    assert outcome.ranks == table.final_ranks() and sorted(outcome.ranks)[0] == 1
    assert len(dealt) == 1 and len(deciders) == len(decisions) == len(moves) == outcome.steps > 0
    for (seat, seen), (decider, observation, mask, action), mover in zip(
        deciders, decisions, moves, strict=True
    ):
        assert seat == decider == mover and mask[action] == 1
        np.testing.assert_array_equal(observation, seen)


def test_the_step_cap_truncates_with_the_truncation_ranks():
    table = game_class("uno")(4)
    outcome = play_game(table, [RandomAgent()] * 4, np.random.default_rng(0), 7)
    assert (outcome.steps, outcome.truncated) == (7, True)
    assert outcome.ranks == table.truncation_ranks() and not table.is_over


def test_no_cap_means_the_games_own():
    table = game_class("climb")(2)
    table.default_max_steps = 3  # an instance attribute shadows the class's cap
    assert play_game(table, [RandomAgent()] * 2, np.random.default_rng(0)).steps == 3


def test_an_int_deal_is_the_games_own_seed_and_actions_come_from_rng():
    table = game_class("tock")(4)
    seen = []
    play_game(
        table, [RandomAgent()] * 4, np.random.default_rng(5), deal=9, on_deal=lambda g: seen.append(g.seed)
    )
    first = table.state_dict()
    play_game(table, [RandomAgent()] * 4, np.random.default_rng(5), deal=9)
    assert seen == [9] and table.state_dict() == first
    play_game(table, [RandomAgent()] * 4, np.random.default_rng(6), deal=9)
    assert table.state_dict() != first  # same deal, other choices


def test_a_check_that_raises_stops_the_game_where_it_stands():
    table = game_class("uno")(3)
    moves = []

    def stop_at_five(g: CardGame) -> None:
        if len(moves) == 5:
            raise AssertionError("stop")

    with pytest.raises(AssertionError, match="stop"):
        play_game(
            table,
            [RandomAgent()] * 3,
            np.random.default_rng(0),
            before_decision=stop_at_five,
            on_move=lambda g, s: moves.append(s),
        )
    assert len(moves) == 5 and not table.is_over


def test_unobserved_players_get_an_empty_observation_and_the_same_game():
    shown = []

    class Watching(RandomAgent):
        def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
            shown.append(observation)
            return super().act(observation, action_mask, rng)

    table = game_class("chipit")(3)
    blind = play_game(table, [Watching()] * 3, np.random.default_rng(1), observe=False)
    blind_state = table.state_dict()
    assert all(o is UNOBSERVED for o in shown) and UNOBSERVED.size == 0
    seeing = play_game(table, [RandomAgent()] * 3, np.random.default_rng(1))
    assert (blind, blind_state) == (seeing, table.state_dict())


def test_play_out_goes_on_from_where_the_game_stands():
    table = game_class("uno")(2)
    table.reset(3)
    rng = np.random.default_rng(0)
    for _ in range(4):
        table.step(RandomAgent().act(table.observe(table.current_player), table.action_mask(), rng))
    played = play_out(table, [RandomAgent()] * 2, rng)
    assert table.is_over and not played.truncated and played.steps > 0


class Countdown:
    """A table that is not a CardGame: one seat, over after three actions."""

    current_player = 0

    def __init__(self) -> None:
        self.left = 3
        self.taken: list[int] = []

    @property
    def is_over(self) -> bool:
        return self.left == 0

    def observe(self, player: int) -> np.ndarray:
        return np.array([self.left], np.float32)

    def action_mask(self) -> np.ndarray:
        return np.array([0, 1, 1], np.int8)

    def step(self, action: int) -> None:
        self.taken.append(action)
        self.left -= 1


def test_any_table_with_the_engines_calls_can_be_played():
    table = Countdown()
    seen = []
    played = play_out(table, [RandomAgent()], np.random.default_rng(0), on_decision=lambda *d: seen.append(d))
    assert (played.steps, played.truncated) == (3, False)
    assert [float(d[1][0]) for d in seen] == [3.0, 2.0, 1.0] and table.taken == [d[3] for d in seen]
    assert all(action in (1, 2) for action in table.taken)
    capped = play_out(Countdown(), [RandomAgent()], np.random.default_rng(0), max_steps=2)
    assert (capped.steps, capped.truncated) == (2, True)
