"""Chip It's rule-based player (:mod:`.rules`), its compiled twin for batches (:mod:`.compiled`)
and the independent heuristic player (:mod:`.heuristic`)."""

from card_envs.agents.chipit.heuristic import ChipItHeuristicAgent
from card_envs.agents.chipit.rules import ChipItRuleAgent
from card_envs.agents.knob_ranges import Choice, Integers, Uniform
from card_envs.agents.registry import RuleAgentSpec, register_heuristic, register_rule_agent

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
        sound_knobs={"mistake_rate": 0.0},
        knob_ranges={
            "max_chips": Integers(1, 6),
            "return_points": Integers(0, 2),
            "prefer_sets": Choice((True, False)),
            "mistake_rate": Uniform(0.0, 0.2),
        },
    )
)

register_heuristic("chipit", ChipItHeuristicAgent)
