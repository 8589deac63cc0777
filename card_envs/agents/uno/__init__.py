"""UNO-style's rule-based player (:mod:`.rules`), its compiled twin for batches (:mod:`.compiled`)
and the independent heuristic player (:mod:`.heuristic`)."""

from card_envs.agents.knob_ranges import Uniform
from card_envs.agents.registry import RuleAgentSpec, register_heuristic, register_rule_agent
from card_envs.agents.uno.heuristic import UnoHeuristicAgent
from card_envs.agents.uno.rules import UnoRuleAgent

SPEC = register_rule_agent(
    RuleAgentSpec(
        game="uno",
        agent=UnoRuleAgent,
        random_knobs={"forget_call": 0.5},
        knob_mix=(
            {"forget_call": 0.0, "catch_rate": 1.0},
            {"forget_call": 0.3, "challenge_rate": 0.6},
            {"catch_rate": 0.5, "challenge_rate": 0.0},
        ),
        sound_knobs={"forget_call": 0.0, "catch_rate": 1.0},
        knob_ranges={
            "forget_call": Uniform(0.0, 0.5),
            "catch_rate": Uniform(0.5, 1.0),
            "challenge_rate": Uniform(0.0, 0.6),
        },
    )
)

register_heuristic("uno", UnoHeuristicAgent)
