"""Argument parsing shared by the thin command-line shells (train, evaluate, play, watch, replay).

Every tool refuses a bad argument before any work, with one line naming the option and
what it allows, and exit code 2 (:class:`Parser`); ``--help`` gives every option's default.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, ParamSpec, TypeVar

from card_envs.agents.policy_spec import parse_value
from card_envs.agents.specs import make_policy, spec_label
from card_envs.core.checks import check_writable_dir
from card_envs.core.extras import extra_providing, missing_extra_message
from card_envs.core.game import CardGame
from card_envs.core.policy import Policy
from card_envs.core.registry import game_class, game_specs
from card_envs.core.table import Table


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The description as written; each option's help ends with its default unless it names one."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        quiet: tuple[Any, ...] = (None, False, [], "", argparse.SUPPRESS)
        if action.option_strings and "default" not in text and action.default not in quiet:
            text += " (default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line: ``PROG: error: MESSAGE``, exit code 2."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(prog=program_name(prog), **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def program_name(default: str) -> str:
    """The name the tool was started by when it is an installed console script
    (``card-envs-train``), else ``default`` (``train.py``, ``python -m card_envs.cli.play``)."""
    started = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return started if started.startswith("card-envs-") else default


def whole(low: int = 0) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"must be a whole number >= {low}, got {text!r}")
        return value

    parse.__name__ = f"whole number >= {low}"
    return parse


def non_negative(text: str) -> float:
    """An argparse type: a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}")
    return value


def positive(text: str) -> float:
    """An argparse type: a finite number > 0."""
    value = non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return value


def check_output_folder(parser: argparse.ArgumentParser, path: Path | None, option: str) -> None:
    """Create an output folder and check it is writable before any game is played, or a usage error."""
    if path is None:
        return
    if path.exists() and not path.is_dir():
        fail(parser, f"{option}: {path} exists and is not a folder")
    try:
        check_writable_dir(path, option)
    except ValueError as error:
        fail(parser, str(error))


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
        help="which game" + (f" (default: {game_default})" if game_default else ""),
    )
    parser.add_argument(
        "--players",
        type=whole(2),
        default=players_default,
        help="players at the table"
        + (f" (default: {players_default})" if players_default else " (default: the game's usual table)"),
    )
    parser.add_argument(
        "--rule",
        action="append",
        type=rule_pair,
        default=[],
        metavar="KEY=VALUE",
        help="a variant keyword of the game, e.g. --rule stacking=false (repeatable)",
    )
    parser.add_argument("--seed", type=whole(0), default=0, help="random seed (default: 0)")


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


def layer_widths(text: str) -> list[int]:
    """``"256,256"`` -> ``[256, 256]``: hidden layer widths, each at least 1."""
    try:
        widths = [int(x) for x in text.split(",")]
    except ValueError:
        widths = []
    if not widths or min(widths) < 1:
        raise argparse.ArgumentTypeError(
            f"must be widths >= 1 separated by commas, e.g. 256,256, got {text!r}"
        )
    return widths


def lineup(text: str) -> list[str]:
    """``"model:runs/a,rule,rule:vigilance=0.5"`` -> one spec per entry (the one spec syntax of
    every tool: commas between seats)."""
    specs = [spec.strip() for spec in text.split(",") if spec.strip()]
    if not specs:
        raise argparse.ArgumentTypeError(f"needs at least one policy spec, got {text!r}")
    return specs


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
        table = Table.of(game.name, game.num_players, **game.rules)
        policies = [make_policy(spec, table) for spec in specs]
    except ValueError as error:
        fail(parser, str(error))
    return policies, [spec_label(spec) for spec in specs]
