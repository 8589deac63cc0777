"""A warm start for training: the network first imitates a scripted teacher, then PPO improves on it.

PPO from a random network spends most of a run finding moves any rule-based
player knows (in Tock: knock when a rule is broken, never knock otherwise).
Here a teacher (a policy spec, e.g. a rule-based player) plays the learner's
seat against the training opponents; the network's policy is fitted to the
teacher's actions (cross-entropy over the legal actions) and its value head to
the discounted returns the teacher got, so PPO starts from the teacher's level
with a value function that fits it. What the agent is judged on stays the rank
reward against the default opponents; the teacher's own score is reported
beside it (docs/learning.md), so what PPO added is visible.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from card_envs.agents.envs import make_env
from card_envs.agents.specs import make_policy
from card_envs.core.game import CardGame
from card_envs.core.play import play_out
from card_envs.core.processes import worker_pool
from card_envs.core.ranking import rank_rewards
from card_envs.envs.single import CardGameEnv, with_mask
from card_envs.records.people import PeopleGame, human_decisions


@dataclass
class Demonstrations:
    """The teacher's decisions: what it saw, what it could do, what it did, and what followed."""

    observations: np.ndarray  # float32 [n, obs]
    masks: np.ndarray  # bool [n, actions]
    actions: np.ndarray  # int64 [n]
    returns: np.ndarray  # float32 [n], discounted from each decision to the end of its game
    rank_rewards: np.ndarray  # float32 [games], the teacher's true rank reward per game

    @classmethod
    def concatenate(cls, parts: list[Demonstrations]) -> Demonstrations:
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in cls.__dataclass_fields__))

    def __len__(self) -> int:
        return len(self.actions)


class LearnerSeat:
    """The single-agent env seen as a table of one seat, the learner's, for the play loop
    (:func:`card_envs.core.play.play_out`): its observation is what the trained network will
    see (the mask appended if the env does), each step plays the opponents inside the env,
    and the rewards (shaping included) are kept for the returns."""

    current_player = 0

    def __init__(self, env: CardGameEnv, observation: np.ndarray) -> None:
        self.env, self.observation = env, observation
        #: the engine, for a teacher that reads the game (a search player decides from it)
        self.game = getattr(env.unwrapped, "game", None)
        self.rewards: list[float] = []
        self.info: dict[str, Any] = {}
        self.is_over = False

    def observe(self, player: int) -> np.ndarray:
        return self.observation

    def action_mask(self) -> np.ndarray:
        return self.env.action_masks()

    def step(self, action: int) -> None:
        self.observation, reward, terminated, truncated, self.info = self.env.step(action)
        self.rewards.append(float(reward))
        self.is_over = terminated or truncated


def play_teacher(
    env_kwargs: dict[str, Any], teacher: str, steps: int, gamma: float, seed: int
) -> Demonstrations:
    """Whole games of ``teacher`` in the learner's seat until at least ``steps`` decisions."""
    env = make_env(**env_kwargs)
    policy = make_policy(teacher, env.table)
    rng = np.random.default_rng([seed, 1])
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    rank_rewards: list[float] = []

    def record(seat: int, observation: np.ndarray, mask: np.ndarray, action: int) -> None:
        observations.append(observation)
        masks.append(mask)
        actions.append(action)

    observation, _ = env.reset(seed=seed)
    while len(actions) < steps:
        policy.new_game(rng)
        table = LearnerSeat(env, observation)
        play_out(table, [policy], rng, on_decision=record)
        rank_rewards.append(table.info["rank_reward"])
        returns.extend(discounted(table.rewards, gamma))
        observation, _ = env.reset()
    return Demonstrations(
        np.asarray(observations, np.float32),
        np.asarray(masks, bool),
        np.asarray(actions, np.int64),
        np.asarray(returns, np.float32),
        np.asarray(rank_rewards, np.float32),
    )


def record_demonstrations(
    games: Sequence[PeopleGame], table: CardGame, mask_in_observation: bool, gamma: float
) -> Demonstrations:
    """People's own decisions in recorded games (``train.py --imitate RECORDS``): what each saw
    (as the learner's env shows it), could do and did; the return of each decision is the
    person's rank reward at the end, discounted by their decisions still to come. Only finished
    games of ``table`` (its game, players and rules) count; moves a stand-in made are left out."""
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    rewards: list[float] = []
    for played in games:
        same_table = (played.game, played.num_players, played.rules) == (
            table.name,
            table.num_players,
            table.rules,
        )
        if not same_table or played.ranks is None:
            continue
        seats: list[int] = []
        for game, seat, action in human_decisions(played):
            mask = game.action_mask().astype(bool)
            observation = game.observe(seat)
            observations.append(with_mask(observation, mask) if mask_in_observation else observation)
            masks.append(mask)
            actions.append(action)
            seats.append(seat)
        final = rank_rewards(played.ranks)
        for k, seat in enumerate(seats):
            later = seats[k + 1 :].count(seat)  # the person's decisions still to come
            returns.append(final[seat] * gamma**later)
        rewards += [final[seat] for seat in sorted(set(seats))]
    if not actions:
        raise ValueError(
            f"no finished game of {table.name} at {table.num_players} players with these rules,"
            " played by a person, in the records"
        )
    return Demonstrations(
        np.stack(observations).astype(np.float32),
        np.stack(masks),
        np.asarray(actions, dtype=np.int64),
        np.asarray(returns, dtype=np.float32),
        np.asarray(rewards, dtype=np.float32),
    )


def discounted(rewards: list[float], gamma: float) -> list[float]:
    """The discounted return from each step to the end."""
    out, total = [0.0] * len(rewards), 0.0
    for i in range(len(rewards) - 1, -1, -1):
        total = rewards[i] + gamma * total
        out[i] = total
    return out


def collect(
    env_kwargs: dict[str, Any],
    teacher: str,
    steps: int,
    gamma: float,
    seed: int,
    workers: int = 1,
    parts: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Demonstrations:
    """The teacher's games in ``parts`` shares (default: one per worker, each seeded ``seed + i``),
    spread over ``workers`` processes; ``progress(done, parts)`` as each share comes in (a
    search teacher is slow: more, smaller shares show how far it has come)."""
    parts = parts or workers
    share = -(-steps // parts)
    if parts == 1:
        demos = play_teacher(env_kwargs, teacher, share, gamma, seed)
        if progress is not None:
            progress(1, 1)
        return demos
    with worker_pool(min(workers, parts)) as pool:
        jobs = [pool.submit(play_teacher, env_kwargs, teacher, share, gamma, seed + i) for i in range(parts)]
        for done, _ in enumerate(as_completed(jobs), start=1):
            if progress is not None:
                progress(done, parts)
        return Demonstrations.concatenate([job.result() for job in jobs])


@dataclass(frozen=True)
class ImitationResult:
    """How the imitation went (saved as imitation.json in the run directory)."""

    decisions: int
    teacher_games: int
    teacher_rank_reward: float
    #: on held-out decisions with at least two legal actions: the network's most probable action
    #: is the teacher's (forced moves left out, they are right by construction)
    accuracy: float
    policy_loss: float
    value_loss: float


def _uniform_cross_entropy(policy: Any, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The policy's mean cross-entropy to the uniform distribution over each decision's legal actions."""
    log_probs = policy.get_distribution(obs, action_masks=mask.numpy()).distribution.logits
    legal = mask.float()
    return -((log_probs * legal).sum(1) / legal.sum(1)).mean()


def imitate(
    policy: Any,
    demos: Demonstrations,
    epochs: int = 8,
    batch_size: int = 512,
    learning_rate: float = 1e-3,
    value_weight: float = 0.5,
    seed: int = 0,
    smoothing: float = 0.0,
) -> ImitationResult:
    """Fit an SB3 ``MaskableActorCriticPolicy`` to the teacher's actions and returns (in place);
    5% of the decisions are held out to measure how often it picks the teacher's action.

    ``smoothing``: the target gives the teacher's action ``1 - smoothing`` and spreads the rest
    evenly over the legal actions. A plain fit makes the policy certain (in Tock, more than 0.99
    on one action at every decision), and PPO cannot then move it: its gradient scales with the
    probability left to the other actions (docs/learning.md)."""
    if not 0.0 <= smoothing < 1.0:
        raise ValueError(f"smoothing must be in [0, 1), got {smoothing}")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(demos))
    split = max(1, len(order) // 20)
    train = order[split:]
    held = order[:split][demos.masks[order[:split]].sum(axis=1) >= 2]
    tensors = [torch.as_tensor(a) for a in (demos.observations, demos.masks, demos.actions, demos.returns)]
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    policy_loss = value_loss = 0.0
    for _ in range(epochs):
        rng.shuffle(train)
        for start in range(0, len(train), batch_size):
            index = torch.as_tensor(train[start : start + batch_size])
            obs, mask, action, target = (t[index] for t in tensors)
            values, log_prob, _ = policy.evaluate_actions(obs, action, action_masks=mask)
            p_loss = -log_prob.mean()
            if smoothing:
                p_loss = (1 - smoothing) * p_loss + smoothing * _uniform_cross_entropy(policy, obs, mask)
            v_loss = F.mse_loss(values.flatten(), target)
            optimizer.zero_grad()
            (p_loss + value_weight * v_loss).backward()
            optimizer.step()
            policy_loss, value_loss = p_loss.item(), v_loss.item()
    policy.set_training_mode(False)
    accuracy = 1.0  # no held-out decision with a choice: nothing to get wrong
    if held.size:
        with torch.no_grad():
            obs, mask, action, _ = (t[torch.as_tensor(held)] for t in tensors)
            dist = policy.get_distribution(obs, action_masks=mask.numpy())
            accuracy = float((dist.distribution.probs.argmax(1) == action).float().mean())
    return ImitationResult(
        decisions=len(demos),
        teacher_games=len(demos.rank_rewards),
        teacher_rank_reward=float(demos.rank_rewards.mean()),
        accuracy=accuracy,
        policy_loss=policy_loss,
        value_loss=value_loss,
    )
