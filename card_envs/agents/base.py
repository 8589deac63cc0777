"""What scripted agents share: the policy interface, the link to a compiled twin, knob checks."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from card_envs.core.checks import check_float
from card_envs.core.policy import Policy, RandomAgent
from card_envs.core.spec import resolve

if TYPE_CHECKING:
    from card_envs.batched.policy import BatchedPolicy

__all__ = ["Policy", "RandomAgent", "RuleAgent", "check_probability"]


def check_probability(name: str, value: object) -> float:
    """A knob that is a probability: ``value`` as a float in 0..1, or ValueError naming the knob."""
    return check_float(name, value, 0.0, 1.0)


class RuleAgent(Policy):
    """A scripted agent whose compiled twin (``compiled``, ``"module:Class"``) plays it in batches.

    The twin decides exactly as the class that names it; a subclass (which may decide
    otherwise) does not inherit it and plays row by row. The twin's module is imported on
    first use, so a rule agent alone never compiles anything.
    """

    compiled: ClassVar[str | None] = None

    def batched(self) -> BatchedPolicy | None:
        """The compiled twin with this agent's knobs, or None (then it is looped row by row)."""
        if self.compiled is None or "compiled" not in type(self).__dict__:
            return None
        twin: BatchedPolicy = resolve(self.compiled)(self)
        return twin
