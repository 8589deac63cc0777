"""Masked PPO with Tianshou on any card_envs game: one learner seat, opponents inside the env.

    pip install -e ".[tianshou]"
    python examples/tianshou_ppo.py --game tock --epochs 10
    python examples/tianshou_ppo.py --game uno --players 2 --opponents random

Each epoch collects ``--steps`` learner decisions from ``--envs`` envs, in batches of
``--collect`` steps, each followed by PPO updates. The learner's seat is drawn each game, so
every seat is learned; its reward is its own rank reward (a loss included). At the end the
greedy policy plays ``--eval-games`` games against rule-based players (seats rotated).
"""

from __future__ import annotations

import argparse
import time

import torch
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.trainer import OnPolicyTrainerParams

from card_envs.evaluation.tournament import tournament
from card_envs.integrations.tianshou import TianshouPolicy, make_env, make_ppo, make_vector_env


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="uno", help="uno, tock or chipit")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--opponents", default="rule", help="a spec for every other seat: rule, random, ...")
    parser.add_argument("--shaping", type=float, default=0.0, help="weight of the dense progress reward")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20_000, help="learner decisions per epoch")
    parser.add_argument("--collect", type=int, default=2048, help="steps collected between updates")
    parser.add_argument("--envs", type=int, default=4)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # more threads slow PPO on small machines
    table = {"opponents": args.opponents, "reward_shaping": args.shaping}
    envs = make_vector_env(args.game, args.players, n_envs=args.envs, seed=args.seed, **table)
    ppo = make_ppo(make_env(args.game, args.players, **table))
    collector = Collector(ppo, envs, VectorReplayBuffer(args.collect, args.envs))
    start = time.perf_counter()
    stats = ppo.run_training(
        OnPolicyTrainerParams(
            training_collector=collector,
            max_epochs=args.epochs,
            epoch_num_steps=args.steps,
            collection_step_num_env_steps=args.collect,
            batch_size=256,
            update_step_num_repetitions=4,
            show_progress=False,
        )
    )
    seconds = time.perf_counter() - start
    print(f"{stats.train_step:,} steps in {seconds:.0f} s: {stats.train_step / seconds:,.0f} steps/s,"
          f" {stats.train_episode} games")  # fmt: skip
    lineup = [TianshouPolicy(ppo.policy.actor), *["rule"] * (args.players - 1)]
    print(tournament(args.game, lineup, args.eval_games, seed=args.seed, workers=1).table())


if __name__ == "__main__":
    main()
