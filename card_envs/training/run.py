"""Fit sb3-contrib MaskablePPO agents on the single-agent envs (``train.py`` is a shell over this).

A run writes one directory::

    runs/uno/                 the --out directory
      settings.json           game, table, rules, opponents, PPO settings, sizes, versions, seed
      model.zip               the final model (evaluate.py --model runs/uno)
      checkpoints/            model_<steps>_steps.zip every checkpoint_every steps
      evaluations.csv         periodic evaluations against the scripted opponents
      tb/                     TensorBoard logs (when tensorboard is installed)
"""

from __future__ import annotations

import copy
import json
import os
import platform
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import gymnasium
import numba
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from card_envs.agents.envs import make_batched_env, make_env
from card_envs.agents.model import MODEL_FILE, SETTINGS_FILE, ModelPolicy, model_path
from card_envs.agents.networks import ScaledObservation
from card_envs.agents.specs import make_policy
from card_envs.batched.game import batched_games
from card_envs.core.registry import game_class
from card_envs.training.callbacks import EvaluationLog, ProgressLines, SelfPlaySnapshots, TimeLimit
from card_envs.training.imitation import collect, imitate
from card_envs.training.sb3_vec import BatchedVecEnv

#: PPO settings of every run unless the settings override them
DEFAULT_PPO: dict[str, Any] = {
    "n_steps": 1024,
    "batch_size": 256,
    "n_epochs": 5,
    "learning_rate": 3e-4,
    "gamma": 0.995,
    "ent_coef": 0.01,
    "net_arch": [256, 256],
}
#: changes to DEFAULT_PPO when the network starts from a teacher: smaller steps and less entropy
#: bonus, so PPO refines the imitated play instead of first flattening it (Chip It: with the
#: defaults -0.67 -> -0.48 after 100k steps, with these -0.11 -> -0.02; docs/learning.md)
FINE_TUNING_PPO: dict[str, Any] = {"learning_rate": 1e-4, "ent_coef": 0.001}
#: per-game changes to DEFAULT_PPO, the default reward shaping and the teacher imitated before PPO
#: (card_envs.training.imitation); the measurements behind them are in docs/learning.md. The teachers are
#: rule-based players without lapses: they never forget a call, never cheat, and knock or catch
#: whenever they may.
GAME_DEFAULTS: dict[str, dict[str, Any]] = {
    "tock": {"reward_shaping": 1.0, "teacher": "rule:vigilance=1.0:false_knock_rate=0.0:cheat_rate=0.0"},
    # Chip It's plays are arithmetic over 30 card types: 100k decisions and 8 passes imitate 89%
    # of the teacher's choices (greedy play -0.67), 200k and 20 passes 95.9% (-0.11)
    "chipit": {"reward_shaping": 1.0, "teacher": "rule", "imitation_steps": 200_000, "imitation_epochs": 20},
    "uno": {"teacher": "rule:forget_call=0.0:catch_rate=1.0"},
}
#: the settings a TrainSettings field left at None takes when its game sets no default
GENERAL_DEFAULTS: dict[str, Any] = {
    "reward_shaping": 0.0,
    "mask_in_observation": False,
    "teacher": "",
    "imitation_steps": 100_000,
    "imitation_epochs": 8,
    "imitation_smoothing": 0.0,
}
PACKAGES = ("card-envs", "gymnasium", "pettingzoo", "numpy", "torch", "stable-baselines3", "sb3-contrib")


@dataclass
class TrainSettings:
    """Everything that defines a training run (saved as settings.json in the run directory)."""

    game: str = "uno"
    num_players: int = 4
    rules: dict[str, Any] = field(default_factory=dict)
    #: one spec for every other seat, or one per seat: "rule", "rule:KNOB=V", "random",
    #: "model:PATH", "self" (a pool of the learner's own snapshots)
    opponents: list[str] = field(default_factory=lambda: ["rule"])
    timesteps: int = 150_000
    envs: int = 2
    seed: int = 0
    #: settings left at None take the game's default (GAME_DEFAULTS), else GENERAL_DEFAULTS
    reward_shaping: float | None = None
    mask_in_observation: bool | None = None
    ppo: dict[str, Any] = field(default_factory=dict)  # changes to DEFAULT_PPO
    eval_every: int = 50_000
    eval_games: int = 100
    checkpoint_every: int = 50_000
    snapshot_every: int = 20_000
    threads: int = 1
    #: a policy spec the network imitates before PPO starts (card_envs.training.imitation); "" for none
    teacher: str | None = None
    imitation_steps: int | None = None  # teacher decisions to imitate
    imitation_epochs: int | None = None  # passes over them
    #: the share of the imitation target spread over the legal actions (card_envs.training.imitation.imitate)
    imitation_smoothing: float | None = None
    #: divide each observation entry by its declared bound inside the network (card_envs.agents.networks)
    scale_observations: bool = True
    #: stop after this many minutes of wall time (imitation included), even before ``timesteps``
    max_minutes: float | None = None
    #: step the ``envs`` games together on the game's batched engine in this process
    #: (card_envs.batched.game), instead of one env per worker process
    vectorized: bool = False
    #: a trained run (directory or .zip) whose network this run continues from, instead of
    #: imitating a teacher: a curriculum, e.g. rule-based opponents first, then self-play
    init_from: str = ""

    def check(self) -> None:
        """Raise ValueError with one sentence for the first nonsense setting, before any work."""
        for name in (
            "timesteps",
            "envs",
            "eval_every",
            "eval_games",
            "checkpoint_every",
            "snapshot_every",
            "imitation_steps",
            "imitation_epochs",
        ):
            value = self.resolved(name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
        if self.max_minutes is not None and not self.max_minutes > 0:
            raise ValueError(f"max_minutes must be > 0, got {self.max_minutes}")
        smoothing = self.resolved("imitation_smoothing")
        if not 0 <= smoothing < 1:
            raise ValueError(f"imitation_smoothing must be in [0, 1), got {smoothing}")
        if self.threads < 1:
            raise ValueError(f"threads must be >= 1, got {self.threads}")
        if not 0 <= self.shaping() <= 100:
            raise ValueError(f"reward_shaping must be in 0..100, got {self.shaping()}")
        unknown = sorted(set(self.ppo) - set(DEFAULT_PPO))
        if unknown:
            raise ValueError(f"unknown PPO setting(s) {unknown}; known: {sorted(DEFAULT_PPO)}")
        engine = game_class(self.game).from_rules(self.num_players, **self.rules)
        n_other = engine.num_players - 1
        if len(self.opponents) not in (1, n_other):
            raise ValueError(
                f"opponents needs 1 spec or {n_other} (one per other seat), got {self.opponents}"
            )
        make_env(**self.env_kwargs(), opponents=[s if s != "self" else "random" for s in self.seats()])
        if self.imitated():
            make_policy(self.imitated(), self.game, engine.num_players)
        if self.init_from:
            ModelPolicy(self.init_from).check_table(engine)
        if self.vectorized and self.game not in batched_games():
            raise ValueError(
                f"vectorized training needs a batched engine; {self.game!r} has none"
                f" (games with one: {batched_games()})"
            )

    def resolved(self, name: str) -> Any:
        """A setting as the run uses it: the value given, else the game's default, else the general one."""
        value = getattr(self, name)
        if value is not None:
            return value
        return GAME_DEFAULTS.get(self.game, {}).get(name, GENERAL_DEFAULTS.get(name))

    def imitated(self) -> str:
        """The teacher's spec, or "" for no imitation (a run that continues another imitates nothing)."""
        return "" if self.init_from else str(self.resolved("teacher"))

    def starts_trained(self) -> bool:
        """Whether PPO starts from a trained network (imitated, or continued from a run)."""
        return bool(self.imitated() or self.init_from)

    def seats(self) -> list[str]:
        """One opponent spec per other seat."""
        return self.opponents * (self.num_players - 1) if len(self.opponents) == 1 else list(self.opponents)

    def shaping(self) -> float:
        return float(self.resolved("reward_shaping"))

    def mask_observed(self) -> bool:
        return bool(self.resolved("mask_in_observation"))

    def ppo_settings(self) -> dict[str, Any]:
        game = {k: v for k, v in GAME_DEFAULTS.get(self.game, {}).items() if k in DEFAULT_PPO}
        fine_tuning = FINE_TUNING_PPO if self.starts_trained() else {}
        return {**DEFAULT_PPO, **fine_tuning, **game, **self.ppo}

    def env_kwargs(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "num_players": self.num_players,
            "reward_shaping": self.shaping(),
            "mask_in_observation": self.mask_observed(),
            **self.rules,
        }

    def as_json(self) -> dict[str, Any]:
        engine = game_class(self.game).from_rules(self.num_players, **self.rules)
        return {
            **asdict(self),
            **{name: self.resolved(name) for name in GENERAL_DEFAULTS},
            "ppo": self.ppo_settings(),
            "observation_size": engine.observation_size,
            "num_actions": engine.num_actions,
            "versions": {**_versions(), "python": platform.python_version()},
        }


def _versions() -> dict[str, str]:
    versions = {}
    for package in PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


def use_threads(threads: int) -> None:
    """This process's torch and numba threads (``--threads``, one by default).

    Two torch threads per process slowed PPO 5-15x on 2 cores. Numba's idle OpenMP workers
    (Chip It's and UNO's batched engines step their games in parallel) keep spinning after each env
    step; with other runs on the cores they slowed the network calls that follow 4-6x
    (docs/performance.md).
    """
    torch.set_num_threads(threads)
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]


def _env_factory(seed: int, env_kwargs: dict[str, Any], threads: int) -> Callable[[], gymnasium.Env]:
    def make() -> gymnasium.Env:
        use_threads(threads)
        env = make_env(**env_kwargs)
        env.reset(seed=seed)
        return Monitor(env, info_keywords=("rank", "rank_reward"))

    return make


def make_vec_env(
    env_kwargs: dict[str, Any], n_envs: int = 2, seed: int = 0, threads: int = 1, vectorized: bool = False
) -> VecEnv:
    """``n_envs`` copies of the single-agent env, in subprocesses when more than one; or,
    ``vectorized``, ``n_envs`` games of the batched engine in this process.

    ``action_masks()`` is a method of the env class, so MaskablePPO finds it
    through ``SubprocVecEnv`` (sb3-contrib's ActionMasker wrapper would not survive).
    """
    if n_envs < 1:
        raise ValueError(f"n_envs must be >= 1, got {n_envs}")
    if vectorized:
        vec_env = BatchedVecEnv(make_batched_env(num_envs=n_envs, **env_kwargs))
        vec_env.seed(seed)
        return vec_env
    make_env(**env_kwargs)  # fail fast, in this process, on bad arguments
    factories = [_env_factory(seed + i, env_kwargs, threads) for i in range(n_envs)]
    return SubprocVecEnv(factories) if n_envs > 1 else DummyVecEnv(factories)


def prepare_run_dir(out: str | Path, force: bool) -> Path:
    """The run directory, refused if it holds a model already, unless ``force``."""
    out = Path(out)
    if (out / MODEL_FILE).exists() or (out / SETTINGS_FILE).exists():
        if not force:
            raise FileExistsError(f"{out} already holds a run; pass force=True (--force) to replace it")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    return out


def train(
    settings: TrainSettings,
    out: str | Path | None = None,
    *,
    force: bool = False,
    progress: bool | None = None,
) -> MaskablePPO:
    """Train MaskablePPO in a random seat against ``settings.opponents``; write the run to ``out``.

    ``progress``: a progress bar (True), log lines (False), or the bar only
    when standard output is a terminal (None). Without ``out`` nothing is saved.
    """
    settings.check()
    start = time.perf_counter()
    use_threads(settings.threads)
    run_dir = prepare_run_dir(out, force) if out is not None else None
    if run_dir is not None:
        (run_dir / SETTINGS_FILE).write_text(json.dumps(settings.as_json(), indent=2) + "\n")
    ppo = settings.ppo_settings()
    policy_kwargs: dict[str, Any] = {"net_arch": ppo.pop("net_arch")}
    if settings.scale_observations:
        policy_kwargs["features_extractor_class"] = ScaledObservation
    env_kwargs = {**settings.env_kwargs(), "opponents": settings.seats()}
    vec_env = make_vec_env(env_kwargs, settings.envs, settings.seed, settings.threads, settings.vectorized)
    tensorboard = None
    if run_dir is not None and _has_tensorboard():
        tensorboard = str(run_dir / "tb")
    try:
        model = MaskablePPO(
            "MlpPolicy",
            vec_env,
            seed=settings.seed,
            device="cpu",
            verbose=0,
            tensorboard_log=tensorboard,
            policy_kwargs=policy_kwargs,
            **ppo,
        )
        if settings.imitated():
            warm_start(model, settings, env_kwargs, run_dir)
        if settings.init_from:
            continue_from(model, settings.init_from)
        bar = sys.stdout.isatty() if progress is None else progress
        callbacks: list[BaseCallback] = [ProgressLines(settings.timesteps, quiet=bar)]
        if settings.max_minutes is not None:
            callbacks.append(TimeLimit(start + 60 * settings.max_minutes))
        if "self" in settings.seats():
            callbacks.append(SelfPlaySnapshots(settings.snapshot_every, copy.deepcopy))
        if run_dir is not None:
            every = max(1, settings.checkpoint_every // settings.envs)
            callbacks.append(CheckpointCallback(every, str(run_dir / "checkpoints"), name_prefix="model"))
            callbacks.append(EvaluationLog(settings, run_dir / "evaluations.csv"))
        model.learn(total_timesteps=settings.timesteps, progress_bar=bar, callback=CallbackList(callbacks))
    finally:
        vec_env.close()
    if run_dir is not None:
        model.save(run_dir / MODEL_FILE)
    return model


def warm_start(
    model: MaskablePPO, settings: TrainSettings, env_kwargs: dict[str, Any], run_dir: Path | None
) -> None:
    """Fit the network to the teacher's play (card_envs.training.imitation) before PPO; self-play seats
    are played by the teacher too while its games are collected."""
    teacher = settings.imitated()
    seats = [teacher if spec == "self" else spec for spec in env_kwargs["opponents"]]
    steps, epochs = settings.resolved("imitation_steps"), settings.resolved("imitation_epochs")
    print(f"imitating {teacher}: {steps:,} decisions, {epochs} passes", flush=True)
    demos = collect(
        {**env_kwargs, "opponents": seats},
        teacher,
        steps,
        model.gamma,
        settings.seed,
        min(settings.envs, os.cpu_count() or 1),  # --vectorized may ask for dozens of games
    )
    threads = torch.get_num_threads()
    torch.set_num_threads(os.cpu_count() or 1)  # nothing else runs while the network imitates
    try:
        smoothing = settings.resolved("imitation_smoothing")
        result = imitate(model.policy, demos, epochs=epochs, seed=settings.seed, smoothing=smoothing)
    finally:
        torch.set_num_threads(threads)
    print(
        f"imitated {result.decisions:,} decisions of {result.teacher_games} games"
        f" (teacher's rank reward {result.teacher_rank_reward:+.3f}):"
        f" held-out accuracy {result.accuracy:.1%}",
        flush=True,
    )
    if run_dir is not None:
        (run_dir / "imitation.json").write_text(json.dumps(asdict(result), indent=2) + "\n")


def continue_from(model: MaskablePPO, source: str | Path) -> None:
    """Start ``model`` from the network of the run at ``source`` (same game and table,
    checked by TrainSettings.check; the network's layers must match too)."""
    trained = MaskablePPO.load(model_path(source), device="cpu")
    try:
        model.policy.load_state_dict(trained.policy.state_dict())
    except RuntimeError as error:
        first = str(error).splitlines()[1].strip() if "\n" in str(error) else str(error)
        raise ValueError(f"the network of {source} does not fit this run's network: {first}") from None
    print(f"continuing from {source}", flush=True)


def _has_tensorboard() -> bool:
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        return False
    return True
