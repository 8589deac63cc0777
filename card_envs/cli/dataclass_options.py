"""Command-line options read from a settings dataclass: one option per field that describes one
(:mod:`card_envs.core.fields`), its name, default and help taken from the field, so a tool
does not write them again."""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any

from card_envs.cli.args import layer_widths, lineup, non_negative, positive, whole
from card_envs.core.fields import flat_name


def option_name(field: dataclasses.Field[Any], prefix: str = "") -> str:
    flag = field.metadata.get("flag") or flat_name(field, prefix)
    return "--" + str(flag).replace("_", "-")


def _value_type(hint: Any, metadata: typing.Mapping[str, Any]) -> Callable[[str], Any] | None:
    """The type an option's text becomes: ``float | None`` -> a number >= 0 (> 0 with
    ``positive``), ``int`` -> a whole number >= ``low``, a list or tuple of ints -> widths, a
    tuple of texts -> comma-separated specs; text stays text (None)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
    if typing.get_origin(hint) in (list, tuple):
        item = typing.get_args(hint)[0]
        return layer_widths if item is int else None if "nargs" in metadata else lineup
    if hint is int:
        return whole(metadata.get("low", 0))
    if hint is float:
        return positive if metadata.get("positive") else non_negative
    return None


def default_of(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def _shown(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def add_dataclass_options(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    cls: type,
    skip: tuple[str, ...] = (),
    *,
    prefix: str = "",
    none_default: bool = False,
) -> None:
    """One option per field of ``cls`` that has a ``help``, but ``skip`` (the field's own check
    runs later, on the whole). Each option's destination is the setting's flat name (``prefix``
    and the field's, :func:`card_envs.core.fields.flat_name`). ``none_default``: every option
    defaults to None, so that what fills a setting left out (a recipe, the game's default)
    still can; the help shows the field's default, or its ``shown`` text."""
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        metadata = field.metadata
        if field.name in skip or "help" not in metadata:
            continue
        default = default_of(field)
        shown = metadata.get("shown", _shown(default))
        hint = hints[field.name]
        flags: dict[str, Any] = {}
        if bool in (hint, *typing.get_args(hint)):
            negatable = default is None or metadata.get("negatable", False)  # --no-X overrides a recipe
            flags["action"] = argparse.BooleanOptionalAction if negatable else "store_true"
        else:
            convert = _value_type(hint, metadata)
            if convert is not None:
                flags["type"] = convert
            named = option_name(field, prefix)[2:].replace("-", "_").upper()
            flags["metavar"] = metadata.get("metavar") or (None if "choices" in metadata else named)
            for key in ("choices", "nargs"):
                if key in metadata:
                    flags[key] = metadata[key]
        parser.add_argument(
            option_name(field, prefix),
            dest=flat_name(field, prefix),
            default=None if none_default else default,
            help=f"{metadata['help']} (default: {shown})",
            **flags,
        )


def dataclass_values(args: argparse.Namespace, cls: type, **given: Any) -> Any:
    """An instance of ``cls`` from the parsed options (and ``given`` fields)."""
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if f.name not in given}
    return cls(**values, **given)
