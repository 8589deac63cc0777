"""Evaluation reports on disk: JSON, a Markdown report and PNG plots (matplotlib, if installed).

``write_report`` writes ``results.json`` (every figure with its interval, both win rates and
the definition of a win), ``report.md`` (one titled set of tables per line-up, its game
figures, the notes, the plots) and the plots: ``mean_rewards.png``, ``win_rates.png`` (one
panel per line-up, 95% intervals as error bars, the equal share as a line) and, for a
training run, ``learning_curve.png``. Plots are 1200 pixels wide, each panel titled with
the game, its table and the line-up.
"""

from __future__ import annotations

import csv
import json
import math
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from card_envs.evaluation import tables
from card_envs.evaluation.stats import SMALL_SAMPLE, Estimate
from card_envs.evaluation.tournament import AgentStats, TournamentResult

WIDTH, DPI = 12.0, 100  # inches, dots per inch: 1200 pixels wide, readable on a laptop screen


def markdown(
    results: Sequence[TournamentResult],
    plots: Sequence[Path] = (),
    summary: Sequence[str] = (),
    stopped: bool = False,
) -> str:
    """The report: the ``summary`` lines (a gauntlet's verdicts), per line-up its tables and
    notes, then the plots (linked by file name); ``stopped`` (or a partial result among
    them): a note that the evaluation did not finish."""
    games = sorted({tables.table_name(r) for r in results})
    lines = [f"# Evaluation: {'; '.join(games)}", ""]
    if stopped or any(r.partial for r in results):
        lines += [
            "**Partial results**: the evaluation was stopped (Ctrl-C or SIGTERM) before its end;"
            " these are the games finished by then, and line-ups not started are missing.",
            "",
        ]
    if summary:
        lines += [*(f"- {line}" for line in summary), ""]
    for result in results:
        lines += tables.markdown(result, heading="##")
    if plots:
        lines += ["## Plots", ""]
        lines += [f"![{path.stem.replace('_', ' ')}]({path.name})\n" for path in plots]
    return "\n".join(lines)


def write_report(
    results: Sequence[TournamentResult],
    out: Path,
    curve: Path | None = None,
    summary: Sequence[str] = (),
    stopped: bool = False,
) -> list[Path]:
    """Write ``results.json``, the plots and ``report.md`` into ``out``; return the files written.

    ``curve``: a training run's ``evaluations.csv``, drawn as ``learning_curve.png``;
    ``summary``: lines at the top of the report (a gauntlet's verdicts); ``stopped``: the
    evaluation was stopped before its end (the report says so; a line-up stopped after some
    games is a result marked ``partial``)."""
    out.mkdir(parents=True, exist_ok=True)
    data, report = out / "results.json", out / "report.md"
    data.write_text(json.dumps([r.as_json() for r in results], indent=2) + "\n")
    plots: list[Path] = []
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:
        print("matplotlib is not installed: no plots (pip install 'card-envs[report]')")
    else:
        plots += [
            plot_mean_rewards(results, out / "mean_rewards.png"),
            plot_win_rates(results, out / "win_rates.png"),
        ]
        if curve is not None and curve.is_file() and results:
            plots.append(plot_learning_curve(curve, out / "learning_curve.png", curve_title(results[0])))
    report.write_text(markdown(results, plots, summary, stopped))
    return [data, report, *plots]


def curve_title(result: TournamentResult) -> str:
    """The learning curve of the first agent of ``result``: a run's evaluations, which seat it
    against rule-based players at their default knobs on the run's own table."""
    others = result.num_players - 1
    return f"{tables.table_name(result)}: {result.agents[0].name} vs {others} rule-based players"


PanelDraw = Callable[[Any, TournamentResult], None]


def _panels(results: Sequence[TournamentResult], path: Path, heading: str, draw: PanelDraw) -> Path:
    """One panel per line-up (two a row), each titled with its game, table and line-up."""
    import matplotlib.pyplot as plt

    columns = min(2, max(1, len(results)))
    rows = math.ceil(len(results) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(WIDTH, 7.0 if rows == 1 else 4.8 * rows), squeeze=False)
    for ax, result in zip(axes.flat, results, strict=False):
        draw(ax, result)
        ax.set_title(_panel_title(result, 90 if columns == 1 else 55), fontsize=11)
        ax.grid(axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(results) :]:
        ax.set_visible(False)
    fig.suptitle(heading, fontsize=13)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def _panel_title(result: TournamentResult, width: int) -> str:
    """The table on one line, the line-up below, wrapped between agents, never inside a name."""
    names = ", ".join(name.replace(" ", "\u00a0") for name in tables.seated_names(result))
    return tables.heading(result) + "\n" + textwrap.fill(names, width)


def _agent_ticks(ax: Any, agents: Sequence[AgentStats]) -> None:
    labels = [textwrap.fill(a.name + ("*" if a.mean_reward.small_sample else ""), 18) for a in agents]
    ax.set_xticks(range(len(agents)), labels, fontsize=10)
    if any(a.mean_reward.small_sample for a in agents):
        ax.set_xlabel(f"* small sample: fewer than {SMALL_SAMPLE} games, wide conservative intervals")


def _bars(ax: Any, x: Sequence[float], estimates: Sequence[Estimate], fmt: str, **style: Any) -> None:
    """Bars with their intervals as error bars, a dot at each value (so a bar of height 0
    still shows) and the value written beyond the error bar."""
    values = [e.value for e in estimates]
    errors = [[e.value - e.low for e in estimates], [e.high - e.value for e in estimates]]
    ax.bar(x, values, yerr=errors, capsize=5, error_kw={"elinewidth": 1.2}, **style)
    ax.scatter(x, values, color="black", s=14, zorder=4)
    for xi, e in zip(x, estimates, strict=True):
        above = e.value >= 0
        ax.annotate(
            format(e.value, fmt),
            (xi, e.high if above else e.low),
            xytext=(0, 4 if above else -4),
            textcoords="offset points",
            ha="center",
            va="bottom" if above else "top",
            fontsize=9,
        )


def _draw_mean_rewards(ax: Any, result: TournamentResult) -> None:
    agents = result.agents
    _bars(ax, range(len(agents)), [a.mean_reward for a in agents], "+.3f", color="tab:blue", width=0.6)
    ax.axhline(0, color="grey", linestyle="--", linewidth=1.2, label="equal share (0)")
    ax.set_ylim(-1.1, 1.1)
    ax.set_ylabel("mean rank reward (-1 last, +1 first), 95% interval")
    _agent_ticks(ax, agents)
    ax.legend(loc="best", fontsize=9)


def _draw_win_rates(ax: Any, result: TournamentResult) -> None:
    agents, width = result.agents, 0.38
    left = [i - width / 2 for i in range(len(agents))]
    right = [i + width / 2 for i in range(len(agents))]
    _bars(ax, left, [a.win_rate for a in agents], ".1%", width=width, color="tab:blue", label="win")
    _bars(
        ax,
        right,
        [a.outright_win_rate for a in agents],
        ".1%",
        width=width,
        color="tab:orange",
        label="outright win",
    )
    # an agent's equal share is its part of the seats (more than 1/N for pooled copies)
    seats = result.games * result.num_players
    shares = [sum(a.seat_games) / max(1, seats) for a in agents]
    ax.hlines(
        shares,
        [i - 0.45 for i in range(len(agents))],
        [i + 0.45 for i in range(len(agents))],
        colors="grey",
        linestyles="--",
        linewidth=1.2,
        label="equal share",
        zorder=3,
    )
    top = max([a.win_rate.high for a in agents] + shares)
    ax.set_ylim(-0.02, min(1.08, top * 1.15 + 0.08))
    ax.yaxis.set_major_formatter(lambda y, _: f"{y:.0%}")
    ax.set_ylabel("win rate, 95% Wilson interval")
    _agent_ticks(ax, agents)
    ax.legend(loc="best", fontsize=9)


def plot_mean_rewards(results: Sequence[TournamentResult], path: Path) -> Path:
    """The headline figure: each agent's mean rank reward with its interval, 0 the equal share."""
    return _panels(results, path, "Mean rank reward per agent (95% intervals)", _draw_mean_rewards)


def plot_win_rates(results: Sequence[TournamentResult], path: Path) -> Path:
    """Each agent's win rate (shared first places counted) and outright win rate."""
    heading = "Win rate per agent (95% intervals); a shared first place is a win for each, not outright"
    return _panels(results, path, heading, _draw_win_rates)


def read_curve(segments: Sequence[Path]) -> list[dict[str, float]]:
    """The rows of one run's evaluations.csv, or of runs that continue one another
    (``train.py --init-from``) chained: each later run's steps count on from the last row of
    the one before, and its step-0 row (the same network) is left out."""
    rows: list[dict[str, float]] = []
    for segment in segments:
        offset = rows[-1]["steps"] if rows else 0.0
        with segment.open() as file:
            for row in csv.DictReader(file):
                point = {key: float(value) for key, value in row.items()}
                if rows and point["steps"] == 0:
                    continue
                rows.append({**point, "steps": point["steps"] + offset})
    return rows


def plot_learning_curve(
    curves: Path | Mapping[str, Sequence[Path]], path: Path, title: str = "learning curve"
) -> Path:
    """The mean reward against the rule-based players over a run (its evaluations.csv), or
    over several labelled runs, each a chain of runs that continue one another."""
    import matplotlib.pyplot as plt

    if isinstance(curves, Path):
        curves = {"mean rank reward": [curves]}
    fig, ax = plt.subplots(figsize=(WIDTH, 7.0))
    for label, segments in curves.items():
        rows = read_curve(segments)
        steps = [r["steps"] for r in rows]
        ax.plot(steps, [r["mean_reward"] for r in rows], marker="o", label=label)
        ax.fill_between(steps, [r["reward_low"] for r in rows], [r["reward_high"] for r in rows], alpha=0.2)
    ax.axhline(0, color="grey", linestyle="--", label="equal share (0)")
    ax.set_title(textwrap.fill(title, 90), fontsize=12)
    ax.set_xlabel("training steps")
    ax.set_ylabel("mean rank reward vs rule-based players (95% interval)")
    ax.xaxis.set_major_formatter(lambda x, _: f"{x:,.0f}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path
