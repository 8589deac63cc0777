"""Numba's cache of the compiled kernels follows the modules they read, without touching a file.

A kernel bakes in the constants it reads from other modules (action numbers, observation
offsets); ``key_compiled_cache`` adds those modules' contents to the cache's stamp, so a
change to one recompiles the kernel, and an unchanged tree loads the cache warm.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from numba.core.dispatcher import Dispatcher

from card_envs.core.compiled import (
    DependencyStampedLocator,
    compiled_dependencies,
    dependency_hash,
    imported_files,
)
from tests.test_architecture import imports_of, layer_of, project_modules

ROOT = Path(__file__).resolve().parent.parent
#: every module with cached compiled functions that reads other project modules
COMPILED_MODULES = sorted(
    name
    for name, path in project_modules().items()
    if "@njit(cache=True" in path.read_text() and any(layer_of(m) for m in imports_of(path))
)


def test_the_compiled_modules_are_found():
    # three games' kernels, three rule agents' twins, three heuristic players' twins, and
    # Chip It's arith
    assert len(COMPILED_MODULES) == 10


KERNEL = """
from numba import njit

from card_envs.core.compiled import key_compiled_cache
from toy.constants import VALUE

key_compiled_cache(__name__)


@njit(cache=True)
def value():
    return VALUE  # baked into the machine code
"""
RUN = """
import json
from toy import kernel

result = kernel.value()
stats = kernel.value.stats
hits, misses = sum(stats.cache_hits.values()), sum(stats.cache_misses.values())
print(json.dumps([result, hits, misses, stats.cache_path]))
"""


def test_the_dependency_hash_follows_contents_not_names_or_times(tmp_path):
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text("X = 1\n")
    second.write_text("X = 1\n")
    os.utime(second, (0, 0))
    assert dependency_hash([first]) == dependency_hash([second])
    second.write_text("X = 2\n")
    assert dependency_hash([first]) != dependency_hash([second])
    # where one file ends counts: the same text cut elsewhere is another hash
    (tmp_path / "c.py").write_text("X = 1\nX = 2\n")
    (tmp_path / "d.py").write_text("")
    assert dependency_hash([tmp_path / "c.py", tmp_path / "d.py"]) != dependency_hash([first, second])


@pytest.fixture
def toy_package(tmp_path, monkeypatch):
    """An empty package ``toy`` on the path, its modules forgotten after the test."""
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path / "toy"
    for name in [name for name in sys.modules if name.partition(".")[0] == "toy"]:
        del sys.modules[name]


def test_the_dependencies_are_the_modules_of_its_package_it_imports(toy_package):
    for name in ["alpha", "beta", "gamma", "delta", "unused"]:
        (toy_package / f"{name}.py").write_text("G = 1\n")
    (toy_package / "kernel.py").write_text(
        "import numpy\nimport toy.alpha\nfrom toy import beta\nfrom toy.gamma import G\nfrom . import delta\n"
    )
    importlib.import_module("toy.kernel")
    assert [Path(f).name for f in imported_files("toy.kernel")] == [
        "alpha.py",
        "beta.py",
        "delta.py",
        "gamma.py",
    ]


def run_toy(source: Path, cache: Path) -> tuple[int, int, int, str]:
    """Call ``toy.kernel.value()`` in a fresh interpreter: its result, cache hits and misses, cache folder."""
    path = os.pathsep.join([str(source.parent), str(ROOT)])
    env = {**os.environ, "PYTHONPATH": path, "NUMBA_CACHE_DIR": str(cache), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", RUN], capture_output=True, text=True, env=env, cwd=cache.parent
    )
    assert out.returncode == 0, out.stderr
    value, hits, misses, cache_path = json.loads(out.stdout)
    return value, hits, misses, cache_path


@pytest.mark.slow
def test_a_changed_dependency_recompiles_and_an_unchanged_one_loads_warm(tmp_path):
    source, cache = tmp_path / "src" / "toy", tmp_path / "cache"
    source.mkdir(parents=True)
    (source / "__init__.py").write_text("")
    (source / "constants.py").write_text("VALUE = 1\n")
    (source / "kernel.py").write_text(textwrap.dedent(KERNEL))
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in source.iterdir()}

    assert run_toy(source, cache)[:3] == (1, 0, 1)  # cold: compiled and saved
    value, hits, misses, cache_path = run_toy(source, cache)
    assert (value, hits, misses) == (1, 1, 0)  # warm: loaded, not compiled
    assert Path(cache_path).is_relative_to(cache)
    # nothing in the source tree was written or touched
    assert {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in source.iterdir()} == before

    (source / "constants.py").write_text("VALUE = 2\n")  # the same size, maybe the same second
    assert run_toy(source, cache)[:3] == (2, 0, 1)  # the new constant, not the stale cache


@pytest.mark.parametrize("name", COMPILED_MODULES)
def test_every_cached_kernel_is_stamped_with_the_modules_it_reads(name):
    module = importlib.import_module(name)
    game = name.split(".")[2]
    dependencies = {
        str(Path(f).relative_to(ROOT / "card_envs")) for f in compiled_dependencies(module.__file__)
    }
    assert f"games/{game}/encoding.py" in dependencies  # the action and observation numbering
    if name.startswith("card_envs.agents."):  # a twin reads its agent's knobs or weights, e.g. tock's TARGETS
        agent = "heuristic.py" if name.endswith("heuristic_compiled") else "rules.py"
        assert f"agents/{game}/{agent}" in dependencies
    kernels = [v for v in vars(module).values() if isinstance(v, Dispatcher) and v.py_func.__module__ == name]
    assert kernels, f"{name} defines no compiled function"
    for kernel in kernels:
        locator = kernel._cache._impl.locator
        assert isinstance(locator, DependencyStampedLocator), kernel.py_func.__name__
        assert locator.get_source_stamp()[1] == dependency_hash(compiled_dependencies(module.__file__))


def test_a_twin_depends_on_the_game_modules_it_reads():
    """``POINTS`` of the UNO twin comes from the game's cards module, imported by name."""
    import card_envs.agents.uno.compiled as twin

    assert str(ROOT / "card_envs" / "games" / "uno" / "cards.py") in compiled_dependencies(twin.__file__)
