"""The release's facts agree: one version in pyproject.toml, the package and the changelog; every
env's version history in the changelog's table; the type marker shipped; the wheel check plays
every game."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import card_envs
from card_envs.core.registry import game_specs
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG = (ROOT / "CHANGELOG.md").read_text()
PYPROJECT = (ROOT / "pyproject.toml").read_text()
BUILT_IN = ("uno", "tock", "chipit")


def test_one_version_in_pyproject_the_package_and_the_changelogs_newest_release() -> None:
    project = re.search(r'^version = "([^"]+)"', PYPROJECT, re.M)
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", CHANGELOG, re.M)
    assert project and released and project.group(1) == card_envs.__version__ == released[0][0]
    dates = [day for _, day in released]
    assert dates == sorted(dates, reverse=True)  # newest first
    assert CHANGELOG.index("## [Unreleased]") < CHANGELOG.index(f"## [{card_envs.__version__}]")


def test_the_changelog_lists_every_version_of_every_env() -> None:
    table = CHANGELOG[CHANGELOG.index("## Env versions") :]
    for name in BUILT_IN:
        spec = game_specs()[name]
        module = importlib.import_module(f"card_envs.{spec.aec_name}")
        history = re.findall(r"^\* v(\d+):", module.__doc__ or "", re.M)
        assert history and int(history[0]) == spec.version  # the module's history is current
        row = next(line for line in table.splitlines() if line.startswith(f"| `card_envs.{spec.aec_name}` |"))
        assert sorted(re.findall(r"\bv(\d+) \(", row.split("|")[2])) == sorted(history)


def test_the_type_marker_is_shipped() -> None:
    assert (ROOT / "card_envs" / "py.typed").exists() and '"card_envs" = ["py.typed"]' in PYPROJECT


def test_the_wheel_check_plays_each_registered_game_and_ci_runs_it() -> None:
    tasks = load_script("tasks.py")
    assert "game_specs()" in tasks.WHEEL_SMOKE and '"pretrained"' in tasks.WHEEL_SMOKE
    assert "python3 tasks.py wheel" in (ROOT / ".ci" / "run").read_text()
