"""Chip It: a climbing game where chips raise card values (rules: docs/rules/chipit.md)."""

from card_envs.core.registry import register
from card_envs.core.spec import GameSpec

SPEC = register(
    GameSpec(
        name="chipit",
        title="ChipIt",
        engine="card_envs.games.chipit.engine:ChipItGame",
        batched="card_envs.games.chipit.kernels:ChipItKernels",
        # imitation of the rule-based player, then PPO on the batched engine: +0.255 after
        # 1.07M + 1.97M steps (the benchmark, docs/learning.md)
        recipe={
            "teacher": "rule",
            "imitation_steps": 200_000,
            "imitation_epochs": 20,
            "reward_shaping": 1.0,
            "vectorized": True,
            "envs": 32,
            "ppo": {"n_steps": 256, "batch_size": 1024},
            "timesteps": {"quick": 300_000, "full": 3_000_000},
        },
        rule_mixes=({"play_to_end": True},),
        early_finish_rules={"play_to_end": True},
    )
)
