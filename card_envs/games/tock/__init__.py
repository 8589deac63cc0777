"""Tock: a patience race on centre rows 1..20 with the TOCK! knock (rules: docs/rules/tock.md)."""

from card_envs.core.spec import GameSpec
from card_envs.registry import register

SPEC = register(
    GameSpec(
        name="tock",
        title="Tock",
        engine="card_envs.games.tock.engine:TockGame",
        batched="card_envs.games.tock.batched:TockKernels",
        batched_rule_agent="agents.batched.tock:TockBatchedRuleAgent",
        rule_agent="agents.tock_rules:TockRuleAgent",
        rule_mixes=({"opponent_choice": "nearest"}, {"allow_violations": False}),
        random_knobs={"vigilance": 0.5},
        knob_mix=(
            {"vigilance": 1.0, "false_knock_rate": 0.0, "cheat_rate": 0.0},
            {"vigilance": 0.5, "cheat_rate": 0.2, "target": "nearest"},
            {"false_knock_rate": 0.1, "target": "most_cards"},
        ),
        early_finish_rules={},
    )
)
