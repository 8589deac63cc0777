"""Opponents for every game: random, rule-based (with human-like knobs) and trained models.

All share :class:`card_envs.core.policy.Policy`: ``act(observation, action_mask, rng) -> action``.
This package sits above the envs in the import graph: it turns opponent specs
(``"rule"``, ``"random"``, ``"model:PATH"``) into policies and builds the
single-agent env with them (:func:`make_env`, the Gymnasium ids' entry point).
"""

from __future__ import annotations

from card_envs.agents.base import Policy, RandomAgent
from card_envs.agents.envs import make_env
from card_envs.agents.specs import make_policies, make_policy, rule_agent_class

__all__ = ["Policy", "RandomAgent", "make_env", "make_policies", "make_policy", "rule_agent_class"]
