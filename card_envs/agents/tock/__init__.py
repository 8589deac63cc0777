"""Tock's rule-based player (:mod:`.rules`), its compiled twin for batches (:mod:`.compiled`)
and the independent heuristic player (:mod:`.heuristic`)."""

from card_envs.agents.knob_ranges import Choice, Uniform
from card_envs.agents.registry import RuleAgentSpec, register_heuristic, register_rule_agent
from card_envs.agents.tock.heuristic import TockHeuristicAgent
from card_envs.agents.tock.rules import TockRuleAgent

SPEC = register_rule_agent(
    RuleAgentSpec(
        game="tock",
        agent=TockRuleAgent,
        random_knobs={"vigilance": 0.5},
        knob_mix=(
            {"vigilance": 1.0, "false_knock_rate": 0.0, "cheat_rate": 0.0},
            {"vigilance": 0.5, "cheat_rate": 0.2, "target": "nearest"},
            {"false_knock_rate": 0.1, "target": "most_cards"},
        ),
        sound_knobs={"vigilance": 1.0, "false_knock_rate": 0.0, "cheat_rate": 0.0},
        knob_ranges={
            "vigilance": Uniform(0.5, 1.0),
            "false_knock_rate": Uniform(0.0, 0.1),
            "cheat_rate": Uniform(0.0, 0.2),
            "target": Choice(("fewest_cards", "most_cards", "nearest", "random")),
        },
    )
)

register_heuristic("tock", TockHeuristicAgent)
