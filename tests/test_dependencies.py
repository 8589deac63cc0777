"""Dependencies by layer: the engines, batched engines, records and envs run on the core
dependencies alone, and a tool that needs an extra says which one in one line.

The subprocess tests install nothing: a ``sys.meta_path`` finder refuses the modules of
every extra, as if they were not installed (a library that tries one and falls back
sees the same ``ModuleNotFoundError``).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import venv
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from card_envs.core import extras
from card_envs.core.extras import EXTRAS, MissingExtraError, extra_providing, require
from tests.test_architecture import imports_of, layer_of, project_modules

ROOT = Path(__file__).resolve().parent.parent
#: every module an extra installs
OPTIONAL = sorted({module for modules in EXTRAS.values() for module in modules})
#: the layers that must run on the core dependencies alone
PURE_LAYERS = ["core", "games", "batched", "records", "envs", "agents"]
#: the trained-model opponents of the agents layer ("model:PATH"): the 'train' extra
MODEL_MODULES = ["card_envs.agents.model", "card_envs.agents.networks", "card_envs.agents.rllib_model"]


def without(modules: list[str], code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter in which ``modules`` cannot be imported."""
    prelude = f"""
        import importlib.abc, sys

        REFUSED = []  # (module, the module that tried to import it), even where that was caught:
        # a library may probe one (numba tries scipy), card_envs must not

        IMPORTLIB = ("importlib",)

        def in_machinery(frame):
            return frame.f_code.co_filename.startswith("<frozen") or frame.f_globals["__name__"] in IMPORTLIB

        def importer():  # the module of the first frame outside the import machinery
            frame = sys._getframe(2)
            while in_machinery(frame):
                frame = frame.f_back
            return frame.f_globals["__name__"]

        class Refuse(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] in {modules!r}:
                    REFUSED.append((name, importer()))
                    raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
                return None

        sys.meta_path.insert(0, Refuse())
    """
    script = textwrap.dedent(prelude) + textwrap.dedent(code)
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    # this checkout, run from tmp_path; one numba thread: the parallel kernels spin on a busy machine
    env = {**os.environ, "PYTHONPATH": path, "NUMBA_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, env=env
    )


PURE_GAMES = """
    import json
    import gymnasium
    import numpy as np
    import card_envs
    from card_envs import tock_v1
    from card_envs.batched.game import BatchedGame

    rng = np.random.default_rng(0)
    facts = {}

    env = tock_v1.env(num_players=3, record_dir="records")  # a full AEC game, recorded
    env.reset(seed=4)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        legal = np.flatnonzero(observation["action_mask"])
        env.step(None if termination or truncation else int(rng.choice(legal)))
    facts["aec_rewards"] = sum(env._cumulative_rewards.values())
    facts["aec_ranks"] = sorted(env.unwrapped.game.ranks)
    final = env.unwrapped.state_dict()
    env.close()

    (path,) = __import__("pathlib").Path("records").glob("*.jsonl")
    facts["replayed"] = card_envs.replay(path).state_dict() == final

    single = gymnasium.make("card_envs/Uno-v0", num_players=4, opponents="rule")
    single.reset(seed=2)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(single.unwrapped.action_masks())))
        observation, reward, terminated, truncated, info = single.step(action)
        done = terminated or truncated
    facts["single_reward"] = float(reward)
    facts["single_terminated"] = bool(terminated)

    batch = BatchedGame("chipit", 4, 3)
    batch.reset(seed=1)
    ended = 0
    for _ in range(400):
        actions = [int(rng.choice(np.flatnonzero(mask))) for mask in batch.masks]
        ended += int(batch.step(np.array(actions)).ended.sum())
    facts["batched_ended"] = ended
    facts["tried_by_card_envs"] = [name for name, by in REFUSED if by.partition(".")[0] == "card_envs"]
    print(json.dumps(facts))
"""


@pytest.mark.slow
def test_engines_envs_records_and_batches_run_without_any_extra(tmp_path):
    out = without(OPTIONAL, PURE_GAMES, tmp_path)
    assert out.returncode == 0, out.stderr
    facts = json.loads(out.stdout.splitlines()[-1])
    assert facts["aec_rewards"] == pytest.approx(0.0)  # rank rewards are zero-sum
    assert facts["aec_ranks"][0] == 1
    assert facts["replayed"]
    assert facts["single_terminated"] and -1.0 <= facts["single_reward"] <= 1.0
    assert facts["batched_ended"] > 0
    assert facts["tried_by_card_envs"] == []  # not even tried


CLI_TOOLS = """
    from card_envs.cli import evaluate, train

    evaluate.main(["--agents", "rule,rule,random", "--games", "3", "--workers", "1"])
    print("evaluated", flush=True)
    try:
        train.main(["--timesteps", "10"])
    except SystemExit as stop:
        print("exit", stop.code)
"""


@pytest.mark.slow
def test_a_rule_only_tournament_runs_without_torch_and_train_names_its_extra(tmp_path):
    out = without(["torch", "stable_baselines3", "sb3_contrib"], CLI_TOOLS, tmp_path)
    assert out.returncode == 0, out.stderr
    assert "evaluated" in out.stdout
    assert out.stdout.splitlines()[-1] == "exit 2"
    assert out.stderr.splitlines()[-1:] == [
        "train.py needs the 'train' extra (torch is not installed): pip install 'card-envs[train]'"
    ]
    assert "Traceback" not in out.stderr


def test_evaluate_without_scipy_names_the_eval_extra_in_one_line(tmp_path):
    code = """
        from card_envs.cli import evaluate

        evaluate.main(["--agents", "rule,rule,random", "--games", "3", "--workers", "1"])
    """
    out = without(["scipy"], code, tmp_path)
    assert out.returncode == 2
    assert out.stderr == (
        "evaluate.py needs the 'eval' extra (scipy is not installed): pip install 'card-envs[eval]'\n"
    )


def test_require_names_the_extra_and_the_missing_module(monkeypatch):
    require("train", "train.py")  # everything is installed here
    monkeypatch.setitem(EXTRAS, "train", ("torch", "card_envs_no_such_module"))
    with pytest.raises(MissingExtraError) as caught:
        require("train", "train.py")
    assert str(caught.value) == (
        "train.py needs the 'train' extra (card_envs_no_such_module is not installed):"
        " pip install 'card-envs[train]'"
    )
    assert caught.value.name == "card_envs_no_such_module"
    assert isinstance(caught.value, ImportError)  # what callers that catch ImportError expect


def test_require_rejects_an_unknown_extra():
    with pytest.raises(ValueError, match="unknown extra 'trian'; the extras are eval, report, train, web"):
        require("trian", "train.py")


def test_a_module_maps_to_the_smallest_extra_that_installs_it():
    assert extra_providing("scipy.stats") == "eval"  # train installs it too
    assert extra_providing("torch") == "train"
    assert extra_providing("matplotlib.pyplot") == "report"
    assert extra_providing("numpy") is None


def test_a_model_spec_needs_the_train_extra(monkeypatch):
    from card_envs.agents.specs import make_policy

    monkeypatch.setattr(extras, "_installed", lambda module: module != "torch")
    with pytest.raises(MissingExtraError, match=r"the policy 'model:runs/x' needs the 'train' extra"):
        make_policy("model:runs/x", "uno", 4)
    make_policy("rule", "uno", 4)  # a rule agent needs nothing


# ----------------------------------------------------------- pyproject.toml


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _names(requirements: list[str], optional: dict[str, list[str]]) -> set[str]:
    """Distribution names of ``requirements``, this project's own extras expanded."""
    names = set()
    for text in requirements:
        requirement = Requirement(text)
        if requirement.name == "card-envs":
            for extra in requirement.extras:
                names |= _names(optional[extra], optional)
        else:
            names.add(canonicalize_name(requirement.name))
    return names


@functools.cache
def _distributions() -> dict[str, list[str]]:
    return packages_distributions()  # reads every installed distribution's file list


def _distribution(module: str) -> str:
    """The installed distribution that provides the top-level ``module``."""
    return canonicalize_name(_distributions()[module][0])


def test_each_extra_installs_the_modules_the_code_expects_of_it():
    project = _pyproject()
    optional = project["optional-dependencies"]
    for extra, modules in EXTRAS.items():
        assert {_distribution(m) for m in modules} <= _names(optional[extra], optional), extra
    assert _names(optional["dev"], optional) >= _names(optional["train"] + optional["report"], optional)
    core = _names(project["dependencies"], optional)
    assert not core & {_distribution(m) for m in OPTIONAL}


def test_the_core_dependencies_are_what_the_pure_layers_import():
    """Every third-party module the layers up to the agents import is a core dependency,
    and every core dependency is used by them (a stale one would make every install heavier)."""
    imported = set()
    for module, path in project_modules().items():
        if layer_of(module) in [*PURE_LAYERS, "facade"] and module not in MODEL_MODULES:
            imported |= {name.partition(".")[0] for name in imports_of(path) if layer_of(name) is None}
    third_party = {name for name in imported if name not in sys.stdlib_module_names and name != "card_envs"}
    project = _pyproject()
    core = _names(project["dependencies"], project["optional-dependencies"])
    assert {_distribution(m) for m in third_party} == core


# ----------------------------------------------------------- a real install

FRESH_GAMES = """
    import json, pathlib, sys
    import gymnasium
    import numpy as np
    import card_envs
    from card_envs import uno_v0

    rng = np.random.default_rng(1)
    env = uno_v0.env(num_players=3, record_dir="records")
    env.reset(seed=1)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        legal = np.flatnonzero(observation["action_mask"])
        env.step(None if termination or truncation else int(rng.choice(legal)))
    single = gymnasium.make("card_envs/Tock-v1", opponents="rule")
    single.reset(seed=1)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(single.unwrapped.action_masks())))
        done = any(single.step(action)[2:4])
    print(json.dumps(sorted({m.partition(".")[0] for m in sys.modules} & OPTIONAL)))
"""


@pytest.mark.slow
def test_a_fresh_install_of_the_core_dependencies_plays_and_names_the_missing_extras(tmp_path):
    """pip installs the distribution with its core dependencies alone into a new venv (no
    system site-packages), where the envs play and the tools name the extras they lack."""
    source = tmp_path / "source"  # a copy, so the build writes nothing into the checkout
    shutil.copytree(ROOT / "card_envs", source / "card_envs", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ["pyproject.toml", "README.md"]:
        shutil.copy(ROOT / name, source / name)
    venv.create(tmp_path / "venv", with_pip=True)
    bin_dir = tmp_path / "venv" / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    install = subprocess.run(
        [python, "-m", "pip", "install", "--disable-pip-version-check", "-q", str(source)],
        capture_output=True,
        text=True,
    )
    if install.returncode and re.search(
        r"NewConnectionError|Could not find a version|No matching", install.stderr
    ):
        pytest.skip(f"no package index reachable: {install.stderr.strip().splitlines()[-1]}")
    assert install.returncode == 0, install.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["NUMBA_NUM_THREADS"] = "1"

    def run(*command: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env)

    code = f"OPTIONAL = set({OPTIONAL!r})\n" + textwrap.dedent(FRESH_GAMES)
    games = run(python, "-c", code)
    assert games.returncode == 0, games.stderr
    assert json.loads(games.stdout) == []
    (record,) = (tmp_path / "records").glob("*.jsonl")
    assert run(bin_dir / "card-envs-replay", record).returncode == 0

    train = run(bin_dir / "card-envs-train", "--timesteps", "10")
    assert (train.returncode, train.stderr) == (
        2,
        "train.py needs the 'train' extra (torch is not installed): pip install 'card-envs[train]'\n",
    )
    evaluate = run(bin_dir / "card-envs-evaluate", "--agents", "rule,rule,random", "--games", "2")
    assert (evaluate.returncode, evaluate.stderr) == (
        2,
        "evaluate.py needs the 'eval' extra (scipy is not installed): pip install 'card-envs[eval]'\n",
    )
