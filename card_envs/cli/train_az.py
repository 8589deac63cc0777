"""Train a network with search in the loop (Gumbel AlphaZero on sampled worlds); report its curve.

    python train.py --algo az --game tock --max-minutes 50      # from the shipped 4-player agent
    python train.py --algo az --game uno --iterations 3 --games 4 --eval-games 20
    python train.py --algo az --out runs/tock-az --resume       # go on where a run stopped

Each iteration plays --games games whose moves are chosen by a Gumbel search with the run's
network (its value head judging each leaf), fits the network to what the search found and the
games' results, and plays the network alone against three heuristic and three lapse-free
rule-based players (progress.csv). The run directory holds network.npz/.json (the shipped
agents' format: greedy:RUN, search:net=RUN:value=net), checkpoint.pt, settings.json and the
samples. A thin shell over card_envs.training.az.run.train_az (docs/training.md).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from card_envs.agents.runs import is_finished
from card_envs.cli.args import (
    Parser,
    add_game_arguments,
    check_output_folder,
    exits_on_missing_extra,
    fail,
    game_rules,
)
from card_envs.cli.dataclass_options import add_dataclass_options, dataclass_values
from card_envs.core.processes import exit_on_sigterm


def build_parser() -> argparse.ArgumentParser:
    from card_envs.training.az.settings import AZSettings

    parser = Parser("train.py --algo az", description=__doc__)
    parser.add_argument("--algo", choices=["az"], default="az", help="search in the loop (this parser)")
    add_game_arguments(parser, players_default=4)
    add_dataclass_options(parser, AZSettings, skip=("seed",))
    parser.add_argument("--out", type=Path, default=None, help="run directory (default: runs/<game>-<N>p-az)")
    parser.add_argument("--force", action="store_true", help="replace an existing run in --out")
    parser.add_argument(
        "--resume", action="store_true", help="go on with the run in --out from its checkpoint"
    )
    return parser


@exits_on_missing_extra("train.py")
def main(argv: list[str] | None = None) -> None:
    from card_envs.core.table import Table
    from card_envs.training.az.run import CHECKPOINT, train_az
    from card_envs.training.az.settings import AZSettings

    parser = build_parser()
    args = parser.parse_args(argv)
    exit_on_sigterm()
    rules = game_rules(parser, args)
    out = args.out or Path("runs") / f"{args.game}-{args.players}p-az"
    table = Table.of(args.game, args.players, **rules)
    try:
        settings = dataclass_values(args, AZSettings, seed=args.seed)
        settings.check(table)
    except ValueError as error:
        fail(parser, str(error))
    if args.resume and not (out / CHECKPOINT).is_file():
        fail(parser, f"--resume: {out} holds no checkpoint to go on from")
    if not args.resume and is_finished(out) and not args.force:
        fail(parser, f"{out} already holds a trained model; pass --force to replace it or --resume to go on")
    if args.force and not args.resume:
        shutil.rmtree(out, ignore_errors=True)
    check_output_folder(parser, out, "--out")
    print(f"Training {args.players}-player {args.game} with search in the loop into {out}", flush=True)
    train_az(table, settings, out, resume=args.resume, progress=lambda line: print(line, flush=True))
    print(f"network: {out}/network.npz (play it: greedy:{out}; search with it: search:net={out}:value=net)")
