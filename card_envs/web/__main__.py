"""Serve the page: python -m card_envs.web [--port 8000] [--records DIR] [--runs DIR] [--reports DIR].

Opens on http://127.0.0.1:8000: pick a game, its players, rules and opponents, and play from
your seat; or watch agents play, replay a record (``evaluate.py --record DIR``), read a
report (``evaluate.py --out DIR``). Only the loopback interface listens unless ``--host`` is
given (then a warning says who else can reach it). Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from pathlib import Path

from card_envs.core.extras import MissingExtraError, require

PROG = "python -m card_envs.web"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0: any free one)")
    parser.add_argument(
        "--records", action="append", default=[], metavar="DIR", help="a folder of game records to replay"
    )
    parser.add_argument(
        "--runs", action="append", default=[], metavar="DIR", help="a folder of training runs to play against"
    )
    parser.add_argument(
        "--reports", action="append", default=[], metavar="DIR", help="a folder of evaluation reports"
    )
    parser.add_argument("--max-games", type=int, default=200, help="live games at most (default: 200)")
    parser.add_argument(
        "--idle-minutes", type=float, default=30.0, help="a game idle this long is dropped (default: 30)"
    )
    return parser


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.max_games < 1:
        parser.error(f"--max-games must be at least 1, got {args.max_games}")
    if args.idle_minutes <= 0:
        parser.error(f"--idle-minutes must be positive, got {args.idle_minutes}")
    for kind in ("records", "runs", "reports"):
        for folder in getattr(args, kind):
            if not Path(folder).is_dir():
                parser.error(f"--{kind} {folder}: no such folder")
    try:
        require("web", PROG)
    except MissingExtraError as error:
        print(error, file=sys.stderr)
        raise SystemExit(2) from None
    import uvicorn

    from card_envs.web.app import WebConfig, make_app

    if not is_loopback(args.host):
        print(
            f"warning: listening on {args.host}, not only on this machine's loopback: anyone who can"
            " reach this address can play here and read the records, runs and reports it serves",
            file=sys.stderr,
        )
    config = WebConfig(args.records, args.reports, args.runs, args.max_games, args.idle_minutes * 60)
    print(f"card_envs web: http://{args.host}:{args.port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(make_app(config), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
