"""Replay a game record move by move: python -m card_envs.cli.replay FILE [--table].

The record is played again and every state checked against it (the library call:
card_envs.replay(path)). Exit codes, as for the other tools: 0 every state matched, 2 a bad
argument (no such file) or a record that does not replay, said in one line.
"""

from __future__ import annotations

import sys
from pathlib import Path

from card_envs.cli.args import Parser, fail
from card_envs.core.game import CardGame
from card_envs.core.processes import exit_on_sigterm
from card_envs.records.record import Move, RecordError, read_record, replay


def print_replay(path: str, table: bool = False, check_version: bool = True) -> CardGame:
    """Print a record's header, each move (and the table after it), then the ranks."""
    header, _ = read_record(path)
    players = header.get("players") or []

    def name(seat: int) -> str:
        return f"player_{seat}" + (f" ({players[seat]})" if seat < len(players) else "")

    print(
        f"{header.get('game')}, {header.get('num_players')} players, rules {header.get('rules')},"
        f" seed {header.get('seed')} (card_envs {header.get('version')})"
    )

    def show(game: CardGame, move: Move) -> None:
        print(f"{move.step:5d}  {name(move.player)}: {move.description}")
        if table:
            print(game.render_text(), end="\n\n")

    game = replay(path, on_move=show, check_version=check_version)
    if game.is_over:
        ranks = game.final_ranks()
        print("ranks: " + ", ".join(f"{name(seat)} {rank}" for seat, rank in enumerate(ranks)))
    else:
        print("the record stops before the end of the game (a step cap)")
    print("every state matched the record")
    return game


def build_parser() -> Parser:
    parser = Parser("python -m card_envs.cli.replay", description=__doc__)
    parser.add_argument("file", help="a game record (.jsonl), e.g. from evaluate.py --record DIR")
    parser.add_argument("--table", action="store_true", help="show the full table after every move")
    parser.add_argument(
        "--any-version", action="store_true", help="replay a record from another card_envs version"
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    exit_on_sigterm()
    if not Path(args.file).is_file():
        fail(
            parser,
            f"no record at {args.file} (a .jsonl file from evaluate.py --record or an env's record_dir)",
        )
    try:
        print_replay(args.file, args.table, check_version=not args.any_version)
    except RecordError as error:  # the record does not replay: one line, exit 2 (cli/args.py's fail)
        sys.stdout.flush()
        fail(parser, str(error).splitlines()[0])
    except BrokenPipeError:  # e.g. piped into head
        raise SystemExit(0) from None


if __name__ == "__main__":
    main()
