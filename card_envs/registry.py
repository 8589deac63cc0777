"""The registry of games: every spec registered here, built-in ones found by looking.

Built-in games are the subpackages of :mod:`card_envs.games`; each registers
its spec when imported. A game defined elsewhere calls :func:`register` and
gets the same PettingZoo module, Gymnasium id and shared tests.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from importlib import import_module

from card_envs.core.game import CardGame
from card_envs.core.spec import GameSpec

_SPECS: dict[str, GameSpec] = {}
_LISTENERS: list[Callable[[GameSpec], None]] = []
_builtins_loaded = False


def on_register(listener: Callable[[GameSpec], None]) -> None:
    """Call ``listener(spec)`` for every game registered from now on (the envs hook in here)."""
    _LISTENERS.append(listener)


def register(spec: GameSpec) -> GameSpec:
    """Add a game; registering the same name twice with another spec is an error."""
    known = _SPECS.get(spec.name)
    if known is not None and known != spec:
        raise ValueError(f"a different game is already registered as {spec.name!r}")
    _SPECS[spec.name] = spec
    for listener in _LISTENERS:
        listener(spec)
    return spec


def _load_builtins() -> None:
    global _builtins_loaded
    if not _builtins_loaded:
        _builtins_loaded = True
        import card_envs.games as games

        for module in pkgutil.iter_modules(games.__path__):
            import_module(f"{games.__name__}.{module.name}")


def game_specs() -> dict[str, GameSpec]:
    """Every registered game by name, the built-in ones first."""
    _load_builtins()
    return dict(_SPECS)


def game_spec(name: str) -> GameSpec:
    specs = game_specs()
    if name not in specs:
        raise ValueError(f"unknown game {name!r}; known: {sorted(specs)}")
    return specs[name]


def game_class(name: str | type[CardGame]) -> type[CardGame]:
    """The engine class for a game name (a class is returned unchanged)."""
    if isinstance(name, type) and issubclass(name, CardGame):
        return name
    return game_spec(name).engine_class()


def spec_by_aec_name(aec_name: str) -> GameSpec | None:
    return next((s for s in game_specs().values() if s.aec_name == aec_name), None)
