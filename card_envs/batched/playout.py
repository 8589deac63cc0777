"""Whole play-outs in one compiled call: a game's row functions and a player's row act, looped.

A search values a leaf by playing its game to the end; stepping many rows from Python costs
far more around each step than the compiled rules inside it. Here the loop itself is compiled,
once per game and kind of player: :func:`play_out_loop` writes the loop of :data:`LOOP` with
the game's per-row functions (its kernels' ``row_functions()``) and the player's per-row act
(its twin's ``row_act()``) as the globals it calls.

Why generated source: numba links every function a compiled function calls into its machine
code, so a loop that took these functions as arguments compiled again in every process (about
2 s per game, player kind and table size: the first rollouts of every search, every test
worker); and it could not be cached on disk, the type of a function argument naming an object
of one process. A module that imports the functions by name is cached like the kernels: numba
keeps its machine code beside the generated source (under ``__pycache__/playout/`` of this
package, else the user's cache directory, else a directory of the process), stamped with the
contents of the modules of the functions and of the modules they read (``card_envs.core.compiled``),
so a change to a rule or a player compiles it again. A function that cannot be imported by name
(defined in a function, or in a script) gets the same loop compiled in the process, uncached.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from numba import njit

from card_envs.core.compiled import compiled_dependencies, key_compiled_cache

#: the names the loop calls: the game's row functions, then the player's row act
NAMES = ("step1", "write1", "over1", "ranks1", "act1")

#: The loop. ``play_rows(k, seat_a, rows, ...)`` plays each game ``rows[i]`` to its end as
#: :meth:`BatchedGame.step` steps it, one action at a time by the deciding seat's player;
#: ``ranks[i]``/``truncated[i]`` as ``step()`` gives them at the end. ``k``: the game's row
#: state (the first item of ``row_functions()``); ``seat_a``: one ``a`` per seat (the same
#: kind of player at each seat's knobs). Each row's observation, mask, decider and step count
#: are kept as ``step()`` leaves them (a truncated row's mask emptied), and it draws only from
#: its own generator, in the same order.
LOOP = """
@njit(cache={cache})
def play_rows(k, seat_a, rows, gens, observations, masks, current, steps, max_steps, ranks, truncated):
    for i in range(rows.size):
        b = rows[i]
        gen = gens[b]
        while True:
            step1(k, b, act1(seat_a[current[b]], observations[b], masks[b], gen), gen)
            steps[b] += 1
            over = over1(k, b)
            current[b] = write1(k, b, observations[b], masks[b])
            if over:
                break
            if steps[b] >= max_steps:
                truncated[i] = True
                masks[b, :] = 0
                break
        ranks1(k, b, truncated[i], ranks[i])
"""

_LOOPS: dict[tuple[Any, ...], Callable[..., None]] = {}


def play_out_loop(game_functions: tuple[Any, ...], act1: Any) -> Callable[..., None]:
    """The compiled ``play_rows`` of :data:`LOOP` for a game's ``(step1, write1, over1, ranks1)``
    and a player's ``act1`` (numba dispatchers), built once per process and combination."""
    functions = (*game_functions, act1)
    if len(functions) != len(NAMES):
        raise ValueError(f"a play-out loop needs {len(NAMES) - 1} row functions and an act, got {functions}")
    if functions not in _LOOPS:  # keyed by the dispatchers themselves: a hash, once per play-out
        addresses = [_address(f) for f in functions]
        if all(addresses):
            _LOOPS[functions] = _cached_loop([a for a in addresses if a])
        else:
            namespace = {"njit": njit, **dict(zip(NAMES, functions, strict=True))}
            exec(LOOP.format(cache=False), namespace)  # our own template: no outside input
            _LOOPS[functions] = namespace["play_rows"]
    return _LOOPS[functions]


def _address(function: Any) -> tuple[str, str] | None:
    """``(module, name)`` that imports ``function``, or None where it has none."""
    py_func = getattr(function, "py_func", function)
    module, name = py_func.__module__, py_func.__qualname__
    if module == "__main__" or "." in name or getattr(sys.modules.get(module), name, None) is not function:
        return None
    return module, name


def _cached_loop(addresses: list[tuple[str, str]]) -> Callable[..., None]:
    """The loop in a generated module that imports its functions from ``addresses``, cached
    on disk by numba like the kernels."""
    pairs = zip(addresses, NAMES, strict=True)
    imports = "".join(f"from {module} import {name} as {alias}\n" for (module, name), alias in pairs)
    source = (
        f'"""Generated by card_envs.batched.playout: its loop with these functions."""\n\n'
        f"from numba import njit\n\nfrom card_envs.batched.playout import key_loop_cache\n{imports}\n"
        f"key_loop_cache(__name__, {', '.join(NAMES)})\n\n{LOOP.format(cache=True)}"
    )
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    name = f"_card_envs_playout_{digest}"
    path = _write(source_dir() / f"{name}.py", source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    loop: Callable[..., None] = module.play_rows
    return loop


def key_loop_cache(module: str, *functions: Any) -> None:
    """Stamp a generated loop's cache with the modules of its functions and what they read."""
    files = set()
    for function in functions:
        file = str(sys.modules[getattr(function, "py_func", function).__module__].__file__)
        files |= {file, *compiled_dependencies(file)}
    key_compiled_cache(module, *sorted(files))


def _write(path: Path, source: str) -> Path:
    """``source`` at ``path``, written atomically unless it is there already (processes race)."""
    if not path.is_file() or path.read_text() != source:
        fd, scratch = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as file:
            file.write(source)
        os.replace(scratch, path)
    return path


@functools.cache
def source_dir() -> Path:
    """Where the generated loops live: the first writable of ``__pycache__/playout`` beside this
    module (as numba caches the kernels), the user's cache directory, a directory of this process."""
    user_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "card_envs"
    for candidate in (Path(__file__).parent / "__pycache__" / "playout", user_cache / "playout"):
        try:
            candidate.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=candidate).close()
        except OSError:
            continue
        return candidate
    return Path(tempfile.mkdtemp(prefix="card_envs_playout_"))
