"""Opponents for every game: random, rule-based (with human-like knobs) and trained models.

All share :class:`agents.base.Policy`: ``act(observation, action_mask, rng) -> action``.
"""

from __future__ import annotations

import inspect
from importlib import import_module
from typing import Any

from agents.base import Policy, RandomAgent

#: game name -> "module:ClassName" of its rule-based agent
RULE_AGENTS = {
    "uno": "agents.uno_rules:UnoRuleAgent",
    "tock": "agents.tock_rules:TockRuleAgent",
    "chipit": "agents.chipit_rules:ChipItRuleAgent",
}


def rule_agent_class(game: str) -> type[Policy]:
    if game not in RULE_AGENTS:
        raise ValueError(f"no rule-based agent for game {game!r}; known: {sorted(RULE_AGENTS)}")
    module, cls = RULE_AGENTS[game].split(":")
    return getattr(import_module(module), cls)


def make_policy(spec: str | Policy, game: str, num_players: int, **knobs: Any) -> Policy:
    """Build a policy from a spec: ``"random"``, ``"rule"``, ``"model:PATH"`` or a Policy.

    ``knobs`` go to the rule-based agent (e.g. ``vigilance=0.5``).
    """
    if isinstance(spec, Policy):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"a policy spec must be a string or a Policy, got {spec!r}")
    if spec == "random":
        return RandomAgent()
    if spec == "rule":
        cls = rule_agent_class(game)
        known = [p for p in inspect.signature(cls.__init__).parameters if p not in ("self", "num_players")]
        unknown = sorted(set(knobs) - set(known))
        if unknown:
            raise ValueError(f"unknown knob(s) {unknown} for {cls.__name__}; known: {known}")
        return cls(num_players=num_players, **knobs)
    if spec.startswith("model:"):
        from agents.model import ModelPolicy

        return ModelPolicy(spec.removeprefix("model:"))
    raise ValueError(f"unknown policy spec {spec!r}; use 'random', 'rule', 'model:PATH' or a Policy")


__all__ = ["Policy", "RandomAgent", "make_policy", "rule_agent_class"]
