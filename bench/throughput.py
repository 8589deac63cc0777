"""How fast every layer steps, from the raw engine to training, next to RLCard's UNO.

    python bench/throughput.py                      # everything (about 15 minutes on 2 cores)
    python bench/throughput.py --game uno --no-training --repeats 5

Random masked play, per game at 2, 4 and its largest player count, in steps per second
(every seat's actions), the median of ``--repeats`` runs of about ``--seconds`` each:

* ``engine``: the reference rules engine alone (``step`` and ``action_mask``);
* ``AEC``: the PettingZoo env through ``last()`` / ``step()``;
* ``single``: the single-agent env against three rule-based players (learner steps: the
  opponents' moves happen inside them);
* ``B=1`` .. ``B=4096``: the batched engine (:mod:`card_envs.batched.game`), masks and
  observations included.

Then, at 4 players, training steps per second of ``train.py`` (MaskablePPO from scratch
against rule-based players, no evaluation) as it runs by default, and ``--vectorized``
with the same PPO settings (2 games) and with the same rollout size spread over 16
games. In the same run: RLCard's UNO (2 players, its only table) through PettingZoo's
classic RLCard wrapper and through RLCard's own ``env.step`` loop (``pip install
-e ".[bench]"``), with the ratios. Memory: bytes per env instance (tracemalloc) and per
game of a batch. The table goes to standard output, everything to ``--out`` as JSON.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.batched import BatchedGame, batched_games, random_actions
from card_envs.core.registry import game_class, game_spec, game_specs

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(game_specs())  # every registered game; the batched columns for those with a batched engine
BATCH_SIZES = [1, 64, 1024, 4096]


def rate(run: Callable[[float], tuple[int, float]], seconds: float, repeats: int) -> float:
    """Median steps/s of ``repeats`` calls of ``run(seconds) -> (steps, elapsed)``."""
    return statistics.median(steps / elapsed for steps, elapsed in (run(seconds) for _ in range(repeats)))


def engine_run(game: str, n: int) -> Callable[[float], tuple[int, float]]:
    engine = game_class(game)(n)
    rng = np.random.default_rng(0)

    def run(seconds: float) -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            engine.reset(rng)
            for _ in range(engine.default_max_steps):
                if engine.is_over:
                    break
                legal = np.flatnonzero(engine.action_mask())
                engine.step(int(legal[rng.integers(legal.size)]))
                steps += 1
        return steps, time.perf_counter() - start

    return run


def aec_run(game: str, n: int) -> Callable[[float], tuple[int, float]]:
    env = importlib.import_module(f"card_envs.{game_spec(game).aec_name}").env(num_players=n)
    return aec_loop(env)


def aec_loop(env: Any) -> Callable[[float], tuple[int, float]]:
    """Random masked play through any PettingZoo AEC env."""
    rng = np.random.default_rng(0)

    env.reset(seed=0)  # seeded once: RLCard's wrapper rebuilds its env on every seeded reset

    def run(seconds: float) -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            env.reset()
            for _agent in env.agent_iter():
                observation, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    env.step(None)
                    continue
                legal = np.flatnonzero(observation["action_mask"])
                env.step(int(legal[rng.integers(legal.size)]))
                steps += 1
        return steps, time.perf_counter() - start

    return run


def single_run(game: str, n: int) -> Callable[[float], tuple[int, float]]:
    from card_envs.agents.envs import make_env

    env = make_env(game, n, opponents="rule")
    rng = np.random.default_rng(0)

    def run(seconds: float) -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        env.reset(seed=0)
        while time.perf_counter() - start < seconds:
            legal = np.flatnonzero(env.action_masks())
            _, _, terminated, truncated, _ = env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
            if terminated or truncated:
                env.reset()
        return steps, time.perf_counter() - start

    return run


def batched_run(game: str, n: int, batch_size: int) -> Callable[[float], tuple[int, float]]:
    batch = BatchedGame(game, batch_size, n)
    batch.reset(seed=0)
    rng = np.random.default_rng(0)
    batch.step(random_actions(batch.masks, rng))  # compiled before the clock starts

    def run(seconds: float) -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            batch.step(random_actions(batch.masks, rng))
            steps += batch_size
        return steps, time.perf_counter() - start

    return run


def rlcard_runs() -> dict[str, Callable[[float], tuple[int, float]]]:
    """RLCard's UNO through PettingZoo's classic RLCard wrapper, and through its own loop."""
    import rlcard
    from pettingzoo.classic.rlcard_envs.rlcard_base import RLCardBase

    wrapped = RLCardBase("uno", 2, (4, 4, 15))
    wrapped.render_mode = None  # set by PettingZoo's own subclasses, which UNO no longer has
    env = rlcard.make("uno", {"seed": 0})
    rng = np.random.default_rng(0)

    def own_loop(seconds: float) -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[rng.integers(len(legal))])
                steps += 1
        return steps, time.perf_counter() - start

    return {"pettingzoo": aec_loop(wrapped), "own": own_loop}


def memory_per_env(make: Callable[[], Any], count: int = 20) -> float:
    """Bytes each of ``count`` live env instances holds after a reset (tracemalloc)."""
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    envs = [make() for _ in range(count)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return used / count


def memory(game: str, n: int) -> dict[str, float]:
    from card_envs.agents.envs import make_env

    aec = importlib.import_module(f"card_envs.{game_spec(game).aec_name}")
    result = {
        "aec_bytes": memory_per_env(lambda: aec.env(num_players=n)),
        "single_bytes": memory_per_env(lambda: make_env(game, n, opponents="rule")),
    }
    if game in batched_games():
        batch = BatchedGame(game, 1024, n)
        arrays = batch.kernels.state
        state_bytes = sum(a.nbytes for a in arrays) + batch.observations.nbytes + batch.masks.nbytes
        result["batched_bytes_per_game"] = state_bytes / batch.batch_size
    return result


def training_rate(game: str, timesteps: int, **changes: Any) -> float:
    from card_envs.agents.envs import make_batched_env
    from card_envs.training.run import train
    from card_envs.training.settings import TrainSettings

    if changes.get("vectorized"):  # compile the batched engine and agents before the clock starts
        warm = make_batched_env(game, num_envs=2, num_players=4, opponents="rule")
        warm.reset(seed=0)
        warm.step(random_actions(warm.action_masks(), np.random.default_rng(0)))
    settings = TrainSettings.from_options(
        game=game,
        num_players=4,
        timesteps=timesteps,
        teacher="",
        eval_every=10**9,
        checkpoint_every=10**9,
        **changes,
    )
    start = time.perf_counter()
    model = train(settings, None, progress=False)
    return model.num_timesteps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", action="append", choices=GAMES, help="default: all")
    parser.add_argument("--seconds", type=float, default=1.0, help="wall time per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="measurements per figure (the median is kept)")
    parser.add_argument("--training-steps", type=int, default=20_000, help="PPO steps per training run")
    parser.add_argument("--no-training", action="store_true", help="skip the training runs")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "bench-throughput")
    args = parser.parse_args(argv)
    if "uno" in (args.game or GAMES) and importlib.util.find_spec("rlcard") is None:
        parser.error("UNO is measured beside RLCard's, which is not installed: pip install -e '.[bench]'")
    args.out.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"command": f"python bench/throughput.py {' '.join(sys.argv[1:])}".strip()}
    rows = []
    for game in args.game or GAMES:
        cls = game_spec(game).engine_class()
        for n in sorted({2, 4, cls.max_players}):
            row: dict[str, Any] = {"game": game, "players": n}
            row["engine"] = rate(engine_run(game, n), args.seconds, args.repeats)
            row["aec"] = rate(aec_run(game, n), args.seconds, args.repeats)
            row["single"] = rate(single_run(game, n), args.seconds, args.repeats)
            if game in batched_games():
                for b in BATCH_SIZES:
                    row[f"B={b}"] = rate(batched_run(game, n, b), args.seconds, args.repeats)
            row.update(memory(game, n))
            rows.append(row)
            print(json.dumps(row), flush=True)
    results["play"] = rows
    if not args.no_training:
        training = []
        for game in [g for g in args.game or GAMES if g in batched_games()]:
            steps = args.training_steps
            row = {
                "game": game,
                "default": training_rate(game, steps),
                "vectorized_2": training_rate(game, steps, vectorized=True),
                "vectorized_16": training_rate(game, steps, vectorized=True, envs=16, ppo={"n_steps": 128}),
            }
            training.append(row)
            print(json.dumps(row), flush=True)
        results["training"] = training
    if "uno" in (args.game or GAMES):
        runs = rlcard_runs()
        ours = next(r for r in rows if r["game"] == "uno" and r["players"] == 2)
        results["rlcard"] = {
            "pettingzoo_aec": rate(runs["pettingzoo"], args.seconds, args.repeats),
            "own_loop": rate(runs["own"], args.seconds, args.repeats),
            "ours_aec_2p": ours["aec"],
            "ours_batched_1024_2p": ours["B=1024"],
        }
    (args.out / "throughput.json").write_text(json.dumps(results, indent=2) + "\n")
    print(report(results))


def report(results: dict[str, Any]) -> str:
    """The Markdown tables of docs/performance.md."""
    lines = [
        f"`{results['command']}`",
        "",
        "| game | N | engine | AEC | single vs rule | " + " | ".join(f"B={b}" for b in BATCH_SIZES) + " |",
        "|---|---|" + "---|" * (3 + len(BATCH_SIZES)),
    ]
    for r in results["play"]:
        cells = [r["engine"], r["aec"], r["single"], *(r.get(f"B={b}") for b in BATCH_SIZES)]
        text = ["" if c is None else f"{c:,.0f}" for c in cells]
        lines.append(f"| {r['game']} | {r['players']} | " + " | ".join(text) + " |")
    lines += [
        "",
        "| game | N | AEC env bytes | single env bytes | batched bytes per game |",
        "|---|---|---|---|---|",
    ]
    for r in results["play"]:
        lines.append(
            f"| {r['game']} | {r['players']} | {r['aec_bytes']:,.0f} | {r['single_bytes']:,.0f}"
            f" | {r.get('batched_bytes_per_game', 0):,.0f} |"
        )
    if "training" in results:
        lines += [
            "",
            "| game | train.py (2 envs) | --vectorized (2 games) | ratio"
            " | --vectorized --envs 16 --n-steps 128 | ratio |",
            "|---|---|---|---|---|---|",
        ]
        for r in results["training"]:
            base = r["default"]
            lines.append(
                f"| {r['game']} | {base:,.0f} | {r['vectorized_2']:,.0f} | {r['vectorized_2'] / base:.1f}x"
                f" | {r['vectorized_16']:,.0f} | {r['vectorized_16'] / base:.1f}x |"
            )
    if "rlcard" in results:
        rl = results["rlcard"]
        lines += [
            "",
            "| UNO, 2 players | steps/s | ours / it |",
            "|---|---|---|",
            f"| RLCard through PettingZoo's RLCard wrapper | {rl['pettingzoo_aec']:,.0f}"
            f" | AEC {rl['ours_aec_2p'] / rl['pettingzoo_aec']:.2f}x,"
            f" batched {rl['ours_batched_1024_2p'] / rl['pettingzoo_aec']:.0f}x |",
            f"| RLCard's own env.step loop | {rl['own_loop']:,.0f}"
            f" | AEC {rl['ours_aec_2p'] / rl['own_loop']:.2f}x,"
            f" batched {rl['ours_batched_1024_2p'] / rl['own_loop']:.0f}x |",
        ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
