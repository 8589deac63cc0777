"""Fit sb3-contrib MaskablePPO agents on the single-agent envs (``train.py`` is a shell over this).

A run writes one directory::

    runs/uno/                 the --out directory
      settings.json           what the run used: table, opponents, learner, ppo, imitation,
                              improvement, run, versions
      imitation.json          how the imitation of a teacher went (a run with a teacher)
      improvement.json        how the fit to valued moves went (a run with improve_games)
      model.zip               the final model, written last: the run is finished once it exists
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
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
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
from card_envs.agents.model import model_path
from card_envs.agents.networks import ScaledObservation
from card_envs.agents.pretrained import is_pretrained_spec, load_pretrained
from card_envs.agents.runs import MODEL_FILE, RLLIB_CHECKPOINT_DIR, SETTINGS_FILE, is_finished
from card_envs.agents.specs import make_policy
from card_envs.core.checks import check_writable_dir
from card_envs.core.game import CardGame
from card_envs.records.people import people_games
from card_envs.training.callbacks import EvaluationLog, ProgressLines, SelfPlaySnapshots, TimeLimit
from card_envs.training.export import load_actor
from card_envs.training.imitation import ImitationResult, collect, imitate, record_demonstrations
from card_envs.training.improvement import FitResult, collect_valued, fit_soft_targets
from card_envs.training.league import LEAGUE
from card_envs.training.league_play import LeagueSnapshots, LeagueVecEnv, league_vec_env
from card_envs.training.sb3_vec import BatchedVecEnv
from card_envs.training.settings import TrainSettings

#: the periodic evaluations of a run (card_envs.training.callbacks.EvaluationLog)
EVALUATIONS_FILE = "evaluations.csv"
PACKAGES = ("card-envs", "gymnasium", "pettingzoo", "numpy", "torch", "stable-baselines3", "sb3-contrib")


def versions() -> dict[str, str]:
    """The versions of the packages a run depends on, and Python's (saved in settings.json)."""
    versions = {}
    for package in PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return {**versions, "python": platform.python_version()}


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


#: how the fit to soft targets went (:func:`improve`)
IMPROVEMENT_FILE = "improvement.json"


def prepare_run_dir(out: str | Path, force: bool) -> Path:
    """The run directory, created and checked writable. A finished run (its model saved) is
    refused unless ``force``; what an interrupted or failed run left there is replaced."""
    out = Path(out)
    if is_finished(out) and not force:
        raise FileExistsError(f"{out} already holds a trained model; pass force=True (--force) to replace it")
    check_writable_dir(out, "out")
    stale_files = (MODEL_FILE, SETTINGS_FILE, RLLIB_CHECKPOINT_DIR, "checkpoints", "tb", EVALUATIONS_FILE)
    per_round = ("imitation-round-*.json", "teacher-round-*.zip")  # expert iteration's (warm_start)
    rounds = [p.name for pattern in per_round for p in out.glob(pattern)]
    for name in (*stale_files, "imitation.json", IMPROVEMENT_FILE, *rounds):
        stale = out / name
        if stale.is_dir():
            shutil.rmtree(stale)
        elif stale.exists():
            stale.unlink()
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
    when standard output is a terminal (None). Without ``out`` nothing is saved. The run
    counts as finished only once ``model.zip`` is written, last.
    """
    settings.check()
    run = settings.run
    start = time.perf_counter()
    use_threads(run.threads)
    run_dir = prepare_run_dir(out, force) if out is not None else None
    if run_dir is not None:
        saved = {**settings.as_json(), **table_sizes(settings), "versions": versions()}
        (run_dir / SETTINGS_FILE).write_text(json.dumps(saved, indent=2) + "\n")
    ppo = settings.ppo_settings()
    policy_kwargs: dict[str, Any] = {"net_arch": ppo.pop("net_arch")}
    if settings.learner.scale_observations:
        policy_kwargs["features_extractor_class"] = ScaledObservation
    env_kwargs = {**settings.env_kwargs(), "opponents": settings.seats()}
    if settings.trains_in_league():
        vec_env: VecEnv = league_vec_env(settings)
    else:
        vec_env = make_vec_env(env_kwargs, run.envs, run.seed, run.threads, run.vectorized)
    tensorboard = None
    if run_dir is not None and _has_tensorboard():
        tensorboard = str(run_dir / "tb")
    try:
        model = MaskablePPO(
            "MlpPolicy",
            vec_env,
            seed=run.seed,
            device="cpu",
            verbose=0,
            tensorboard_log=tensorboard,
            policy_kwargs=policy_kwargs,
            **ppo,
        )
        if run.init_from:
            continue_from(model, run.init_from, settings.table.engine())
        if settings.imitation.records:
            imitate_people(model, settings, run_dir)
        elif settings.teacher():
            warm_start(model, settings, env_kwargs, run_dir)
        if settings.improvement.games:
            improve(model, settings, run_dir)
        bar = sys.stdout.isatty() if progress is None else progress
        callbacks: list[BaseCallback] = [ProgressLines(run.timesteps, quiet=bar)]
        if run.max_minutes is not None:
            callbacks.append(TimeLimit(start + 60 * run.max_minutes))
        if "self" in settings.seats():
            callbacks.append(SelfPlaySnapshots(run.snapshot_every, copy.deepcopy))
        if isinstance(vec_env, LeagueVecEnv):
            callbacks.append(LeagueSnapshots(run.snapshot_every, vec_env.league))
        if run_dir is not None:
            every = max(1, run.checkpoint_every // run.envs)
            callbacks.append(CheckpointCallback(every, str(run_dir / "checkpoints"), name_prefix="model"))
            callbacks.append(EvaluationLog(settings, run_dir / EVALUATIONS_FILE, started=start))
        model.learn(total_timesteps=run.timesteps, progress_bar=bar, callback=CallbackList(callbacks))
    finally:
        vec_env.close()
    if run_dir is not None and isinstance(vec_env, LeagueVecEnv):
        saved["league"] = vec_env.league.summary()  # the pool as it ended, weights and results
        (run_dir / SETTINGS_FILE).write_text(json.dumps(saved, indent=2) + "\n")
    if run_dir is not None:
        partial = run_dir / f"partial-{MODEL_FILE}"
        model.save(partial)
        partial.replace(run_dir / MODEL_FILE)  # the run is finished only once this file exists
    return model


def table_sizes(settings: TrainSettings) -> dict[str, int]:
    """The network's input and output sizes at the run's table (a model is checked against them)."""
    engine = settings.table.engine()
    return {"observation_size": engine.observation_size, "num_actions": engine.num_actions}


def warm_start(
    model: MaskablePPO, settings: TrainSettings, env_kwargs: dict[str, Any], run_dir: Path | None
) -> None:
    """Fit the network to the teacher's play (card_envs.training.imitation) before PPO; self-play seats
    (and league) are played by the teacher too while its games are collected. With more than one
    round (a search teacher: expert iteration), each later round's search plays with the network
    as it stands, saved as ``teacher-round-K.zip``, for its prior and rollouts, and the network
    imitates that stronger play in turn."""
    teacher = settings.teacher()
    rounds = settings.imitation.resolved(settings.table.spec).rounds
    with tempfile.TemporaryDirectory() as scratch:
        for round_ in range(1, rounds + 1):
            spec = teacher
            if round_ > 1:
                saved = (run_dir or Path(scratch)) / f"teacher-round-{round_ - 1}.zip"
                model.save(saved)
                spec = f"{teacher}:prior=net:rollout=net:net={saved}"
                print(f"expert iteration, round {round_} of {rounds}", flush=True)
            result = imitate_teacher(
                model, settings, env_kwargs, spec, seed=settings.run.seed + 10_000 * (round_ - 1)
            )
            if run_dir is not None:
                name = "imitation.json" if round_ == rounds else f"imitation-round-{round_}.json"
                (run_dir / name).write_text(json.dumps(asdict(result), indent=2) + "\n")


def imitate_people(model: MaskablePPO, settings: TrainSettings, run_dir: Path | None) -> ImitationResult:
    """Behaviour cloning from people's recorded games (``--imitate RECORDS``): the network fitted
    to their own decisions at the run's table before PPO; imitation.json says how it went."""
    imitation = settings.imitation.resolved(settings.table.spec)
    games = people_games(settings.imitation.records)
    demos = record_demonstrations(
        games, settings.table.engine(), bool(settings.learner_env().mask_in_observation), model.gamma
    )
    print(f"imitating people: {len(demos):,} decisions of {len(demos.rank_rewards)} person-seats", flush=True)
    result = imitate(
        model.policy,
        demos,
        epochs=imitation.epochs,
        learning_rate=imitation.learning_rate,
        seed=settings.run.seed,
        smoothing=imitation.smoothing,
    )
    print(
        f"imitated {result.decisions:,} decisions (the people's rank reward"
        f" {result.teacher_rank_reward:+.3f}): held-out accuracy {result.accuracy:.1%}",
        flush=True,
    )
    if run_dir is not None:
        (run_dir / "imitation.json").write_text(json.dumps(asdict(result), indent=2) + "\n")
    return result


def imitate_teacher(
    model: MaskablePPO, settings: TrainSettings, env_kwargs: dict[str, Any], teacher: str, seed: int
) -> ImitationResult:
    """One imitation: ``teacher``'s games collected in worker processes, the network fitted to them."""
    imitation = settings.imitation.resolved(settings.table.spec)
    seats = [teacher if spec in ("self", LEAGUE) else spec for spec in env_kwargs["opponents"]]
    steps, epochs = imitation.steps, imitation.epochs
    print(f"imitating {teacher}: {steps:,} decisions, {epochs} passes", flush=True)
    workers = min(settings.run.envs, os.cpu_count() or 1)  # --vectorized may ask for dozens of games
    searches = make_policy(teacher, settings.table).reads_game
    demos = collect(
        {**env_kwargs, "opponents": seats},
        teacher,
        steps,
        model.gamma,
        seed,
        workers,
        # a search teacher is slow: show its progress, in shares of at least 500 decisions (each
        # share builds its own search player, its compiled rollout engine included)
        parts=min(20 * workers, max(workers, steps // 500)) if searches else None,
        progress=lambda done, parts: (
            print(f"  teacher's games: {done}/{parts} parts", flush=True) if searches else None
        ),
    )
    threads = torch.get_num_threads()
    torch.set_num_threads(os.cpu_count() or 1)  # nothing else runs while the network imitates
    try:
        result = imitate(
            model.policy,
            demos,
            epochs=epochs,
            learning_rate=imitation.learning_rate,
            seed=seed,
            smoothing=imitation.smoothing,
        )
    finally:
        torch.set_num_threads(threads)
    print(
        f"imitated {result.decisions:,} decisions of {result.teacher_games} games"
        f" (teacher's rank reward {result.teacher_rank_reward:+.3f}):"
        f" held-out accuracy {result.accuracy:.1%}",
        flush=True,
    )
    return result


def improve(model: MaskablePPO, settings: TrainSettings, run_dir: Path | None) -> FitResult:
    """Search as a teacher by soft targets (card_envs.training.improvement): the network as it
    stands (saved for the worker processes) plays itself, its moves are valued in sampled
    worlds, and its policy is fitted to ``p exp(beta * advantage)``; improvement.json says how."""
    plan = settings.improvement
    workers = min(settings.run.envs, os.cpu_count() or 1)
    print(
        f"improving the network: {plan.games} games against itself, {plan.width} moves a decision"
        f" in {plan.worlds} sampled worlds, played out by {plan.rollout}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as scratch:
        saved = Path(scratch) / "network.zip"
        model.save(saved)
        valued = collect_valued(
            settings.table, f"greedy:{saved}", plan.games, plan.width,
            plan.worlds, plan.rollout, seed=settings.run.seed + 20_000, workers=workers,
        )  # fmt: skip
    policy: Any = model.policy  # a MaskableActorCriticPolicy
    with_mask = settings.learner_env().mask_in_observation

    def logits(observations: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        x = torch.cat([observations, masks.float()], dim=1) if with_mask else observations
        return policy.get_distribution(x, action_masks=masks.numpy()).distribution.logits

    threads = torch.get_num_threads()
    torch.set_num_threads(os.cpu_count() or 1)  # nothing else runs while the network is fitted
    policy.set_training_mode(True)
    try:
        result = fit_soft_targets(
            logits, policy.parameters(), valued, plan.beta, plan.epochs, plan.learning_rate, settings.run.seed
        )
    finally:
        policy.set_training_mode(False)
        torch.set_num_threads(threads)
    print(
        f"fitted {result.decisions:,} valued decisions of {result.games} games: on held-out games"
        f" {result.changed:.1%} of moves changed, gain {result.gain:+.4f} a decision"
        f" (+-{1.96 * result.gain_error:.4f})",
        flush=True,
    )
    if run_dir is not None:
        (run_dir / IMPROVEMENT_FILE).write_text(json.dumps(asdict(result), indent=2) + "\n")
    return result


def continue_from(model: MaskablePPO, source: str | Path, game: CardGame) -> None:
    """Start ``model`` from the network of the run at ``source`` (same game and table,
    checked by RunSettings.check; the network's layers must match too), or from the actor of
    the agent shipped for ``game``'s table where ``source`` is ``pretrained[:GAME]``."""
    if is_pretrained_spec(str(source)):
        load_actor(model, load_pretrained(game.name, game.num_players))
        print(f"continuing from the shipped agent's actor ({source}), with a new value network", flush=True)
        return
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
