"""A settings field that also describes its command-line option, so a tool's options are read
from the settings (names, defaults, help) instead of being written a second time.

A field's ``metadata`` (all optional but ``help``): ``help``; ``choices``; ``low`` (a whole
number's least value, else 0) or ``positive`` (a number above 0, else at least 0); ``flag``
(the option's name when it is not the setting's, e.g. ``shaping`` for ``reward_shaping``);
``name`` (the flat setting name when it is not the group's prefix and the field's, e.g.
``teacher``); ``shown`` (what the help says the default is, e.g. ``per game``); ``nargs``;
``metavar``. :mod:`card_envs.cli.dataclass_options` turns them into options.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any


def option(
    default: Any = None, help: str = "", *, factory: Callable[[], Any] | None = None, **extra: Any
) -> Any:
    """A dataclass field with its command-line description (module docstring)."""
    metadata = {"help": help, **extra}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def flat_name(field: dataclasses.Field[Any], prefix: str = "") -> str:
    """The setting's flat name (``TrainSettings.from_options``, an option's destination):
    ``metadata["name"]``, else the group's prefix and the field's name (``imitation_steps``)."""
    return str(field.metadata.get("name", prefix + field.name))


def flat_names(cls: type, prefix: str = "", *, options_only: bool = False) -> dict[str, str]:
    """Each flat name of the fields of ``cls`` (``options_only``: of those with an option, a
    ``help``), to its field's name."""
    return {
        flat_name(field, prefix): field.name
        for field in dataclasses.fields(cls)
        if "help" in field.metadata or not options_only
    }
