"""Duplicate deals: every rotation of a block replays the same deal (records and dealt states
compared), games round up to whole deals, and the intervals are over per-deal means."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from card_envs.core.policy import RandomAgent
from card_envs.core.ranking import rank_rewards
from card_envs.core.registry import game_class, game_specs
from card_envs.core.table import Table
from card_envs.evaluation.stats import bounded_mean_interval, unit_means
from card_envs.evaluation.tournament import GameRecord, deal_seed, summarise, tournament
from card_envs.records.record import read_record, state_digest

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(game_specs())  # the built-in games and the test tree's toy game


def headers(directory):
    return [read_record(path)[0] for path in sorted(directory.glob("game-*.jsonl"))]


@pytest.mark.parametrize("game", GAMES)
def test_every_rotation_of_a_deal_replays_the_same_deal(game, tmp_path):
    n = game_class(game).default_players
    lineup = ["rule", *["random"] * (n - 1)]
    result = tournament(game, lineup, games=3 * n, seed=4, workers=1, duplicate=True, record_dir=tmp_path)
    assert (result.games, result.deals, result.duplicate) == (3 * n, 3, True)
    records = headers(tmp_path)
    assert len(records) == 3 * n
    first_seats = set()
    for deal in range(3):
        block = records[deal * n : (deal + 1) * n]
        assert {h["seed"] for h in block} == {deal_seed(4, deal)}  # one deal seed for the block
        assert len({h["state"] for h in block}) == 1  # and one dealt state
        first = block[0]["players"]
        for shift, header in enumerate(block):  # the N cyclic rotations of one order
            assert header["players"] == first[shift:] + first[:shift]
        first_seats |= {h["players"][0] for h in block}
        engine = game_class(game).from_rules(n, **block[0]["rules"])
        engine.reset(block[0]["seed"])
        assert state_digest(engine) == block[0]["state"]  # the state right after the deal
    assert len(first_seats) == n  # every entry held the first seat's cards
    assert len({h["seed"] for h in records}) == 3  # the deals differ


def test_without_duplicate_every_game_has_its_own_deal(tmp_path):
    tournament("uno", ["rule", "rule", "random", "random"], games=8, seed=4, workers=1, record_dir=tmp_path)
    assert len({h["seed"] for h in headers(tmp_path)}) == 8


def test_the_same_deal_gives_the_same_dealt_state_whoever_sits_where():
    for game in GAMES:
        cls = game_class(game)
        states = []
        for _ in range(2):
            engine = cls(cls.default_players)
            engine.reset(deal_seed(9, 5))
            states.append(engine.state_dict())
        assert states[0] == states[1]


def test_games_round_up_to_whole_deals_and_the_json_says_duplicate():
    result = tournament("climb", ["rule", "random", "random"], games=10, seed=1, workers=1, duplicate=True)
    assert (result.games, result.deals) == (12, 4)
    assert [a.seat_games for a in result.agents] == [[4, 4, 4]] * 3
    data = result.as_json()
    assert (data["duplicate"], data["deals"], data["games"], data["partial"]) == (True, 4, 12, False)
    assert "(duplicate, 4 deals)" in result.title
    assert "on 4 deals, each dealt once per rotation" in " ".join(result.table().split())
    plain = tournament("climb", ["rule", "random", "random"], games=10, seed=1, workers=1).as_json()
    assert (plain["duplicate"], plain["deals"], plain["games"]) == (False, None, 10)


@pytest.mark.slow
def test_duplicate_results_do_not_depend_on_the_workers():
    lineup = ["rule", "random", "random"]
    one = tournament("climb", lineup, games=30, seed=7, workers=1, duplicate=True)
    two = tournament("climb", lineup, games=30, seed=7, workers=2, duplicate=True)
    assert [a.as_json() for a in one.agents] == [a.as_json() for a in two.agents]


def test_unit_means_average_each_unit_in_order_of_appearance():
    assert unit_means([1.0, 3.0, 2.0, 0.0, 4.0], [7, 7, 1, 1, 7]) == [8 / 3, 1.0]
    assert unit_means([True, False], ["a", "b"]) == [1.0, 0.0]
    with pytest.raises(ValueError, match="as many"):
        unit_means([1.0], [1, 2])


def paired_games(deals: int) -> list[GameRecord]:
    """3-player games, seats A B C rotated through each deal: on even deals seat 0 wins and
    seat 2 is last, on odd deals the reverse; the seat decides, so per deal all entries are even."""
    records = []
    for deal in range(deals):
        ranks = [1, 2, 3] if deal % 2 == 0 else [3, 2, 1]
        for shift in range(3):
            entries = [(seat + shift) % 3 for seat in range(3)]
            records.append(GameRecord(entries, ranks, rank_rewards(ranks), [{}] * 3, 10, False, deal))
    return records


def test_paired_intervals_take_one_value_per_deal():
    records = paired_games(40)
    paired = summarise(Table.of("uno", 3), 0, ["A", "B", "C"], records, 1.0, duplicate=True)
    unpaired = summarise(Table.of("uno", 3), 0, ["A", "B", "C"], records, 1.0)
    a, plain = paired.agents[0], unpaired.agents[0]
    assert (paired.deals, a.games) == (40, 120)
    assert a.mean_rank.value == pytest.approx(2.0) and a.win_rate.value == pytest.approx(1 / 3)
    # every deal's mean is 2 (ranks 1, 2, 3 once each): the interval of 40 equal values, not of 120 games
    assert a.mean_rank == bounded_mean_interval([2.0] * 40, 1.0, 3.0)
    assert a.mean_reward == bounded_mean_interval([0.0] * 40, -1.0, 1.0)
    assert a.win_rate == bounded_mean_interval([1 / 3] * 40, 0.0, 1.0)  # per-deal win shares
    assert plain.mean_rank == bounded_mean_interval(ranks_of(records, 0), 1.0, 3.0)  # one value per game
    assert plain.win_rate.method == "wilson" and a.win_rate.method == "wilson bound"
    text = " ".join(paired.table().split())
    assert "intervals in brackets, over the deals" in text and "resamples of the deals" in text


def ranks_of(records: list[GameRecord], entry: int) -> list[float]:
    return [float(r.ranks[r.entries.index(entry)]) for r in records]


def test_paired_intervals_of_varied_deals_are_the_bootstrap_over_deal_means():
    records = paired_games(40)
    # deal 0: A wins every rotation (seat 0, then 2, then 1); the other deals stay even
    wins = ([1, 2, 3], [2, 3, 1], [3, 1, 2])
    records[:3] = [
        GameRecord(r.entries, ranks, rank_rewards(ranks), r.infos, 10, False, 0)
        for r, ranks in zip(records[:3], wins, strict=True)
    ]
    result = summarise(Table.of("uno", 3), 0, ["A", "B", "C"], records, 1.0, duplicate=True)
    a = result.agents[0]
    deal_means = unit_means(ranks_of(records, 0), [r.deal for r in records])
    assert deal_means[0] == 1.0 and deal_means[1:] == [2.0] * 39
    assert a.mean_rank == bounded_mean_interval(deal_means, 1.0, 3.0)
    assert a.mean_rank.method == "bootstrap"
    assert 1.0 <= a.mean_rank.low <= a.mean_rank.value <= a.mean_rank.high <= 3.0


def test_summarising_paired_games_needs_their_deals():
    record = GameRecord([0, 1, 2], [1, 2, 3], rank_rewards([1, 2, 3]), [{}] * 3, 10, False)
    with pytest.raises(ValueError, match="deal=None"):
        summarise(Table.of("uno", 3), 0, ["A", "B", "C"], [record], 1.0, duplicate=True)


class StopsAtGame(RandomAgent):
    """A random player that raises KeyboardInterrupt (Ctrl-C) at its first move of game ``stop``
    (counted from 1): each game hands its players a new generator."""

    def __init__(self, stop: int) -> None:
        self.stop, self.games, self.last = stop, 0, None

    def act(self, observation, action_mask, rng):
        if rng is not self.last:
            self.games, self.last = self.games + 1, rng
            if self.games == self.stop:
                raise KeyboardInterrupt
        return super().act(observation, action_mask, rng)


@pytest.mark.parametrize(("duplicate", "stop", "kept"), [(False, 5, 4), (True, 8, 6), (True, 3, 0)])
def test_an_interrupted_tournament_hands_over_the_games_finished(duplicate, stop, kept):
    """Stopped in game 5, plain: games 1-4; stopped in game 8 of deals of 3, duplicate: the two
    whole deals (games 1-6); stopped in the first deal: nothing to hand over."""
    partial, lineup = [], ["rule", StopsAtGame(stop), "random"]
    with pytest.raises(KeyboardInterrupt):
        tournament("climb", lineup, 30, seed=2, workers=1, duplicate=duplicate, on_interrupt=partial.append)
    if not kept:
        assert partial == []
        return
    [result] = partial
    assert (result.partial, result.games, result.planned_games, result.duplicate) == (
        True,
        kept,
        30,
        duplicate,
    )
    assert result.as_json()["partial"] and "stopped early" in result.title
    assert "Partial results: the evaluation was stopped" in " ".join(result.table().split())
    if duplicate:
        assert result.deals == 2 and [a.seat_games for a in result.agents] == [[2, 2, 2]] * 3
    whole = tournament(
        "climb", ["rule", "random", "random"], games=kept, seed=2, workers=1, duplicate=duplicate
    )
    assert result.agents[0].as_json() == whole.agents[0].as_json()  # the same games as a shorter run


@pytest.mark.slow  # a whole command in a subprocess or a bench; the library side is tested fast
def test_the_duplicate_bench_writes_its_table_into_its_section(tmp_path):
    begin, end = "<!-- bench/duplicate.py: begin -->", "<!-- bench/duplicate.py: end -->"
    doc = tmp_path / "evaluation.md"
    doc.write_text(f"# Evaluation\n\nintro\n\n{begin}\nold figures\n{end}\n\nafter\n")
    bench = [sys.executable, "bench/duplicate.py", "--quick", "--game", "uno", "--workers", "1"]
    done = subprocess.run([*bench, "--doc", str(doc)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text = doc.read_text()
    assert text.startswith("# Evaluation\n\nintro\n\n") and text.endswith(f"{end}\n\nafter\n")
    assert "old figures" not in text and "`python bench/duplicate.py --quick --game uno" in text
    for lineup in ("rule, rule, random, random", "rule, 3 at other knobs"):
        assert f"| uno | {lineup} | seats rotated | 120 | 2 | ±" in text
        assert f"| uno | {lineup} | duplicate (30 deals) | 120 | 2 | ±" in text
    assert "- uno: `rule`, `rule:forget_call=0.0:catch_rate=1.0`" in text
