"""Argument parsing and usage errors shared by the thin command-line shells (train, evaluate, play, watch)."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, ParamSpec, TypeVar

from card_envs.agents.specs import make_policy, parse_value, spec_label
from card_envs.core.extras import extra_providing, missing_extra_message
from card_envs.core.game import CardGame
from card_envs.core.policy import Policy
from card_envs.core.registry import game_class, game_specs


def rule_pair(text: str) -> tuple[str, Any]:
    """``"stacking=false"`` -> ``("stacking", False)``: the value is read as JSON, else kept as text."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"a rule must look like key=value, got {text!r}")
    return key, parse_value(value)


def add_game_arguments(
    parser: argparse.ArgumentParser, game_default: str | None = "uno", players_default: int | None = 4
) -> None:
    parser.add_argument(
        "--game",
        default=game_default,
        choices=sorted(game_specs()),
        help=f"which game (default: {game_default})",
    )
    parser.add_argument(
        "--players",
        type=int,
        default=players_default,
        help=f"players at the table (default: {players_default})",
    )
    parser.add_argument(
        "--rule",
        action="append",
        type=rule_pair,
        default=[],
        metavar="KEY=VALUE",
        help="a variant keyword of the game, e.g. --rule stacking=false (repeatable)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")


def fail(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    """Stop with one line naming the problem and exit code 2 (a usage error, not a traceback)."""
    parser.exit(2, f"{parser.prog}: error: {message}\n")


P = ParamSpec("P")
R = TypeVar("R")


def exits_on_missing_extra(prog: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Wrap a tool's ``main``: a module of an optional extra that is not installed ends the tool
    with one line naming the extra that installs it, and exit code 2, not a traceback."""

    def wrap(main: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(main)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return main(*args, **kwargs)
            except ModuleNotFoundError as error:
                module = (error.name or "").partition(".")[0]
                extra = extra_providing(module)
                if extra is None:
                    raise
                print(missing_extra_message(prog, extra, module), file=sys.stderr)
                raise SystemExit(2) from None

        return run

    return wrap


def game_rules(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Any]:
    """The ``--rule`` keywords, checked against the game now so a typo is a clean usage error."""
    rules = dict(args.rule)
    try:
        game_class(args.game).from_rules(args.players, **rules)
    except ValueError as error:
        fail(parser, str(error))
    return rules


def lineup(text: str) -> list[str]:
    """``"model:runs/a,rule,rule:vigilance=0.5"`` -> one spec per entry."""
    return [spec.strip() for spec in text.split(",") if spec.strip()]


def new_game(parser: argparse.ArgumentParser, args: argparse.Namespace) -> CardGame:
    """The engine for ``--game``, ``--players`` and ``--rule``, or a usage error."""
    return game_class(args.game).from_rules(args.players, **game_rules(parser, args))


def check_seat_argument(parser: argparse.ArgumentParser, seat: int, game: CardGame) -> None:
    if not 0 <= seat < game.num_players:
        fail(parser, f"--seat must be a seat 0..{game.num_players - 1}, got {seat}")


def policies_for(
    parser: argparse.ArgumentParser, specs: Sequence[str], game: CardGame
) -> tuple[list[Policy], list[str]]:
    """A policy and a short name per spec, or a usage error naming the bad spec."""
    try:
        policies = [make_policy(spec, game.name, game.num_players) for spec in specs]
    except ValueError as error:
        fail(parser, str(error))
    return policies, [spec_label(spec) for spec in specs]
