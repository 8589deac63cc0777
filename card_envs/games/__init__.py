"""The game engines, by name (imported lazily so one game's import stays light)."""

from __future__ import annotations

from importlib import import_module

from card_envs.core.game import CardGame

#: name -> "module:ClassName" of the engine
GAME_ENGINES = {
    "uno": "card_envs.games.uno.engine:UnoGame",
    "tock": "card_envs.games.tock.engine:TockGame",
    "chipit": "card_envs.games.chipit.engine:ChipItGame",
}


def game_class(name: str | type[CardGame]) -> type[CardGame]:
    """The engine class for a game name (a class is returned unchanged)."""
    if isinstance(name, type) and issubclass(name, CardGame):
        return name
    if name not in GAME_ENGINES:
        raise ValueError(f"unknown game {name!r}; known: {sorted(GAME_ENGINES)}")
    module, cls = GAME_ENGINES[name].split(":")
    return getattr(import_module(module), cls)
