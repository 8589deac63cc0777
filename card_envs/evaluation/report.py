"""Evaluation reports on disk: JSON, a Markdown table and PNG plots (matplotlib, if installed)."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from card_envs.evaluation.tournament import TournamentResult


def markdown(results: Sequence[TournamentResult]) -> str:
    lines = []
    for result in results:
        lines += [
            f"### {result.num_players}-player {result.game}, {result.games} games"
            + (f", rules {result.rules}" if result.rules else ""),
            "",
            "| agent | games | win rate (95% CI) | mean rank (95% CI) | mean reward (95% CI) | rating |",
            "|---|---|---|---|---|---|",
        ]
        for a in result.agents:
            lines.append(
                f"| `{a.name}` | {a.games} | {a.win_rate:.1%} | {a.mean_rank:.2f} |"
                f" {a.mean_reward:+.3f} | {a.rating:.2f} |"
            )
        lines += ["", f"Seats rotated; seed {result.seed}; {result.truncated} games truncated.", ""]
    return "\n".join(lines)


def write_report(results: Sequence[TournamentResult], out: Path, curve: Path | None = None) -> list[Path]:
    """Write ``results.json``, ``report.md`` and the plots into ``out``; return the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "results.json", out / "report.md"]
    written[0].write_text(json.dumps([r.as_json() for r in results], indent=2) + "\n")
    written[1].write_text(markdown(results))
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:
        print("matplotlib is not installed: no plots (pip install 'card-envs[report]')")
        return written
    written.append(plot_win_rates(results, out / "win_rates.png"))
    if curve is not None and curve.is_file():
        written.append(plot_learning_curve(curve, out / "learning_curve.png"))
    return written


def plot_win_rates(results: Sequence[TournamentResult], path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(5 * len(results), 4), squeeze=False)
    for ax, result in zip(axes[0], results, strict=True):
        names = [a.name for a in result.agents]
        rates = [a.win_rate.value for a in result.agents]
        errors = [
            [a.win_rate.value - a.win_rate.low for a in result.agents],
            [a.win_rate.high - a.win_rate.value for a in result.agents],
        ]
        ax.bar(range(len(names)), rates, yerr=errors, capsize=4, color="tab:blue")
        # an agent's equal share is its part of the seats (more than 1/N for pooled copies)
        shares = [sum(a.seat_games) / max(1, result.games * result.num_players) for a in result.agents]
        ax.scatter(range(len(names)), shares, marker="_", s=900, color="grey", label="equal share", zorder=3)
        ax.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=8)
        ax.set_ylabel("win rate (95% CI)")
        ax.set_title(f"{result.num_players}-player {result.game}, {result.games} games", fontsize=9)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


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


def plot_learning_curve(curves: Path | Mapping[str, Sequence[Path]], path: Path) -> Path:
    """The mean reward against the rule-based players over a run (its evaluations.csv), or
    over several labelled runs, each a chain of runs that continue one another."""
    import matplotlib.pyplot as plt

    if isinstance(curves, Path):
        curves = {"mean rank reward": [curves]}
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, segments in curves.items():
        rows = read_curve(segments)
        steps = [r["steps"] for r in rows]
        ax.plot(steps, [r["mean_reward"] for r in rows], marker="o", label=label)
        ax.fill_between(steps, [r["reward_low"] for r in rows], [r["reward_high"] for r in rows], alpha=0.2)
    ax.axhline(0, color="grey", linestyle="--", label="equal share")
    ax.set_xlabel("training steps")
    ax.set_ylabel("mean reward vs rule-based players (95% CI)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
