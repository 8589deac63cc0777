"""Duplicate deals against plain seat rotation: how wide the 95% interval of the mean reward is
at the same number of games, for every game at 4 players.

    python bench/duplicate.py                 # every game, two line-ups (~10 min on 2 cores)
    python bench/duplicate.py --game uno --lineup rule,rule,rule,random --games 4000 --seeds 3
    python bench/duplicate.py --quick         # a smoke run of the whole bench (seconds), no doc written

Per game, two line-ups: rule, rule, random, random (each game's rule-based player at its
default knobs), and a rule-based player at its default knobs with three at the other knobs
of the game's spec (``knob_mix``: the learning bench's "other knobs" line-up, all players
rule-based); --lineup gives one of its own instead. Each plays --games games with seats
rotated (``tournament(...)``) and as many on duplicate deals (``tournament(...,
duplicate=True)``: each deal once per rotation, the intervals over per-deal means), for
each of --seeds seeds.

Printed per game, line-up and mode: the mean over the seeds and the entries of the mean
reward's 95% interval half-width; the ratio of the two half-widths squared, how many times
the games plain rotation needs for the width duplicate deals give; and 1.96 times the spread
over the seeds of the first entry's mean reward, what the half-width would be were the
interval exact (a rough check: a spread over a few seeds is itself uncertain by a third).

The tournaments run one per worker process (--workers, default: the CPUs). The table and the
command go to the marked section of docs/evaluation.md (--doc; --quick writes none unless given).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from soak import write_section

from card_envs.agents.policy_spec import rule_spec
from card_envs.agents.registry import rule_agent_spec
from card_envs.core.processes import exit_on_sigterm, worker_pool
from card_envs.core.registry import game_specs
from card_envs.evaluation.tournament import TournamentResult, tournament

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "evaluation.md"
PLAYERS = 4
#: the bench's section of the doc lies between these lines (written anew each run, appended if missing)
BEGIN, END = "<!-- bench/duplicate.py: begin -->", "<!-- bench/duplicate.py: end -->"


def lineups(game: str) -> dict[str, tuple[str, ...]]:
    """The two line-ups of a game: against random players, and all rule-based at mixed knobs."""
    mix = [rule_spec(dict(knobs)) for knobs in rule_agent_spec(game).knob_mix] or ["rule"]
    return {
        "rule, rule, random, random": ("rule", "rule", "random", "random"),
        "rule, 3 at other knobs": ("rule", *(mix * PLAYERS)[: PLAYERS - 1]),
    }


@dataclass(frozen=True)
class Job:
    game: str
    label: str
    lineup: tuple[str, ...]
    duplicate: bool
    seed: int
    games: int


def play(job: Job) -> TournamentResult:
    return tournament(job.game, job.lineup, job.games, seed=job.seed, workers=1, duplicate=job.duplicate)


def half_width(result: TournamentResult) -> float:
    """The mean reward's 95% interval half-width, averaged over the line-up's entries."""
    return float(np.mean([(a.mean_reward.high - a.mean_reward.low) / 2 for a in result.agents]))


def rows(results: dict[Job, TournamentResult]) -> list[str]:
    """The Markdown table: one row per game, line-up and mode."""
    lines = [
        "| game | line-up | mode | games a run | seeds | 95% half-width of the mean reward"
        " | games needed for the width of duplicate deals | 1.96 x spread over seeds | seconds a run |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for game, label in dict.fromkeys((job.game, job.label) for job in results):
        width: dict[bool, float] = {}
        for duplicate in (False, True):
            runs = [
                r
                for job, r in results.items()
                if (job.game, job.label, job.duplicate) == (game, label, duplicate)
            ]
            width[duplicate] = float(np.mean([half_width(r) for r in runs]))
            spread = 1.96 * float(np.std([r.agents[0].mean_reward.value for r in runs], ddof=1))
            mode = f"duplicate ({runs[0].deals:,} deals)" if duplicate else "seats rotated"
            factor = f"{(width[False] / width[True]) ** 2:.1f} x" if duplicate else "1 x"
            seconds = float(np.mean([r.seconds for r in runs]))
            lines.append(
                f"| {game} | {label} | {mode} | {runs[0].games:,} | {len(runs)} | ±{width[duplicate]:.3f}"
                f" | {factor} | ±{spread:.3f} | {seconds:.1f} |"
            )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", action="append", choices=sorted(game_specs()), help="default: every game")
    parser.add_argument("--lineup", help="one spec per seat, comma-separated (default: the two line-ups)")
    parser.add_argument("--games", type=int, default=1000, help="games per tournament (default: 1,000)")
    parser.add_argument(
        "--seeds", type=int, default=4, help="tournaments per game, line-up and mode (default: 4)"
    )
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: the CPUs)")
    parser.add_argument("--doc", type=Path, default=None, help=f"the page to write into (default: {DOC})")
    parser.add_argument("--quick", action="store_true", help="120 games, 2 seeds: a smoke run")
    args = parser.parse_args(argv)
    exit_on_sigterm()
    if args.quick:
        args.games, args.seeds = 120, 2  # 30 deals: the bootstrap, not the small-sample bound
    if args.games < 1 or args.seeds < 2:
        parser.error(f"--games must be >= 1 and --seeds >= 2, got {args.games} and {args.seeds}")
    doc = args.doc or (None if args.quick else DOC)
    jobs = []
    for game in args.game or list(game_specs()):
        chosen = (
            {args.lineup.replace(",", ", "): tuple(args.lineup.split(","))} if args.lineup else lineups(game)
        )
        for label, lineup in chosen.items():
            jobs += [
                Job(game, label, lineup, d, s, args.games) for d in (False, True) for s in range(args.seeds)
            ]
    workers = max(1, min(args.workers or os.cpu_count() or 1, len(jobs)))
    start = time.perf_counter()
    with worker_pool(workers) as pool:
        results = dict(zip(jobs, pool.map(play, jobs), strict=True))
    table = rows(results)
    print("\n".join(table))
    print(
        f"\n{len(jobs)} tournaments in {time.perf_counter() - start:.0f} s on {workers} workers", flush=True
    )
    if doc is not None:
        command = " ".join(["python bench/duplicate.py", *(argv if argv is not None else sys.argv[1:])])
        notes = [f"`{command}` ({workers} worker processes, other work sharing the cores)", "", *table]
        if not args.lineup:
            games = dict.fromkeys(job.game for job in jobs)
            notes += ["", "The other knobs:", ""]
            notes += [f"- {game}: `{'`, `'.join(lineups(game)['rule, 3 at other knobs'])}`" for game in games]
        write_section(doc, "\n".join(["", *notes, ""]), (BEGIN, END))
        print(f"wrote {doc}")


if __name__ == "__main__":
    main()
