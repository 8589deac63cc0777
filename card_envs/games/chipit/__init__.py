"""Chip It: a climbing game where chips raise card values (rules: docs/rules/chipit.md)."""

from card_envs.core.registry import register
from card_envs.core.spec import GameSpec

SPEC = register(
    GameSpec(
        name="chipit",
        title="ChipIt",
        engine="card_envs.games.chipit.engine:ChipItGame",
        batched="card_envs.games.chipit.kernels:ChipItKernels",
        rule_mixes=({"play_to_end": True},),
        early_finish_rules={"play_to_end": True},
    )
)
