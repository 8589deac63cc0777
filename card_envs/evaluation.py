"""Evaluate a policy in one seat against opponents: win rate with a confidence interval."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from card_envs.core.single import CardGameEnv


@dataclass(frozen=True)
class MatchResult:
    """Outcome of ``episodes`` games of one policy against a set of opponents."""

    opponents: str
    episodes: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_reward: float
    mean_rank: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        return (
            f"vs {self.opponents:<8} win rate {self.win_rate:6.1%}"
            f" (95% CI {self.ci_low:.1%}..{self.ci_high:.1%}),"
            f" mean rank {self.mean_rank:.2f}, mean reward {self.mean_reward:+.3f}"
            f" over {self.episodes} games"
        )


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (sound near 0 and 1, unlike the normal one)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def evaluate(
    policy: Any,
    game: str = "uno",
    num_players: int | None = None,
    opponents: Any = "rule",
    episodes: int = 200,
    seed: int = 0,
    opponent_knobs: dict[str, Any] | None = None,
    **rules: Any,
) -> MatchResult:
    """Play ``episodes`` games with ``policy`` in a seat drawn at random each game.

    ``policy`` is an :class:`agents.Policy`; ``opponents`` any spec the
    single-agent env takes. A win is finishing first (rank 1).
    """
    if episodes < 1:
        raise ValueError(f"episodes must be >= 1, got {episodes}")
    env = CardGameEnv(
        game, num_players, opponents=opponents, opponent_knobs=opponent_knobs, learner_seat="random", **rules
    )
    wins = 0
    rewards = ranks = 0.0
    obs, _ = env.reset(seed=seed)
    for _ in range(episodes):
        while True:
            action = policy.act(obs, env.action_masks(), env.np_random)
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        wins += info["rank"] == 1
        rewards += reward
        ranks += info["rank"]
        obs, _ = env.reset()
    low, high = wilson_interval(wins, episodes)
    name = opponents if isinstance(opponents, str) else repr(opponents)
    return MatchResult(name, episodes, wins, wins / episodes, low, high, rewards / episodes, ranks / episodes)
