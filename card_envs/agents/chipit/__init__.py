"""Chip It's rule-based player (:mod:`.rules`) and its compiled twin for batches (:mod:`.compiled`)."""

from card_envs.agents.chipit.rules import ChipItRuleAgent
from card_envs.agents.registry import RuleAgentSpec, register_rule_agent

SPEC = register_rule_agent(
    RuleAgentSpec(
        game="chipit",
        agent=ChipItRuleAgent,
        random_knobs={"mistake_rate": 0.3},
        knob_mix=(
            {"max_chips": 6, "prefer_sets": False},
            {"max_chips": 1, "return_points": 1},
            {"mistake_rate": 0.1},
        ),
    )
)
