"""How fast the batched env steps when networks play, as in a PPO rollout on the batched engine.

    python bench/network_play.py                  # every game (about 2 minutes)
    python bench/network_play.py --game chipit --seconds 10
    python bench/network_play.py --busy 2         # with two busy processes on the cores

Per game, 4 players, 32 games (``train.py --vectorized``'s default), learner steps per
second with the learner's network choosing each action (one forward pass for the batch):

* ``rule, numba N``: against three rule-based players, with numba's threads at its default
  (N, the cores) and at 1 (what training sets, ``card_envs.training.run.use_threads``). Chip It
  and UNO step their games with numba ``prange``; its idle OpenMP workers spin after each
  step and slow the torch calls that follow.
* ``self x3, looped`` / ``batched``: three self-play seats, each drawing one of 8 snapshots
  per game, played row by row (``LoopedPolicy``: one forward pass per game and decision)
  or batched (``card_envs.agents.model.BatchedNetworks``: one per snapshot in play), numba at 1. The
  snapshots are copies of one network, so both play the same games.

``--busy K`` starts K processes that only spin for the whole measurement: the cores are
shared, as when two training runs or a run and its tests share 2 cores.

The networks are untrained MaskablePPO policies with the training runs' layout (scaled
inputs, two layers of 256): their speed does not depend on their weights.
"""

from __future__ import annotations

import argparse
import copy
import multiprocessing
import time
from collections.abc import Callable
from typing import Any

import numba
import torch
from sb3_contrib import MaskablePPO

from card_envs.agents import make_policy
from card_envs.agents.model import SelfPlayPool, batch_probabilities
from card_envs.agents.networks import ScaledObservation
from card_envs.batched.game import batched_games
from card_envs.batched.policy import LoopedPolicy
from card_envs.envs.single import CardGameEnv
from card_envs.envs.vector import BatchedCardGameEnv

PLAYERS, GAMES, SNAPSHOTS = 4, 32, 8


def network(game: str, seed: int) -> Any:
    layout = {"net_arch": [256, 256], "features_extractor_class": ScaledObservation}
    model = MaskablePPO(
        "MlpPolicy", CardGameEnv(game, PLAYERS), seed=seed, device="cpu", policy_kwargs=layout
    )
    return model.policy


def learner_rate(env: BatchedCardGameEnv, learner: Any, seconds: float) -> float:
    """Learner steps per second: the network picks each game's most probable legal action."""
    observations, _ = env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = env.action_masks()
        actions = batch_probabilities(learner, observations, masks).argmax(axis=1)
        observations = env.step(actions)[0]
        steps += env.num_envs
    return steps / (time.perf_counter() - start)


def self_play_seats(game: str, batched: bool) -> list[Any]:
    """Three pools of 8 snapshots each: copies of one network, so that both ways of playing
    them play the same games (the snapshot drawn changes nothing but the forward passes)."""
    seats = []
    for seat in range(PLAYERS - 1):
        pool = SelfPlayPool(size=SNAPSHOTS)
        weights = network(game, seat)
        for _ in range(SNAPSHOTS):
            pool.add_snapshot(copy.deepcopy(weights))
        seats.append(pool if batched else LoopedPolicy(pool))
    return seats


def measure(game: str, seconds: float) -> dict[str, float]:
    learner = network(game, 99)
    default_threads = numba.config.NUMBA_NUM_THREADS
    rule = [make_policy("rule", game, PLAYERS) for _ in range(PLAYERS - 1)]
    runs: dict[str, tuple[int, Callable[[], list[Any]]]] = {
        f"rule, numba {default_threads}": (default_threads, lambda: rule),
        "rule, numba 1": (1, lambda: rule),
        "self x3, looped": (1, lambda: self_play_seats(game, batched=False)),
        "self x3, batched": (1, lambda: self_play_seats(game, batched=True)),
    }
    rates = {}
    for name, (threads, opponents) in runs.items():
        numba.set_num_threads(threads)
        env = BatchedCardGameEnv(game, GAMES, PLAYERS, opponents=opponents())
        learner_rate(env, learner, 1.0)  # compiles and warms up
        rates[name] = learner_rate(env, learner, seconds)
    numba.set_num_threads(default_threads)
    return rates


def spin() -> None:
    while True:
        pass


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", action="append", choices=batched_games(), help="default: all")
    parser.add_argument("--seconds", type=float, default=5.0, help="wall time per figure")
    parser.add_argument("--busy", type=int, default=0, help="busy processes sharing the cores")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    busy = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for process in busy:
        process.start()
    try:
        table = {game: measure(game, args.seconds) for game in args.game or batched_games()}
    finally:
        for process in busy:
            process.terminate()
    names = list(next(iter(table.values())))
    print("| game | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for game, rates in table.items():
        print(f"| {game} | " + " | ".join(f"{rates[n]:,.0f}" for n in names) + " |")


if __name__ == "__main__":
    main()
