""":class:`card_envs.agents.tock.heuristic.TockHeuristicAgent`, compiled for a batch of games.

Why: the heuristic player is one of the gauntlet's two hardest Tock line-ups; on the batched
engine (training against it, a search's rollouts of Tock's 1,250-decision games) the Python
player was called row by row, and a search's heuristic rollouts ran at an eighth of the
rule-based ones' speed (``bench/heuristic_twins.py``). The decisions are the reference's,
step for step: the same sort key for the opponent a card is given to, the first of equal keys
kept (ascending actions, as ``max`` over them).
"""

from __future__ import annotations

from numba import njit

from card_envs.agents.tock import heuristic as H
from card_envs.agents.tock.compiled import rule_following_rest
from card_envs.batched.policy import FieldsTwin
from card_envs.core.compiled import key_compiled_cache
from card_envs.games.tock import cards, encoding
from card_envs.games.tock.cards import MAX_ROWS
from card_envs.games.tock.encoding import (
    CENTRE,
    FIRST_OPPONENT,
    KNOCK,
    LAST_OPPONENT,
    LAYOUT,
    PASS,
)

key_compiled_cache(__name__, H.__file__, cards.__file__, encoding.__file__)

#: the observation fields the player reads, in the order of ``starts``
FIELDS = (
    "phase", "move_break", "centre", "pile_top", "pile_size", "stack_size", "supply_size",
    "card", "card_source", "finished",
)  # fmt: skip
(F_PHASE, F_BREAK, F_CENTRE, F_TOP, F_PILE, F_STACK, F_SUPPLY, F_CARD, F_SOURCE,
 F_FINISHED) = range(len(FIELDS))  # fmt: skip


@njit(cache=True)
def _fits_centre(card, obs, starts):
    """The reference ``_fits_centre``: a 1 while a row is free, or the next card of a row."""
    opened = 0
    for r in range(MAX_ROWS):
        top = obs[starts[F_CENTRE] + r]
        if top > 0:
            opened += 1
            if top == card - 1:
                return True
    return card == 1 and opened < MAX_ROWS


@njit(cache=True)
def _finishes(obs, starts):
    """The reference ``_finishes``: placing the card anywhere but the own pile empties our hand."""
    if obs[starts[F_SUPPLY]] != 0 or obs[starts[F_STACK]] != 0:
        return False
    drawn = obs[starts[F_SOURCE] + 1] != 0
    return obs[starts[F_PILE]] == (0 if drawn else 1)


@njit(cache=True)
def _passes_on(obs, starts, k, card, n):
    """Whether relative seat ``k`` can pass ``card`` on: it fits the centre or another open pile."""
    if _fits_centre(card, obs, starts):
        return True
    for j in range(1, n):
        top = obs[starts[F_TOP] + j]
        if j != k and obs[starts[F_FINISHED] + j] == 0 and top != 0 and abs(int(top) - card) == 1:
            return True
    return False


@njit(cache=True)
def _target(obs, mask, starts, n):
    """The reference ``_target``: the largest key (-held, sticks, -k), the first of equal keys."""
    card = int(obs[starts[F_CARD]])
    best, best_key = -1, (0.0, 0.0, 0.0)
    for k in range(FIRST_OPPONENT, LAST_OPPONENT + 1):
        if not mask[k]:
            continue
        held = float(obs[starts[F_PILE] + k] + obs[starts[F_STACK] + k])
        key = (-held, 0.0 if _passes_on(obs, starts, k, card, n) else 1.0, -float(k))
        if best < 0 or key > best_key:
            best, best_key = k, key
    return best


@njit(cache=True)
def _act(obs, mask, starts, n):
    if obs[starts[F_PHASE] + 1] != 0:  # a knock window: knock every rule break and nothing else
        return KNOCK if obs[starts[F_BREAK]] != 0 and mask[KNOCK] else PASS
    target = _target(obs, mask, starts, n)
    if mask[CENTRE]:
        if target >= 0 and _finishes(obs, starts):
            return target  # rule break (b), but no window opens
        return CENTRE
    if target >= 0:
        return target
    return rule_following_rest(mask)


@njit(cache=True)
def _act_rows(observations, masks, rows, starts, n, out):
    for i in range(rows.size):
        out[i] = _act(observations[i], masks[i], starts, n)


@njit(cache=True)
def act1(a, observation, mask, gen):
    """One row's decision (:meth:`BatchedPolicy.row_act`); ``a`` = (starts, players)."""
    return _act(observation, mask, a[0], a[1])


class TockBatchedHeuristicAgent(FieldsTwin):
    """:class:`TockHeuristicAgent` for a batch: its decisions (it draws no random numbers)."""

    rows = staticmethod(_act_rows)
    act1 = staticmethod(act1)

    def __init__(self, agent: H.TockHeuristicAgent) -> None:
        super().__init__(agent, LAYOUT.starts(FIELDS))
