"""Chip It: a climbing game where chips raise card values (rules: docs/rules/chipit.md)."""

from card_envs.core.spec import GameSpec
from card_envs.registry import register

SPEC = register(
    GameSpec(
        name="chipit",
        title="ChipIt",
        engine="card_envs.games.chipit.engine:ChipItGame",
        batched="card_envs.games.chipit.batched:ChipItKernels",
        batched_rule_agent="agents.batched.chipit:ChipItBatchedRuleAgent",
        rule_agent="agents.chipit_rules:ChipItRuleAgent",
        rule_mixes=({"play_to_end": True},),
        random_knobs={"mistake_rate": 0.3},
        knob_mix=(
            {"max_chips": 6, "prefer_sets": False},
            {"max_chips": 1, "return_points": 1},
            {"mistake_rate": 0.1},
        ),
        early_finish_rules={"play_to_end": True},
    )
)
