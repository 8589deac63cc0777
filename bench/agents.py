"""The Agents table of docs/agents.md: every player spec of every game, its time a decision on
one core and its strength against the gauntlet's two hardest line-ups.

    python bench/agents.py --workers 2                  # every game (hours: `search` is slow)
    python bench/agents.py --game uno --games 400
    python bench/agents.py --quick                      # a smoke run (a minute or two), no doc

Per game at 4 players, for each spec of SPECS (random, rule at its default knobs, heuristic,
pretrained, strong, search at the game's default budget):

* milliseconds a decision (the mean over --positions decisions with more than one legal move,
  from seeded rule-based games; timed in this process, so run it on a quiet machine);
* the mean rank reward (95% interval) against three heuristic players and against three
  lapse-free rule-based players, over --games games (--search-games for `search`, whose
  decisions take about 0.2 s), on duplicate deals in UNO and Chip It, where they narrow
  the interval.

The games are spread over --workers processes, each seeded by its number. Each game's table
and the command go to its marked section of docs/agents.md (--doc; --quick writes none).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from search import DUPLICATE
from soak import write_section
from strong import PLAYERS, milliseconds

from card_envs.agents.policy_spec import rule_spec
from card_envs.agents.registry import rule_agent_spec
from card_envs.core.processes import exit_on_sigterm
from card_envs.core.registry import game_spec
from card_envs.evaluation.tournament import tournament

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "agents.md"
GAMES = ("uno", "chipit", "tock")
SPECS = ("random", "rule", "heuristic", "pretrained", "strong", "search")
HEADER = (
    "| game | player | ms a decision | vs heuristic x3 | vs lapse-free rule x3 |",
    "|---|---|---|---|---|",
)


def markers(game: str) -> tuple[str, str]:
    return f"<!-- bench/agents.py {game}: begin -->", f"<!-- bench/agents.py {game}: end -->"


def strength(game: str, spec: str, others: str, games: int, workers: int | None) -> str:
    """``spec`` against three ``others``: its mean rank reward with its interval, and the games."""
    result = tournament(
        game, [spec] + [others] * (PLAYERS - 1), games, seed=1, workers=workers, duplicate=DUPLICATE[game]
    )
    r = result.agents[0].mean_reward
    count = f"{result.deals:,} deals" if result.duplicate else f"{result.games:,} games"
    return f"**{r.value:+.3f}** ({r.low:+.3f}..{r.high:+.3f}), {count}"


def game_rows(game: str, games: int, search_games: int, positions: int, workers: int | None) -> list[str]:
    lapse_free = rule_spec(dict(rule_agent_spec(game).sound_knobs))
    lines = list(HEADER)
    for spec in SPECS:
        count = search_games if spec == "search" else games
        shown = f"`{spec}`" + (f" (`{game_spec(game).strong}`)" if spec == "strong" else "")
        cells = [
            f"{milliseconds(spec, game, positions):.1f}",
            strength(game, spec, "heuristic", count, workers),
            strength(game, spec, lapse_free, count, workers),
        ]
        lines.append(f"| {game} | {shown} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", action="append", choices=GAMES, help="default: the three games")
    parser.add_argument("--games", type=int, default=400, help="games per line-up (default: %(default)s)")
    parser.add_argument(
        "--search-games", type=int, default=40, help="games of `search` per line-up (default: %(default)s)"
    )
    parser.add_argument("--positions", type=int, default=40, help="decisions timed (default: %(default)s)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: the CPUs)")
    parser.add_argument("--doc", type=Path, default=None, help=f"the page to write into (default: {DOC})")
    parser.add_argument("--quick", action="store_true", help="a smoke run, no doc")
    args = parser.parse_args(argv)
    if min(args.games, args.search_games, args.positions) < 1:
        parser.error("--games, --search-games and --positions must be >= 1")
    exit_on_sigterm()
    if args.quick:
        args.games, args.search_games, args.positions = 4, 2, 2
    doc = args.doc or (None if args.quick else DOC)
    command = " ".join(["python bench/agents.py", *(argv if argv is not None else sys.argv[1:])])
    for game in args.game or GAMES:
        rows = game_rows(game, args.games, args.search_games, args.positions, args.workers)
        if doc is not None:
            write_section(doc, "\n".join([f"`{command}`", "", *rows]), markers(game))
            print(f"wrote the agents of {game} into {doc}", flush=True)


if __name__ == "__main__":
    main()
