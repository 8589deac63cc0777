"""Imports point one way: tools -> agents -> envs -> engines -> core, and engines stay pure.

Each module of the project sits in a layer; a module may import its own
layer and those below it, never one above (also not lazily, inside a
function). The package facade ``card_envs/__init__.py`` counts as the envs layer.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from card_envs.registry import game_specs

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["core", "engines", "envs", "agents", "tools"]


def layer_of(module: str) -> str | None:
    """The layer of a project module name, None for third-party and standard modules."""
    if module.startswith("card_envs.core"):
        return "core"
    if module.startswith(("card_envs.games", "card_envs.registry", "card_envs.records", "card_envs.batched")):
        return "engines"
    if module.startswith("card_envs.envs") or module == "card_envs":
        return "envs"
    if module == "agents" or module.startswith("agents."):
        return "agents"
    if module.startswith("card_envs.") or module in ("train", "evaluate"):
        return "tools"
    return None


def project_modules() -> dict[str, Path]:
    files = [
        *ROOT.glob("card_envs/**/*.py"),
        *ROOT.glob("agents/**/*.py"),
        ROOT / "train.py",
        ROOT / "evaluate.py",
    ]
    modules = {}
    for path in files:
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def imports_of(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_no_module_imports_a_layer_above_its_own():
    violations = []
    for module, path in project_modules().items():
        own = LAYERS.index(layer_of(module) or "tools")
        for imported in imports_of(path):
            layer = layer_of(imported)
            if layer is not None and LAYERS.index(layer) > own:
                violations.append(f"{module} ({LAYERS[own]}) imports {imported} ({layer})")
    assert not violations, "\n".join(violations)


def test_the_layer_map_knows_every_module():
    assert {layer_of(m) for m in project_modules()} == set(LAYERS)


PURE = ["gymnasium", "pettingzoo", "agents", "torch", "stable_baselines3"]


@pytest.mark.parametrize(
    "module",
    [
        "card_envs",
        *sorted(
            {
                s.engine_class().__module__
                for s in game_specs().values()
                if s.engine_class().__module__.startswith("card_envs")
            }
        ),
    ],
)
def test_importing_an_engine_loads_no_env_library(module):
    code = f"import sys, {module}; print([m for m in {PURE!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", f"importing {module} loaded {out.stdout.strip()}"


def test_gym_ids_are_registered_whatever_the_import_order():
    code = (
        "import card_envs, gymnasium\n"
        "assert 'card_envs/Uno-v0' in gymnasium.registry\n"
        "from card_envs import tock_v0\n"
        "import card_envs.chipit_v0 as chipit\n"
        "print(tock_v0.env.__name__, chipit.raw_env.metadata['name'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["env", "chipit_v0"]
