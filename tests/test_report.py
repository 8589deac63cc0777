"""Evaluation reports: one titled set of tables per line-up (terminal and Markdown), the game
figures as a labelled table, the JSON with both win rates, and the plots on disk."""

from __future__ import annotations

import json

import pytest

from card_envs.core.ranking import rank_rewards
from card_envs.core.table import Table
from card_envs.evaluation.tables import WIN_DEFINITION
from card_envs.evaluation.tournament import GameRecord, TournamentResult, summarise

#: ranks by seat of the games of the fixture, seats A B C every time: A and B share first once
RANKS = [[1, 2, 3], [1, 1, 3], [2, 1, 3], [3, 2, 1]]


def sample_result(games: int, names: tuple[str, ...] = ("A", "B", "C")) -> TournamentResult:
    records = [
        GameRecord(
            [0, 1, 2],
            ranks,
            rank_rewards(ranks),
            [{"points": 10.0 * r, "cards_held": float(seat)} for seat, r in enumerate(ranks)],
            12,
            False,
        )
        for ranks in (RANKS[i % 4] for i in range(games))
    ]
    return summarise(Table.of("uno", 3), 0, list(names), records, 2.0)


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_terminal_tables_are_titled_with_the_line_up_and_label_every_figure():
    result = sample_result(40)
    text = result.table()
    lines = text.splitlines()
    assert lines[0] == "3-player uno, 40 games: A, B, C"
    a = result.agents[0]
    assert (a.win_rate.value, a.outright_win_rate.value) == (0.5, 0.25)  # games 1 and 2; 1 alone
    assert a.mean_reward.value == 0.125  # rewards 1, 0.5 (first shared), 0, -1
    row = next(line for line in lines if line.split()[:1] == ["A"])
    for cell in ("+0.125 (", format(a.win_rate, ".1%"), format(a.outright_win_rate, ".1%"), "1.75 ("):
        assert cell in row
    header = next(line for line in lines if line.strip().startswith("figure"))
    assert header.split()[-3:] == ["A", "B", "C"]
    points = next(line for line in lines if line.strip().startswith("points"))
    assert points.split() == ["points", "17.50", "15.00", "25.00"]  # 10 x the mean rank
    assert next(line for line in lines if line.strip().startswith("cards_held")).split()[1:] == [
        "0.00",
        "1.00",
        "2.00",
    ]
    assert "40 games of 3-player uno, seats rotated, seed 0; 0 truncated;" in text
    assert WIN_DEFINITION in flat(text) and "small sample" not in text


def test_small_samples_are_flagged_in_the_table():
    text = sample_result(10).table()
    row = next(line for line in text.splitlines() if line.split()[:1] == ["A"])
    assert row.split()[1] == "10*"
    assert "Fewer than 30 games: a small sample" in flat(text)


def test_the_report_files_carry_every_figure(tmp_path):
    pytest.importorskip("matplotlib")
    from PIL import Image

    from card_envs.evaluation.report import write_report

    first, second = sample_result(40), sample_result(12, ("rule", "random", "random (2)"))
    curve = tmp_path / "evaluations.csv"
    curve.write_text(
        "steps,games,win_rate,win_low,win_high,mean_reward,reward_low,reward_high\n"
        "0,10,0.2,0.1,0.3,-0.1,-0.3,0.1\n1000,10,0.3,0.2,0.4,0.1,-0.1,0.3\n"
    )
    written = write_report([first, second], tmp_path / "out", curve)
    names = [p.name for p in written]
    assert names == ["results.json", "report.md", "mean_rewards.png", "win_rates.png", "learning_curve.png"]
    assert all(p.stat().st_size > 0 for p in written)

    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [r["title"] for r in data] == [first.title, second.title]
    agent = data[0]["agents"][0]
    assert agent["win_rate"]["value"] == 0.5 and agent["outright_win_rate"]["value"] == 0.25
    assert agent["mean_reward"]["method"] == "bootstrap" and not agent["mean_reward"]["small_sample"]
    assert data[1]["agents"][0]["mean_reward"]["small_sample"] is True
    assert data[0]["win_definition"] == WIN_DEFINITION and data[0]["small_sample_below"] == 30

    report = (tmp_path / "out" / "report.md").read_text()
    assert "## 3-player uno, 40 games: A, B, C" in report
    assert "## 3-player uno, 12 games: rule, random, random (2)" in report
    a = first.agents[0]
    cells = [f"{a.mean_reward:+.3f}", f"{a.win_rate:.1%}", f"{a.outright_win_rate:.1%}", f"{a.mean_rank:.2f}"]
    assert "| `A` | 40 | " + " | ".join(cells) + " |" in report
    assert "| figure (mean per game) | `A` | `B` | `C` |" in report
    assert "| `points` | 17.50 | 15.00 | 25.00 |" in report
    assert WIN_DEFINITION in report and "Fewer than 30 games" in report
    for name in names[2:]:
        assert f"]({name})" in report

    for name in names[2:]:
        with Image.open(tmp_path / "out" / name) as image:
            width, height = image.size
        assert width == 1200 and 600 <= height <= 1000, (name, image.size)


def test_without_matplotlib_the_report_still_has_its_tables(tmp_path, monkeypatch):
    import builtins

    from card_envs.evaluation.report import write_report

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    written = write_report([sample_result(8)], tmp_path)
    assert [p.name for p in written] == ["results.json", "report.md"]
    report = (tmp_path / "report.md").read_text()
    assert "| `points` |" in report and "## Plots" not in report


def test_train_draws_a_learning_curve_only_when_ppo_made_steps(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from card_envs.cli.train import plot_curve

    header = "steps,games,win_rate,win_low,win_high,mean_reward,reward_low,reward_high,seconds\n"
    rows = ["0,4,0.5,0.15,0.85,0.25,-0.56,0.82,11.4\n", "2048,4,0.5,0.15,0.85,0.3,-0.5,0.8,20.0\n"]
    (tmp_path / "evaluations.csv").write_text(header + rows[0])  # --timesteps 0: one evaluation
    plot_curve(tmp_path)
    assert not (tmp_path / "learning_curve.png").exists() and "no learning curve" in capsys.readouterr().out
    (tmp_path / "evaluations.csv").write_text(header + "".join(rows))
    plot_curve(tmp_path)
    assert (tmp_path / "learning_curve.png").stat().st_size > 0
