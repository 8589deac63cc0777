"""Masked multi-agent PPO with RLlib on any card_envs game, Ray kept on 127.0.0.1.

    pip install -e ".[rllib]"
    python examples/rllib_ppo.py --game tock --iterations 10                  # self-play
    python examples/rllib_ppo.py --game uno --opponents rule --env-runners 2  # vs rule-based

Self-play (the default) trains one policy that plays every seat; ``--opponents`` seats a
learner against scripted policies played inside the env. Each iteration samples a batch
of ``--batch`` env steps and runs PPO on it. At the end the greedy policy plays
``--eval-games`` games against rule-based players (seats rotated). ``train.py --backend
rllib`` does the same with a run directory that ``evaluate.py`` reads.
"""

from __future__ import annotations

import argparse
import time

import torch

from card_envs.evaluation.tournament import tournament
from card_envs.integrations.rllib import LEARNER, RLlibPolicy, ppo_config, start_ray, stop_ray


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="uno", help="uno, tock or chipit")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--opponents", default=None, help="a spec for every other seat (default: self-play)")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--batch", type=int, default=4000, help="env steps per iteration")
    parser.add_argument("--env-runners", type=int, default=0)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # more threads slow PPO on small machines
    start_ray()  # every listener on 127.0.0.1
    try:
        config = ppo_config(
            args.game,
            args.players,
            opponents=args.opponents,
            env_runners=args.env_runners,
            train_batch_size=args.batch,
            minibatch_size=min(256, args.batch),
            seed=args.seed,
        )
        algo = config.build_algo()
        start = time.perf_counter()
        for i in range(args.iterations):
            steps = algo.train()["env_runners"]["num_env_steps_sampled_lifetime"]
            rate = steps / (time.perf_counter() - start)
            print(f"iteration {i + 1}: {steps:,.0f} env steps, {rate:,.0f} steps/s", flush=True)
        lineup = [RLlibPolicy(algo.get_module(LEARNER)), *["rule"] * (args.players - 1)]
        algo.stop()
        print(tournament(args.game, lineup, args.eval_games, seed=args.seed, workers=1).table())
    finally:
        stop_ray()


if __name__ == "__main__":
    main()
