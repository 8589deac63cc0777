"""Masked multi-agent PPO with TorchRL on any card_envs game: one shared policy plays every seat.

    pip install -e ".[torchrl]"
    python examples/torchrl_ppo.py --game chipit --players 4 --iterations 20

Each iteration collects ``--frames`` env steps (every seat's turns), computes GAE per seat over
the whole table's time axis (a seat's final rank reward reaches its earlier moves through its
values at the steps it waits), and fits the PPO loss on the rows in which a seat acted.
Prints the mean final reward of player_0 per iteration (zero-sum in self-play: watch the
loss and the game lengths instead) and, at the end, the trained policy's result against three
rule-based players via card_envs.evaluation.against.
"""

from __future__ import annotations

import argparse
import time

import torch
from tensordict.nn import TensorDictModule
from torchrl.collectors import Collector
from torchrl.envs.utils import ExplorationType, set_exploration_type
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

from card_envs.evaluation.tournament import tournament
from card_envs.integrations.torchrl import GROUP, TorchRLPolicy, acting_rows, make_actor_critic, make_env


def train(
    game: str, players: int, iterations: int, frames: int, seed: int, max_seconds: float | None = None
) -> tuple[TensorDictModule, dict]:
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    env = make_env(game, players, seed=seed)
    actor, critic = make_actor_critic(env)
    keys = {
        "reward": (GROUP, "reward"),
        "done": (GROUP, "done"),
        "terminated": (GROUP, "terminated"),
        "value": (GROUP, "state_value"),
        "advantage": (GROUP, "advantage"),
        "value_target": (GROUP, "value_target"),
    }
    gae = GAE(gamma=0.999, lmbda=0.95, value_network=critic, average_gae=False)
    gae.set_keys(**keys)
    loss = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=0.01, normalize_advantage=True)
    loss.set_keys(action=(GROUP, "action"), sample_log_prob=(GROUP, "sample_log_prob"), **keys)
    optim = torch.optim.Adam(loss.parameters(), lr=3e-4)
    collector = Collector(env, actor, frames_per_batch=frames, total_frames=frames * iterations)
    stats = {"steps": 0, "seconds": 0.0}
    start = time.perf_counter()
    for i, batch in enumerate(collector):
        with torch.no_grad():
            gae(batch)
        rows = acting_rows(batch)
        for _ in range(4):
            for minibatch in rows.split(max(1, rows.shape[0] // 4)):
                parts = loss(minibatch)
                total = parts["loss_objective"] + parts["loss_critic"] + parts["loss_entropy"]
                optim.zero_grad()
                total.backward()
                torch.nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
                optim.step()
        collector.update_policy_weights_()
        ends = batch["next", GROUP, "done"].any(-2).squeeze(-1)
        finals = batch["next", GROUP, "reward"][ends]
        stats["steps"] += batch.numel()
        mean = finals[:, 0].mean().item() if len(finals) else float("nan")
        print(
            f"iteration {i + 1}: {batch.numel()} steps, {int(ends.sum())} games ended,"
            f" mean final reward of player_0 {mean:+.3f}, loss {total.item():.3f}",
            flush=True,
        )
        if max_seconds is not None and time.perf_counter() - start > max_seconds:
            break
    stats["seconds"] = time.perf_counter() - start
    collector.shutdown()
    return actor, stats


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="uno")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--frames", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-games", type=int, default=200, help="games against rule-based players")
    args = parser.parse_args()
    actor, stats = train(args.game, args.players, args.iterations, args.frames, args.seed)
    print(f"{stats['steps']:,} env steps in {stats['seconds']:.0f} s:"
          f" {stats['steps'] / stats['seconds']:,.0f} steps/s")  # fmt: skip
    lineup = [TorchRLPolicy(actor), *["rule"] * (args.players - 1)]
    print(tournament(args.game, lineup, args.eval_games, seed=args.seed, workers=1).table())


if __name__ == "__main__":
    with set_exploration_type(ExplorationType.RANDOM):
        main()
