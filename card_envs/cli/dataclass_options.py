"""Command-line options read from a settings dataclass: one option per field, its name, default
and help taken from the field (``metadata["help"]``), so a tool does not write them again."""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from typing import Any

from card_envs.cli.args import layer_widths, non_negative, whole


def option_name(field: dataclasses.Field[Any]) -> str:
    return "--" + field.name.replace("_", "-")


def _value_type(hint: Any) -> Any:
    """The type an option's text becomes: ``float | None`` -> float, ``list[int]`` -> widths."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
    if typing.get_origin(hint) is list:
        return layer_widths
    return {int: whole(0), float: non_negative}.get(hint, hint)


def default_of(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def add_dataclass_options(parser: argparse.ArgumentParser, cls: type, skip: tuple[str, ...] = ()) -> None:
    """One option per field of ``cls`` but ``skip`` (the field's own check runs later, on the whole)."""
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        if field.name in skip:
            continue
        default = default_of(field)
        shown = ",".join(map(str, default)) if isinstance(default, list) else default
        kind = _value_type(hints[field.name])
        parser.add_argument(
            option_name(field),
            type=kind,
            default=default,
            metavar=None if "choices" in field.metadata else field.name.upper(),
            choices=field.metadata.get("choices"),
            help=f"{field.metadata.get('help', '')} (default: {shown})",
        )


def dataclass_values(args: argparse.Namespace, cls: type, **given: Any) -> Any:
    """An instance of ``cls`` from the parsed options (and ``given`` fields)."""
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if f.name not in given}
    return cls(**values, **given)
