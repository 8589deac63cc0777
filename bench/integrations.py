"""Each RL library's recipe on each game: training steps per second, and learning in a fixed budget.

    python bench/integrations.py                                  # every library, every game
    python bench/integrations.py --library rllib-0 --game tock --seconds 120 --games 400

Per library and game (4 players): the recipe of docs/integrations.md trains for --seconds of
wall time from random play (no teacher), against three rule-based players where the recipe
has a learner seat, in self-play where it has none (RLlib, TorchRL). Then its greedy policy
plays --games games against three rule-based players, seats rotated, as before training
(the untrained network) and after. Steps are what each library counts: learner decisions
for the single-agent recipes (sb3, Tianshou, CleanRL: the rule-based seats' moves happen
inside the env step), every seat's moves for the multi-agent ones. Each run is its own
process, so the libraries do not share state. The table and JSON go to --out.

Needs every extra: pip install -e ".[torchrl,tianshou,rllib]".
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

import torch

from card_envs.core.policy import Policy
from card_envs.evaluation.tournament import tournament

ROOT = Path(__file__).resolve().parent.parent
LIBRARIES = ["sb3", "rllib-0", "rllib-1", "rllib-2", "tianshou", "torchrl", "cleanrl"]
GAMES = ["chipit", "tock", "uno"]
PLAYERS = 4


def example(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def judged(policy: Policy, game: str, games: int, seed: int) -> dict[str, Any] | None:
    """The policy's result against rule-based players (None with 0 games: throughput only)."""
    if games == 0:
        return None
    agent = tournament(game, [policy, *["rule"] * (PLAYERS - 1)], games, seed=seed, workers=1).agents[0]
    return agent.as_json()


def run_sb3(game: str, seconds: float, games: int, seed: int) -> dict[str, Any]:
    from sb3_contrib import MaskablePPO

    from card_envs.agents.envs import make_env
    from card_envs.agents.model import ModelPolicy
    from card_envs.training.run import train
    from card_envs.training.settings import TrainSettings

    settings = TrainSettings.from_options(
        game=game,
        num_players=PLAYERS,
        timesteps=10**9,
        envs=4,
        teacher="",
        seed=seed,
        max_minutes=seconds / 60,
    )
    before = MaskablePPO("MlpPolicy", make_env(game, PLAYERS), seed=seed, device="cpu")  # untrained
    untrained = judged(ModelPolicy(before, deterministic=True), game, games, seed)
    start = time.perf_counter()
    model = train(settings, None, progress=False)
    elapsed = time.perf_counter() - start
    return {
        "steps": model.num_timesteps,
        "seconds": elapsed,
        "before": untrained,
        "after": judged(ModelPolicy(model, deterministic=True), game, games, seed),
    }


def run_rllib(game: str, seconds: float, games: int, seed: int, runners: int) -> dict[str, Any]:
    from card_envs.integrations.rllib import LEARNER, RLlibPolicy, ppo_config, start_ray, stop_ray

    start_ray(num_cpus=2)
    algo = ppo_config(game, PLAYERS, env_runners=runners, train_batch_size=4000, seed=seed).build_algo()
    try:
        untrained = judged(RLlibPolicy(algo.get_module(LEARNER)), game, games, seed)
        start, steps = time.perf_counter(), 0
        while time.perf_counter() - start < seconds:
            steps = int(algo.train()["env_runners"]["num_env_steps_sampled_lifetime"])
        elapsed = time.perf_counter() - start
        trained = judged(RLlibPolicy(algo.get_module(LEARNER)), game, games, seed)
    finally:
        algo.stop()
        stop_ray()
    return {"steps": steps, "seconds": elapsed, "before": untrained, "after": trained}


def run_tianshou(game: str, seconds: float, games: int, seed: int) -> dict[str, Any]:
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.trainer import OnPolicyTrainerParams

    from card_envs.integrations.tianshou import TianshouPolicy, make_env, make_ppo, make_vector_env

    torch.manual_seed(seed)
    envs = make_vector_env(game, PLAYERS, n_envs=4, seed=seed)
    ppo = make_ppo(make_env(game, PLAYERS))
    untrained = judged(TianshouPolicy(ppo.policy.actor), game, games, seed)
    collector = Collector(ppo, envs, VectorReplayBuffer(2048, 4))
    start, steps = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        params = OnPolicyTrainerParams(
            training_collector=collector,
            max_epochs=1,
            epoch_num_steps=2048,
            collection_step_num_env_steps=2048,
            batch_size=256,
            update_step_num_repetitions=4,
            show_progress=False,
            verbose=False,
        )
        steps += ppo.run_training(params).train_step
    elapsed = time.perf_counter() - start
    trained = judged(TianshouPolicy(ppo.policy.actor), game, games, seed)
    return {"steps": steps, "seconds": elapsed, "before": untrained, "after": trained}


def run_torchrl(game: str, seconds: float, games: int, seed: int) -> dict[str, Any]:
    from card_envs.integrations.torchrl import TorchRLPolicy, make_actor_critic, make_env

    recipe = example("torchrl_ppo")
    torch.manual_seed(seed)
    before, _ = make_actor_critic(make_env(game, PLAYERS, seed=seed))
    untrained = judged(TorchRLPolicy(before), game, games, seed)
    actor, stats = recipe.train(game, PLAYERS, 10**6, 4096, seed, max_seconds=seconds)
    trained = judged(TorchRLPolicy(actor), game, games, seed)
    return {"steps": stats["steps"], "seconds": stats["seconds"], "before": untrained, "after": trained}


def run_cleanrl(game: str, seconds: float, games: int, seed: int) -> dict[str, Any]:
    recipe = example("cleanrl_ppo")
    args = recipe.parse_args(["--game", game, "--total-timesteps", str(10**9), "--max-seconds", str(seconds)])
    args.seed = seed
    envs = recipe.make_envs(args)
    before = recipe.Agent(envs.single_observation_space, int(envs.single_action_space.n))
    envs.close()
    untrained = judged(recipe.GreedyAgent(before), game, games, seed)
    agent, stats = recipe.train(args)
    trained = judged(recipe.GreedyAgent(agent), game, games, seed)
    return {"steps": stats["steps"], "seconds": stats["seconds"], "before": untrained, "after": trained}


def run(library: str, game: str, seconds: float, games: int, seed: int) -> dict[str, Any]:
    torch.set_num_threads(1)
    if library.startswith("rllib-"):
        return run_rllib(game, seconds, games, seed, int(library.removeprefix("rllib-")))
    runner = {"sb3": run_sb3, "tianshou": run_tianshou, "torchrl": run_torchrl, "cleanrl": run_cleanrl}
    return runner[library](game, seconds, games, seed)


def in_process(queue: Any, *call: Any) -> None:
    try:
        queue.put(run(*call))
    except Exception as error:  # reported in the table, the next library still runs
        queue.put({"error": f"{type(error).__name__}: {error}"})


def interval(agent: dict[str, Any] | None) -> str:
    if agent is None:
        return "not evaluated"
    estimate = agent["mean_reward"]
    return f"{estimate['value']:+.3f} ({estimate['low']:+.3f}..{estimate['high']:+.3f})"


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| library | game | steps | seconds | steps/s | vs 3 rule-based, before | after |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['library']} | {r['game']} | failed: {r['error']} | | | | |")
            continue
        rate = r["steps"] / r["seconds"]
        lines.append(
            f"| {r['library']} | {r['game']} | {r['steps']:,} | {r['seconds']:.0f} | {rate:,.0f}"
            f" | {interval(r['before'])} | {interval(r['after'])} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--library", action="append", choices=LIBRARIES, help="default: all")
    parser.add_argument("--game", action="append", choices=GAMES, help="default: all")
    parser.add_argument("--seconds", type=float, default=120.0, help="training wall time per run")
    parser.add_argument(
        "--games", type=int, default=200, help="evaluation games before and after (0: throughput only)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "bench-integrations")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    context = multiprocessing.get_context("spawn")
    for game in args.game or GAMES:
        for library in args.library or LIBRARIES:
            print(f"== {library} on {game} ({args.seconds:g} s)", flush=True)
            queue = context.Queue()
            call = (queue, library, game, args.seconds, args.games, args.seed)
            worker = context.Process(target=in_process, args=call)
            worker.start()
            result = queue.get()
            worker.join()
            rows.append({"library": library, "game": game, **result})
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    (args.out / "integrations.json").write_text(json.dumps(rows, indent=2) + "\n")
    text = table(rows)
    command = f"python bench/integrations.py {' '.join(sys.argv[1:])}".strip()
    (args.out / "integrations.md").write_text(f"`{command}`\n\n{text}\n")
    print(text)


if __name__ == "__main__":
    main()
