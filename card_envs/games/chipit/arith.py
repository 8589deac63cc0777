"""The chip arithmetic of Chip It, written once (docs/rules/chipit.md, "Card values").

A card of type ``t`` with ``p`` chip points on it is worth ``v + p`` (green) or
``v * (1 + p)`` (purple), so the chips it needs to show a target value ``T`` follow from
``T``: green ``T - v`` (``T >= v``), purple ``T / v - 1`` (``T`` a multiple of ``v``).
Everything here follows from that: the cheapest way for ``k`` cards of a hand to show
``T`` (the ``k`` cards that need the fewest chips), which values and card types the mask
offers, and the action that chooses a value. The reference engine, its state checks, the
compiled kernels and both rule agents (reference and compiled) all call these functions.

Why compiled (``@njit(cache=True)``), and imported by the reference engine too: the
engine's mask and observation price a hand at every value, and written as loops these
sweeps run 3 to 13 times slower in plain Python than the numpy code they replace, while
compiled they run 5 to 20 times faster (a few microseconds a call). Plain functions that
only the kernels compile would have made the engine slower or kept a second, numpy copy
of the arithmetic for it. The price is that importing the Chip It engine imports numba
(about half a second once per process, and a compilation per argument type the first
time, kept in numba's on-disk cache); ``tests/test_architecture.py`` says so.

Hands are counts per card type (30 ints); the functions take them as int arrays.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from card_envs.core.compiled import key_compiled_cache
from card_envs.games.chipit import cards
from card_envs.games.chipit import encoding as E
from card_envs.games.chipit.cards import (
    FACE,
    IMPOSSIBLE,
    MAX_GREEN_VALUE,
    MAX_HAND,
    MAX_VALUE,
    NUM_GREEN,
    NUM_TYPES,
)

key_compiled_cache(__name__, cards.__file__, E.__file__)

NUM_PURPLE = NUM_TYPES - NUM_GREEN
NUM_DIRECT = E.NUM_DIRECT_VALUES  # values 2..129, one action (and one observation entry) each
#: face value of each card type
FACE_ARR = np.array(FACE, dtype=np.int64)
#: DIVIDES[T]: bit i set when the purple value i + 2 divides T
DIVIDES = np.array(
    [sum(1 << i for i in range(NUM_PURPLE) if T % (i + 2) == 0) for T in range(MAX_VALUE + 1)],
    dtype=np.int64,
)


def _divisor_table() -> np.ndarray:
    """DIVISORS[T]: the purple face indices i (value i + 2) dividing T, highest first, then -1."""
    table = np.full((MAX_VALUE + 1, NUM_PURPLE + 1), -1, dtype=np.int64)
    for value in range(1, MAX_VALUE + 1):
        found = [i for i in range(NUM_PURPLE - 1, -1, -1) if value % (i + 2) == 0]
        table[value, : len(found)] = found
    return table


DIVISORS = _divisor_table()


# ------------------------------------------------------------------ one card
@njit(cache=True)
def chip_cost(t, value):
    """Chip points card type ``t`` needs to show ``value`` (IMPOSSIBLE if it cannot)."""
    v = FACE_ARR[t]
    if t >= NUM_GREEN:
        if value < v or value % v:
            return IMPOSSIBLE
        return value // v - 1
    return value - v if value >= v else IMPOSSIBLE


@njit(cache=True)
def card_value(t, chips):
    """Value of card type ``t`` carrying ``chips`` points."""
    v = FACE_ARR[t]
    return v * (1 + chips) if t >= NUM_GREEN else v + chips


def card_cost(t: int, value: int) -> int | None:
    """:func:`chip_cost`, with None for a value the card cannot show (for the text and checks)."""
    cost = int(chip_cost(t, value))
    return None if cost == IMPOSSIBLE else cost


# ------------------------------------------------------------ cards of a hand
@njit(cache=True)
def free_counts(hand, out):
    """``out[T - 2] +=`` the cards of ``hand`` showing value T without chips (their face value)."""
    for t in range(NUM_TYPES):
        out[FACE_ARR[t] - E.MIN_VALUE] += hand[t]


@njit(cache=True)
def cheapest_at(hand, k, value):
    """Fewest chips for ``k`` cards of ``hand`` to show ``value``: the ``k`` cheapest (IMPOSSIBLE
    counted for cards that cannot; IMPOSSIBLE if the hand has fewer than ``k`` cards)."""
    size = 0
    for t in range(NUM_TYPES):
        if hand[t] > 0:
            size += hand[t]
    if size < k or k < 1:
        return IMPOSSIBLE
    costs = np.empty(NUM_TYPES, np.int64)
    left = np.zeros(NUM_TYPES, np.int64)
    for t in range(NUM_TYPES):
        costs[t] = chip_cost(t, value)
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
def purple_sum(hand, value, k, limit):
    """Fewest chips for ``k`` purple cards of ``hand`` to show ``value`` (> ``limit`` if none fit).

    Purple cards are the only ones that can show values above 129; the cheapest is the
    largest face value dividing ``value``."""
    bits = DIVIDES[value]
    total = 0
    need = k
    for i in range(NUM_PURPLE - 1, -1, -1):
        if bits >> i & 1:
            c = hand[NUM_GREEN + i]
            if c:
                cost = value // (i + 2) - 1
                take = c if c < need else need
                total += take * cost
                need -= take
                if need == 0 or total > limit:
                    break
    if need:
        return limit + 1
    return total


@njit(cache=True)
def play_costs(hand, k, out):
    """``out[T - 2]``: fewest chips for ``k`` cards of ``hand`` to show T = 2..129, capped at NO_PLAY.

    The sum of the ``k`` cheapest cards at T, by exact sweeps over the few cards of a hand:
    the green cards at T cost T - v, cheapest from the highest face value not above T; the
    purple ones T / v - 1 for each face value v dividing T, cheapest from the highest v."""
    size = 0
    for t in range(NUM_TYPES):
        size += hand[t]
    if size < k or k < 1:
        out[:] = E.NO_PLAY
        return
    if k == 1:  # one sweep for the greens, then the multiples of each purple face value
        top = -1  # the highest green face value <= T in the hand
        for value in range(E.MIN_VALUE, MAX_GREEN_VALUE + 1):
            if value < E.MIN_VALUE + NUM_GREEN and hand[value - E.MIN_VALUE]:
                top = value
            cost = value - top if top > 0 else E.NO_PLAY
            out[value - E.MIN_VALUE] = cost if cost < E.NO_PLAY else E.NO_PLAY
        for i in range(NUM_PURPLE):
            if hand[NUM_GREEN + i]:
                v = i + 2
                for m in range(1, MAX_GREEN_VALUE // v + 1):
                    if m - 1 < out[m * v - E.MIN_VALUE]:
                        out[m * v - E.MIN_VALUE] = m - 1
        return
    greens = np.empty(MAX_HAND, np.int64)  # green face values, ascending
    prefix = np.zeros(MAX_HAND + 1, np.int64)  # prefix[j]: sum of greens[:j]
    m = 0
    for t in range(NUM_GREEN):
        for _ in range(hand[t]):
            greens[m] = FACE_ARR[t]
            prefix[m + 1] = prefix[m] + FACE_ARR[t]
            m += 1
    pmask = 0
    for i in range(NUM_PURPLE):
        if hand[NUM_GREEN + i]:
            pmask |= 1 << i
    j = 0  # greens[:j] are the green cards with face value <= T
    for value in range(E.MIN_VALUE, MAX_GREEN_VALUE + 1):
        while j < m and greens[j] <= value:
            j += 1
        if DIVIDES[value] & pmask == 0:  # greens only: the k highest faces not above T
            total = k * value - (prefix[j] - prefix[j - k]) if j >= k else E.NO_PLAY
            out[value - E.MIN_VALUE] = total if total < E.NO_PLAY else E.NO_PLAY
            continue
        total = 0
        need = k
        g = j - 1
        d = 0  # DIVISORS[value, d]: the next purple face index dividing T, highest first
        pleft = 0
        pcost = IMPOSSIBLE
        while need:
            while pleft == 0:
                i = DIVISORS[value, d]
                if i < 0:
                    pcost = IMPOSSIBLE
                    break
                d += 1
                pleft = hand[NUM_GREEN + i]
                pcost = value // (i + 2) - 1
            gcost = value - greens[g] if g >= 0 else IMPOSSIBLE
            if gcost <= pcost:
                if gcost == IMPOSSIBLE:
                    total = E.NO_PLAY
                    break
                total += gcost
                g -= 1
            else:
                total += pcost
                pleft -= 1
            need -= 1
            if total >= E.NO_PLAY:
                break
        out[value - E.MIN_VALUE] = total if total < E.NO_PLAY else E.NO_PLAY


@njit(cache=True)
def cheapest_value(hand, k, lo, limit):
    """The lowest value >= ``lo`` that ``k`` cards of ``hand`` show with the fewest chips, if
    those are at most ``limit`` (at most the 108 chips of the game); else -1.

    Costs above ``limit`` count as ``limit + 1``, which keeps both the first cheapest value
    and whether it is within the limit: above 129 a green card needs at least 109 points,
    so only purple sums are priced there."""
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
    if odd or greens > MAX_HAND:  # outside what the sweep is sized for: one value at a time
        for value in range(start, MAX_VALUE + 1):
            cost = cheapest_at(hand, k, value)
            if cost < best_cost:
                best, best_cost = value, cost
                if cost == 0:
                    break
        return best
    if start <= MAX_GREEN_VALUE:
        direct = np.empty(NUM_DIRECT, np.int64)
        play_costs(hand, k, direct)  # exact up to NO_PLAY, which is above any limit
        for value in range(start, MAX_GREEN_VALUE + 1):
            cost = direct[value - E.MIN_VALUE]
            if cost < best_cost:
                best, best_cost = value, cost
                if cost == 0:
                    return best
    top = 0  # the highest purple face value held: k of them need at least k * (T // top - 1)
    for i in range(NUM_PURPLE):
        if hand[NUM_GREEN + i] > 0:
            top = i + 2
    if limit >= 0 and top > 0:
        for value in range(max(start, E.HIGH_START), MAX_VALUE + 1):
            if k * (value // top - 1) >= best_cost:
                break  # this value and every higher one cost at least as much as the best
            if DIVIDES[value] == 0:
                continue
            cost = purple_sum(hand, value, k, limit)
            if cost < best_cost:
                best, best_cost = value, cost
                if cost == 0:
                    return best
    return best


# ------------------------------------------------------------ a play being built
@njit(cache=True)
def affordable_costs(hand, value, budget, min_type, out):
    """``out[t]``: the chips card type ``t`` (from ``min_type`` on, held) needs to show
    ``value``, if they fit ``budget``; -1 for every other type."""
    out[:] = -1
    for t in range(min_type, NUM_TYPES):
        if hand[t]:
            c = chip_cost(t, value)
            if c != IMPOSSIBLE and c <= budget:
                out[t] = c


@njit(cache=True)
def completion_cost(hand, costs, t, need):
    """Fewest chips for card type ``t`` plus the ``need - 1`` cheapest more cards of types ``>= t``
    (``costs`` from :func:`affordable_costs`: -1 where not affordable); IMPOSSIBLE if too few."""
    if need <= 1:
        return costs[t]
    cheapest = np.empty(need - 1, np.int64)  # the need - 1 cheapest others, ascending
    found = 0
    for u in range(t, NUM_TYPES):
        c = costs[u]
        if c < 0:
            continue
        for _ in range(hand[u] - (1 if u == t else 0)):
            # insert c into the sorted prefix, keeping at most need - 1 entries
            if found < need - 1:
                pos = found
                found += 1
            elif c < cheapest[need - 2]:
                pos = need - 2
            else:
                break
            while pos > 0 and cheapest[pos - 1] > c:
                cheapest[pos] = cheapest[pos - 1]
                pos -= 1
            cheapest[pos] = c
    if found < need - 1:
        return IMPOSSIBLE
    total = costs[t]
    for q in range(need - 1):
        total += cheapest[q]
    return total


@njit(cache=True)
def card_options(rest, value, need, budget, min_type, out):
    """``out[t] = 1`` for the card types that may be added next to a play at ``value`` and keep
    it completable (docs/chipit.md, "Why the moves are built in steps").

    The cards of a play are added in ascending type order, so each play is exactly one
    sequence of actions: only types ``>= min_type`` (the type added last) are offered.
    ``rest`` holds the cards not yet chosen; ``budget`` is the supply left after the chips
    of the cards already chosen. For an answer ``need`` cards are still to come (this one
    included): a type qualifies if it plus the ``need - 1`` cheapest cards of the same or
    higher types fit the budget. For a lead ``need`` is 0: any card that fits qualifies."""
    costs = np.empty(NUM_TYPES, np.int64)
    affordable_costs(rest, value, budget, min_type, costs)
    for t in range(min_type, NUM_TYPES):
        if costs[t] >= 0 and (need <= 1 or completion_cost(rest, costs, t, need) <= budget):
            out[t] = 1


# -------------------------------------------------------------------- the mask
@njit(cache=True)
def value_action(value):
    """The action that chooses ``value``: VALUE directly up to 129, else its HIGH block."""
    if value <= E.HIGH_START - 1:
        return E.VALUE + value - E.MIN_VALUE
    return E.HIGH + (value - E.HIGH_START) // E.BLOCK


@njit(cache=True)
def mark_values(costs, lo, supply, mask):
    """The VALUE actions: values ``lo``..129 whose :func:`play_costs` ``costs`` fit ``supply``."""
    for value in range(lo, MAX_GREEN_VALUE + 1):
        mask[E.VALUE + value - E.MIN_VALUE] = costs[value - E.MIN_VALUE] <= supply


@njit(cache=True)
def mark_blocks(hand, k, lo, supply, mask):
    """The HIGH actions: blocks of ten values above 129 holding a value >= ``lo`` that ``k``
    cards of ``hand`` can show within ``supply`` (only purple cards reach them)."""
    low = lo if lo > E.HIGH_START else E.HIGH_START
    count = 0
    for i in range(NUM_PURPLE):
        count += hand[NUM_GREEN + i]
    if count < k:
        return
    for i in range(NUM_PURPLE - 1, -1, -1):
        if hand[NUM_GREEN + i] == 0:
            continue
        v = i + 2
        top = v * (supply + 1)  # the highest value this card reaches
        if top > MAX_VALUE:
            top = MAX_VALUE
        value = (low + v - 1) // v * v
        if k == 1 and v <= E.BLOCK and value <= top:
            # every block of ten values between two multiples of v holds one: fill the range
            last = top // v * v
            for j in range((value - E.HIGH_START) // E.BLOCK, (last - E.HIGH_START) // E.BLOCK + 1):
                mask[E.HIGH + j] = 1
            continue
        while value <= top:
            j = (value - E.HIGH_START) // E.BLOCK
            if mask[E.HIGH + j]:  # the block is in already: on to the next one
                value = (E.HIGH_START + E.BLOCK * (j + 1) + v - 1) // v * v
                continue
            if k == 1 or purple_sum(hand, value, k, supply) <= supply:
                mask[E.HIGH + j] = 1
                value = (E.HIGH_START + E.BLOCK * (j + 1) + v - 1) // v * v
            else:
                value += v


@njit(cache=True)
def mark_units(hand, k, lo, low, supply, mask):
    """The UNITS actions of the block from ``low``: its values >= ``lo`` that ``k`` cards of
    ``hand`` can show within ``supply``."""
    start = lo if lo > low else low
    for value in range(start, low + E.BLOCK):
        if purple_sum(hand, value, k, supply) <= supply:
            mask[E.UNITS + value - low] = 1
