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

from card_envs.games.chipit.cards import COST, IMPOSSIBLE, MAX_VALUE, NUM_TYPES, card_cost, card_value


def hand_copies(hand: list[int]) -> list[int]:
    """Card types of a hand, one entry per card."""
    return [t for t in range(NUM_TYPES) for _ in range(hand[t])]


def cheapest_costs(hand: list[int], k: int, top: int = MAX_VALUE) -> np.ndarray:
    """Per value T (0..``top``): fewest chip points for ``k`` cards of ``hand`` to show T."""
    copies = hand_copies(hand)
    if len(copies) < k or k < 1:
        return np.full(top + 1, IMPOSSIBLE, dtype=np.int64)
    sub = COST[copies, : top + 1]
    if k == 1:
        return sub.min(axis=0).astype(np.int64)
    return np.partition(sub, k - 1, axis=0)[:k].sum(axis=0, dtype=np.int64)


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


def affordable_costs(hand: list[int], value: int, budget: int, min_type: int = 0) -> dict[int, int]:
    """Chip cost per card type of ``hand`` (``min_type`` on) showing ``value`` within ``budget``."""
    costs = {}
    for t in range(min_type, NUM_TYPES):
        if hand[t]:
            c = card_cost(t, value)
            if c is not None and c <= budget:
                costs[t] = c
    return costs


def completion_cost(hand: list[int], costs: dict[int, int], t: int, need: int) -> int | None:
    """Fewest chips for card type ``t`` plus ``need - 1`` more cards of types ``>= t`` (None if too few)."""
    others = sorted(c for u, c in costs.items() if u >= t for _ in range(hand[u] - (u == t)))
    if len(others) < need - 1:
        return None
    return costs[t] + sum(others[: need - 1])


def card_options(hand: list[int], value: int, need: int, budget: int, min_type: int = 0) -> list[int]:
    """Card types that may be added next to a play at ``value`` and keep it completable.

    The cards of a play are added in ascending type order, so each play is
    exactly one sequence of actions: only types ``>= min_type`` (the type
    added last) are offered. ``hand`` holds the cards not yet chosen;
    ``budget`` is the supply left after the chips of the cards already chosen.
    For an answer ``need`` cards are still to come (this one included): a type
    qualifies if it plus the ``need - 1`` cheapest cards of the same or higher
    types fit the budget. For a lead ``need`` is 0: any card that fits qualifies.
    """
    costs = affordable_costs(hand, value, budget, min_type)
    if need <= 1:
        return list(costs)
    return [t for t in costs if (c := completion_cost(hand, costs, t, need)) is not None and c <= budget]
