"""A tournament's tables, one titled set per line-up, for the terminal (rich) and for Markdown.

Both show the same cells: per agent the mean reward, the win rate, the outright win rate
and the mean rank with their 95% intervals, and the rating; then the game figures as a
table of one row per figure and one column per agent; then the notes that say what the
figures mean (:data:`WIN_DEFINITION` among them).
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from card_envs.evaluation.stats import RESAMPLES, SMALL_SAMPLE

if TYPE_CHECKING:
    from card_envs.evaluation.tournament import TournamentResult

#: what a win is, everywhere (summarise counts it so, the tables print it, the JSON carries it)
WIN_DEFINITION = (
    "A win is a first place (rank 1); a first place shared by several players counts as a win"
    " for each of them, so a line-up's win rates can add up to more than 100%. An outright win"
    " is a first place held alone."
)
#: how an agent playing several seats of a game (pooled copies) wins
POOLED_WINS = (
    "An agent with several seats in a game wins if one of its seats does, and wins outright if"
    " no other agent shares that first place."
)

Grid = tuple[list[str], list[list[str]]]  # a header and its rows of cells


def seated_names(result: TournamentResult) -> list[str]:
    """The agents at the table, ``name x2`` for an agent playing two seats of each game."""
    seats = [round(sum(a.seat_games) / max(1, a.games)) for a in result.agents]
    return [a.name + (f" x{k}" if k > 1 else "") for a, k in zip(result.agents, seats, strict=True)]


def table_name(result: TournamentResult) -> str:
    """The game and its table: ``4-player tock`` and the rules that differ from the defaults."""
    rules = ", ".join(f"{k}={v}" for k, v in result.rules.items())
    return f"{result.num_players}-player {result.game}" + (f" ({rules})" if rules else "")


def title(result: TournamentResult) -> str:
    return f"{heading(result)}: {', '.join(seated_names(result))}"


def heading(result: TournamentResult) -> str:
    """The table and the number of games: ``4-player tock, 40 games``, and how they were
    played when it matters: ``4-player tock, 36 of 400 games (duplicate, 9 deals, stopped early)``."""
    games = _games(result.games)
    if result.partial and result.planned_games is not None:
        games = f"{result.games:,} of {_games(result.planned_games)}"
    marks = [f"duplicate, {_deals(result.deals or 0)}"] if result.duplicate else []
    if result.partial:
        marks.append("stopped early")
    return f"{table_name(result)}, {games}" + (f" ({', '.join(marks)})" if marks else "")


def _games(count: int) -> str:
    return f"{count:,} game" + ("" if count == 1 else "s")


def _deals(count: int) -> str:
    return f"{count:,} deal" + ("" if count == 1 else "s")


def win_definition(result: TournamentResult) -> str:
    """How this result's wins count: :data:`WIN_DEFINITION`, and :data:`POOLED_WINS` when an
    agent plays several seats of a game."""
    pooled = any(sum(a.seat_games) > a.games for a in result.agents)
    return WIN_DEFINITION + (" " + POOLED_WINS if pooled else "")


def agent_grid(result: TournamentResult) -> Grid:
    header = ["agent", "games", "mean reward", "win rate", "outright wins", "mean rank", "rating"]
    rows = [
        [
            a.name,
            f"{a.games:,}" + ("*" if a.mean_reward.small_sample else ""),
            format(a.mean_reward, "+.3f"),
            format(a.win_rate, ".1%"),
            format(a.outright_win_rate, ".1%"),
            format(a.mean_rank, ".2f"),
            f"{a.rating:.2f}",
        ]
        for a in result.agents
    ]
    return header, rows


def figure_grid(result: TournamentResult) -> Grid | None:
    """The game figures (the engine's player_info at the end of a game, mean over the games):
    one row per figure, one column per agent. None if the game reports none."""
    keys = sorted({k for a in result.agents for k in a.figures})
    if not keys:
        return None
    header = ["figure (mean per game)", *(a.name for a in result.agents)]
    return header, [[k, *(f"{a.figures.get(k, 0.0):.2f}" for a in result.agents)] for k in keys]


def notes(result: TournamentResult) -> list[str]:
    """What the figures mean, one paragraph each."""
    n = result.num_players
    speed = f"{result.truncated} truncated; {result.steps / max(result.seconds, 1e-9):,.0f} steps/s."
    if result.duplicate:
        played = (
            f"{_games(result.games)} of {table_name(result)} on {_deals(result.deals or 0)}, each"
            f" dealt once per rotation of the line-up through the {n} seats (every agent holds every"
            f" seat's cards once; games round up to whole deals), seed {result.seed}; {speed}"
        )
    else:
        played = f"{_games(result.games)} of {table_name(result)}, seats rotated, seed {result.seed}; {speed}"
    lines = [played]
    if result.partial:
        lines.append(
            f"Partial results: the evaluation was stopped (Ctrl-C or SIGTERM) after {_games(result.games)}"
            f" of {_games(result.planned_games or result.games)}"
            + ("; the games of deals not finished whole are left out." if result.duplicate else ".")
        )
    lines.append(win_definition(result))
    shares = (
        f"Equal share: mean reward 0; win rate 1/{n} (k/{n} for an agent playing k seats)."
        " Rating: openskill mu - 3 sigma."
    )
    if result.duplicate:
        lines.append(
            "95% intervals in brackets, over the deals: each agent's figures are averaged over the"
            " games of a deal first, as those games share its luck; then the percentile bootstrap"
            f" ({RESAMPLES:,} resamples of the deals) for the win rates (per-deal win shares, 0 to 1),"
            f" the mean reward (-1 to +1) and the mean rank (1 to {n}). {shares}"
        )
    else:
        lines.append(
            f"95% intervals in brackets: Wilson for the rates; percentile bootstrap ({RESAMPLES:,}"
            f" resamples of the games) for the mean reward (-1 to +1) and the mean rank (1 to {n})."
            f" {shares}"
        )
    if any(a.mean_reward.small_sample for a in result.agents):
        units = "deals" if result.duplicate else "games"
        lines.append(
            f"* Fewer than {SMALL_SAMPLE} {units}: a small sample. Its mean intervals are not the"
            f" bootstrap, too narrow on few {units}, but the Wilson bound of the mean rescaled to"
            " 0..1: as wide as for a coin, the most a mean of values in that range can vary."
        )
    return lines


def _rich_table(grid: Grid, title: str | None = None) -> str:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    header, rows = grid
    table = Table(*header, title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for row in rows:
        table.add_row(*row)
    out = io.StringIO()
    # wide enough that no cell wraps; the table itself takes only the width it needs
    Console(file=out, width=1000, color_system=None, legacy_windows=False).print(table)
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines())


def text(result: TournamentResult) -> str:
    """The terminal tables of one line-up: its title, the agents, the game figures, the notes."""
    parts = [_rich_table(agent_grid(result), title(result))]
    figures = figure_grid(result)
    if figures is not None:
        parts.append(_rich_table(figures, "game figures, mean per game at its end"))
    parts.append("\n".join(textwrap.fill(line, 100) for line in notes(result)))
    return "\n".join(parts)


def markdown_table(grid: Grid) -> list[str]:
    """A Markdown table; the first column's cells as code (agent specs, figure names)."""
    header, rows = grid
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join([f"`{first}`", *rest]) + " |" for first, *rest in rows]


def markdown(result: TournamentResult, heading: str = "###") -> list[str]:
    """One line-up as Markdown lines: a heading naming it, the agents, the game figures, the notes."""
    lines = [f"{heading} {title(result)}", "", *markdown_table(agent_grid(result)), ""]
    figures = figure_grid(result)
    if figures is not None:
        header, rows = figures
        named = [header[0], *(f"`{name}`" for name in header[1:])]
        lines += ["Game figures, mean per game at its end:", "", *markdown_table((named, rows)), ""]
    return [*lines, *_paragraphs(notes(result)), ""]


def _paragraphs(lines: Sequence[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        out += [line, ""]
    return out[:-1]
