"""One agent against a set of opponents: its win rate, rank and reward with 95% intervals.

A convenience over :func:`card_envs.evaluation.tournament.tournament` for the common
question "how does this policy do against these players?".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from card_envs.agents.specs import PolicyLike, spec_label
from card_envs.core.registry import GameRef
from card_envs.core.table import Table
from card_envs.evaluation.tournament import tournament


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

    def summary(self) -> str:
        return (
            f"vs {self.opponents:<8} win rate {self.win_rate:6.1%}"
            f" (95% CI {self.ci_low:.1%}..{self.ci_high:.1%}),"
            f" mean rank {self.mean_rank:.2f}, mean reward {self.mean_reward:+.3f}"
            f" over {self.episodes} games"
        )


def evaluate(
    policy: PolicyLike,
    game: Table | GameRef = "uno",
    num_players: int | None = None,
    opponents: PolicyLike | Sequence[PolicyLike] = "rule",
    episodes: int = 200,
    seed: int = 0,
    workers: int = 1,
    **rules: Any,
) -> MatchResult:
    """Play ``episodes`` games of ``policy`` against ``opponents`` (one spec for all other
    seats, or one per seat), seats rotated. A win is finishing first (rank 1)."""
    table = Table.of(game, num_players, **rules)
    others: list[Any] = (
        list(opponents) if isinstance(opponents, (list, tuple)) else [opponents] * (table.num_players - 1)
    )
    result = tournament(table, [policy, *others], episodes, seed=seed, workers=workers)
    agent = result.agents[0]
    return MatchResult(
        opponents=spec_label(opponents) if isinstance(opponents, str) else repr(opponents),
        episodes=agent.games,
        wins=round(agent.win_rate.value * agent.games),
        win_rate=agent.win_rate.value,
        ci_low=agent.win_rate.low,
        ci_high=agent.win_rate.high,
        mean_reward=agent.mean_reward.value,
        mean_rank=agent.mean_rank.value,
    )
