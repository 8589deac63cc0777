"""Each game's rule-based agent and its independent heuristic player, registered by the
agents layer (the engines never name them).

A built-in game's agents register in ``card_envs/agents/<game>/__init__.py``; a game
defined elsewhere registers its own with :func:`register_rule_agent` (and, if it has one,
:func:`register_heuristic`) beside its spec.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from card_envs.agents.knob_ranges import KnobRange
from card_envs.core.policy import Policy
from card_envs.core.spec import GameSpec


@dataclass(frozen=True)
class RuleAgentSpec:
    """A game's rule-based agent and the knob settings the shared tests and benchmarks use.

    Args:
        game: the game's name (its :class:`GameSpec` name).
        agent: the Policy class, taking ``num_players`` and its knobs as keywords.
        random_knobs: knobs that make it draw random numbers (the shared tests check that
            every draw comes from the generator it is handed).
        knob_mix: knob settings other than the defaults, one per opponent seat of the
            learning benchmark's "other knobs" line-up.
        sound_knobs: the default knobs with every human lapse switched off (it never forgets,
            never cheats, never misses a catch): how a search player plays its own seat.
        knob_ranges: the span of each documented knob, over ``knob_mix`` and the defaults (a
            lapse-free player at one end, a careless one at the other): what the league's rule
            players are drawn from. Empty: the league has the default player only.
    """

    game: str
    agent: type[Policy]
    random_knobs: Mapping[str, Any] = field(default_factory=dict)
    knob_mix: tuple[Mapping[str, Any], ...] = ()
    sound_knobs: Mapping[str, Any] = field(default_factory=dict)
    knob_ranges: Mapping[str, KnobRange] = field(default_factory=dict)


_AGENTS: dict[str, RuleAgentSpec] = {}
_HEURISTICS: dict[str, type[Policy]] = {}
_builtins_loaded = False


def register_rule_agent(spec: RuleAgentSpec) -> RuleAgentSpec:
    """Add a game's rule agent; another spec under the same game name is an error."""
    known = _AGENTS.get(spec.game)
    if known is not None and known != spec:
        raise ValueError(f"a different rule agent is already registered for {spec.game!r}")
    _AGENTS[spec.game] = spec
    return spec


def _load_builtins() -> None:
    global _builtins_loaded
    if not _builtins_loaded:
        _builtins_loaded = True
        # the game folders beside this module, found by path: importing the package itself
        # here would make a circle (it imports the specs, which import this registry)
        for module in pkgutil.iter_modules([str(Path(__file__).parent)]):
            if module.ispkg:
                import_module(f"{__package__}.{module.name}")


def rule_agent_spec(game: GameSpec | str) -> RuleAgentSpec:
    """The rule agent of ``game``, or ValueError naming the games that have one."""
    _load_builtins()
    name = game if isinstance(game, str) else game.name
    if name not in _AGENTS:
        raise ValueError(f"game {name!r} has no rule-based agent; games with one: {sorted(_AGENTS)}")
    return _AGENTS[name]


def register_heuristic(game: str, agent: type[Policy]) -> type[Policy]:
    """Add a game's heuristic player (policy spec ``"heuristic"``): a Policy class taking
    ``num_players``, written from the rules without the rule agent's code, so that an agent
    trained against the rule agent meets a player it never saw (the gauntlet). Another
    class under the same game name is an error."""
    known = _HEURISTICS.get(game)
    if known is not None and known is not agent:
        raise ValueError(f"a different heuristic player is already registered for {game!r}")
    _HEURISTICS[game] = agent
    return agent


def heuristic_class(game: GameSpec | str) -> type[Policy]:
    """The heuristic player of ``game``, or ValueError naming the games that have one."""
    _load_builtins()
    name = game if isinstance(game, str) else game.name
    if name not in _HEURISTICS:
        raise ValueError(f"game {name!r} has no heuristic player; games with one: {sorted(_HEURISTICS)}")
    return _HEURISTICS[name]
