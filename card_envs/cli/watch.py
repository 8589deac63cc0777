"""Watch agents play a game, move by move, in the terminal.

    python -m card_envs.cli.watch                              # UNO, 4 rule-based players, a move a second
    python -m card_envs.cli.watch --game tock --agents rule,rule,random --pace 0.2
    python -m card_envs.cli.watch --game chipit --agents greedy:runs/chipit,rule,rule,rule --step

After the deal and after every action the table is shown (all hands, or --seat's view);
--step waits for Enter between moves. A thin shell over card_envs.cli.console.watch.
"""

from __future__ import annotations

import argparse
import sys

from card_envs.cli.args import (
    Parser,
    add_game_arguments,
    check_seat_argument,
    exits_on_missing_extra,
    fail,
    lineup,
    new_game,
    non_negative,
    policies_for,
)
from card_envs.core.colors import use_color
from card_envs.core.processes import exit_on_sigterm


def build_parser() -> argparse.ArgumentParser:
    parser = Parser("python -m card_envs.cli.watch", description=__doc__)
    add_game_arguments(parser, players_default=None)
    parser.add_argument(
        "--agents",
        type=lineup,
        default=None,
        help="one spec per seat, comma-separated (default: rule at every seat)",
    )
    parser.add_argument("--pace", type=non_negative, default=1.0, help="seconds between moves")
    parser.add_argument("--step", action="store_true", help="wait for Enter between moves")
    parser.add_argument("--seat", type=int, default=None, help="show this seat's view (default: every hand)")
    parser.add_argument("--legend", action="store_true", help="explain the card codes first")
    parser.add_argument("--no-color", action="store_true", help="plain text (also: NO_COLOR=1)")
    return parser


@exits_on_missing_extra("python -m card_envs.cli.watch")
def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    exit_on_sigterm()

    from card_envs.cli.console import PlayerQuitError, watch

    args.players = args.players or (len(args.agents) if args.agents else 4)
    specs = args.agents or ["rule"] * args.players
    if len(specs) != args.players:
        fail(parser, f"--agents names {len(specs)} agents for {args.players} seats")
    game = new_game(parser, args)
    if args.seat is not None:
        check_seat_argument(parser, args.seat, game)
    policies, names = policies_for(parser, specs, game)
    color = not args.no_color and use_color(sys.stdout)
    if args.legend:
        print(game.legend(), end="\n\n")
    step = input if args.step else None
    try:
        watch(game, policies, args.seed, pace=args.pace, step=step, seat=args.seat, color=color, names=names)
    except (PlayerQuitError, KeyboardInterrupt):
        print("\nstopped")


if __name__ == "__main__":
    main()
