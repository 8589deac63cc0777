"""Evaluate agents in tournaments: rewards, win rates and ranks with 95% intervals, and ratings.

    python evaluate.py --model runs/uno                      # vs three rule-based, then three random players
    python evaluate.py --agents greedy:runs/uno,rule,rule,random --games 2000
    python evaluate.py --game tock --agents rule,rule:vigilance=0.5,random,random --out reports/tock
    python evaluate.py --policy rule --opponents random
    python evaluate.py --agents greedy:runs/a,greedy:runs/b,greedy:runs/a,greedy:runs/b --pool-copies
    python evaluate.py --agents rule,rule,rule,random --games 10 --record games/
    python evaluate.py --gauntlet greedy:runs/tock --opponents greedy:runs/tock-old --out reports/gauntlet
    python evaluate.py --game uno --agents rule,rule,random,random --games 2000 --duplicate
    python evaluate.py --people games/web                    # how people did, from the web page's records
    python -m card_envs.cli.replay games/game-000001.jsonl       # play a recorded game again

Seats rotate so that every agent sits in every seat equally often; games are spread over
worker processes and the result depends on --seed alone. --model takes a run directory
(its game, table and rules come from its settings.json) or a saved .zip, and plays its most
probable legal action (greedy:PATH; --sample: model:PATH, drawn from its distribution).

Each line-up prints a table titled with the game, its table and the line-up, the game figures
per agent, and notes: a win is a first place, a shared one counting for each player sharing
it (the outright win rate counts first places held alone). --gauntlet plays an agent against
line-ups it never trained against (card_envs.evaluation.gauntlet; --opponents adds more) and
ends with a verdict line per agent. --out writes results.json,
report.md, mean_rewards.png, win_rates.png and, for a run directory, learning_curve.png;
stopped by Ctrl-C or SIGTERM, it writes the games finished so far there, marked partial, and
exits with 130 or 143.
A thin shell over card_envs.evaluation.tournament.tournament and
card_envs.evaluation.report.write_report.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from card_envs.cli.args import (
    Parser,
    add_game_arguments,
    check_output_folder,
    exits_on_missing_extra,
    fail,
    game_rules,
    lineup,
    whole,
)
from card_envs.core.processes import exit_on_sigterm
from card_envs.core.table import Table

if TYPE_CHECKING:
    from card_envs.evaluation.tournament import TournamentResult


def build_parser() -> argparse.ArgumentParser:
    parser = Parser("evaluate.py", description=__doc__)
    add_game_arguments(parser, game_default=None, players_default=None)
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--agents", type=lineup, help="one spec per seat, comma-separated")
    who.add_argument("--model", type=Path, help="a run directory or a saved model, against --opponents")
    who.add_argument(
        "--policy", help="a scripted agent spec (rule, rule:KNOB=V, random), against --opponents"
    )
    who.add_argument(
        "--gauntlet",
        type=lineup,
        help="agent specs, comma-separated: each against the gauntlet's line-ups (rule players at"
        " other knobs, random, heuristic, a mix, and --opponents), with a verdict line each",
    )
    who.add_argument(
        "--people",
        type=Path,
        nargs="+",
        metavar="RECORDS",
        help="folders or files of games people played (python -m card_envs.web --record DIR):"
        " their rank reward and win rate against each line-up of agents",
    )
    parser.add_argument(
        "--sample", action="store_true", help="with --model: sample actions instead of the most probable"
    )
    parser.add_argument(
        "--opponents",
        type=lineup,
        action="append",
        default=None,
        help="with --model/--policy: the other seats, one spec for all or one per seat, comma-separated"
        " as everywhere; repeat it for several line-ups (default: rule, then random); with --gauntlet:"
        " line-ups added to the gauntlet's (earlier trained agents)",
    )
    parser.add_argument("--games", "--episodes", type=whole(1), default=500, help="games per line-up")
    parser.add_argument(
        "--pool-copies",
        action="store_true",
        help="an agent named more than once in --agents is one agent, judged per game over its seats"
        " (a head-to-head: --agents greedy:A,greedy:B,greedy:A,greedy:B)",
    )
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="duplicate deals: each deal is played once per rotation of the line-up through the seats"
        " (N games a deal, every agent holding every seat's cards once), --games rounded up to whole"
        " deals, intervals over deals; removes most of the luck of the deal (docs/evaluation.md)",
    )
    parser.add_argument("--workers", type=whole(1), default=None, help="worker processes (default: the CPUs)")
    parser.add_argument(
        "--out", type=Path, help="write results.json, report.md and PNG plots (mean reward, win rate) here"
    )
    parser.add_argument(
        "--record",
        type=Path,
        metavar="DIR",
        help="save every game as a record (DIR/game-000001.jsonl; DIR/lineup-K/ for several line-ups)"
        " that python -m card_envs.cli.replay plays again",
    )
    return parser


def report_progress(done: int, games: int) -> None:
    """A line on stderr each time another tenth of the games is done."""
    step = max(1, games // 10)
    if done == games or done // step != (done - 1) // step:
        print(f"  {done}/{games} games", file=sys.stderr, flush=True)


def write_stopped(results: list[TournamentResult], out: Path | None, stop: BaseException) -> NoReturn:
    """Ctrl-C or SIGTERM: print the line-up stopped after some games, write every result so
    far to ``out`` (if given), marked partial, and exit with 130 (Ctrl-C) or 143 (SIGTERM)."""
    code = stop.code if isinstance(stop, SystemExit) else 128 + signal.SIGINT
    if results and results[-1].partial:
        print(results[-1].table(), end="\n\n", flush=True)
    if out is not None and results:
        from card_envs.evaluation.report import write_report

        for path in write_report(results, out, stopped=True):
            print(f"wrote {path}")
        print(f"stopped: the games finished so far are in {out}", file=sys.stderr)
    raise SystemExit(code) from None


def report_people(parser: argparse.ArgumentParser, sources: list[Path]) -> None:
    """Print how people did against the agents in the recorded games of ``sources``."""
    from card_envs.evaluation.people import people_results, people_table
    from card_envs.records.people import people_games
    from card_envs.records.record import RecordError

    missing = [str(source) for source in sources if not source.exists()]
    if missing:
        fail(parser, f"--people: no such file or folder: {', '.join(missing)}")
    try:
        games = people_games(sources)
    except RecordError as error:
        fail(parser, f"--people: {error}")
    if not games:
        fail(parser, f"--people: no game with a person in it among {', '.join(map(str, sources))}")
    print(people_table(people_results(games)))


@exits_on_missing_extra("evaluate.py")
def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    exit_on_sigterm()
    if args.people:
        return report_people(parser, args.people)
    if args.gauntlet:
        from card_envs.cli.gauntlet import run_gauntlet

        return run_gauntlet(parser, args, report_progress)

    from card_envs.agents.runs import run_settings
    from card_envs.evaluation.report import write_report
    from card_envs.evaluation.tournament import tournament

    try:
        saved = run_settings(args.model) if args.model else None
    except ValueError as error:
        fail(parser, str(error))
    if saved:  # the run's own table unless told otherwise
        args.game = args.game or saved["game"]
        args.players = args.players or saved["num_players"]
        args.rule = args.rule or list(saved["rules"].items())
    args.game = args.game or "uno"
    if args.agents:
        args.players = args.players or len(args.agents)
        if len(args.agents) != args.players:
            fail(parser, f"--agents names {len(args.agents)} agents for {args.players} seats")
        lineups = [args.agents]
    else:
        args.players = args.players or 4
        first = f"{'model' if args.sample else 'greedy'}:{args.model}" if args.model else args.policy
        opponents = args.opponents or [["rule"], ["random"]]
        others = args.players - 1
        for seats in opponents:
            if len(seats) not in (1, others):
                fail(parser, f"--opponents {','.join(seats)}: needs 1 spec or {others} (one per other seat)")
        lineups = [[first, *(seats * others if len(seats) == 1 else seats)] for seats in opponents]
    for entries in lineups:
        if "self" in entries:
            fail(
                parser,
                "'self' is a training opponent (the learner's past snapshots);"
                " evaluate a trained run with greedy:PATH",
            )
    table = Table.of(args.game, args.players, **game_rules(parser, args))
    check_output_folder(parser, args.out, "--out")
    check_output_folder(parser, args.record, "--record")

    results: list[TournamentResult] = []
    for number, entries in enumerate(lineups, start=1):
        record_dir = args.record
        if record_dir is not None and len(lineups) > 1:
            record_dir = record_dir / f"lineup-{number}"
        try:
            result = tournament(
                table,
                entries,
                args.games,
                seed=args.seed,
                workers=args.workers,
                progress=report_progress,
                record_dir=record_dir,
                pool_copies=args.pool_copies,
                duplicate=args.duplicate,
                on_interrupt=results.append,
            )
        except ValueError as error:
            fail(parser, str(error))
        except (KeyboardInterrupt, SystemExit) as stop:
            write_stopped(results, args.out, stop)
        print(result.table(), end="\n\n", flush=True)
        if record_dir is not None:
            print(f"recorded {result.games} games in {record_dir}", end="\n\n")
        results.append(result)
    if args.out:
        curve = args.model / "evaluations.csv" if args.model and args.model.is_dir() else None
        for path in write_report(results, args.out, curve):
            print(f"wrote {path}")
