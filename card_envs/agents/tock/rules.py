"""A scripted Tock player with human-like knobs: it may cheat, and it may notice (or miss) cheating.

It decides from the observation vector (decoded with the game's layout) and
the action mask only. The mask alone tells the rule-following moves from the
rule breaks: the centre, when legal, is the rule; otherwise fitting opponents
are; DRAW or OWN PILE is a rule break whenever anything else is legal.
"""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import RuleAgent, check_probability
from card_envs.core.checks import check_choice, check_int
from card_envs.games.tock.encoding import (
    CENTRE,
    DRAW,
    FIRST_OPPONENT,
    KNOCK,
    LAST_OPPONENT,
    LAYOUT,
    MAX_SEATS,
    OWN_PILE,
    PASS,
)

TARGETS = ("fewest_cards", "most_cards", "nearest", "random")

# the fields the agent reads (slices of the layout, looked up once: act() is called every step)
_MOVE_BREAK = LAYOUT.slices["move_break"]
_PILE_SIZE = LAYOUT.slices["pile_size"]
_STACK_SIZE = LAYOUT.slices["stack_size"]


class TockRuleAgent(RuleAgent):
    """Plays by the rules, knocks on rule breaks it notices, and cheats now and then.

    Args:
        num_players: seats at the table (2..6).
        vigilance: probability to knock on a rule break it sees (its own knock
            window decision; another player may knock first).
        false_knock_rate: probability to knock after a move that broke no rule.
        cheat_rate: probability to break a rule when that helps it: a card that
            must go to the centre is dumped on an opponent instead.
        target: which fitting opponent gets a card: ``"fewest_cards"`` (the
            leader: fewest open-pile plus stack cards), ``"most_cards"``,
            ``"nearest"`` (first in seat order) or ``"random"``.
    """

    compiled = "card_envs.agents.tock.compiled:TockBatchedRuleAgent"

    def __init__(
        self,
        num_players: int = 4,
        vigilance: float = 0.9,
        false_knock_rate: float = 0.02,
        cheat_rate: float = 0.05,
        target: str = "fewest_cards",
    ) -> None:
        self.num_players = check_int("num_players", num_players, 2, MAX_SEATS)
        self.vigilance = check_probability("vigilance", vigilance)
        self.false_knock_rate = check_probability("false_knock_rate", false_knock_rate)
        self.cheat_rate = check_probability("cheat_rate", cheat_rate)
        self.target = check_choice("target", target, TARGETS)

    def __repr__(self) -> str:
        return (
            f"TockRuleAgent(vigilance={self.vigilance}, false_knock_rate={self.false_knock_rate},"
            f" cheat_rate={self.cheat_rate}, target={self.target!r})"
        )

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        mask = action_mask
        if mask[KNOCK]:
            noticed = observation[_MOVE_BREAK][0] > 0.5
            p = self.vigilance if noticed else self.false_knock_rate
            return KNOCK if p > 0.0 and rng.random() < p else PASS
        opponents = [a for a in range(FIRST_OPPONENT, LAST_OPPONENT + 1) if mask[a]]
        if mask[CENTRE]:
            # opponents are legal next to the centre only as a rule break: dumping the card
            if opponents and self.cheat_rate > 0.0 and rng.random() < self.cheat_rate:
                return self._pick(opponents, observation, rng)
            return CENTRE
        if opponents:
            return self._pick(opponents, observation, rng)
        if mask[DRAW]:
            return DRAW
        if mask[OWN_PILE]:
            return OWN_PILE
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("TockRuleAgent was asked to act with an empty action mask")
        return int(legal[0])

    def _pick(self, opponents: list[int], observation: np.ndarray, rng: np.random.Generator) -> int:
        """One of the fitting opponents (actions = relative seats) by the ``target`` knob."""
        if len(opponents) == 1 or self.target == "nearest":
            return opponents[0]
        if self.target == "random":
            return opponents[int(rng.integers(len(opponents)))]
        # relative seats: action k is the seat k to the left
        held = observation[_PILE_SIZE] + observation[_STACK_SIZE]
        sign = 1.0 if self.target == "fewest_cards" else -1.0
        return min(opponents, key=lambda a: (sign * float(held[a]), a))
