""":class:`card_envs.agents.uno.rules.UnoRuleAgent`, compiled for a batch of games."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from card_envs.agents.uno.rules import UnoRuleAgent
from card_envs.batched.policy import BatchedTwin
from card_envs.core.compiled import key_compiled_cache
from card_envs.games.uno import cards as C
from card_envs.games.uno import encoding as E
from card_envs.games.uno.cards import COLOUR_OF, POINTS, RANK_OF

key_compiled_cache(__name__, C.__file__, E.__file__)


@njit(cache=True)
def _colour_counts(obs, hand_start):
    counts = np.zeros(C.NUM_COLOURS, np.float64)
    for t in range(C.NUM_COLOURED):  # by colour, each in rank order
        counts[COLOUR_OF[t]] += obs[hand_start + t]
    return counts


@njit(cache=True)
def _choose_card(obs, mask, hand_start, sizes_start, clockwise_at, n):
    """The reference ``_choose_card``: the highest-scoring coloured card, by colour held most."""
    coloured = 0
    for t in range(C.NUM_COLOURED):
        coloured += mask[E.PLAY + t]
    if coloured == 0:  # so a Draw Four is never a bluff outside a stack
        return C.WILD if mask[E.PLAY + C.WILD] else C.WILD_DRAW_FOUR
    next_seat = 1 if obs[clockwise_at] else n - 1
    attack_only = False
    if obs[sizes_start + next_seat] <= 2:  # attack a player about to win, if it can
        for t in range(C.NUM_COLOURED):
            if mask[E.PLAY + t] and RANK_OF[t] >= C.SKIP:
                attack_only = True
    counts = _colour_counts(obs, hand_start)
    best, best_points, best_count = -1, -1, -1.0
    for t in range(C.NUM_COLOURED):  # ascending t: ties keep the lowest type (the reference's -t)
        if not mask[E.PLAY + t] or (attack_only and RANK_OF[t] < C.SKIP):
            continue
        points, count = POINTS[t], counts[COLOUR_OF[t]]
        if points > best_points or (points == best_points and count > best_count):
            best, best_points, best_count = t, points, count
    return best


@njit(cache=True)
def _act(obs, mask, gen, knobs, starts, n):
    forget_call, catch_rate, challenge_rate = knobs[0], knobs[1], knobs[2]
    hand_start, sizes_start, clockwise_at = starts[0], starts[1], starts[2]
    if mask[E.CATCH]:
        return E.CATCH if gen.random() < catch_rate else E.PASS
    if mask[E.CHOOSE_COLOUR]:
        return E.CHOOSE_COLOUR + np.argmax(_colour_counts(obs, hand_start))
    playable = False
    for t in range(C.NUM_TYPES):
        if mask[E.PLAY + t]:
            playable = True
            break
    if mask[E.CHALLENGE] and not playable and gen.random() < challenge_rate:
        return E.CHALLENGE
    if not playable:
        return E.DRAW if mask[E.DRAW] else E.KEEP
    card = _choose_card(obs, mask, hand_start, sizes_start, clockwise_at, n)
    if mask[E.PLAY_CALL + card] and gen.random() >= forget_call:
        return E.PLAY_CALL + card
    return E.PLAY + card


@njit(cache=True)
def _act_rows(observations, masks, gens, rows, knobs, starts, n, out):
    for i in range(rows.size):
        out[i] = _act(observations[i], masks[i], gens[rows[i]], knobs, starts, n)


@njit(cache=True)
def act1(a, observation, mask, gen):
    """One row's decision (:meth:`BatchedPolicy.row_act`); ``a`` = (knobs, starts, num_players)."""
    return _act(observation, mask, gen, a[0], a[1], a[2])


class UnoBatchedRuleAgent(BatchedTwin):
    """:class:`UnoRuleAgent` for a batch: its knobs, its decisions, its draws."""

    def __init__(self, agent: UnoRuleAgent) -> None:
        super().__init__(agent)
        self._knobs = np.array([agent.forget_call, agent.catch_rate, agent.challenge_rate])
        self._starts = E.observation_layout(agent.num_players).starts(("hand", "hand_sizes", "clockwise"))

    def act(
        self, observations: np.ndarray, masks: np.ndarray, generators: Any, rows: np.ndarray
    ) -> np.ndarray:
        out = np.empty(rows.size, np.int64)
        n = self.agent.num_players
        _act_rows(observations, masks, generators, rows, self._knobs, self._starts, n, out)
        return out

    def row_act(self) -> tuple[Any, Any]:
        return (self._knobs, self._starts, int(self.agent.num_players)), act1
