"""Argument parsing shared by the thin command-line shells ``train.py`` and ``evaluate.py``."""

from __future__ import annotations

import argparse
import json
from typing import Any

from card_envs.games import GAME_ENGINES


def rule_pair(text: str) -> tuple[str, Any]:
    """``"stacking=false"`` -> ``("stacking", False)``: the value is read as JSON, else kept as text."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"a rule must look like key=value, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game", default="uno", choices=sorted(GAME_ENGINES), help="which game (default: uno)"
    )
    parser.add_argument("--players", type=int, default=4, help="players at the table (default: 4)")
    parser.add_argument(
        "--rule",
        action="append",
        type=rule_pair,
        default=[],
        metavar="KEY=VALUE",
        help="a variant keyword of the game, e.g. --rule stacking=false (repeatable)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")


def game_rules(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Any]:
    """The ``--rule`` keywords, checked against the game now so a typo is a clean usage error."""
    from card_envs.games import game_class

    rules = dict(args.rule)
    try:
        game_class(args.game).from_rules(args.players, **rules)
    except ValueError as error:
        parser.error(str(error))
    return rules
