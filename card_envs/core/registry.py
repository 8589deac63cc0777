"""The registry of games: every spec registered here, installed ones found by entry point.

A game package registers its spec when imported (``register(GameSpec(...))`` at the
bottom of its ``__init__.py``). Installed games are named in the entry-point group
``card_envs.games`` (the built-in ones in our ``pyproject.toml``, a plug-in game in its
own), so the core never imports a layer above it to find them. A game defined in a
script calls :func:`register` and gets the same envs, tools and shared tests.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points

from card_envs.core.game import CardGame
from card_envs.core.spec import GameSpec

#: installed games name their spec in this entry-point group (``uno = card_envs.games.uno:SPEC``)
ENTRY_POINT_GROUP = "card_envs.games"
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
        for entry_point in entry_points(group=ENTRY_POINT_GROUP):
            register(entry_point.load())


def game_specs() -> dict[str, GameSpec]:
    """Every registered game by name, the built-in ones first."""
    _load_builtins()
    return dict(_SPECS)


#: a game as the layers take it: its spec, resolved once at an entry point and handed down,
#: or its name, looked up where it enters (a user's call, a command line)
GameRef = str | GameSpec


def game_spec(game: GameRef) -> GameSpec:
    """The spec of a game name; a spec is returned as it is, with no look-up."""
    if isinstance(game, GameSpec):
        return game
    specs = game_specs()
    if game not in specs:
        raise ValueError(f"unknown game {game!r}; known: {sorted(specs)}")
    return specs[game]


def game_class(game: GameRef | type[CardGame]) -> type[CardGame]:
    """The engine class of a game name or spec (a class is returned unchanged)."""
    if isinstance(game, type) and issubclass(game, CardGame):
        return game
    return game_spec(game).engine_class()
