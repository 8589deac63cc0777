"""The RLlib backend's own settings (``train.py --backend rllib``), checked without importing Ray.

An RLlib run starts from random play on the rank reward alone: it has a table, opponents,
PPO and run settings, and no teacher, reward shaping or curriculum, so its settings.json
holds none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from card_envs.core.table import Table
from card_envs.training.settings import (
    PPOSettings,
    RunSettings,
    TrainSettings,
    check_count,
    check_opponents,
    seats_of,
    table_of,
)


@dataclass(frozen=True)
class RllibSettings:
    """Everything that defines an RLlib PPO run."""

    table: Table = field(default_factory=table_of)
    #: as for TrainSettings; "self" must fill every other seat (one policy shared by all seats)
    opponents: tuple[str, ...] = ("rule",)
    ppo: PPOSettings = field(default_factory=PPOSettings)
    #: timesteps, envs (per env runner), seed and threads are used; the rest is sb3's
    run: RunSettings = field(default_factory=RunSettings)
    env_runners: int = 0  # env runner processes (0: sample in the driver)
    address: str | None = None  # a running Ray cluster to join

    @classmethod
    def from_train_settings(
        cls, settings: TrainSettings, env_runners: int, address: str | None
    ) -> RllibSettings:
        """The sb3 settings a command line gave, refused where they name what RLlib does not do."""
        given = {
            "teacher": settings.imitation.teacher,
            "imitation steps": settings.imitation.steps,
            "imitation epochs": settings.imitation.epochs,
            "imitation smoothing": settings.imitation.smoothing,
            "reward shaping": settings.learner.reward_shaping,
            "mask in observation": settings.learner.mask_in_observation,
            "max minutes": settings.run.max_minutes,
        }
        unused = sorted(name for name, value in given.items() if value not in (None, ""))
        if settings.run.init_from:
            unused.append("init from")
        if settings.run.vectorized:
            unused.append("vectorized")
        if unused:
            raise ValueError(
                f"the rllib backend starts from random play on the rank reward; it does not use {unused}"
            )
        return cls(settings.table, settings.opponents, settings.ppo, settings.run, env_runners, address)

    def seats(self) -> list[str]:
        return seats_of(self.opponents, self.table.num_players)

    def self_play(self) -> bool:
        """One policy trained for every seat."""
        return self.seats() == ["self"] * (self.table.num_players - 1)

    def ppo_settings(self) -> dict[str, Any]:
        return self.ppo.resolved(starts_trained=False)

    def check(self) -> None:
        check_opponents(self.opponents, self.table)
        if "self" in self.seats() and not self.self_play():
            raise ValueError("with RLlib, 'self' must fill every other seat (one policy shared by all seats)")
        self.ppo.check()
        for name in ("timesteps", "envs", "threads"):
            check_count(name, getattr(self.run, name))
        check_count("seed", self.run.seed, 0)
        check_count("env_runners", self.env_runners, 0)

    def as_json(self) -> dict[str, Any]:
        """What the run uses, every default resolved."""
        run = self.run
        return {
            "backend": "rllib",
            "game": self.table.name,
            "num_players": self.table.num_players,
            "rules": dict(self.table.rules),
            "opponents": list(self.opponents),
            "ppo": self.ppo_settings(),
            "run": {
                "timesteps": run.timesteps,
                "envs_per_runner": run.envs,
                "seed": run.seed,
                "threads": run.threads,
            },
            "env_runners": self.env_runners,
            "address": self.address,
        }


__all__ = ["RllibSettings"]
