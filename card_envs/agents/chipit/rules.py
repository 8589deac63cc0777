"""A rule-based Chip It player: sheds sets cheaply and passes when beating costs too much."""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import RuleAgent, check_probability
from card_envs.core.checks import check_choice, check_int
from card_envs.games.chipit import encoding as E
from card_envs.games.chipit.arith import (
    NUM_DIRECT,
    affordable_costs,
    cheapest_at,
    cheapest_value,
    chip_cost,
    completion_cost,
    free_counts,
    value_action,
)
from card_envs.games.chipit.cards import IMPOSSIBLE, NUM_TYPES, TOTAL_CHIPS


class ChipItRuleAgent(RuleAgent):
    """Plays Chip It sensibly from its observation and the mask.

    * leading: the largest set it can lay out without chips (pairs and
      triples first), at the lowest such value (``prefer_sets=False``: the
      lowest value it holds);
    * answering: the beating play that needs the fewest chip points (the
      lowest value among equals); if even that needs more than ``max_chips``
      points, it passes;
    * passing: returns ``return_points`` points (at most what it holds);
    * ``mistake_rate``: probability of a uniformly random legal action instead.
    """

    compiled = "card_envs.agents.chipit.compiled:ChipItBatchedRuleAgent"

    def __init__(
        self,
        num_players: int,
        max_chips: int = 3,
        return_points: int = 2,
        prefer_sets: bool = True,
        mistake_rate: float = 0.0,
    ) -> None:
        self.num_players = check_int("num_players", num_players, 2, 6)
        self.max_chips = check_int("max_chips", max_chips, 0, TOTAL_CHIPS)
        self.return_points = check_int("return_points", return_points, 0, E.MAX_RETURN)
        self.prefer_sets = check_choice("prefer_sets", prefer_sets, [True, False])
        self.mistake_rate = check_probability("mistake_rate", mistake_rate)
        self.layout = E.observation_layout(self.num_players)

    def __repr__(self) -> str:
        return (
            f"ChipItRuleAgent(max_chips={self.max_chips}, return_points={self.return_points},"
            f" prefer_sets={self.prefer_sets}, mistake_rate={self.mistake_rate})"
        )

    # ------------------------------------------------------------------ act
    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("ChipItRuleAgent was asked to act with an empty action mask")
        if self.mistake_rate and rng.random() < self.mistake_rate:
            return int(legal[rng.integers(legal.size)])
        v = self.layout.view(observation)
        phase = E.PHASES[int(np.argmax(v["phase"]))]
        hand = v["hand"].astype(np.int64)
        if phase == "cards":
            action = self._card(v, hand, action_mask)
        elif phase == "units":
            action = self._units(v, hand, action_mask)
        else:
            action = self._value(v, hand, action_mask)
        if not action_mask[action]:  # cannot happen with a consistent observation; stay legal anyway
            action = int(legal[0])
        return action

    def _pass(self, v: dict[str, np.ndarray], mask: np.ndarray) -> int:
        held = int(v["chips"][0])
        return E.PASS + min(self.return_points, held, E.MAX_RETURN)

    def _value(self, v: dict[str, np.ndarray], hand: np.ndarray, mask: np.ndarray) -> int:
        k = int(v["to_beat_count"][0])
        if not mask[E.VALUE : E.DONE].any():  # nothing to play: pass
            return self._pass(v, mask)
        if k == 0:
            return self._lead(hand)
        limit = min(self.max_chips, int(v["supply"][0]))
        value = cheapest_value(hand, k, int(v["to_beat_value"][0]) + 1, limit)  # fewest chips, lowest value
        if value < 0:  # even the cheapest beating play costs more than the limit
            return self._pass(v, mask)
        return int(value_action(value))

    def _lead(self, hand: np.ndarray) -> int:
        counts = np.zeros(NUM_DIRECT, np.int64)  # cards showing each value 2.. without chips
        free_counts(hand, counts)
        values = np.flatnonzero(counts)
        # the largest set (lowest value first), or simply the lowest value
        i = int(values[np.argmax(counts[values])]) if self.prefer_sets else int(values[0])
        return int(value_action(i + E.MIN_VALUE))

    def _units(self, v: dict[str, np.ndarray], hand: np.ndarray, mask: np.ndarray) -> int:
        low = int(v["build_block"][0])
        k = max(1, int(v["to_beat_count"][0]))
        costs = [cheapest_at(hand, k, low + b) if mask[E.UNITS + b] else IMPOSSIBLE for b in range(E.BLOCK)]
        return E.UNITS + int(np.argmin(costs))

    def _card(self, v: dict[str, np.ndarray], hand: np.ndarray, mask: np.ndarray) -> int:
        value = int(v["build_value"][0])
        options = [t for t in range(NUM_TYPES) if mask[E.CARD + t]]
        leading = int(v["to_beat_count"][0]) == 0
        if leading and mask[E.DONE] and not any(chip_cost(t, value) == 0 for t in options):
            return E.DONE  # the set without chips is complete
        if not options:
            return E.DONE
        need = int(v["build_needed"][0])
        if need > 1:  # answering: the card that starts the cheapest completion (cards come in type order)
            rest = hand - v["build_cards"].astype(np.int64)
            costs = np.empty(NUM_TYPES, np.int64)
            affordable_costs(rest, value, int(v["supply"][0]) - int(v["build_chips"][0]), 0, costs)
            cost = {t: IMPOSSIBLE if costs[t] < 0 else completion_cost(rest, costs, t, need) for t in options}
            return E.CARD + min(options, key=lambda t: (cost[t], t))
        return E.CARD + min(options, key=lambda t: (chip_cost(t, value), t))
