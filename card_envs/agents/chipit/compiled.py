""":class:`card_envs.agents.chipit.rules.ChipItRuleAgent`, compiled for a batch of games.

The reference prices every value 0..1199 with ``moves.cheapest_costs`` (numpy over the
whole ``COST`` table). Here the values 2..129 come from the engine's exact sweep
(``_play_costs``, capped at ``NO_PLAY``) and the values above 129 from its purple sums:
a green card needs at least 109 points there, more than ``max_chips`` can ever allow, so
capping every cost just above the chip limit keeps both the cheapest value (first among
equals) and the decision to pass exactly as the reference's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from card_envs.agents.chipit.rules import ChipItRuleAgent
from card_envs.batched.policy import BatchedTwin
from card_envs.batched.sampling import random_legal
from card_envs.core.compiled import key_compiled_cache
from card_envs.games.chipit import cards as C
from card_envs.games.chipit import encoding as E
from card_envs.games.chipit import kernels as B
from card_envs.games.chipit.cards import (
    IMPOSSIBLE,
    MAX_GREEN_VALUE,
    MAX_HAND,
    MAX_VALUE,
    NUM_GREEN,
    NUM_TYPES,
)
from card_envs.games.chipit.kernels import DIVIDES, FACE_ARR, _cost, _play_costs, _purple_sum

key_compiled_cache(__name__, B.__file__, C.__file__, E.__file__)

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
def _cheapest_at(hand, k, value):
    """``moves.cheapest_costs(hand, k)[value]`` exactly: the sum of the ``k`` cheapest cards.

    For the few values priced one by one (a HIGH block's units, odd hands)."""
    size = 0
    for t in range(NUM_TYPES):
        if hand[t] > 0:
            size += hand[t]
    if size < k or k < 1:
        return IMPOSSIBLE
    costs = np.empty(NUM_TYPES, np.int64)
    left = np.zeros(NUM_TYPES, np.int64)
    for t in range(NUM_TYPES):
        costs[t] = _cost(t, value)
        if hand[t] > 0:
            left[t] = hand[t]
    total = 0
    need = k
    while need:
        best = -1
        for t in range(NUM_TYPES):
            if left[t] and (best < 0 or costs[t] < costs[best]):
                best = t
        take = left[best] if left[best] < need else need
        total += take * costs[best]
        left[best] = 0
        need -= take
    return total


@njit(cache=True)
def _value_action(value):
    if value <= E.HIGH_START - 1:
        return E.VALUE + value - E.MIN_VALUE
    return E.HIGH + (value - E.HIGH_START) // E.BLOCK


@njit(cache=True)
def _pass(held, return_points):
    most = return_points if return_points < held else held
    return E.PASS + (most if most < E.MAX_RETURN else E.MAX_RETURN)


@njit(cache=True)
def _lead(hand, prefer_sets):
    """The reference ``_lead``: the value most cards show without chips (lowest first), or the
    lowest such value; -1 for an empty hand (where the reference fails)."""
    counts = np.zeros(NUM_GREEN + E.MIN_VALUE, np.int64)  # a card shows its face value for free
    for t in range(NUM_TYPES):
        counts[FACE_ARR[t]] += hand[t]
    best = -1
    for value in range(E.MIN_VALUE, counts.size):
        if counts[value] != 0:
            if not prefer_sets:
                return value
            if best < 0 or counts[value] > counts[best]:  # ties keep the lower value, as argmax
                best = value
    return best


@njit(cache=True)
def _answer_value(hand, k, lo, limit):
    """The lowest value >= ``lo`` that ``k`` cards show with the fewest chips, if at most
    ``limit``; else -1 (pass). Costs above ``limit`` are capped at ``limit + 1``: the first
    cheapest value, and whether it is within the limit, stay the reference's."""
    if lo > MAX_VALUE:
        return -1
    cap = limit + 1
    start = lo if lo > E.MIN_VALUE else E.MIN_VALUE
    greens, odd = 0, False
    for t in range(NUM_TYPES):
        if hand[t] < 0:
            odd = True
        elif t < NUM_GREEN:
            greens += hand[t]
    best, best_cost = -1, cap
    if odd or greens > MAX_HAND:  # outside what the engine's sweep is sized for: one by one
        for value in range(start, MAX_VALUE + 1):
            cost = _cheapest_at(hand, k, value)
            if cost < best_cost:
                best, best_cost = value, cost
                if cost == 0:
                    break
        return best
    if start <= MAX_GREEN_VALUE:
        direct = np.empty(E.NUM_DIRECT_VALUES, np.int64)
        _play_costs(hand, k, direct)  # exact up to NO_PLAY, which is above any limit
        for value in range(start, MAX_GREEN_VALUE + 1):
            cost = direct[value - E.MIN_VALUE]
            if cost < best_cost:
                best, best_cost = value, cost
                if cost == 0:
                    return best
    if limit >= 0:  # above 129 only purple cards stay within a limit of at most 108 points
        for value in range(max(start, E.HIGH_START), MAX_VALUE + 1):
            if DIVIDES[value] == 0:
                continue
            cost = _purple_sum(hand, value, k, limit)
            if cost < best_cost:
                best, best_cost = value, cost
                if cost == 0:
                    return best
    return best


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
        return _value_action(value) if value >= 0 else -1
    supply = int(obs[starts[F_SUPPLY]])
    limit = max_chips if max_chips < supply else supply
    value = _answer_value(hand, k, int(obs[starts[F_BEAT_VALUE]]) + 1, limit)
    if value < 0:
        return _pass(held, return_points)
    return _value_action(value)


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
            cost = _cheapest_at(hand, k, low + b)
        if best_cost < 0 or cost < best_cost:
            best, best_cost = b, cost
    return E.UNITS + best


@njit(cache=True)
def _completion_cost(rest, costs, t, need):
    """``moves.completion_cost``: type ``t`` plus the ``need - 1`` cheapest cards of types
    ``>= t`` (``costs[u] < 0``: not affordable); IMPOSSIBLE if too few."""
    others = np.empty(2 * NUM_TYPES * 2 + 1, np.int64)
    m = 0
    for u in range(t, NUM_TYPES):
        if costs[u] < 0:
            continue
        for _ in range(rest[u] - (1 if u == t else 0)):
            if m == others.size:  # more copies than a hand holds: grow
                grown = np.empty(2 * m, np.int64)
                grown[:m] = others
                others = grown
            others[m] = costs[u]
            m += 1
    if m < need - 1:
        return IMPOSSIBLE
    others = np.sort(others[:m])
    total = costs[t]
    for q in range(need - 1):
        total += others[q]
    return total


@njit(cache=True)
def _card(obs, mask, hand, starts):
    """The reference ``_card``: DONE once the chip-free set is out, else the next card."""
    value = int(obs[starts[F_BUILD_VALUE]])
    leading = int(obs[starts[F_BEAT_COUNT]]) == 0
    count, free = 0, False
    for t in range(NUM_TYPES):
        if mask[E.CARD + t]:
            count += 1
            if _cost(t, value) == 0:
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
        costs = np.full(NUM_TYPES, -1, np.int64)  # affordable_costs: -1 for types left out
        for t in range(NUM_TYPES):
            if rest[t]:
                c = _cost(t, value)
                if c != IMPOSSIBLE and c <= budget:
                    costs[t] = c
        for t in range(NUM_TYPES):  # ascending t: ties keep the lowest type, as min(key=(cost, t))
            if not mask[E.CARD + t]:
                continue
            cost = IMPOSSIBLE if costs[t] < 0 else _completion_cost(rest, costs, t, need)
            if best < 0 or cost < best_cost:
                best, best_cost = t, cost
        return E.CARD + best
    for t in range(NUM_TYPES):
        if mask[E.CARD + t]:
            cost = _cost(t, value)
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
    phase, top = 0, obs[starts[F_PHASE]]
    for i in range(1, len(E.PHASES)):  # argmax: the first of equals
        if obs[starts[F_PHASE] + i] > top:
            phase, top = i, obs[starts[F_PHASE] + i]
    hand = np.empty(NUM_TYPES, np.int64)
    for t in range(NUM_TYPES):
        hand[t] = int(obs[starts[F_HAND] + t])
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


class ChipItBatchedRuleAgent(BatchedTwin):
    """:class:`ChipItRuleAgent` for a batch: its knobs, its decisions, its draws."""

    def __init__(self, agent: ChipItRuleAgent) -> None:
        super().__init__(agent)
        layout = E.observation_layout(agent.num_players)
        self._starts = np.array([layout.slices[f].start for f in FIELDS], dtype=np.int64)

    def act(
        self, observations: np.ndarray, masks: np.ndarray, generators: Any, rows: np.ndarray
    ) -> np.ndarray:
        a = self.agent
        out = np.empty(rows.size, np.int64)
        knobs = (a.max_chips, a.return_points, bool(a.prefer_sets), float(a.mistake_rate))
        _act_rows(observations, masks, generators, rows, self._starts, *knobs, out)
        return out
