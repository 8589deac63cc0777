"""Serve the page: python -m card_envs.web [--port 8000] [--records DIR] [--runs DIR] [--reports DIR].

Opens on http://127.0.0.1:8000: pick a game, its players, rules and opponents, and play from
your seat; or watch agents play, replay a record (``evaluate.py --record DIR``), read a
report (``evaluate.py --out DIR``). Only the loopback interface listens unless ``--host`` is
given; then a warning says who else can reach it, and every request needs the server's token
(``--token``, or a random one printed in the address to open). The server answers only to
the loopback names and ``--host`` (``--allow-host`` adds one). Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import ipaddress
import secrets
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
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name to answer to besides the loopback ones and --host (this machine's LAN name)",
    )
    parser.add_argument(
        "--token",
        help="what every request must carry (default: none on loopback; a random one beyond it)",
    )
    parser.add_argument("--max-games", type=int, default=200, help="live games at most (default: 200)")
    parser.add_argument(
        "--idle-minutes", type=float, default=30.0, help="a game idle this long is dropped (default: 30)"
    )
    parser.add_argument(
        "--record",
        metavar="DIR",
        help="record every game played here in DIR (evaluate.py --people DIR, train.py --imitate DIR)",
    )
    parser.add_argument(
        "--away-seconds",
        type=float,
        default=60.0,
        help="a person silent this long is away; their seat's stand-in plays for them (default: 60)",
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
    if args.record is not None and Path(args.record).exists() and not Path(args.record).is_dir():
        parser.error(f"--record {args.record}: not a folder")
    if args.away_seconds <= 0:
        parser.error(f"--away-seconds must be positive, got {args.away_seconds}")
    if args.token is not None and len(args.token) < 16:
        parser.error(f"--token must be at least 16 characters (guessable otherwise), got {len(args.token)}")
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

    token = args.token
    if not is_loopback(args.host):
        token = token or secrets.token_urlsafe(24)
        print(
            f"warning: listening on {args.host}, not only on this machine's loopback: anyone who can"
            " reach this address and has the token can play here and read the records, runs and"
            " reports it serves",
            file=sys.stderr,
        )
    config = WebConfig(
        args.records,
        args.reports,
        args.runs,
        args.max_games,
        args.idle_minutes * 60,
        away_seconds=args.away_seconds,
        record_dir=args.record,
        hosts=[args.host, *args.allow_host],
        token=token,
    )
    address = f"http://{args.host}:{args.port}/" + (f"?token={token}" if token else "")
    print(f"card_envs web: {address} (Ctrl-C stops)", flush=True)
    uvicorn.run(make_app(config), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
