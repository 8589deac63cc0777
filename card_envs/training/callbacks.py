"""What a training run does besides learning: progress, evaluations, self-play snapshots."""

from __future__ import annotations

import csv
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from card_envs.agents.model import ModelPolicy
from card_envs.evaluation.tournament import tournament

if TYPE_CHECKING:
    from card_envs.training.settings import TrainSettings


class ProgressLines(BaseCallback):
    """Recent games on the true rank reward: logged for TensorBoard, and printed as lines
    (about twenty a run) when there is no progress bar, e.g. in CI or a log file.

    PPO always ends its last rollout, so a run makes ``total`` steps rounded up to whole
    rollouts (``n_steps`` per env): the lines count towards that.
    """

    LINES = 20

    def __init__(self, total: int, quiet: bool = False, window: int = 200) -> None:
        super().__init__()
        self.total, self.quiet = total, quiet
        self.rewards: deque[float] = deque(maxlen=window)
        self.wins: deque[bool] = deque(maxlen=window)

    def _on_training_start(self) -> None:
        self.start = time.perf_counter()
        rollout = int(getattr(self.model, "n_steps", 1)) * int(self.model.n_envs)
        self.total = -(-self.total // rollout) * rollout
        self.every = max(1, self.total // self.LINES)
        self.next_line = self.every

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if done and "rank_reward" in info:
                self.rewards.append(info["rank_reward"])
                self.wins.append(info.get("rank") == 1)
        if self.rewards:
            self.logger.record("rollout/rank_reward", float(np.mean(self.rewards)))
            self.logger.record("rollout/win_rate", float(np.mean(self.wins)))
        if not self.quiet and self.num_timesteps >= self.next_line:
            self.next_line = (self.num_timesteps // self.every + 1) * self.every
            print(self.line(), flush=True)
        return True

    def line(self) -> str:
        rate = self.num_timesteps / max(time.perf_counter() - self.start, 1e-9)
        text = f"step {self.num_timesteps:,}/{self.total:,}  {rate:,.0f} steps/s"
        if self.rewards:
            text += (
                f"  last {len(self.rewards)} games: rank reward {np.mean(self.rewards):+.3f},"
                f" won {np.mean(self.wins):.0%}"
            )
        return text


class TimeLimit(BaseCallback):
    """Ends training at a wall-clock deadline (``time.perf_counter()`` seconds): a run
    budgeted in minutes rather than steps, as the learning benchmark is."""

    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline

    def _on_step(self) -> bool:
        return time.perf_counter() < self.deadline


class EvaluationLog(BaseCallback):
    """Every ``eval_every`` steps (and at the end): the model, playing its most probable
    legal action, in a rotating seat against the rule-based players at their default knobs,
    one row of ``evaluations.csv`` each, the first at step 0: where PPO started from (an
    untrained network's row is where the learning curve visibly starts).

    ``seconds`` is the run's wall time from ``started`` (imitation included) without the
    evaluations' own time. With ``stop_when_ahead`` the run ends at the first evaluation whose
    mean-reward interval lies above 0 (confirm such an agent on new deals: the first of many
    looks to cross 0 is likelier to be luck than any one look)."""

    COLUMNS = (
        "steps",
        "games",
        "win_rate",
        "win_low",
        "win_high",
        "mean_reward",
        "reward_low",
        "reward_high",
        "seconds",
    )

    def __init__(self, settings: TrainSettings, path: Path, started: float | None = None) -> None:
        super().__init__()
        self.settings, self.path = settings, path
        self.next_eval = settings.run.eval_every
        self.count = 0
        self.last_step = -1
        self.started = started
        self.evaluating = 0.0  # seconds spent in evaluations so far
        self.ahead = False  # the last evaluation's interval lies above 0

    def _on_training_start(self) -> None:
        if self.started is None:
            self.started = time.perf_counter()
        with self.path.open("w", newline="") as file:
            csv.writer(file).writerow(self.COLUMNS)
        self.evaluate()

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_eval:
            self.next_eval += self.settings.run.eval_every
            self.evaluate()
        return not (self.ahead and self.settings.run.stop_when_ahead)

    def _on_training_end(self) -> None:
        """A last row after any PPO step, unless an evaluation after step 0 was less than half
        an interval ago (the row at step 0 is the start, not the trained network)."""
        since = self.num_timesteps - self.last_step
        if since > 0 and (self.last_step == 0 or since >= self.settings.run.eval_every // 2):
            self.evaluate()

    def evaluate(self) -> None:
        begun = time.perf_counter()
        s = self.settings
        lineup: list[Any] = [ModelPolicy(self.model, deterministic=True), *["rule"] * (s.num_players - 1)]
        result = tournament(
            s.table,
            lineup,
            s.run.eval_games,
            seed=s.run.seed + 10_000 + self.count,
            workers=1,
        )
        self.count += 1
        self.last_step = self.num_timesteps
        agent = result.agents[0]
        self.ahead = agent.mean_reward.low > 0
        seconds = begun - (self.started or begun) - self.evaluating
        self.evaluating += time.perf_counter() - begun
        row = (
            self.num_timesteps, agent.games, *_triple(agent.win_rate), *_triple(agent.mean_reward),
            round(seconds, 1),
        )  # fmt: skip
        with self.path.open("a", newline="") as file:
            csv.writer(file).writerow(row)
        self.logger.record("eval/mean_reward", agent.mean_reward.value)
        self.logger.record("eval/win_rate", agent.win_rate.value)
        print(
            f"evaluation at step {self.num_timesteps:,} vs {s.num_players - 1} rule-based players,"
            f" {agent.games} games: win rate {agent.win_rate:.1%}, mean reward {agent.mean_reward:+.3f}"
            + (" (ahead: the run stops here)" if self.ahead and s.run.stop_when_ahead else ""),
            flush=True,
        )


def _triple(estimate: Any) -> tuple[float, float, float]:
    return (round(estimate.value, 4), round(estimate.low, 4), round(estimate.high, 4))


class SelfPlaySnapshots(BaseCallback):
    """Sends a copy of the learner's network to the env workers' self-play pools at the start
    and every ``every`` steps (no model is reloaded from disk)."""

    def __init__(self, every: int, copy_network: Callable[[Any], Any]) -> None:
        super().__init__()
        self.every, self.copy_network = every, copy_network
        self.next_snapshot = every

    def _on_training_start(self) -> None:
        self.send()

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_snapshot:
            self.next_snapshot += self.every
            self.send()
        return True

    def send(self) -> None:
        snapshot = self.copy_network(self.model.policy)
        self.training_env.env_method("call_opponents", "add_snapshot", snapshot)
