"""Which plays are possible: the arithmetic behind the action mask (no game state here).

Everything works on a hand given as counts per card type. Two questions are
asked: which common values can ``k`` cards of the hand show with at most
``supply`` chip points in total (``feasible_values``), and, while a play is
being built at a fixed value, which card types keep a completion possible
(``card_options``). Both use the same fact: the cheapest way to show value
``T`` with ``k`` cards takes the ``k`` cards that need the fewest chips.
"""

from __future__ import annotations

import numpy as np

from card_envs.games.chipit.cards import COST, MAX_VALUE, NUM_TYPES, card_cost, card_value


def hand_copies(hand: list[int]) -> list[int]:
    """Card types of a hand, one entry per card."""
    return [t for t in range(NUM_TYPES) for _ in range(hand[t])]


def feasible_values(hand: list[int], k: int, lo: int, supply: int) -> np.ndarray:
    """Bool array over values 0..MAX_VALUE: can ``k`` cards of ``hand`` show value T >= ``lo``?

    With ``k == 1`` this is also the set of values a lead can use (a lead of
    several cards at T includes a single card at T).
    """
    out = np.zeros(MAX_VALUE + 1, dtype=bool)
    copies = [t for t in range(NUM_TYPES) if hand[t]] if k == 1 else hand_copies(hand)
    if len(copies) < k:
        return out
    # every one of the k cards must reach T on its own: T <= the k-th highest single reach
    reach = sorted((card_value(t, supply) for t in copies), reverse=True)
    hi = min(reach[k - 1], MAX_VALUE)
    if hi < lo:
        return out
    sub = COST[:, lo : hi + 1][copies]
    best = sub.min(axis=0) if k == 1 else np.partition(sub, k - 1, axis=0)[:k].sum(axis=0)
    out[lo : hi + 1] = best <= supply
    return out


def cheapest_cost(hand: list[int], k: int, value: int) -> int | None:
    """Fewest chip points with which ``k`` cards of ``hand`` show ``value`` (None if impossible)."""
    costs = []
    for t in range(NUM_TYPES):
        if hand[t]:
            c = card_cost(t, value)
            if c is not None:
                costs.extend([c] * hand[t])
    if len(costs) < k:
        return None
    costs.sort()
    return sum(costs[:k])


def card_options(hand: list[int], value: int, need: int, budget: int) -> list[int]:
    """Card types that may be added to a play at ``value`` and keep it completable.

    ``hand`` holds the cards not yet chosen; ``budget`` is the supply left
    after the chips of the cards already chosen. For an answer ``need`` cards
    are still to come (this one included): the type qualifies if it plus the
    ``need - 1`` cheapest other cards fit the budget. For a lead ``need`` is 0:
    any single card that fits the budget qualifies.
    """
    cost_of = {}
    for t in range(NUM_TYPES):
        if hand[t]:
            c = card_cost(t, value)
            if c is not None and c <= budget:
                cost_of[t] = c
    if need <= 1:
        return list(cost_of)
    costs = sorted(c for t, c in cost_of.items() for _ in range(hand[t]))
    if len(costs) < need:
        return []
    cheapest = sum(costs[:need])
    rest = sum(costs[: need - 1])
    threshold = costs[need - 1]
    # a card no dearer than the need-th cheapest is part of a cheapest completion;
    # a dearer one replaces that need-th card
    return [t for t, c in cost_of.items() if (cheapest if c <= threshold else c + rest) <= budget]
