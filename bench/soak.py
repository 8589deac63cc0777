"""Soak test: many random games per game, across player counts and variants, every one checked.

    python bench/soak.py                                  # 100,000 games per built-in game
    python bench/soak.py --game tock --games 2000         # a quick look
    python bench/soak.py --games 100000 --out docs/reliability.md

Game ``i`` of a game plays table ``i mod T`` of its T tables (every player count the game
allows, with the default rules and with each of the spec's rule mixes) with seed ``i``:
random legal actions, a legal move for the decider at every step, and at the end the
game's own consistency check (cards and chips conserved), valid ranks and a JSON round
trip of the state (card_envs.evaluation.soak). Games run in worker processes; each failure is listed
with the call that reproduces it. Prints a table; --out writes it as Markdown.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from card_envs.core.registry import game_class, game_spec, game_specs
from card_envs.evaluation.soak import soak_game

BUILT_IN = ["chipit", "tock", "uno"]
MAX_LISTED_FAILURES = 20


def tables(game: str) -> list[tuple[int, dict[str, Any]]]:
    """Every player count the game allows, with the default rules and each rule mix."""
    cls = game_class(game)
    mixes: list[dict[str, Any]] = [{}, *(dict(mix) for mix in game_spec(game).rule_mixes)]
    return [(n, rules) for n in range(cls.min_players, cls.max_players + 1) for rules in mixes]


@dataclass
class Tally:
    """What a run of games of one game added up to."""

    games: int = 0
    steps: int = 0
    truncated: int = 0
    longest: int = 0
    failures: int = 0
    listed: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.steps += other.steps
        self.truncated += other.truncated
        self.longest = max(self.longest, other.longest)
        self.failures += other.failures
        self.listed = (self.listed + other.listed)[:MAX_LISTED_FAILURES]


def soak_chunk(game: str, first: int, count: int) -> Tally:
    """Games ``first .. first + count - 1`` of ``game``."""
    options = tables(game)
    engines = [game_class(game).from_rules(n, **rules) for n, rules in options]
    tally = Tally()
    for i in range(first, first + count):
        n, rules = options[i % len(options)]
        result = soak_game(engines[i % len(options)], seed=i)
        tally.games += 1
        tally.steps += result.steps
        tally.truncated += result.truncated
        tally.longest = max(tally.longest, result.steps)
        if result.error is not None:
            tally.failures += 1
            if len(tally.listed) < MAX_LISTED_FAILURES:
                keywords = "".join(f", {k}={v!r}" for k, v in rules.items())
                call = f"soak_game(Table.of({game!r}, {n}{keywords}), seed={i})"
                tally.listed.append(f"{call}: {result.error}")
    return tally


def soak(game: str, games: int, workers: int) -> tuple[Tally, float]:
    size = max(1, min(2_000, -(-games // (workers * 4))))
    starts = list(range(0, games, size))
    counts = [min(size, games - first) for first in starts]
    tally = Tally()
    start = time.perf_counter()
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        for part in pool.map(soak_chunk, [game] * len(starts), starts, counts):
            tally.add(part)
            print(f"  {game}: {tally.games:,}/{games:,} games, {tally.failures} failures", flush=True)
    return tally, time.perf_counter() - start


def report(rows: list[tuple[str, Tally, float]], command: str, workers: int) -> str:
    lines = [
        "| game | tables | games | failures | truncated | mean steps | longest game | games/s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for game, t, seconds in rows:
        lines.append(
            f"| {game_spec(game).title} | {len(tables(game))} | {t.games:,} | {t.failures} |"
            f" {t.truncated / t.games:.2%} | {t.steps / t.games:,.0f} | {t.longest:,} |"
            f" {t.games / seconds:,.0f} |"
        )
    failures = [line for _, t, _ in rows for line in t.listed]
    lines += ["", f"Command: `{command}` ({workers} worker processes, {platform.machine()},"
              f" Python {platform.python_version()})."]  # fmt: skip
    if failures:
        lines += ["", "Failures (reproduce with `card_envs.evaluation.soak.soak_game`):", ""]
        lines += [f"- `{line}`" for line in failures]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--game", choices=sorted(game_specs()), action="append", help="default: the built-in games"
    )
    parser.add_argument("--games", type=int, default=100_000, help="games per game (default: 100,000)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, help="write the table into this Markdown file's soak section")
    args = parser.parse_args()
    if args.games < 1 or args.workers < 1:
        parser.error("--games and --workers must be >= 1")
    rows = []
    for game in args.game or BUILT_IN:
        tally, seconds = soak(game, args.games, args.workers)
        rows.append((game, tally, seconds))
    command = "python bench/soak.py " + " ".join(
        [*(f"--game {g}" for g in args.game or []), f"--games {args.games}"]
    )
    table = report(rows, command, args.workers)
    print(table)
    if args.out:
        write_section(args.out, table)
        print(f"wrote {args.out}")
    if any(t.failures for _, t, _ in rows):
        raise SystemExit(1)


BEGIN, END = "<!-- soak: begin (bench/soak.py --out) -->", "<!-- soak: end -->"


def write_section(path: Path, table: str, markers: tuple[str, str] = (BEGIN, END)) -> None:
    """Replace the section of ``path`` between the ``markers`` (the soak's by default; other
    benches write their own), or append one."""
    text = path.read_text() if path.exists() else ""
    begin, end = markers
    section = f"{begin}\n{table}\n{end}"
    if begin in text and end in text:
        head, _, rest = text.partition(begin)
        text = head + section + rest.partition(end)[2]
    else:
        text = text.rstrip() + ("\n\n" if text else "") + section + "\n"
    path.write_text(text)


if __name__ == "__main__":
    main()
