"""The text of a policy spec, read once and written: :class:`PolicySpec` (its kind and what
follows: a path, knobs or a game), its knobs (``"vigilance=0.5:target=random"``) and the spec
of a rule-based agent with given knobs. Everything that reads a spec's kind reads it here.

A leaf module (nothing of the agents imported), so that what builds policies
(:mod:`card_envs.agents.specs`) and what a search player needs to name its rollout players
(:mod:`card_envs.agents.search.player`) share it without importing each other.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

#: the kinds whose argument is a trained run's path (a directory or a .zip)
PATH_KINDS = ("model", "greedy")


@dataclass(frozen=True)
class PolicySpec:
    """A policy spec read once: ``kind`` and the ``argument`` after the first ``:`` (a run's
    path for ``model`` and ``greedy``, knobs for ``rule`` and ``search``, a game for
    ``pretrained``; "" for none)."""

    kind: str
    argument: str = ""

    @classmethod
    def parse(cls, text: str) -> PolicySpec:
        kind, _, argument = text.partition(":")
        if not kind:
            raise ValueError(f"a policy spec starts with its kind (rule, search, greedy...), got {text!r}")
        return cls(kind, argument)

    def __str__(self) -> str:
        return f"{self.kind}:{self.argument}" if self.argument else self.kind

    @property
    def path(self) -> str | None:
        """The trained run it names (``model:PATH``, ``greedy:PATH``), else None."""
        return self.argument if self.kind in PATH_KINDS else None

    def knobs(self) -> dict[str, Any]:
        """The knobs it sets (``rule:vigilance=0.5`` -> ``{"vigilance": 0.5}``)."""
        return parse_knobs(self.argument) if self.argument else {}


def spec_kind(text: str) -> str:
    """The kind of a spec's text: ``search:sims=40`` -> ``search``."""
    return PolicySpec.parse(text).kind


def parse_value(text: str) -> Any:
    """A knob or rule value typed on a command line: JSON if it parses (``0.5``, ``false``), else text."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_knobs(text: str) -> dict[str, Any]:
    """``"vigilance=0.5:target=random"`` -> ``{"vigilance": 0.5, "target": "random"}``."""
    knobs = {}
    for item in text.split(":"):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"a knob must look like key=value, got {item!r}")
        knobs[key] = parse_value(value)
    return knobs


def rule_spec(knobs: dict[str, Any]) -> str:
    """The spec of a rule-based agent with ``knobs``: ``{"vigilance": 0.5}`` -> ``"rule:vigilance=0.5"``."""
    items = [f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in knobs.items()]
    return ":".join(["rule", *items])
