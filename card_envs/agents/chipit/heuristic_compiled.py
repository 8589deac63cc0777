""":class:`card_envs.agents.chipit.heuristic.ChipItHeuristicAgent`, compiled for a batch of games.

Why: the heuristic player is the gauntlet's hardest Chip It line-up and a league entry, and
in Python it held training against it to about 370 PPO steps a second (it prices a play at
every one of 128 values at each decision). The decisions are the reference's, step for
step: the same plan at each value (the cheapest cards, ties broken by the same card order),
the same scores in the same float operations, the first of equal scores kept.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from card_envs.agents.chipit import heuristic as H
from card_envs.agents.chipit.compiled import read_hand, read_phase
from card_envs.batched.policy import FieldsTwin
from card_envs.core.compiled import key_compiled_cache
from card_envs.games.chipit import arith
from card_envs.games.chipit import cards as C
from card_envs.games.chipit import encoding as E
from card_envs.games.chipit.arith import chip_cost
from card_envs.games.chipit.cards import IMPOSSIBLE, NUM_TYPES

key_compiled_cache(__name__, H.__file__, arith.__file__, C.__file__, E.__file__)

CARD_ORDER = np.array(H.CARD_ORDER, dtype=np.int64)
CARDS_PHASE = E.PHASES.index("cards")
UNITS_PHASE = E.PHASES.index("units")
LOW, HIGH = H.VALUES.start, H.VALUES.stop
NO_VALUE = -1
#: the observation fields the player reads, in the order of ``starts``
FIELDS = (
    "phase", "hand", "chips", "supply", "to_beat_count", "build_value", "build_cards",
    "hand_sizes", "finished", "to_beat_seat",
)  # fmt: skip
(F_PHASE, F_HAND, F_CHIPS, F_SUPPLY, F_BEAT_COUNT, F_BUILD_VALUE, F_BUILD_CARDS, F_SIZES,
 F_FINISHED, F_BEAT_SEAT) = range(len(FIELDS))  # fmt: skip


@njit(cache=True)
def _plan(hand, value, to_beat_count, supply, chip_weight, chosen):
    """The reference ``_Table.plan``: ``chosen`` gets the cards laid at ``value`` (counts per
    type); returns (cards, chip points they need)."""
    copies = np.empty(int(hand.sum()), np.int64)
    m = 0
    for t in CARD_ORDER:  # the copies in card order, then a stable sort by cost
        if chip_cost(t, value) < IMPOSSIBLE:
            for _ in range(hand[t]):
                copies[m] = t
                m += 1
    for i in range(1, m):  # insertion sort: stable, as list.sort
        t = copies[i]
        j = i - 1
        while j >= 0 and chip_cost(copies[j], value) > chip_cost(t, value):
            copies[j + 1] = copies[j]
            j -= 1
        copies[j + 1] = t
    chosen[:] = 0
    count, chips = 0, 0
    budget = supply
    for i in range(m):
        t = copies[i]
        cost = chip_cost(t, value)
        if to_beat_count:
            if count == to_beat_count:
                break
        elif not ((count == 0 or chip_weight * cost <= H.LEAD_EXTRA) and cost <= budget):
            continue
        chosen[t] += 1
        count += 1
        chips += cost
        budget -= cost
    return count, chips


@njit(cache=True)
def _gain(count, chips, value, cards, held, chip_weight):
    """The reference ``_Table.gain``."""
    if count == cards and chips == 0 and held == 0:
        return 1000.0
    return count - chip_weight * chips - H.LOW_FIRST * value


@njit(cache=True)
def _act(obs, mask, starts, n):
    phase = read_phase(obs, starts[F_PHASE])
    hand = read_hand(obs, starts[F_HAND])
    cards = int(hand.sum())
    held = int(obs[starts[F_CHIPS]])
    supply = int(obs[starts[F_SUPPLY]])
    to_beat_count = int(obs[starts[F_BEAT_COUNT]])
    # opponents who could go out soon, and how near the end is
    nearest, most_threat, to_beat_seat = cards, -1, -1
    for i in range(n):
        if to_beat_seat < 0 and obs[starts[F_BEAT_SEAT] + i] != 0:
            to_beat_seat = i
    beaten_is_threat = False
    for i in range(1, n):
        if obs[starts[F_FINISHED] + i] > 0:
            continue
        size = int(obs[starts[F_SIZES] + i])
        nearest = min(nearest, size)
        if size <= H.THREAT:
            most_threat = max(most_threat, size)
            beaten_is_threat = beaten_is_threat or i == to_beat_seat
    urgency = min(max((H.HORIZON - nearest) / H.HORIZON, 0.0), 1.0)
    chip_weight = H.CHIP_WEIGHT + (1.0 - H.CHIP_WEIGHT) * urgency
    chosen = np.zeros(NUM_TYPES, np.int64)
    if phase == CARDS_PHASE:
        value = int(obs[starts[F_BUILD_VALUE]])
        _plan(hand, value, to_beat_count, supply, chip_weight, chosen)
        for t in range(NUM_TYPES):
            if chosen[t] - int(obs[starts[F_BUILD_CARDS] + t]) > 0 and mask[E.CARD + t]:
                return E.CARD + t
        if mask[E.DONE]:
            return E.DONE
        best, best_cost = -1, IMPOSSIBLE + 1
        for t in range(NUM_TYPES):  # not reached: the plan fits the mask
            if mask[E.CARD + t] and chip_cost(t, value) < best_cost:
                best, best_cost = t, chip_cost(t, value)
        return E.CARD + best
    if phase == UNITS_PHASE:
        for b in range(E.BLOCK):
            if mask[E.UNITS + b]:
                return E.UNITS + b
    best, best_score = NO_VALUE, -np.inf
    for value in range(LOW, HIGH):
        if not mask[E.VALUE + value - E.MIN_VALUE]:
            continue
        count, chips = _plan(hand, value, to_beat_count, supply, chip_weight, chosen)
        score = _gain(count, chips, value, cards, held, chip_weight)
        if to_beat_count == 0 and most_threat >= 0 and count > most_threat:
            score += H.BLOCK
        if score > best_score:
            best, best_score = value, score
    if best != NO_VALUE and to_beat_count:  # an answer: only if it gains more than a pass
        bonus = H.TEMPO + (H.BLOCK if beaten_is_threat else 0.0)
        if not best_score + bonus > H.RETURN_WEIGHT * min(E.MAX_RETURN, held):
            best = NO_VALUE
    if best != NO_VALUE:
        return E.VALUE + best - E.MIN_VALUE
    for r in range(E.MAX_RETURN, -1, -1):
        if mask[E.PASS + r]:
            return E.PASS + r
    for a in range(mask.size):  # no pass offered (not reached): stay legal
        if mask[a]:
            return a
    raise ValueError("ChipItBatchedHeuristicAgent was asked to act with an empty action mask")


@njit(cache=True)
def _act_rows(observations, masks, rows, starts, n, out):
    for i in range(rows.size):
        out[i] = _act(observations[i], masks[i], starts, n)


@njit(cache=True)
def act1(a, observation, mask, gen):
    """One row's decision (:meth:`BatchedPolicy.row_act`); ``a`` = (starts, players)."""
    return _act(observation, mask, a[0], a[1])


class ChipItBatchedHeuristicAgent(FieldsTwin):
    """:class:`ChipItHeuristicAgent` for a batch: its decisions (it draws no random numbers)."""

    rows = staticmethod(_act_rows)
    act1 = staticmethod(act1)

    def __init__(self, agent: H.ChipItHeuristicAgent) -> None:
        super().__init__(agent, E.observation_layout(agent.num_players).starts(FIELDS))
