"""Each folder is one layer and imports point one way, down the layers; engines stay pure.

A module may import its own layer and those below it, never one above (also not
lazily inside a function, and not through a ``"module:Name"`` string resolved at run
time). The PettingZoo modules ``card_envs/<game>_v<version>.py`` count as the envs layer; the
package facade ``card_envs/__init__.py`` is the front door above every layer: it imports
the core eagerly (every engine import runs it) and anything else only when used.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from card_envs.core.registry import game_specs

ROOT = Path(__file__).resolve().parent.parent
#: bottom to top: each is a folder of card_envs/ (the CLI shells train.py, evaluate.py on top;
#: web, the local page, is an app like cli that may use it)
LAYERS = [
    "core",
    "games",
    "batched",
    "records",
    "envs",
    "agents",
    "evaluation",
    "training",
    "integrations",
    "cli",
    "web",
    "facade",
]


def layer_of(module: str) -> str | None:
    """The layer of a project module name, None for third-party and standard modules."""
    if module in ("train", "evaluate"):
        return "cli"
    if module == "card_envs":
        return "facade"
    if re.fullmatch(r"card_envs\.\w+_v\d+", module):
        return "envs"
    parts = module.split(".")
    if parts[0] != "card_envs":
        return None
    return parts[1] if parts[1] in LAYERS else "unknown"


def project_modules() -> dict[str, Path]:
    # not what __pycache__ holds: the play-out loops generated at run time (card_envs.batched.playout)
    sources = [path for path in ROOT.glob("card_envs/**/*.py") if "__pycache__" not in path.parts]
    files = [*sources, ROOT / "train.py", ROOT / "evaluate.py"]
    modules = {}
    for path in files:
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


#: a string naming a project object to import at run time, ``"card_envs.x.y:Name"``
STRING_REFERENCE = re.compile(r"[\"'](card_envs(?:\.\w+)+):(\w+)[\"']")


def imports_of(path: Path) -> set[str]:
    """Every project or library module ``path`` imports, and every module a string in it names."""
    text = path.read_text()
    names = {module for module, _ in STRING_REFERENCE.findall(text)}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_no_module_imports_a_layer_above_its_own():
    violations = []
    for module, path in project_modules().items():
        own = LAYERS.index(layer_of(module) or "cli")
        for imported in imports_of(path):
            layer = layer_of(imported)
            if layer is not None and LAYERS.index(layer) > own:
                violations.append(f"{module} ({LAYERS[own]}) imports {imported} ({layer})")
    assert not violations, "\n".join(violations)


def runtime_imports(path: Path, modules: set[str]) -> set[str]:
    """The project modules ``path`` imports when it runs, at its top or in a function (those under
    ``if TYPE_CHECKING:`` never run); ``from package import module`` counts the module."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.update({node.module} & modules)
            found.update({f"{node.module}.{alias.name}" for alias in node.names} & modules)
    return found


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))
    return circles


def test_no_runtime_import_circle():
    """No module imports, even lazily in a function, a module that imports it back (through
    others): each module can be read, and loaded, on its own terms. A circle once ran through
    the policy specs and the search player, which builds policies by spec: the search player
    now gets its ``make_policy`` from whoever builds it."""
    modules = project_modules()
    graph = {name: runtime_imports(path, set(modules)) - {name} for name, path in modules.items()}
    assert import_circles(graph) == []


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_circles(graph) == [["a", "b", "c"]]


def test_every_module_sits_in_a_layer_folder():
    assert {layer_of(m) for m in project_modules()} == set(LAYERS)


def test_string_references_name_objects_that_exist():
    from card_envs.core.spec import resolve

    missing = []
    for path in project_modules().values():
        for module, name in STRING_REFERENCE.findall(path.read_text()):
            try:
                resolve(f"{module}:{name}")
            except (ImportError, AttributeError) as error:
                missing.append(f"{path.name}: {module}:{name} ({error})")
    assert not missing, "\n".join(missing)


def test_console_scripts_name_functions_of_the_app_layers():
    from card_envs.core.spec import resolve

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    for name, target in scripts.items():
        assert layer_of(target.partition(":")[0]) in ("cli", "web"), name
        assert callable(resolve(target)), name


def test_the_distribution_installs_no_bare_top_level_package():
    """Only ``card_envs`` lands in site-packages: a generic name such as ``agents`` would clash
    with other distributions (``openai-agents`` installs a top-level ``agents``)."""
    from setuptools import find_packages

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = find_packages(str(ROOT), **config["packages"]["find"])
    assert {p.split(".")[0] for p in packages} == {"card_envs"}
    assert "package-dir" not in config and "py-modules" not in config
    assert not (ROOT / "agents").exists()


def test_every_built_in_game_has_a_real_pettingzoo_module():
    for spec in game_specs().values():
        if spec.engine_class().__module__.startswith("card_envs.games."):
            path = ROOT / "card_envs" / f"{spec.aec_name}.py"
            assert path.exists(), path
            assert "Version history" in path.read_text()


#: what importing an engine never loads. Not numba: the Chip It engine prices hands with the
#: compiled chip arithmetic it shares with its kernels and agents (card_envs/games/chipit/arith.py
#: says why)
PURE = ["gymnasium", "pettingzoo", "card_envs.agents", "torch", "stable_baselines3"]


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
        "from card_envs import tock_v1\n"
        "import card_envs.chipit_v0 as chipit\n"
        "assert card_envs.uno_v0.raw_env.metadata['name'] == 'uno_v0'  # an attribute, not imported first\n"
        "print(tock_v1.env.__name__, chipit.raw_env.metadata['name'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["env", "chipit_v0"]


@pytest.mark.slow
def test_a_game_name_is_looked_up_once_per_trip(monkeypatch):
    """An entry point turns "uno" into the game's spec once and hands the spec down: a
    training run and a tournament each look the name up in the registry once."""
    from card_envs.core import registry
    from card_envs.evaluation.tournament import tournament
    from card_envs.training.run import train
    from card_envs.training.settings import TrainSettings

    real = registry.game_specs
    calls: list[int] = []

    def counting() -> dict:
        calls.append(1)
        return real()

    monkeypatch.setattr(registry, "game_specs", counting)
    tournament("uno", ["rule", "random", "rule"], games=3, workers=1)
    assert len(calls) == 1
    calls.clear()
    tiny = {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16]}
    settings = TrainSettings.from_options(
        game="tock", num_players=3, timesteps=64, envs=1, ppo=tiny, teacher="", eval_every=64, eval_games=2
    )
    train(settings, None, progress=False)
    assert len(calls) == 1


#: the files that split a text at ":" for something other than a policy spec
NOT_SPECS = {
    "card_envs/agents/policy_spec.py": "the spec parser itself",
    "card_envs/web/security.py": "a Host header's name and port",
    "card_envs/core/spec.py": "an entry point's 'module:name'",
}


def test_a_policy_spec_is_split_only_by_its_parser():
    """Specs are parsed once, by PolicySpec.parse; a ``partition(":")`` elsewhere is a second
    parser of the spec's text."""
    splitting = {
        str(path.relative_to(ROOT))
        for path in project_modules().values()
        if 'partition(":")' in path.read_text().replace('rpartition(":")', "")
    }
    assert splitting == set(NOT_SPECS)


def public_signatures(owner: object, names: list[str] | None = None) -> dict[str, list[str]]:
    """Each public function (or method) of ``owner`` by name, with its parameters' names."""
    import inspect

    found = {}
    for name, value in vars(owner).items():
        if name.startswith("_") or not inspect.isfunction(value):
            continue
        if names is None or name in names:
            found[name] = list(inspect.signature(value).parameters)
    return found


#: what every game's state module offers, with its parameters: the engine's typed state,
#: written to and read from ``state_dict()``'s data
STATE_MODULE = {"to_dict": ["table"], "from_dict": ["state", "num_players"]}


BUILT_IN = [
    spec for spec in game_specs().values() if spec.engine_class().__module__.startswith("card_envs.games.")
]


@pytest.mark.parametrize("spec", BUILT_IN, ids=lambda spec: spec.name)
def test_every_game_has_one_shape_of_state_module(spec):
    """The state module of each game (``card_envs.games.G.state``) has a ``Table`` (built
    empty for a table size) and the same codec: ``to_dict(table)``, ``from_dict(state,
    num_players)`` (they differed: ``load(state, n)``, ``from_dict(n, state)``)."""
    import importlib

    module = importlib.import_module(f"{spec.engine_class().__module__.rsplit('.', 1)[0]}.state")
    assert public_signatures(module, list(STATE_MODULE)) == STATE_MODULE
    assert callable(module.Table.empty)
    assert {"num_players", "current_player"} <= set(dir(module.Table))


def test_every_games_kernels_have_one_shape():
    """The compiled rules of every game offer the same methods with the same parameters (the
    batch front calls them by these names; a game's ``write_state`` beside the others'
    ``write_table`` was a second name for one thing)."""
    from card_envs.core.spec import resolve

    shapes = {spec.name: public_signatures(resolve(spec.batched)) for spec in BUILT_IN if spec.batched}
    assert len(shapes) == 3
    first = next(iter(shapes.values()))
    assert {"state_dict", "load", "load_engine", "read", "write_table"} <= set(first)
    for name, shape in shapes.items():
        assert shape == first, name


#: where a game and its player count may still come apart: the entry points a user or a
#: command line calls with names (each makes a Table at once), and the shipped agents' files
TABLE_ENTRY_POINTS = {
    "core/table.py": {"of"},
    "agents/specs.py": {"make_policy", "check_spec"},
    "agents/envs.py": {"make_env", "make_batched_env", "table_and_env_keywords"},
    "agents/pretrained/__init__.py": {"file_stem", "load_pretrained"},
    "envs/single.py": {"__init__"},
    "envs/vector.py": {"__init__"},
    "batched/game.py": {"__init__"},
    "evaluation/against.py": {"evaluate"},
    "evaluation/gauntlet.py": {"gauntlet"},
    "training/settings.py": {"table_of"},
    "web/catalog.py": {"new_table"},
    "integrations/tianshou.py": {"make_env", "make_vector_env"},
    "integrations/torchrl.py": {"make_env"},
    "integrations/openspiel.py": {"openspiel_game"},
    "integrations/rllib.py": {"ppo_config"},
}


def takes_a_table_apart(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    names = {a.arg for a in function.args.args + function.args.kwonlyargs}
    return bool(names & {"game", "game_name"}) and bool(names & {"num_players", "players"})


def test_a_table_is_passed_whole_below_the_entry_points():
    """Issue 47: a function takes a Table, not a game and its player count apart (but the
    entry points, which make one)."""
    apart = []
    for path in (ROOT / "card_envs").rglob("*.py"):
        relative = path.relative_to(ROOT / "card_envs").as_posix()
        if relative.startswith("games/"):  # the engines know no Table: they are what it builds
            continue
        entry_points = TABLE_ENTRY_POINTS.get(relative, set())
        functions = [
            node
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        apart += [
            f"{relative}:{f.lineno} {f.name}"
            for f in functions
            if takes_a_table_apart(f) and f.name not in entry_points
        ]
    assert apart == []
