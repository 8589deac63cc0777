""":class:`card_envs.agents.tock.rules.TockRuleAgent`, compiled for a batch of games."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from card_envs.agents.tock.rules import TARGETS
from card_envs.batched.policy import BatchedTwin
from card_envs.core.compiled import key_compiled_cache
from card_envs.games.tock import encoding
from card_envs.games.tock.encoding import (
    CENTRE,
    DRAW,
    FIRST_OPPONENT,
    KNOCK,
    LAST_OPPONENT,
    LAYOUT,
    OWN_PILE,
    PASS,
)

key_compiled_cache(__name__, encoding.__file__)
FEWEST, MOST, NEAREST, RANDOM = (
    TARGETS.index(t) for t in ("fewest_cards", "most_cards", "nearest", "random")
)
MOVE_BREAK = LAYOUT.slices["move_break"].start
PILE_SIZE = LAYOUT.slices["pile_size"].start
STACK_SIZE = LAYOUT.slices["stack_size"].start


@njit(cache=True)
def _pick(opponents, count, obs, gen, target):
    """One of the fitting opponents (actions = relative seats), as the reference ``_pick``."""
    if count == 1 or target == NEAREST:
        return opponents[0]
    if target == RANDOM:
        return opponents[gen.integers(0, count)]
    sign = 1.0 if target == FEWEST else -1.0
    best, best_key = opponents[0], np.inf
    for i in range(count):  # ascending actions: ties keep the first, as min() does
        a = opponents[i]
        key = sign * np.float64(obs[PILE_SIZE + a] + obs[STACK_SIZE + a])
        if key < best_key:
            best, best_key = a, key
    return best


@njit(cache=True)
def _act(obs, mask, gen, vigilance, false_knock_rate, cheat_rate, target):
    if mask[KNOCK]:
        p = vigilance if obs[MOVE_BREAK] > 0.5 else false_knock_rate
        return KNOCK if p > 0.0 and gen.random() < p else PASS
    opponents = np.empty(LAST_OPPONENT - FIRST_OPPONENT + 1, np.int64)
    count = 0
    for a in range(FIRST_OPPONENT, LAST_OPPONENT + 1):
        if mask[a]:
            opponents[count] = a
            count += 1
    if mask[CENTRE]:
        if count and cheat_rate > 0.0 and gen.random() < cheat_rate:
            return _pick(opponents, count, obs, gen, target)
        return CENTRE
    if count:
        return _pick(opponents, count, obs, gen, target)
    return rule_following_rest(mask)


@njit(cache=True)
def rule_following_rest(mask):
    """The move left when no card goes to the centre or an opponent: draw, else keep the card
    on the own pile (both Tock players, rule-based and heuristic); else the first legal one."""
    if mask[DRAW]:
        return DRAW
    if mask[OWN_PILE]:
        return OWN_PILE
    for a in range(mask.size):
        if mask[a]:
            return a
    return -1


@njit(cache=True)
def _act_rows(observations, masks, gens, rows, vigilance, false_knock_rate, cheat_rate, target, out):
    for i in range(rows.size):
        out[i] = _act(
            observations[i], masks[i], gens[rows[i]], vigilance, false_knock_rate, cheat_rate, target
        )


@njit(cache=True)
def act1(a, observation, mask, gen):
    """One row's decision (:meth:`BatchedPolicy.row_act`); ``a`` = the knobs, as ``_act`` takes them."""
    return _act(observation, mask, gen, a[0], a[1], a[2], a[3])


class TockBatchedRuleAgent(BatchedTwin):
    """:class:`TockRuleAgent` for a batch: its knobs, its decisions, its draws."""

    def act(
        self, observations: np.ndarray, masks: np.ndarray, generators: Any, rows: np.ndarray
    ) -> np.ndarray:
        out = np.empty(rows.size, np.int64)
        _act_rows(observations, masks, generators, rows, *self._knobs(), out)
        return out

    def row_act(self) -> tuple[Any, Any]:
        return self._knobs(), act1

    def _knobs(self) -> tuple[float, float, float, int]:
        a = self.agent
        return float(a.vigilance), float(a.false_knock_rate), float(a.cheat_rate), TARGETS.index(a.target)
