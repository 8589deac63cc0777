"""Tournaments and their statistics: intervals and ratings against hand-computed values,
seat rotation, reproducibility and bad line-ups."""

from __future__ import annotations

import math

import pytest

from card_envs.core.table import Table
from card_envs.evaluation.stats import (
    SMALL_SAMPLE,
    League,
    bounded_mean_interval,
    mean_interval,
    wilson_bound,
    wilson_interval,
)
from card_envs.evaluation.tournament import tournament


def test_wilson_interval_matches_the_formula():
    # p = 7/20, z = 1.96: centre (p + z²/2n) / (1 + z²/n), half z sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n)
    z, n, p = 1.959964, 20, 0.35
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    estimate = wilson_interval(7, 20)
    assert estimate.value == 0.35
    assert (estimate.low, estimate.high) == pytest.approx((centre - half, centre + half), abs=1e-6)
    assert wilson_interval(0, 10).low == 0.0 and wilson_interval(10, 10).high == 1.0
    assert (wilson_interval(0, 0).low, wilson_interval(0, 0).high) == (0.0, 1.0)


def test_mean_interval_is_students_t():
    estimate = mean_interval([1, 2, 3, 4])  # sd 1.2910, sem 0.6455, t(0.975, 3) = 3.1824
    assert estimate.value == 2.5
    assert (estimate.low, estimate.high) == pytest.approx((2.5 - 2.0543, 2.5 + 2.0543), abs=1e-3)
    assert mean_interval([0.5, 0.5]).low == mean_interval([0.5, 0.5]).high == 0.5


def test_small_samples_of_a_bounded_mean_get_the_wilson_bound_of_the_rescaled_mean():
    z = 1.959964
    # three games all won (reward 1 of -1..1): rescaled mean 1, Wilson low n / (n + z²)
    estimate = bounded_mean_interval([1.0, 1.0, 1.0], -1.0, 1.0)
    assert (estimate.value, estimate.high) == (1.0, 1.0)
    assert estimate.low == pytest.approx(-1 + 2 * 3 / (3 + z * z), abs=1e-6)  # -0.1230
    assert (estimate.method, estimate.small_sample) == ("wilson bound", True)
    # ranks 1..4 once each (mean 2.5 of 1..4, rescaled 0.5): half-width z sqrt(1/16 + z²/64) / (1 + z²/4)
    half = z * math.sqrt(1 / 16 + z * z / 64) / (1 + z * z / 4)
    estimate = bounded_mean_interval([1, 2, 3, 4], 1.0, 4.0)
    assert (estimate.low, estimate.high) == pytest.approx(
        (1 + 3 * (0.5 - half), 1 + 3 * (0.5 + half)), abs=1e-6
    )
    one = bounded_mean_interval([4.0], 1.0, 4.0)  # one game, last: 1 + 3 * 1 / (1 + z²)
    assert (one.value, one.high) == (4.0, 4.0) and one.low == pytest.approx(1 + 3 / (1 + z * z), abs=1e-6)
    assert wilson_bound(0.35, 20) == pytest.approx(
        (wilson_interval(7, 20).low, wilson_interval(7, 20).high), abs=1e-9
    )  # the same Wilson interval as a count's


def test_a_sample_of_equal_values_is_not_a_point_however_large():
    estimate = bounded_mean_interval([1.0] * 100, -1.0, 1.0)  # bootstrap would give 1.00..1.00
    assert estimate.low == pytest.approx(-1 + 2 * 100 / (100 + 1.959964**2), abs=1e-6)  # 0.9260
    assert (estimate.high, estimate.method, estimate.small_sample) == (1.0, "wilson bound", False)
    # per-deal means of identical players: 0, give or take rounding, in every deal
    rounded = bounded_mean_interval([0.0, 1e-17, -5e-17] * 40, -1.0, 1.0)
    assert rounded.method == "wilson bound" and rounded.high - rounded.low > 0.1


def test_large_samples_get_the_seeded_percentile_bootstrap():
    values = [-1.0, 1.0] * 500  # mean 0, sd 1: the normal interval is 0 +- 1.96 / sqrt(1000) = 0.062
    estimate = bounded_mean_interval(values, -1.0, 1.0)
    assert estimate.method == "bootstrap" and not estimate.small_sample
    assert (estimate.low, estimate.high) == pytest.approx((-0.062, 0.062), abs=0.006)
    assert bounded_mean_interval(values, -1.0, 1.0) == estimate  # same values, same interval
    assert bounded_mean_interval(values, -1.0, 1.0, seed=1) != estimate
    assert bounded_mean_interval([1.0, 2.0] * (SMALL_SAMPLE // 2), 1.0, 4.0).method == "bootstrap"


def test_bounded_mean_intervals_never_leave_the_range_of_the_figure():
    import numpy as np

    rng = np.random.default_rng(0)
    rewards = [1.0, 1 / 3, -1 / 3, -1.0, 2 / 3, 0.0]  # rank rewards of 4 players, ties included
    for n in [*range(1, 40), 100, 500]:
        for skew in (0.02, 0.3, 0.9):  # nearly always last, middling, nearly always first
            chance = np.array([skew, 0.1, 0.1, 1 - skew, 0.05, 0.05])
            values = rng.choice(rewards, size=n, p=chance / chance.sum())
            estimate = bounded_mean_interval(values, -1.0, 1.0)
            assert -1.0 <= estimate.low <= estimate.value <= estimate.high <= 1.0, (n, estimate)
            assert estimate.low < estimate.high, (n, estimate)
            assert estimate.small_sample == (n < SMALL_SAMPLE)
            ranks = bounded_mean_interval((1 - values) * 1.5 + 1, 1.0, 4.0)
            assert 1.0 <= ranks.low <= ranks.value <= ranks.high <= 4.0, (n, ranks)


def test_an_interval_holds_its_value_at_the_ends_of_the_range():
    """Rounding once put the low end of three games all lost at -0.9999999999999999, above the
    mean -1: a negative error bar, which matplotlib refuses (evaluate.py --out crashed)."""
    for n in range(1, SMALL_SAMPLE + 5):
        for end in (-1.0, 1.0):
            estimate = bounded_mean_interval([end] * n, -1.0, 1.0)
            assert estimate.low <= estimate.value <= estimate.high, (n, estimate)


def test_values_all_at_an_end_of_the_range_get_an_interval_holding_their_mean():
    """The rescaled Wilson bound rounds: 30 games all won once gave +1.000 (+0.773..+0.99999...),
    a value above its interval, which the plots refused (negative error bar)."""
    for n in (1, 3, 30, 100, 1000):
        for low, high in ((-1.0, 1.0), (1.0, 3.0), (1.0, 4.0), (0.0, 1.0)):
            for value in (low, high):
                estimate = bounded_mean_interval([value] * n, low, high)
                assert low <= estimate.low <= estimate.value == value <= estimate.high <= high, (n, estimate)


def test_bad_input_to_a_bounded_mean_is_refused():
    with pytest.raises(ValueError, match=r"values must lie in \[-1.0, 1.0\]"):
        bounded_mean_interval([0.5, 1.5], -1.0, 1.0)
    with pytest.raises(ValueError, match="low < high"):
        bounded_mean_interval([1.0], 1.0, 1.0)
    with pytest.raises(ValueError, match="confidence"):
        bounded_mean_interval([1.0], 0.0, 2.0, confidence=95)
    empty = bounded_mean_interval([], -1.0, 1.0)
    assert math.isnan(empty.value) and (empty.low, empty.high) == (-1.0, 1.0)


def test_openskill_rating_update_of_one_two_player_game():
    # Plackett-Luce (Weng & Lin), without drift (tau = 0): c² = sum(sigma² + beta²); the winner
    # gains sigma²/c * (1 - P(win)) with P(win) = 1/2 for equal ratings.
    league = League()
    league.record(["a", "b"], [1, 2])
    sigma2 = (25 / 3) ** 2
    c = math.sqrt(2 * (sigma2 + (25 / 6) ** 2))
    assert league.mu("a") == pytest.approx(25 + sigma2 / c / 2, abs=1e-6)
    assert league.mu("b") == pytest.approx(25 - sigma2 / c / 2, abs=1e-6)
    assert league.sigma("a") < 25 / 3
    with pytest.raises(ValueError, match="one seat"):
        league.record(["a", "a"], [1, 2])


def test_every_agent_sits_in_every_seat_equally_often():
    result = tournament("climb", ["rule", "random", "rule:mistake_rate=0.5"], games=12, seed=3, workers=1)
    assert [a.seat_games for a in result.agents] == [[4, 4, 4]] * 3
    assert [a.name for a in result.agents] == ["rule", "random", "rule:mistake_rate=0.5"]
    assert sum(a.win_rate.value for a in result.agents) >= 1.0  # a winner each game (ties share rank 1)


@pytest.mark.slow
def test_same_seed_same_result_whatever_the_workers():
    lineup = ["rule", "random", "random"]
    one = tournament("climb", lineup, games=30, seed=7, workers=1)
    two = tournament("climb", lineup, games=30, seed=7, workers=2)
    other = tournament("climb", lineup, games=30, seed=8, workers=1)
    assert [a.as_json() for a in one.agents] == [a.as_json() for a in two.agents]
    assert [a.as_json() for a in one.agents] != [a.as_json() for a in other.agents]
    assert "rule" in one.table() and one.agents[1].name == "random" and one.agents[2].name == "random (2)"


def test_the_rule_agent_beats_random_players_and_reports_game_figures():
    result = tournament("tock", ["rule", "random", "random", "random"], games=8, seed=0, workers=1)
    rule = result.agents[0]
    assert rule.mean_reward.low > 0
    assert {"knocks_correct", "knocks_false", "caught", "rule_breaks"} <= set(rule.figures)


@pytest.mark.parametrize(
    ("game", "lineup", "games", "message"),
    [
        ("uno", ["rule"], 10, "num_players"),
        ("uno", ["rule", "genius"], 10, "unknown policy spec"),
        ("uno", ["rule", "random:x=1"], 10, "takes no knobs"),
        ("uno", ["rule", "rule:no_such_knob=1"], 10, "unknown knob"),
        ("uno", ["rule", "random"], 0, "games must be"),
        ("chess", ["rule", "random"], 10, "unknown game"),
    ],
)
def test_bad_line_ups_are_refused_before_any_game(game, lineup, games, message):
    with pytest.raises(ValueError, match=message):
        tournament(game, lineup, games=games, workers=1)


def test_learning_curves_of_continued_runs_chain_their_steps(tmp_path):
    from card_envs.evaluation.report import plot_learning_curve, read_curve

    header = "steps,games,win_rate,win_low,win_high,mean_reward,reward_low,reward_high\n"
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    first.write_text(header + "0,10,0.2,0.1,0.3,-0.1,-0.3,0.1\n1000,10,0.3,0.2,0.4,0.1,-0.1,0.3\n")
    second.write_text(header + "0,10,0.3,0.2,0.4,0.05,-0.1,0.2\n500,10,0.4,0.3,0.5,0.2,0.0,0.4\n")
    rows = read_curve([first, second])
    assert [r["steps"] for r in rows] == [0, 1000, 1500]  # the continued run's step 0 is left out
    assert [r["mean_reward"] for r in rows] == [-0.1, 0.1, 0.2]
    pytest.importorskip("matplotlib")
    path = plot_learning_curve({"rule": [first, second], "self": [first]}, tmp_path / "curve.png")
    assert path.stat().st_size > 0


def test_league_ratings_follow_the_whole_record_not_the_last_games():
    import numpy as np

    for seed in range(3):
        rng = np.random.default_rng(seed)
        league = League()
        for _ in range(2000):  # A beats B in 55% of the games, in random order
            league.record(["A", "B"], [1, 2] if rng.random() < 0.55 else [2, 1])
        assert league.ordinal("A") > league.ordinal("B")


def test_seating_gives_every_seat_and_every_neighbour_order_equally():
    from card_envs.evaluation.tournament import seating

    n, games = 4, 4 * 300
    seats = [[0] * n for _ in range(n)]
    follows = [[0] * n for _ in range(n)]  # follows[a][b]: games in which b sits right after a
    for i in range(games):
        entries = seating(i, n, seed=5)
        assert sorted(entries) == list(range(n))
        for seat, entry in enumerate(entries):
            seats[entry][seat] += 1
            follows[entry][entries[(seat + 1) % n]] += 1
    assert seats == [[games // n] * n] * n
    for a in range(n):
        for b in range(n):
            if a != b:  # a fixed rotation would put 1 after 0 in every game, 0 after 1 never
                assert 0.25 < follows[a][b] / games < 0.42, (a, b, follows[a][b])
    assert seating(7, n, seed=5) == seating(7, n, seed=5)


def test_pooled_copies_count_each_game_once_with_the_mean_over_their_seats():
    from card_envs.core.ranking import rank_rewards
    from card_envs.evaluation.tournament import GameRecord, summarise

    def game(entries, ranks):
        infos = [{"points": float(r)} for r in ranks]
        return GameRecord(entries, ranks, rank_rewards(ranks), infos, 10, False)

    # line-up A, B, A, B; game 1 seats them A B A B, game 2 B A B A; ranks by seat 1, 2, 3, 4
    records = [game([0, 1, 2, 3], [1, 2, 3, 4]), game([1, 2, 3, 0], [1, 2, 3, 4])]
    result = summarise(Table.of("uno", 4), 0, ["A", "B"], records, 1.0, agent_of=[0, 1, 0, 1])
    a, b = result.agents
    assert (a.name, a.games, b.games) == ("A", 2, 2)
    assert a.mean_rank.value == pytest.approx(2.5)  # game 1: ranks 1, 3; game 2: ranks 2, 4
    assert a.mean_reward.value == pytest.approx(0.0)  # (1 - 1/3) / 2, then (1/3 - 1) / 2
    assert a.win_rate.value == b.win_rate.value == 0.5
    assert a.seat_games == b.seat_games == [1, 1, 1, 1]
    assert a.figures["points"] == pytest.approx(2.5)


def test_shared_first_places_are_wins_for_each_but_not_outright_wins():
    from card_envs.core.ranking import rank_rewards
    from card_envs.evaluation.tournament import GameRecord, summarise

    def game(ranks):
        return GameRecord([0, 1, 2, 3], ranks, rank_rewards(ranks), [{}] * 4, 10, False)

    # four games of seats A B C D: A and B share first twice, A wins alone once, C once
    records = [game([1, 1, 3, 4]), game([1, 1, 4, 3]), game([1, 2, 3, 4]), game([2, 3, 1, 4])]
    result = summarise(Table.of("uno", 4), 0, ["A", "B", "C", "D"], records, 1.0)
    wins = [a.win_rate.value for a in result.agents]
    outright = [a.outright_win_rate.value for a in result.agents]
    assert wins == [0.75, 0.5, 0.25, 0.0] and sum(wins) > 1
    assert outright == [0.25, 0.0, 0.25, 0.0] and sum(outright) <= 1
    a = result.agents[0].as_json()
    assert (a["win_rate"]["value"], a["outright_win_rate"]["value"]) == (0.75, 0.25)
    assert "shared by several players counts as a win for each" in result.as_json()["win_definition"]


def test_pooled_copies_sharing_first_place_among_themselves_win_outright():
    from card_envs.core.ranking import rank_rewards
    from card_envs.evaluation.tournament import GameRecord, summarise

    def game(ranks):
        return GameRecord([0, 1, 2, 3], ranks, rank_rewards(ranks), [{}] * 4, 10, False)

    # line-up A, B, A, B: A's two seats share first; then A and B share it; then B alone
    records = [game([1, 3, 1, 4]), game([1, 1, 3, 4]), game([2, 1, 3, 4])]
    result = summarise(Table.of("uno", 4), 0, ["A", "B"], records, 1.0, agent_of=[0, 1, 0, 1])
    a, b = result.agents
    assert (a.win_rate.value, a.outright_win_rate.value) == (pytest.approx(2 / 3), pytest.approx(1 / 3))
    assert (b.win_rate.value, b.outright_win_rate.value) == (pytest.approx(2 / 3), pytest.approx(1 / 3))
    assert "wins outright if no other agent shares" in result.as_json()["win_definition"]


def test_a_head_to_head_with_pooled_copies_is_zero_sum_between_two_agents():
    lineup = ["rule", "random", "rule", "random"]
    result = tournament("climb", lineup, games=24, seed=1, workers=1, pool_copies=True)
    rule, random = result.agents
    assert (rule.name, random.name, rule.games) == ("rule", "random", 24)
    assert rule.mean_reward.value == pytest.approx(-random.mean_reward.value)
    assert rule.mean_reward.value > 0 and rule.rating > random.rating
    assert sum(rule.seat_games) == 48
