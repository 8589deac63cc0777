"""Every option of every tool with the check it gets, as one table (docs/cli.md).

The table is built from the tools' own parsers, so it cannot leave an option out, and
``tests/test_cli_options.py`` feeds each row's refused value to its tool: one line naming
the option or the value, exit code 2, nothing written.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from card_envs.cli import evaluate, play, replay, train, train_az, watch
from card_envs.core.registry import game_specs

#: each tool's parser, by the name the table gives it
TOOLS: dict[str, Callable[[], argparse.ArgumentParser]] = {
    "train.py": train.build_parser,
    "train.py --algo az": train_az.build_parser,
    "evaluate.py": evaluate.build_parser,
    "play": play.build_parser,
    "watch": watch.build_parser,
    "replay": replay.build_parser,
}
#: what the checks of options without a type of their own are (text options)
TEXT_CHECKS: dict[str, tuple[str, str]] = {
    "--teacher": ("a policy spec that can be built at the table, or none", "genius"),
    "--improve-rollout": ("a policy spec that can be built at the table", "genius"),
    "--init-from": ("a trained run of the same game and table, or pretrained", "/nowhere/run"),
    "--model": ("a trained run (directory) or saved model (.zip)", "/nowhere/run"),
    "--policy": ("a scripted agent spec", "genius"),
    "--out": ("a folder that can be created and written, checked before any game", "{file}/below"),
    "--record": ("a folder that can be created and written, checked before any game", "{file}/below"),
    "--address": ("with --backend rllib only", "127.0.0.1:6379"),
    "--imitate": ("records of people's games (files or folders) that exist and replay", "/nowhere/records"),
    "--people": ("records of people's games (files or folders) that exist and replay", "/nowhere/records"),
    "file": ("a record file that exists (a record that does not replay: exit 2, one line)", "/nowhere.jsonl"),
}
#: text options whose check differs from one tool to another
TOOL_TEXT_CHECKS: dict[tuple[str, str], tuple[str, str]] = {
    ("train.py --algo az", "--opponents"): (
        "self, or policy specs (one for all other seats or one each), each one that can be built",
        "genius",
    ),
}
#: the checks named by the type functions of cli.args
TYPE_CHECKS: dict[str, tuple[str, str]] = {
    "non_negative": ("a number >= 0", "-1"),
    "positive": ("a number > 0", "0"),
    "lineup": ("policy specs, comma-separated, each one that can be built", "genius"),
    "rule_pair": ("KEY=VALUE, a variant keyword of the game and a value it allows", "oops"),
    "layer_widths": ("widths >= 1, comma-separated", "0"),
    "int": ("a seat of the table", "99"),
}
#: options whose settings check narrows what their type accepts (card_envs.training.settings)
NARROWER: dict[tuple[str, str], str] = {
    ("train.py", "--gamma"): "a number in (0, 1]",
    ("train.py", "--lr"): "a number in [0, 1]",
    ("train.py", "--ent-coef"): "a number in [0, 1]",
    ("train.py", "--imitation-smoothing"): "a number in [0, 1)",
    ("train.py", "--shaping"): "a number in [0, 100]",
    **{
        ("train.py --algo az", f"--{name}"): "a whole number >= 1"
        for name in ("iterations", "games", "sims", "horizon", "epochs", "batch-size", "window", "workers")
    },
    ("train.py --algo az", "--width"): "a whole number >= 2",
    ("train.py --algo az", "--learning-rate"): "a number in (0, 1]",
    ("train.py --algo az", "--mix"): "a number in [0, 1]",
}
#: options that need more than their type's check to be refused at once
REFUSED: dict[tuple[str, str], str] = {
    ("evaluate.py", "--agents"): "rule,genius",
    ("watch", "--agents"): "rule,genius",
    ("train.py", "--gamma"): "5",
    ("watch", "--pace"): "-1",
}


@dataclass(frozen=True)
class OptionRow:
    """One option of one tool: what it accepts, and a value it refuses ("" for a flag)."""

    tool: str
    option: str
    default: str
    check: str
    refused: str


def _row(tool: str, action: argparse.Action) -> OptionRow:
    option = action.option_strings[0] if action.option_strings else action.dest
    default = action.default
    if isinstance(default, list):
        default = ",".join(map(str, default))
    default = "" if default in (None, False, "", argparse.SUPPRESS) else str(default)
    if action.nargs == 0:  # store_true, BooleanOptionalAction
        return OptionRow(tool, option, default, "a flag", "")
    if option == "--game":  # the registered games; those a test or a plug-in adds are not listed
        specs = game_specs().values()
        built_in = sorted(s.name for s in specs if s.engine_class().__module__.startswith("card_envs.games."))
        check, refused = f"a registered game: {', '.join(built_in)} built in", "bogus"
    elif action.choices is not None:
        check, refused = f"one of {', '.join(map(str, action.choices))}", "bogus"
    elif (tool, option) in TOOL_TEXT_CHECKS:
        check, refused = TOOL_TEXT_CHECKS[tool, option]
    elif option in TEXT_CHECKS:
        check, refused = TEXT_CHECKS[option]
    else:
        name = getattr(action.type, "__name__", "")
        if name.startswith("whole number >= "):
            check, refused = name.replace("whole number", "a whole number"), str(int(name.split()[-1]) - 1)
        else:
            check, refused = TYPE_CHECKS[name]
    check = NARROWER.get((tool, option), check)
    return OptionRow(tool, option, default, check, REFUSED.get((tool, option), refused))


def option_rows() -> list[OptionRow]:
    """Every option of every tool (help left out), in the order the tools list them."""
    rows = []
    for tool, build in TOOLS.items():
        for action in build()._actions:
            if not isinstance(action, argparse._HelpAction):
                rows.append(_row(tool, action))
    return rows


def options_table() -> str:
    """The Markdown table of docs/cli.md."""
    lines = ["| tool | option | default | accepted | a refused value |", "|---|---|---|---|---|"]
    for row in option_rows():
        refused = f"`{row.refused}`" if row.refused else ""
        default = f"`{row.default}`" if row.default else ""
        lines.append(f"| {row.tool} | `{row.option}` | {default} | {row.check} | {refused} |")
    return "\n".join(lines) + "\n"
