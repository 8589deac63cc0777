"""Keep numba's on-disk cache of compiled kernels in step with the modules they read.

Numba stamps a module's cached machine code with that module's own source (a hash of
its contents), while the constants a kernel reads from other modules (action numbers,
observation offsets, card tables) are baked into the machine code, and so are the
compiled functions it calls from other modules. Without more, changing ``encoding.py``
would leave a batched engine running on the old numbering until its cache was cleared
by hand. (Touching the kernel file, as this module once did, no longer helps: numba
0.68 hashes contents, not time stamps.)

:func:`key_compiled_cache` adds the contents of the project modules a kernel module
imports to the stamp of its compiled functions, through a cache locator: numba's own
hook for where a function's cache lives and when it is stale. Where the cache lives
stays numba's choice (``NUMBA_CACHE_DIR``, else ``__pycache__`` beside the module like
Python's bytecode, else the user-wide cache directory when the install is read-only);
no source file is written or touched. (A ``NUMBA_CACHE_LOCATOR_CLASSES`` setting
replaces numba's list of locators, this one included.)
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from numba.core import caching

#: the dependency files and their hash of each module that asked for them, by its normalised file path
_DEPENDENCIES: dict[str, tuple[list[str], str]] = {}


def _normalised(path: str | os.PathLike[str]) -> str:
    return os.path.normcase(os.path.abspath(path))


def dependency_hash(paths: Sequence[str | os.PathLike[str]]) -> str:
    """A hash of the files' contents, in order (their names and time stamps do not count,
    so a copy of the same sources, e.g. a fresh install, finds its cache warm)."""
    digest = hashlib.sha256()
    for path in paths:
        content = Path(path).read_bytes()
        digest.update(len(content).to_bytes(8, "little"))
        digest.update(content)
    return digest.hexdigest()


def imported_files(module: str) -> list[str]:
    """The files of the modules of its own package that ``module`` imports at its top level
    (``from card_envs.games.uno import cards``, ``from card_envs.games.uno.kernels import POINTS``).

    What a kernel bakes in comes from these: a constant imported by name has no module of its
    own to follow, so the source's import statements are read rather than the module's names.
    """
    source = sys.modules[module]
    package = module.partition(".")[0]
    names: list[str] = []
    for node in ast.parse(Path(str(source.__file__)).read_bytes()).body:
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), source.__package__)
            # a submodule imported from its package is the dependency, not the package
            names += [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in sys.modules else base
                for alias in node.names
            ]
    own = [sys.modules.get(name) for name in names if name.partition(".")[0] == package and name != __name__]
    files = {_normalised(m.__file__) for m in own if m is not None and m.__file__}
    return sorted(files)


def key_compiled_cache(module: str, *more: str) -> None:
    """Stamp numba's cache of the ``@njit(cache=True)`` functions of ``module`` with the contents
    of the modules it imports from its own package (:func:`imported_files`) and of the files
    ``more``, so that a change to one of them recompiles the module's functions.

    Call it at the top of the module, after its imports and before its compiled functions
    (numba finds a function's cache when it decorates it): ``key_compiled_cache(__name__)``.
    """
    if DependencyStampedLocator not in caching.CacheImpl._locator_classes:
        caching.CacheImpl._locator_classes.insert(0, DependencyStampedLocator)
    dependencies = sorted({*imported_files(module), *map(_normalised, more)})
    _DEPENDENCIES[_normalised(str(sys.modules[module].__file__))] = (
        dependencies,
        dependency_hash(dependencies),
    )


def compiled_dependencies(module_file: str) -> list[str]:
    """The files whose contents stamp the compiled functions of ``module_file`` (none if not keyed)."""
    return _DEPENDENCIES.get(_normalised(module_file), ([], ""))[0]


class DependencyStampedLocator(caching._CacheLocator):
    """Numba's usual locator for a function of a module that called :func:`key_compiled_cache`,
    with that module's dependency hash added to the stamp that decides whether the cache is fresh
    (a stale index is overwritten in place, so old entries do not pile up)."""

    def __init__(self, inner: Any, dependencies: str) -> None:
        self._inner = inner
        self._dependencies = dependencies

    @classmethod
    def from_function(cls, py_func: Callable[..., Any], py_file: str) -> DependencyStampedLocator | None:
        if _normalised(py_file) not in _DEPENDENCIES:  # not ours: the next locator answers
            return None
        dependencies = _DEPENDENCIES[_normalised(py_file)][1]
        locator_classes: list[Any] = caching.CacheImpl._locator_classes
        for locator_class in locator_classes:
            if locator_class is not cls:
                inner = locator_class.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner, dependencies)
        return None

    def ensure_cache_path(self) -> None:
        self._inner.ensure_cache_path()

    def get_cache_path(self) -> str:
        return str(self._inner.get_cache_path())

    def get_source_stamp(self) -> tuple[Any, str]:
        return self._inner.get_source_stamp(), self._dependencies

    def get_disambiguator(self) -> str:
        return str(self._inner.get_disambiguator())
