"""Play a game against scripted or trained agents in the terminal.

    python -m card_envs.cli.play                          # UNO, 4 players: you against 3 rule-based players
    python -m card_envs.cli.play --game tock --players 3 --opponents rule,random
    python -m card_envs.cli.play --game chipit --opponents greedy:runs/chipit --seed 7

Each turn shows your view of the table and your moves in short numbered groups, each with
what it causes; type a number (a choice ending in ... opens the next step, b goes back; a
choice marked ! asks you to confirm; ? explains the card codes, q quits). Knock and catch
windows are decisions like any other: you are asked when one opens for you. --seed replays
a deal (and the opponents' choices, if you play the same moves). A thin shell over
card_envs.cli.console.play_against.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from card_envs.cli.args import (
    Parser,
    add_game_arguments,
    check_seat_argument,
    exits_on_missing_extra,
    fail,
    lineup,
    new_game,
    policies_for,
)
from card_envs.core.colors import use_color
from card_envs.core.processes import exit_on_sigterm


def build_parser() -> argparse.ArgumentParser:
    parser = Parser("python -m card_envs.cli.play", description=__doc__)
    add_game_arguments(parser)
    parser.set_defaults(seed=None)
    parser.add_argument(
        "--opponents",
        type=lineup,
        default=["rule"],
        help="one spec per other seat, comma-separated (rule, rule:KNOB=V, random, model:PATH,"
        " greedy:PATH); one spec fills every seat (default: rule)",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat (default: 0, the first to play)")
    parser.add_argument("--no-color", action="store_true", help="plain text (also: NO_COLOR=1)")
    return parser


@exits_on_missing_extra("python -m card_envs.cli.play")
def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    exit_on_sigterm()

    from card_envs.cli.console import PlayerQuitError, play_against

    game = new_game(parser, args)
    n = game.num_players
    check_seat_argument(parser, args.seat, game)
    specs = args.opponents * (n - 1) if len(args.opponents) == 1 else args.opponents
    if len(specs) != n - 1:
        fail(parser, f"--opponents names {len(specs)} agents for the {n - 1} other seats")
    opponents, names = policies_for(parser, specs, game)
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31))
    print(f"{game.name}, {n} players, seed {seed} (play this deal again with --seed {seed})")
    color = not args.no_color and use_color(sys.stdout)
    try:
        play_against(game, args.seat, opponents, seed, color=color, names=names)
    except PlayerQuitError:
        print("\ngame abandoned")
    except KeyboardInterrupt:
        print("\ngame abandoned")
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
