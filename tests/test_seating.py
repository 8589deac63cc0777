"""The learner's seat (card_envs.envs.seating): the seat mapping at every table size, the
fixed and drawn seat, the opponents' checks, the redeal bound and the zero-sum shaping."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs.core.policy import Policy, RandomAgent
from card_envs.core.registry import game_class
from card_envs.envs.seating import (
    MAX_REDEALS,
    Seating,
    check_learner_seat,
    one_per_other_seat,
    opponent_index,
    opponent_seat,
    progress_lead,
    redeal,
)
from card_envs.envs.single import CardGameEnv
from tests.toy_game import ClimbGame

TABLE_SIZES = range(2, 11)


class Named(Policy):
    """A policy that only has a name, to see which one sits where."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.games = 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return int(np.flatnonzero(action_mask)[0])

    def new_game(self, rng: np.random.Generator) -> None:
        self.games += 1

    def __repr__(self) -> str:
        return self.name


def seating(n: int, learner_seat: int | str = "random") -> Seating[Policy]:
    return Seating.build(n, learner_seat, [Named(f"opponent {k}") for k in range(n - 1)])


@pytest.mark.parametrize("n", TABLE_SIZES)
def test_opponent_k_sits_k_plus_one_seats_after_the_learner_at_every_table_size(n):
    for learner in range(n):
        others = [(learner + 1 + k) % n for k in range(n - 1)]  # round the table from the learner
        assert [opponent_index(seat, learner, n) for seat in others] == list(range(n - 1))
        assert [opponent_seat(k, learner, n) for k in range(n - 1)] == others
        table = seating(n)
        assert table.names(learner) == [
            "learner" if seat == learner else f"opponent {(seat - learner) % n - 1}" for seat in range(n)
        ]
        assert list(table.seats(learner)) == others and learner not in table.seats(learner)
        assert all(table.policy_at(seat, learner) is policy for seat, policy in table.seats(learner).items())


@pytest.mark.parametrize("n", TABLE_SIZES)
def test_the_array_form_maps_every_game_of_a_batch_as_the_int_form_does(n):
    seats, learners = np.meshgrid(np.arange(n), np.arange(n))
    seats, learners = seats.ravel(), learners.ravel()
    expected = [opponent_index(int(s), int(ln), n) for s, ln in zip(seats, learners, strict=True)]
    np.testing.assert_array_equal(seating(n).opponent_index(seats, learners), expected)
    back = opponent_seat(opponent_index(seats, learners, n), learners, n)
    others = seats != learners
    np.testing.assert_array_equal(back[others], seats[others])


def test_a_fixed_seat_draws_nothing_and_a_random_seat_draws_one_integer():
    rng = np.random.default_rng(3)
    assert [seating(4, 2).draw(rng) for _ in range(5)] == [2] * 5
    assert rng.bit_generator.state == np.random.default_rng(3).bit_generator.state
    reference = np.random.default_rng(8)
    rng = np.random.default_rng(8)
    drawn = [seating(4).draw(rng) for _ in range(200)]
    assert drawn == [int(reference.integers(4)) for _ in range(200)]
    assert sorted(set(drawn)) == [0, 1, 2, 3]


@pytest.mark.parametrize("bad", [4, -1, True, 1.0, "left", None])
def test_a_bad_learner_seat_is_refused_naming_the_allowed_values(bad):
    with pytest.raises(ValueError, match=r"learner_seat must be 'random' or a seat 0\.\.3"):
        check_learner_seat(bad, 4)
    with pytest.raises(ValueError, match="learner_seat"):
        CardGameEnv("climb", 4, learner_seat=bad)


def test_a_learner_seat_may_be_a_numpy_integer():
    assert check_learner_seat(np.int64(3), 4) == 3 and type(check_learner_seat(np.int64(3), 4)) is int
    assert check_learner_seat("random", 4) == "random"


def test_opponents_are_one_per_other_seat_or_one_for_all():
    one = Named("one")
    assert one_per_other_seat(one, 4) == [one, one, one]
    assert all(isinstance(p, RandomAgent) for p in one_per_other_seat(None, 3))
    three = [Named("a"), Named("b"), Named("c")]
    assert one_per_other_seat(tuple(three), 4) == three
    with pytest.raises(ValueError, match="opponents needs 3 entries"):
        one_per_other_seat(three[:2], 4)
    with pytest.raises(ValueError, match="an opponent must be a Policy, got 'rule'"):
        one_per_other_seat(["rule", one, one], 4)


def test_every_seat_hears_of_a_new_game_and_distinct_lists_each_policy_once():
    one, other = Named("one"), Named("other")
    table = Seating.build(4, "random", [one, other, one])
    table.new_game(np.random.default_rng(0))
    assert (one.games, other.games) == (2, 1)  # once per seat, as the envs have always called it
    assert table.distinct() == [one, other]


def test_redeal_stops_at_the_first_deal_the_learner_decides_in():
    outcomes = iter([False, False, True, True])
    calls = []

    def deal() -> bool:
        calls.append(1)
        return next(outcomes)

    redeal(deal)
    assert len(calls) == 3


def test_redeal_gives_up_after_max_redeals_deals():
    calls = []

    def deal() -> bool:
        calls.append(1)
        return False

    with pytest.raises(RuntimeError, match=f"the learner got no decision in {MAX_REDEALS} deals"):
        redeal(deal)
    assert len(calls) == MAX_REDEALS
    with pytest.raises(RuntimeError, match="no exposed seat got a decision"):
        redeal(lambda: False, failure="no exposed seat got a decision")


class OverAtTheDeal(ClimbGame):
    """A broken deal on purpose: every game is over before anyone decides."""

    deals = 0

    def _deal(self) -> None:
        super()._deal()
        type(self).deals += 1
        self._phase = "over"


def test_the_single_agent_env_deals_again_at_most_max_redeals_times():
    env = CardGameEnv(OverAtTheDeal, 3)
    OverAtTheDeal.deals = 0
    with pytest.raises(RuntimeError, match=f"no decision in {MAX_REDEALS} deals"):
        env.reset(seed=0)
    assert OverAtTheDeal.deals == MAX_REDEALS


def test_the_progress_lead_is_the_learners_progress_minus_the_others_mean():
    progress = [0.1, 0.25, 0.5, 0.3]
    assert progress_lead(progress, 2) == 0.5 - sum([0.1, 0.25, 0.3]) / 3  # the same float
    assert progress_lead(progress, 0) == pytest.approx(0.1 - 1.05 / 3)


@pytest.mark.parametrize("n", TABLE_SIZES)
def test_the_shaping_is_zero_sum_and_a_batch_gives_each_game_its_own_float(n):
    rng = np.random.default_rng(n)
    progress = rng.uniform(-0.5, 1.0, size=(50, n))  # a player who drew cards has negative progress
    for row in progress:
        assert sum(progress_lead(list(row), learner) for learner in range(n)) == pytest.approx(0, abs=1e-12)
    learners = rng.integers(n, size=50)
    batch = progress_lead(progress.T, learners)
    assert batch.tolist() == [
        progress_lead(row.tolist(), int(s)) for row, s in zip(progress, learners, strict=True)
    ]


@pytest.mark.parametrize("game", ["uno", "tock", "chipit", "climb"])
def test_the_leads_of_a_game_in_play_sum_to_zero(game):
    table = game_class(game)(4)
    table.reset(5)
    rng = np.random.default_rng(0)
    for _ in range(60):
        progress = [table.progress(seat) for seat in range(4)]
        assert sum(progress_lead(progress, learner) for learner in range(4)) == pytest.approx(0, abs=1e-12)
        table.step(int(rng.choice(np.flatnonzero(table.action_mask()))))
        if table.is_over:
            break


def test_the_shaped_rewards_of_an_episode_add_up_to_minus_the_lead_after_the_deal():
    env = CardGameEnv("uno", 3, reward_shaping=2.0, learner_seat=1)
    env.reset(seed=4)
    start = env._progress_lead()
    rng = np.random.default_rng(1)
    total, done = 0.0, False
    while not done:
        _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += reward
        done = terminated or truncated
    lead = progress_lead([env.game.progress(seat) for seat in range(3)], 1)
    assert lead != 0  # what the shaping paid before the end was the lead's change
    assert total - info["rank_reward"] == pytest.approx(-2.0 * start)


def test_a_forfeit_returns_the_potential_to_zero_too():
    env = CardGameEnv("tock", 4, reward_shaping=1.0, learner_seat=0, illegal_action="lose")
    env.reset(seed=3)
    rng = np.random.default_rng(2)
    total = 0.0
    for _ in range(40):
        _, reward, *_ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += reward
    lead = env._lead
    assert lead != 0
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    _, reward, terminated, _, _ = env.step(illegal)
    assert terminated and reward == pytest.approx(-1.0 - lead)
