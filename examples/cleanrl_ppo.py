"""Masked PPO in one file, in the style of CleanRL, on any card_envs game.

    python examples/cleanrl_ppo.py --game tock --total-timesteps 200000
    python examples/cleanrl_ppo.py --game uno --players 2 --opponents random

The learner plays one seat of the single-agent Gymnasium env (``gymnasium.make`` with the
game's id); the other seats are played inside the env by ``--opponents`` (rule-based players
by default). Its reward is its own: the rank reward at the end, a loss included, plus the
optional dense progress reward ``--shaping``. Illegal actions get a logit of -1e8, so they
are never sampled and carry no gradient. Every ``--num-steps`` steps of ``--num-envs`` envs
the script fits the clipped PPO loss, then prints the steps/s and the mean rank reward of
the games that ended. At the end the greedy policy plays ``--eval-games`` games against
rule-based players (seats rotated) and the table of results is printed.

Only torch, gymnasium and card_envs are needed; no RL library.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from card_envs.core.policy import Policy
from card_envs.core.registry import game_spec
from card_envs.evaluation.tournament import tournament


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="uno", help="uno, tock or chipit")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--opponents", default="rule", help="a spec for every other seat: rule, random, ...")
    parser.add_argument("--shaping", type=float, default=0.0, help="weight of the dense progress reward")
    parser.add_argument("--total-timesteps", type=int, default=100_000)
    parser.add_argument("--num-envs", type=int, default=4)
    parser.add_argument("--num-steps", type=int, default=256, help="steps per env between updates")
    parser.add_argument("--learning-rate", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.995)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--num-minibatches", type=int, default=4)
    parser.add_argument("--update-epochs", type=int, default=4)
    parser.add_argument("--clip-coef", type=float, default=0.2)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--eval-games", type=int, default=200, help="final games vs rule players")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=None, help="stop after this much training time")
    return parser.parse_args(argv)


def layer(inputs: int, outputs: int, std: float = float(np.sqrt(2))) -> nn.Linear:
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    """Separate actor and critic MLPs over the observation divided by its declared bound."""

    def __init__(self, observation_space: gym.spaces.Box, num_actions: int) -> None:
        super().__init__()
        size = int(np.prod(observation_space.shape))
        self.register_buffer("scale", torch.as_tensor(1.0 / np.maximum(observation_space.high, 1.0)))
        self.critic = nn.Sequential(
            layer(size, 256), nn.Tanh(), layer(256, 256), nn.Tanh(), layer(256, 1, 1.0)
        )
        self.actor = nn.Sequential(
            layer(size, 256), nn.Tanh(), layer(256, 256), nn.Tanh(), layer(256, num_actions, 0.01)
        )

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs * self.scale).squeeze(-1)

    def distribution(self, obs: torch.Tensor, mask: torch.Tensor) -> Categorical:
        logits = self.actor(obs * self.scale)
        return Categorical(logits=torch.where(mask, logits, torch.tensor(-1e8)))


class GreedyAgent(Policy):
    """The trained actor as a card_envs Policy, so a tournament can seat it."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        with torch.no_grad():
            obs = torch.as_tensor(observation, dtype=torch.float32)[None]
            dist = self.agent.distribution(obs, torch.as_tensor(action_mask, dtype=torch.bool)[None])
        return int(dist.probs[0].argmax())


def make_envs(args: argparse.Namespace) -> gym.vector.SyncVectorEnv:
    def make() -> gym.Env:
        return gym.make(
            game_spec(args.game).gym_id,
            num_players=args.players,
            opponents=args.opponents,
            reward_shaping=args.shaping,
        )

    # SAME_STEP: a finished env is reset within the step that ended it, as classic CleanRL expects
    return gym.vector.SyncVectorEnv(
        [make for _ in range(args.num_envs)], autoreset_mode=gym.vector.AutoresetMode.SAME_STEP
    )


def masks(envs: gym.vector.SyncVectorEnv) -> torch.Tensor:
    """The legal actions of each env's current decision (the env's ``action_masks()``)."""
    return torch.as_tensor(np.stack(envs.call("action_masks")), dtype=torch.bool)


def train(args: argparse.Namespace) -> tuple[Agent, dict[str, float]]:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # more threads slow PPO on small machines
    envs = make_envs(args)
    agent = Agent(envs.single_observation_space, int(envs.single_action_space.n))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    shape = (args.num_steps, args.num_envs)
    obs_buf = torch.zeros(shape + envs.single_observation_space.shape)
    mask_buf = torch.zeros((*shape, int(envs.single_action_space.n)), dtype=torch.bool)
    actions, logprobs, rewards, dones, values = (torch.zeros(shape) for _ in range(5))
    next_obs = torch.as_tensor(envs.reset(seed=args.seed)[0], dtype=torch.float32)
    next_mask, next_done = masks(envs), torch.zeros(args.num_envs)
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    steps, start, finals = 0, time.perf_counter(), []
    for update in range(1, args.total_timesteps // batch_size + 1):
        recent: list[float] = []
        for t in range(args.num_steps):
            obs_buf[t], mask_buf[t], dones[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                dist = agent.distribution(next_obs, next_mask)
                action = dist.sample()
                values[t], actions[t], logprobs[t] = agent.value(next_obs), action, dist.log_prob(action)
            obs, reward, terminated, truncated, info = envs.step(action.numpy())
            steps += args.num_envs
            rewards[t] = torch.as_tensor(reward, dtype=torch.float32)
            next_done = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            next_obs, next_mask = torch.as_tensor(obs, dtype=torch.float32), masks(envs)
            if "final_info" in info:  # the true rank reward of each game that ended (shaping aside)
                ended = info["final_info"]
                recent += [float(r) for r in ended["rank_reward"][ended["_rank_reward"]]]
        finals += recent
        with torch.no_grad():  # generalised advantage estimation, bootstrapped from the last value
            advantages = torch.zeros(shape)
            last, next_value = 0.0, agent.value(next_obs)
            for t in reversed(range(args.num_steps)):
                not_done = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                following = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * not_done - values[t]
                last = delta + args.gamma * args.gae_lambda * not_done * last
                advantages[t] = last
            returns = advantages + values
        flat = {
            "obs": obs_buf.reshape((-1, *envs.single_observation_space.shape)),
            "mask": mask_buf.reshape(batch_size, -1),
            "action": actions.reshape(-1),
            "logprob": logprobs.reshape(-1),
            "advantage": advantages.reshape(-1),
            "return": returns.reshape(-1),
        }
        for _ in range(args.update_epochs):
            for index in torch.randperm(batch_size).split(minibatch_size):
                dist = agent.distribution(flat["obs"][index], flat["mask"][index])
                ratio = (dist.log_prob(flat["action"][index]) - flat["logprob"][index]).exp()
                advantage = flat["advantage"][index]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                policy_loss = torch.max(
                    -advantage * ratio,
                    -advantage * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef),
                ).mean()
                value_loss = 0.5 * ((agent.value(flat["obs"][index]) - flat["return"][index]) ** 2).mean()
                loss = policy_loss - args.ent_coef * dist.entropy().mean() + args.vf_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        rate = steps / (time.perf_counter() - start)
        mean = f"{np.mean(recent):+.3f} over {len(recent)} games" if recent else "no game ended"
        print(f"update {update}: {steps:,} steps, {rate:,.0f} steps/s, mean rank reward {mean}", flush=True)
        if args.max_seconds is not None and time.perf_counter() - start > args.max_seconds:
            break
    envs.close()
    seconds = time.perf_counter() - start
    return agent, {"steps": steps, "seconds": seconds, "games": len(finals)}


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    agent, stats = train(args)
    rate = stats["steps"] / stats["seconds"]
    print(f"{stats['steps']:,} steps in {stats['seconds']:.0f} s: {rate:,.0f} steps/s")
    lineup = [GreedyAgent(agent), *["rule"] * (args.players - 1)]
    print(tournament(args.game, lineup, args.eval_games, seed=args.seed, workers=1).table())


if __name__ == "__main__":
    main()
