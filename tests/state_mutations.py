"""Field-by-field mutations of a valid ``state_dict()``, for the bad-state property tests.

Each mutation changes one thing: a value out of range, of the wrong type, a
list one entry short or long, a key removed, or a string (a card code, say)
replaced by one found elsewhere in the state, which loses one card and
duplicates another. :func:`mid_game_states` gives the real states to mutate.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import numpy as np

from card_envs.core.registry import game_spec

Path = tuple[Any, ...]


def mid_game_states(name: str, num_players: int, seeds: range, rules: dict) -> list[dict]:
    """States of ``name`` after 0..60 random legal actions, one per seed."""
    states = []
    for seed in seeds:
        game = game_spec(name).engine_class()(num_players, **rules)
        game.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(0, 60))):
            if game.is_over:
                break
            game.step(int(rng.choice(game.legal_actions())))
        states.append(game.state_dict())
    return states


def _leaves(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))


def _strings(state: Any) -> list[str]:
    return sorted({v for _, v in _leaves(state) if isinstance(v, str)})


def _variants(value: Any, strings: list[str]) -> Iterator[tuple[str, Any]]:
    if isinstance(value, bool):
        yield from (("null", None), ("int 2", 2), ("string", "true"))
    elif isinstance(value, int):
        for new in (-1, value - 1, value + 1, 10**6):
            if new != value:
                yield f"int {new}", new
        yield from (("float", value + 0.5), ("string", str(value)), ("null", None))
    elif isinstance(value, str):
        for other in strings[:: max(1, len(strings) // 6)]:
            if other != value:
                yield f"string {other!r}", other
        yield from (("unknown string", "??"), ("int", 0), ("null", None))
    elif isinstance(value, list):
        if value:
            yield "one short", value[:-1]
            yield "first repeated", [*value, copy.deepcopy(value[0])]
        yield from (("empty", []), ("a string", "x"), ("null", None))
    elif isinstance(value, dict):
        yield from (("null", None), ("a list", []))
    elif value is None:
        yield from (("int -1", -1), ("int 0", 0), ("int 99", 99), ("string", "x"), ("list", []))


def _set(state: dict[str, Any], path: Path, value: Any) -> dict[str, Any]:
    new = copy.deepcopy(state)
    target = new
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return new


def _without(state: dict[str, Any], path: Path) -> dict[str, Any]:
    new = copy.deepcopy(state)
    target = new
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return new


def mutations(state: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(description, mutated state)`` for every field of ``state``."""
    strings = _strings(state)
    for path, value in _leaves(state):
        if not path:
            continue
        where = "/".join(str(k) for k in path)
        for label, new in _variants(value, strings):
            yield f"{where}: {label}", _set(state, path, new)
        if isinstance(path[-1], str):
            yield f"{where}: removed", _without(state, path)
