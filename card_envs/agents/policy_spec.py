"""The text of a policy spec, read and written: its knobs (``"vigilance=0.5:target=random"``)
and the spec of a rule-based agent with given knobs.

A leaf module (nothing of the agents imported), so that what builds policies
(:mod:`card_envs.agents.specs`) and what a search player needs to name its rollout players
(:mod:`card_envs.agents.search.player`) share it without importing each other.
"""

from __future__ import annotations

import json
from typing import Any


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
