""":class:`card_envs.agents.chipit.rules.ChipItRuleAgent`, compiled for a batch of games.

The decisions are the reference's, line for line; the chip arithmetic both agents price
plays with is the game's own (:mod:`card_envs.games.chipit.arith`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from card_envs.agents.chipit.rules import ChipItRuleAgent
from card_envs.batched.policy import BatchedTwin
from card_envs.batched.sampling import random_legal
from card_envs.core.compiled import key_compiled_cache
from card_envs.games.chipit import arith
from card_envs.games.chipit import cards as C
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
from card_envs.games.chipit.cards import IMPOSSIBLE, NUM_TYPES

key_compiled_cache(__name__, arith.__file__, C.__file__, E.__file__)

UNITS_PHASE = E.PHASES.index("units")
CARDS_PHASE = E.PHASES.index("cards")
#: the observation fields the agent reads, in the order of ``starts``
FIELDS = (
    "phase", "hand", "chips", "to_beat_count", "to_beat_value", "supply",
    "build_value", "build_block", "build_cards", "build_chips", "build_needed",
)  # fmt: skip
(F_PHASE, F_HAND, F_CHIPS, F_BEAT_COUNT, F_BEAT_VALUE, F_SUPPLY, F_BUILD_VALUE, F_BUILD_BLOCK,
 F_BUILD_CARDS, F_BUILD_CHIPS, F_BUILD_NEEDED) = range(len(FIELDS))  # fmt: skip


@njit(cache=True)
def read_phase(obs, start):
    """The phase of a Chip It observation whose one-hot ``phase`` begins at ``start`` (argmax:
    the first of equals)."""
    phase, top = 0, obs[start]
    for i in range(1, len(E.PHASES)):
        if obs[start + i] > top:
            phase, top = i, obs[start + i]
    return phase


@njit(cache=True)
def read_hand(obs, start):
    """The own hand (counts per card type) of a Chip It observation whose ``hand`` begins at ``start``."""
    hand = np.empty(NUM_TYPES, np.int64)
    for t in range(NUM_TYPES):
        hand[t] = int(obs[start + t])
    return hand


@njit(cache=True)
def _pass(held, return_points):
    most = return_points if return_points < held else held
    return E.PASS + (most if most < E.MAX_RETURN else E.MAX_RETURN)


@njit(cache=True)
def _lead(hand, prefer_sets):
    """The reference ``_lead``: the value most cards show without chips (lowest first), or the
    lowest such value; -1 for an empty hand (where the reference fails)."""
    counts = np.zeros(NUM_DIRECT, np.int64)
    free_counts(hand, counts)
    best = -1
    for i in range(NUM_DIRECT):
        if counts[i] != 0:
            if not prefer_sets:
                return i + E.MIN_VALUE
            if best < 0 or counts[i] > counts[best]:  # ties keep the lower value, as argmax
                best = i
    return best if best < 0 else best + E.MIN_VALUE


@njit(cache=True)
def _value(obs, mask, hand, starts, max_chips, return_points, prefer_sets):
    """The reference ``_value``: lead, answer or pass."""
    held = int(obs[starts[F_CHIPS]])
    playable = False
    for a in range(E.VALUE, E.DONE):
        if mask[a]:
            playable = True
            break
    if not playable:
        return _pass(held, return_points)
    k = int(obs[starts[F_BEAT_COUNT]])
    if k == 0:
        value = _lead(hand, prefer_sets)
        return value_action(value) if value >= 0 else -1
    supply = int(obs[starts[F_SUPPLY]])
    limit = max_chips if max_chips < supply else supply
    value = cheapest_value(hand, k, int(obs[starts[F_BEAT_VALUE]]) + 1, limit)
    if value < 0:
        return _pass(held, return_points)
    return value_action(value)


@njit(cache=True)
def _units(obs, mask, hand, starts):
    """The reference ``_units``: the legal last digit whose value needs the fewest chips."""
    low = int(obs[starts[F_BUILD_BLOCK]])
    k = int(obs[starts[F_BEAT_COUNT]])
    if k < 1:
        k = 1
    best, best_cost = 0, np.int64(-1)
    for b in range(E.BLOCK):
        cost = IMPOSSIBLE
        if mask[E.UNITS + b] > 0:
            cost = cheapest_at(hand, k, low + b)
        if best_cost < 0 or cost < best_cost:
            best, best_cost = b, cost
    return E.UNITS + best


@njit(cache=True)
def _card(obs, mask, hand, starts):
    """The reference ``_card``: DONE once the chip-free set is out, else the next card."""
    value = int(obs[starts[F_BUILD_VALUE]])
    leading = int(obs[starts[F_BEAT_COUNT]]) == 0
    count, free = 0, False
    for t in range(NUM_TYPES):
        if mask[E.CARD + t]:
            count += 1
            if chip_cost(t, value) == 0:
                free = True
    if leading and mask[E.DONE] and not free:
        return E.DONE
    if count == 0:
        return E.DONE
    need = int(obs[starts[F_BUILD_NEEDED]])
    best, best_cost = -1, np.int64(0)
    if need > 1:  # answering: the card that starts the cheapest completion
        rest = np.empty(NUM_TYPES, np.int64)
        for t in range(NUM_TYPES):
            rest[t] = hand[t] - int(obs[starts[F_BUILD_CARDS] + t])
        budget = int(obs[starts[F_SUPPLY]]) - int(obs[starts[F_BUILD_CHIPS]])
        costs = np.empty(NUM_TYPES, np.int64)
        affordable_costs(rest, value, budget, 0, costs)
        for t in range(NUM_TYPES):  # ascending t: ties keep the lowest type, as min(key=(cost, t))
            if not mask[E.CARD + t]:
                continue
            cost = IMPOSSIBLE if costs[t] < 0 else completion_cost(rest, costs, t, need)
            if best < 0 or cost < best_cost:
                best, best_cost = t, cost
        return E.CARD + best
    for t in range(NUM_TYPES):
        if mask[E.CARD + t]:
            cost = chip_cost(t, value)
            if best < 0 or cost < best_cost:
                best, best_cost = t, cost
    return E.CARD + best


@njit(cache=True)
def _act(obs, mask, gen, starts, max_chips, return_points, prefer_sets, mistake_rate):
    legal = 0
    for a in range(mask.size):
        if mask[a]:
            legal += 1
    if legal == 0:
        raise ValueError("ChipItBatchedRuleAgent was asked to act with an empty action mask")
    first = -1
    for a in range(mask.size):
        if mask[a]:
            first = a
            break
    if mistake_rate != 0.0 and gen.random() < mistake_rate:
        return random_legal(mask, gen)  # the reference's legal[rng.integers(legal.size)]
    phase = read_phase(obs, starts[F_PHASE])
    hand = read_hand(obs, starts[F_HAND])
    if phase == CARDS_PHASE:
        action = _card(obs, mask, hand, starts)
    elif phase == UNITS_PHASE:
        action = _units(obs, mask, hand, starts)
    else:
        action = _value(obs, mask, hand, starts, max_chips, return_points, prefer_sets)
    if action < 0 or action >= mask.size or not mask[action]:  # stay legal, as the reference
        action = first
    return action


@njit(cache=True)
def _act_rows(
    observations, masks, gens, rows, starts, max_chips, return_points, prefer_sets, mistake_rate, out
):
    for i in range(rows.size):
        out[i] = _act(
            observations[i],
            masks[i],
            gens[rows[i]],
            starts,
            max_chips,
            return_points,
            prefer_sets,
            mistake_rate,
        )


@njit(cache=True)
def act1(a, observation, mask, gen):
    """One row's decision (:meth:`BatchedPolicy.row_act`); ``a`` = (starts, the knobs)."""
    return _act(observation, mask, gen, a[0], a[1], a[2], a[3], a[4])


class ChipItBatchedRuleAgent(BatchedTwin):
    """:class:`ChipItRuleAgent` for a batch: its knobs, its decisions, its draws."""

    def __init__(self, agent: ChipItRuleAgent) -> None:
        super().__init__(agent)
        self._starts = E.observation_layout(agent.num_players).starts(FIELDS)

    def act(
        self, observations: np.ndarray, masks: np.ndarray, generators: Any, rows: np.ndarray
    ) -> np.ndarray:
        out = np.empty(rows.size, np.int64)
        _act_rows(observations, masks, generators, rows, self._starts, *self._knobs(), out)
        return out

    def row_act(self) -> tuple[Any, Any]:
        return (self._starts, *self._knobs()), act1

    def _knobs(self) -> tuple[int, int, bool, float]:
        a = self.agent
        return int(a.max_chips), int(a.return_points), bool(a.prefer_sets), float(a.mistake_rate)
