"""UNO-style shedding game with stacking and the LETZTE call (rules: docs/rules/uno.md)."""

from card_envs.core.spec import GameSpec
from card_envs.registry import register

SPEC = register(
    GameSpec(
        name="uno",
        title="Uno",
        engine="card_envs.games.uno.engine:UnoGame",
        rule_agent="agents.uno_rules:UnoRuleAgent",
        batched="card_envs.games.uno.batched:UnoKernels",
        batched_rule_agent="agents.batched.uno:UnoBatchedRuleAgent",
        rule_mixes=(
            {
                "draw_four": "official",
                "voluntary_draw": False,
                "stacking": False,
                "two_player_reverse_skips": False,
                "missed_call_penalty": 2,
            },
        ),
        random_knobs={"forget_call": 0.5},
        knob_mix=(
            {"forget_call": 0.0, "catch_rate": 1.0},
            {"forget_call": 0.3, "challenge_rate": 0.6},
            {"catch_rate": 0.5, "challenge_rate": 0.0},
        ),
    )
)
