""":class:`card_envs.agents.uno.heuristic.UnoHeuristicAgent`, compiled for a batch of games.

Why: the heuristic player is the gauntlet's hardest UNO line-up and what UNO's agents imitate
and train against; on the batched engine (training, a search's rollouts) the Python player was
called row by row: about 48,000 decisions a second against the twin's 2.5 million, and a
search's heuristic rollouts ran at a tenth of the rule-based ones' speed
(``bench/heuristic_twins.py``). The decisions are the reference's, step for step: the same
scores in the same float operations, the first of equal scores kept (ascending card types, as
``max`` over them).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from card_envs.agents.uno import heuristic as H
from card_envs.batched.policy import FieldsTwin
from card_envs.core.compiled import key_compiled_cache
from card_envs.games.uno import cards as C
from card_envs.games.uno import encoding as E
from card_envs.games.uno.cards import COLOUR_OF, NUM_COLOURED, NUM_COLOURS, NUM_TYPES, POINTS, RANK_OF

key_compiled_cache(__name__, H.__file__, C.__file__, E.__file__)

DECK = np.asarray(H.DECK, dtype=np.int64)
PLAY_DRAWN, CHOOSE_PHASE, PENDING, CATCH_PHASE = (
    E.PHASES.index(p) for p in ("play_drawn", "choose_colour", "pending", "catch")
)
#: the observation fields the player reads, in the order of ``starts``
FIELDS = ("hand", "phase", "colour", "hand_sizes", "clockwise", "discard_counts")
F_HAND, F_PHASE, F_COLOUR, F_SIZES, F_CLOCKWISE, F_DISCARD = range(len(FIELDS))


@njit(cache=True)
def _read(obs, start, size):
    out = np.empty(size, np.int64)
    for i in range(size):
        out[i] = int(obs[start + i])
    return out


@njit(cache=True)
def _argmax(obs, start, size):
    """The index of the first largest of ``size`` entries from ``start`` (np.argmax)."""
    best = 0
    for i in range(1, size):
        if obs[start + i] > obs[start + best]:
            best = i
    return best


@njit(cache=True)
def _by_colour(counts):
    """The coloured cards of each colour among ``counts`` per type (the reference's BY_COLOUR @)."""
    out = np.zeros(NUM_COLOURS, np.int64)
    for t in range(NUM_COLOURED):
        out[COLOUR_OF[t]] += counts[t]
    return out


@njit(cache=True)
def _unseen(hand, discard):
    """The reference ``_Table.unseen``: neither in our hand nor in the discard pile."""
    return np.maximum(DECK - hand - discard, 0)


@njit(cache=True)
def _best_colour(mask, hand, discard):
    """The reference ``best_colour``: the largest key (allowed, held, points, -theirs, -c)."""
    held = _by_colour(hand)
    our_points = _by_colour(hand * POINTS)
    theirs = _by_colour(_unseen(hand, discard))
    best = -1
    for c in range(NUM_COLOURS):  # ascending: ties on the rest keep the lower colour (-c)
        if best < 0:
            best = c
            continue
        key = (np.int64(mask[E.CHOOSE_COLOUR + c] > 0), held[c], our_points[c], -theirs[c])
        top = (np.int64(mask[E.CHOOSE_COLOUR + best] > 0), held[best], our_points[best], -theirs[best])
        if key > top:
            best = c
    return best


@njit(cache=True)
def _attack_value(skip, draw, sizes, seats, next_in_danger):
    """The reference ``_attack_value``; ``seats`` = (players, next, after next, previous)."""
    nxt, after_next = seats[1], seats[2]
    if nxt == 0:
        return 0.0
    value = 0.3 + 0.15 * draw
    if next_in_danger:
        value += 3.0 + (3.0 - sizes[nxt]) + 0.5 * draw
    if (skip or draw > 0) and after_next != 0 and after_next != nxt and sizes[after_next] <= H.DANGER:
        value -= 1.5
    return value


@njit(cache=True)
def _play_score(card, hand, held, colour, danger, sizes, seats, next_in_danger):
    """The reference ``play_score``; ``seats`` = (players, next, after next, previous)."""
    if hand.sum() == 1:
        return 1000.0
    score = (H.POINTS_WEIGHT_CLOSE if danger else H.POINTS_WEIGHT) * POINTS[card]
    if card >= C.WILD:
        score -= H.KEEP_WILD if card == C.WILD else H.KEEP_DRAW_FOUR
        score += 1.0 if hand[:NUM_COLOURED].sum() == 0 else 0.0
        if card == C.WILD_DRAW_FOUR:
            score += _attack_value(False, 4, sizes, seats, next_in_danger)
            if colour >= 0 and held[colour] > 0:
                score -= 1.5
        return score
    score += H.COLOUR_WEIGHT * (held[COLOUR_OF[card]] - 1)
    rank = RANK_OF[card]
    if rank == C.SKIP:
        score += _attack_value(True, 0, sizes, seats, next_in_danger)
    elif rank == C.DRAW_TWO:
        score += _attack_value(False, 2, sizes, seats, next_in_danger)
    elif rank == C.REVERSE:
        if seats[0] == 2:
            score += _attack_value(True, 0, sizes, seats, next_in_danger)
        else:
            value = 0.2
            if next_in_danger:
                value += 2.5
            if sizes[seats[3]] <= H.DANGER:
                value -= 2.0
            score += value
    return score


@njit(cache=True)
def _bluff_chance(hand, discard, kept):
    """The reference ``bluff_chance``."""
    unseen = _unseen(hand, discard)
    total = unseen.sum()
    if total <= 0 or kept <= 0:
        return 0.0
    theirs = _by_colour(unseen)
    held = 0.0
    for c in range(NUM_COLOURS):  # np.mean of 4 terms: summed in order, then divided
        held += 1.0 - (1.0 - theirs[c] / total) ** float(kept)
    held /= NUM_COLOURS
    bluffing = H.BLUFF_PROPENSITY * held
    return bluffing / (bluffing + (1.0 - held))


@njit(cache=True)
def _act(obs, mask, starts, n):
    phase = _argmax(obs, starts[F_PHASE], len(E.PHASES))
    if phase == CATCH_PHASE:
        return E.CATCH if mask[E.CATCH] else E.PASS
    hand = _read(obs, starts[F_HAND], NUM_TYPES)
    discard = _read(obs, starts[F_DISCARD], NUM_TYPES)
    if phase == CHOOSE_PHASE:
        return E.CHOOSE_COLOUR + _best_colour(mask, hand, discard)
    sizes = _read(obs, starts[F_SIZES], n)
    colour = -1
    for c in range(NUM_COLOURS):
        if obs[starts[F_COLOUR] + c] != 0:
            colour = _argmax(obs, starts[F_COLOUR], NUM_COLOURS)
            break
    step = 1 if obs[starts[F_CLOCKWISE]] != 0 else -1
    nxt, after_next, previous = step % n, (2 * step) % n, -step % n
    seats = (n, nxt, after_next, previous)
    held = _by_colour(hand)
    danger = False
    for i in range(1, n):
        danger = danger or sizes[i] <= H.DANGER
    next_in_danger = nxt != 0 and sizes[nxt] <= H.DANGER
    best, best_score = -1, -np.inf
    for t in range(NUM_TYPES):  # ascending: the first of equal scores, as max()
        if mask[E.PLAY + t] or mask[E.PLAY_CALL + t]:
            score = _play_score(t, hand, held, colour, danger, sizes, seats, next_in_danger)
            if best < 0 or score > best_score:
                best, best_score = t, score
    if best >= 0:
        return E.PLAY_CALL + best if mask[E.PLAY_CALL + best] else E.PLAY + best
    if phase == PENDING:
        if mask[E.CHALLENGE] and _bluff_chance(hand, discard, sizes[previous]) > H.CHALLENGE_ABOVE:
            return E.CHALLENGE
        return E.DRAW
    return E.KEEP if phase == PLAY_DRAWN else E.DRAW


@njit(cache=True)
def _act_rows(observations, masks, rows, starts, n, out):
    for i in range(rows.size):
        out[i] = _act(observations[i], masks[i], starts, n)


@njit(cache=True)
def act1(a, observation, mask, gen):
    """One row's decision (:meth:`BatchedPolicy.row_act`); ``a`` = (starts, players)."""
    return _act(observation, mask, a[0], a[1])


class UnoBatchedHeuristicAgent(FieldsTwin):
    """:class:`UnoHeuristicAgent` for a batch: its decisions (it draws no random numbers)."""

    rows = staticmethod(_act_rows)
    act1 = staticmethod(act1)

    def __init__(self, agent: H.UnoHeuristicAgent) -> None:
        super().__init__(agent, E.observation_layout(agent.num_players).starts(FIELDS))
