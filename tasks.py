"""Run a project task in a virtualenv that this script creates on first use.

    python3 tasks.py train [train.py options]   # train and evaluate an agent (default: TRAIN_DEFAULT)
    python3 tasks.py evaluate [options]         # tournaments (evaluate.py)
    python3 tasks.py play [play options]        # play a game yourself (python -m card_envs.cli.play)
    python3 tasks.py watch [watch options]      # watch agents play (python -m card_envs.cli.watch)
    python3 tasks.py replay FILE                # replay a recorded game (python -m card_envs.cli.replay)
    python3 tasks.py web [web options]          # play, watch, replay in a browser (python -m card_envs.web)
    python3 tasks.py test [pytest options]      # lint, then the fast test suite (-m slow: the long ones)
    python3 tasks.py bench [bench options]      # speed benchmarks
    python3 tasks.py lint                       # ruff check, ruff format --check, mypy
    python3 tasks.py wheel                      # build, check and install the wheel alone, play with it
    python3 tasks.py docs                       # the docs' tables from the code, then the site (--strict)

Needs nothing but Python 3.10+. The virtualenv lives in ``.venv``; it is
(re)installed when missing or when ``pyproject.toml`` changed. torch is
installed first, pinned (``CARD_ENVS_TORCH``, default ``torch==2.13.0``), so
that pip does not pull a multi-GB CUDA build.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"
TORCH = os.environ.get("CARD_ENVS_TORCH", "torch==2.13.0")
STAMP = VENV / ".card_envs_installed"


def _install_key() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + TORCH.encode()).hexdigest()


def _run(*args: str | Path) -> None:
    print("+", " ".join(str(a) for a in args), flush=True)
    subprocess.run([str(a) for a in args], cwd=ROOT, check=True)


def ensure_venv() -> None:
    """Create .venv and install the project with its dev extras, unless already current."""
    if STAMP.exists() and STAMP.read_text() == _install_key():
        return
    if not PYTHON.exists():
        print(f"Creating a virtualenv in {VENV} ...", flush=True)
        venv.create(VENV, with_pip=True)
    pip = (PYTHON, "-m", "pip", "install", "--disable-pip-version-check")
    _run(*pip, TORCH)
    _run(*pip, "-e", ".[dev]")
    STAMP.write_text(_install_key())


#: what the wheel check plays in a fresh virtualenv holding the wheel alone: a game of each
#: game through its PettingZoo env, every seat the shipped agent (numpy only), with no torch
WHEEL_SMOKE = """
import importlib, importlib.util, numpy as np, card_envs
from card_envs.agents import make_policy
from card_envs.core.registry import game_specs
assert importlib.util.find_spec("torch") is None, "the core install must not need torch"
for spec in game_specs().values():
    module = importlib.import_module(f"card_envs.{spec.aec_name}")
    env = module.env(num_players=4)
    env.reset(seed=0)
    players = {agent: make_policy("pretrained", spec.name, 4) for agent in env.agents}
    rng, total, moves = np.random.default_rng(0), 0.0, 0
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        total += reward
        action = None if terminated or truncated else players[agent].act(
            observation["observation"], observation["action_mask"], rng)
        env.step(action)
        moves += 1
    assert moves > 4 and abs(total) < 1e-6, (moves, total)  # a finished game's rank rewards sum to 0
    print(f"{module.__name__}: a pretrained game of {moves} steps, card_envs {card_envs.__version__}"
          f" from {card_envs.__file__}")
"""


def check_wheel() -> None:
    """Build the sdist and the wheel into dist/, check them as PyPI would, install the wheel in
    a fresh virtualenv with the core dependencies only and play each game there."""
    dist = ROOT / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    _run(PYTHON, "-m", "build", "--outdir", dist)
    built = sorted(dist.iterdir())
    _run(PYTHON, "-m", "twine", "check", "--strict", *built)
    with tempfile.TemporaryDirectory() as scratch:
        fresh = Path(scratch) / "venv"
        venv.create(fresh, with_pip=True)
        python = fresh / BIN.name / "python"
        wheel = next(path for path in built if path.suffix == ".whl")
        _run(python, "-m", "pip", "install", "--disable-pip-version-check", "-q", wheel)
        print("+", python, "-c", "WHEEL_SMOKE", flush=True)
        subprocess.run([str(python), "-c", WHEEL_SMOKE], cwd=scratch, check=True)  # not the checkout
    for path in built:
        print(f"{path.name}: {path.stat().st_size / 2**20:.1f} MiB", flush=True)


TASKS = {
    "train": [PYTHON, "train.py"],
    "evaluate": [PYTHON, "evaluate.py"],
    "play": [PYTHON, "-m", "card_envs.cli.play"],
    "watch": [PYTHON, "-m", "card_envs.cli.watch"],
    "replay": [PYTHON, "-m", "card_envs.cli.replay"],
    "web": [PYTHON, "-m", "card_envs.web"],
    "test": [PYTHON, "-m", "pytest", "-n", "auto", "-q"],
    "bench": [PYTHON, "bench/throughput.py"],
    "lint": [],  # LINTERS only
    "wheel": [],  # check_wheel
    "docs": [PYTHON, "-m", "card_envs.cli.docs_tables"],  # then SITE
}
#: what ``tasks.py train`` trains without options: Tock's measured recipe scaled to minutes (under
#: 5 on 2 cores), then 400 games in rotating seats against three rule-based players beside a
#: rule-based player in the same seats, and the learning curve's plot (docs/learning.md)
TRAIN_DEFAULT = ["--game", "tock", "--recipe", "quick", "--final-games", "400"]
#: the documentation site (mkdocs.yml): strict, so a broken link, anchor or reference fails it
SITE = [PYTHON, "-m", "mkdocs", "build", "--strict", "--site-dir", "site"]
LINTERS = [
    [PYTHON, "-m", "ruff", "check", "."],
    [PYTHON, "-m", "ruff", "format", "--check", "."],
    [PYTHON, "-m", "mypy"],
]


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    if argv[0] not in TASKS:
        print(f"tasks.py: error: unknown task {argv[0]!r}; tasks: {', '.join(TASKS)}", file=sys.stderr)
        return 2
    task, extra = argv[0], argv[1:]
    if task == "train" and not extra:
        extra = TRAIN_DEFAULT
    ensure_venv()
    if task in ("test", "lint"):  # the suite includes the lint: CI fails on either
        for linter in LINTERS:
            subprocess.run([str(a) for a in linter], cwd=ROOT, check=True)
        if task == "lint":
            return 0
    if task == "wheel":
        check_wheel()
        return 0
    if task == "docs":
        subprocess.run([str(a) for a in TASKS[task]] + extra, cwd=ROOT, check=True)
        return subprocess.run([str(a) for a in SITE], cwd=ROOT).returncode
    return subprocess.run([str(a) for a in TASKS[task]] + extra, cwd=ROOT).returncode


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except subprocess.CalledProcessError as error:
        sys.exit(error.returncode)
