"""The Tock rules compiled with numba, for many games at once (:mod:`card_envs.batched.game`).

The same rules as :mod:`.engine`, step for step, over struct-of-arrays state: row ``b``
of every array is game ``b``. The deal is the reference's one ``permutation`` of the
full set (Tock draws nothing after it), so a batched game and a reference game reset
with the same seed and fed the same actions stay identical; ``tests/test_batched.py``
checks it at every step. :class:`TockKernels` is also the codec between a game's
``state_dict()`` and its row (``state_dict``, ``load``), through the engine's typed
:class:`~.state.Table`.

Open piles are ring buffers: a knock's penalty takes cards from their bottoms and puts
them under the receiver's pile, which a plain array would have to shift. The options of
the position (legal actions, rule breaks) are computed once after each change: the mask
and the next step both read them, as the reference's ``_opts`` does.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from card_envs.core import ranking
from card_envs.core.compiled import key_compiled_cache
from card_envs.games.tock import cards, encoding, engine
from card_envs.games.tock import state as S
from card_envs.games.tock.cards import MAX_ROWS, NUM_CARDS, ROW_END, TOP_CARD, full_deck
from card_envs.games.tock.encoding import ACTION_KINDS, CENTRE, DRAW, LAYOUT, MAX_SEATS, OWN_PILE, PASS
from card_envs.games.tock.engine import TockGame
from card_envs.games.tock.state import LAST_ACTIONS, KnockWindow, Move, Stats, Table

key_compiled_cache(__name__, cards.__file__, encoding.__file__, engine.__file__, S.__file__, ranking.__file__)
rank_rest = njit(cache=True)(ranking.rank_rest)  # the one ranking rule of every game, compiled

PLAY, KNOCK_PHASE, OVER = range(len(S.PHASES))
#: ``Move.source`` by number: the draw sources, then the play sources
SOURCES = S.DRAW_SOURCES + S.PLAY_SOURCES
FROM_SUPPLY, FROM_STACK, TURNED, FROM_DRAWN, FROM_PILE = range(len(SOURCES))
DECK = np.array(full_deck(), dtype=np.int8)
ACTION_KIND = np.array(ACTION_KINDS, dtype=np.int64)
CENTRE_BIT = 1 << CENTRE
DRAW_BIT = 1 << DRAW
OWN_BIT = 1 << OWN_PILE
KNOCK_BITS = 1 << S.KNOCK | 1 << PASS
RING = 128  # open pile ring size: a power of two above the 121 cards
WRAP = RING - 1
#: Stats fields by number (``seat[b, p, STATS0 + k]``)
RULE_BREAKS, CAUGHT, KNOCKS_CORRECT, KNOCKS_FALSE = range(len(S.STAT_KEYS))
assert S.STAT_KEYS == ("rule_breaks", "caught", "knocks_correct", "knocks_false")

# observation offsets (module globals: numba folds them in as constants)
_at = {name: s.start for name, s in LAYOUT.slices.items()}
O_PRESENT, O_FINISHED, O_TURN, O_PHASE = _at["seat_present"], _at["finished"], _at["turn"], _at["phase"]
O_CENTRE, O_TOP, O_PILE, O_STACK = _at["centre"], _at["pile_top"], _at["pile_size"], _at["stack_size"]
O_SUPPLY, O_CARD, O_SOURCE = _at["supply_size"], _at["card"], _at["card_source"]
O_MPLAYER, O_MKIND, O_MTARGET = _at["move_player"], _at["move_kind"], _at["move_target"]
O_MCARD, O_MBREAK = _at["move_card"], _at["move_break"]
O_LPLAYER, O_LKIND = _at["last_player"], _at["last_kind"]
O_UNDER, O_BOTTOM, O_STACK_TOP = _at["pile_under_top"], _at["pile_bottom"], _at["stack_top"]
O_PILE_COUNTS, O_SUPPLY_COUNTS = _at["pile_counts"], _at["supply_counts"]
del _at


class Rules(NamedTuple):
    """The table and variant as plain ints, the form the kernels take."""

    num_players: int
    nearest: bool  # opponent_choice == "nearest"
    allow_violations: bool


# Per-game ints, ``g[b, FIELD]`` (-1 stands for None). A few arrays rather than one per field:
# every array in the state tuple costs on each call of a kernel helper (a tuple of 28 arrays
# made the step and the mask about four times slower).
(SUPPLY_LEN, CENTRE_LEN, DRAWN, TURN, PHASE, FINISHED_LEN, ALIVE_COUNT, DEC_AT, DEC_END, W_BREAK, W_ENDS,
 M_PLAYER, M_ACTION, M_CARD, M_TARGET, M_BREAK, M_SOURCE, L_PLAYER, L_ACTION, PEN_LEN, NEWLY,
 LEGAL, BREAKS) = range(23)  # fmt: skip
CENTRE0 = 23  # the row tops, in opening order
DEC0 = CENTRE0 + MAX_ROWS  # the knock window's deciders: g[b, DEC0 + DEC_AT : DEC0 + DEC_END]
FIN0 = DEC0 + MAX_SEATS  # the finished seats, in finishing order
PEN0 = FIN0 + MAX_SEATS  # the last knock's penalty: (giver, card) pairs
GAME_FIELDS = PEN0 + 2 * (MAX_SEATS - 1)
# Per-seat ints, ``seat[b, p, FIELD]``; FINISH_RANK is 0 while the seat is still in.
PILE_START, PILE_LEN, STACK_LEN, FINISH_RANK, ALIVE, STATS0 = range(6)
SEAT_FIELDS = STATS0 + len(S.STAT_KEYS)


class TockArrays(NamedTuple):
    """Every field of :class:`~.state.Table` for B games (``LEGAL``/``BREAKS``: the options of
    the position, computed once after each change and read by the mask and the next step)."""

    g: np.ndarray  # [B, GAME_FIELDS]
    seat: np.ndarray  # [B, N, SEAT_FIELDS]
    supply: np.ndarray  # [B, 121] top = supply[b, g[b, SUPPLY_LEN] - 1]
    piles: np.ndarray  # [B, N, 128] ring: bottom at PILE_START, top at PILE_START + PILE_LEN - 1
    stacks: np.ndarray  # [B, N, 121] top = stacks[b, p, STACK_LEN - 1]

    @classmethod
    def zeros(cls, batch_size: int, num_players: int) -> TockArrays:
        b, n = batch_size, num_players
        return cls(
            g=np.zeros((b, GAME_FIELDS), np.int64),
            seat=np.zeros((b, n, SEAT_FIELDS), np.int64),
            supply=np.zeros((b, NUM_CARDS), np.int8),
            piles=np.zeros((b, n, RING), np.int8),
            stacks=np.zeros((b, n, NUM_CARDS), np.int8),
        )


# ------------------------------------------------------------------ open piles
@njit(cache=True)
def _top(s, b, p):
    return np.int64(s.piles[b, p, (s.seat[b, p, PILE_START] + s.seat[b, p, PILE_LEN] - 1) & WRAP])


@njit(cache=True)
def _push(s, b, p, card):
    s.piles[b, p, (s.seat[b, p, PILE_START] + s.seat[b, p, PILE_LEN]) & WRAP] = card
    s.seat[b, p, PILE_LEN] += 1


@njit(cache=True)
def _pop(s, b, p):
    s.seat[b, p, PILE_LEN] -= 1
    return np.int64(s.piles[b, p, (s.seat[b, p, PILE_START] + s.seat[b, p, PILE_LEN]) & WRAP])


@njit(cache=True)
def _held(s, b, p):
    """Table.cards_held: open pile plus own stack, plus the drawn card of the seat on turn."""
    held = s.seat[b, p, PILE_LEN] + s.seat[b, p, STACK_LEN]
    if p == s.g[b, TURN] and s.g[b, DRAWN] >= 0:
        held += 1
    return held


# --------------------------------------------------------------------- options
@njit(cache=True)
def _options(s, b, r):
    """TockGame._options: bit sets (legal actions, rule-break actions) of the play decision."""
    t = s.g[b, TURN]
    card = s.g[b, DRAWN]
    from_pile = card < 0
    if from_pile:
        if s.seat[b, t, PILE_LEN] == 0:
            return DRAW_BIT, 0
        card = _top(s, b, t)
    centre = False
    if card == 1:
        centre = s.g[b, CENTRE_LEN] < MAX_ROWS
    elif card <= ROW_END:
        for i in range(CENTRE0, CENTRE0 + s.g[b, CENTRE_LEN]):
            if s.g[b, i] == card - 1:
                centre = True
                break
    opponents = 0
    n = r.num_players
    p = t
    for k in range(1, n):
        p = p + 1 if p + 1 < n else 0
        if s.seat[b, p, PILE_LEN]:
            d = _top(s, b, p) - card
            if d == 1 or d == -1:
                opponents |= 1 << k
                if r.nearest:
                    break
    other = DRAW_BIT if from_pile else OWN_BIT
    if centre:
        legal, breaks = CENTRE_BIT, opponents | other
    elif opponents:
        legal, breaks = opponents, other
    else:
        return other, 0
    if not r.allow_violations:
        return legal, 0
    return legal | breaks, breaks


@njit(cache=True)
def _refresh(s, b, r):
    """Keep LEGAL and BREAKS those of the position (the reference's ``_opts``, never stale)."""
    phase = s.g[b, PHASE]
    if phase == PLAY:
        s.g[b, LEGAL], s.g[b, BREAKS] = _options(s, b, r)
    else:
        s.g[b, LEGAL] = KNOCK_BITS if phase == KNOCK_PHASE else 0
        s.g[b, BREAKS] = 0


# ----------------------------------------------------------------- turn order
@njit(cache=True)
def _next_turn(s, b, n):
    t = s.g[b, TURN]
    for k in range(1, n + 1):
        p = (t + k) % n
        if s.seat[b, p, ALIVE]:
            s.g[b, TURN] = p
            break
    s.g[b, PHASE] = PLAY


@njit(cache=True)
def _end(s, b):
    """The game is over; its ranks are read from the final position (_final_ranks)."""
    s.g[b, PHASE] = OVER
    s.g[b, DEC_AT] = s.g[b, DEC_END]


@njit(cache=True)
def _check_finished(s, b, n, only):
    """TockGame._check_finished: seats without cards finish (supply empty); True if the game ended."""
    holder = s.g[b, TURN] if s.g[b, DRAWN] >= 0 else -1
    lo, hi = (0, n) if only < 0 else (only, only + 1)
    rank = s.g[b, FINISHED_LEN] + 1
    count = 0
    for p in range(lo, hi):
        if (
            s.seat[b, p, ALIVE]
            and s.seat[b, p, PILE_LEN] == 0
            and s.seat[b, p, STACK_LEN] == 0
            and p != holder
        ):
            s.seat[b, p, ALIVE] = 0
            s.seat[b, p, FINISH_RANK] = rank
            s.g[b, FIN0 + s.g[b, FINISHED_LEN]] = p
            s.g[b, FINISHED_LEN] += 1
            count += 1
    if count:
        s.g[b, NEWLY] = count
        s.g[b, ALIVE_COUNT] -= count
        if s.g[b, ALIVE_COUNT] <= 1:
            _end(s, b)
            return True
    return False


@njit(cache=True)
def _collect_penalty(s, b, n, receiver):
    """The bottom card of every other open pile, from the receiver's left, under its own pile."""
    s.g[b, PEN_LEN] = 0
    for k in range(1, n):
        giver = (receiver + k) % n
        if s.seat[b, giver, PILE_LEN]:
            start = s.seat[b, giver, PILE_START]
            card = s.piles[b, giver, start]
            s.seat[b, giver, PILE_START] = (start + 1) & WRAP
            s.seat[b, giver, PILE_LEN] -= 1
            own = (s.seat[b, receiver, PILE_START] - 1) & WRAP
            s.piles[b, receiver, own] = card
            s.seat[b, receiver, PILE_START] = own
            s.seat[b, receiver, PILE_LEN] += 1
            i = PEN0 + 2 * s.g[b, PEN_LEN]
            s.g[b, i] = giver
            s.g[b, i + 1] = card
            s.g[b, PEN_LEN] += 1


# --------------------------------------------------------------------- actions
@njit(cache=True)
def _apply_play(s, b, r, action, breaks):
    n = r.num_players
    g = s.g
    g[b, NEWLY] = 0
    t = g[b, TURN]
    was_break = (breaks >> action) & 1
    card = 0
    target = -1
    ends_turn = complete = False
    if action == DRAW:
        if g[b, SUPPLY_LEN]:
            g[b, SUPPLY_LEN] -= 1
            g[b, DRAWN] = s.supply[b, g[b, SUPPLY_LEN]]
            source = FROM_SUPPLY
        else:
            source = FROM_STACK
            if s.seat[b, t, STACK_LEN] == 0:  # turn the open pile over: its bottom card is now on top
                k, start = s.seat[b, t, PILE_LEN], s.seat[b, t, PILE_START]
                for i in range(k):
                    s.stacks[b, t, i] = s.piles[b, t, (start + k - 1 - i) & WRAP]
                s.seat[b, t, STACK_LEN] = k
                s.seat[b, t, PILE_LEN] = 0
                s.seat[b, t, PILE_START] = 0
                source = TURNED
            s.seat[b, t, STACK_LEN] -= 1
            g[b, DRAWN] = s.stacks[b, t, s.seat[b, t, STACK_LEN]]
    elif action == OWN_PILE:
        card = g[b, DRAWN]
        _push(s, b, t, card)
        g[b, DRAWN] = -1
        ends_turn = True
        source = FROM_DRAWN
    else:
        if g[b, DRAWN] >= 0:
            card = g[b, DRAWN]
            g[b, DRAWN] = -1
            source = FROM_DRAWN
        else:
            card = _pop(s, b, t)
            source = FROM_PILE
        if action == CENTRE:
            rows = g[b, CENTRE_LEN]
            if card == 1:
                g[b, CENTRE0 + rows] = 1
                g[b, CENTRE_LEN] = rows + 1
            else:
                for i in range(CENTRE0, CENTRE0 + rows):
                    if g[b, i] == card - 1:
                        g[b, i] = card
                        break
                if card == ROW_END and rows == MAX_ROWS:
                    complete = True
                    for i in range(CENTRE0, CENTRE0 + rows):
                        if g[b, i] != ROW_END:
                            complete = False
        else:
            target = (t + action) % n
            _push(s, b, target, card)
    g[b, M_PLAYER] = t
    g[b, M_ACTION] = action
    g[b, M_CARD] = card
    g[b, M_TARGET] = target
    g[b, M_BREAK] = was_break
    g[b, M_SOURCE] = source
    g[b, L_PLAYER] = t
    g[b, L_ACTION] = action
    if was_break:
        s.seat[b, t, STATS0 + RULE_BREAKS] += 1
    if g[b, SUPPLY_LEN] == 0 and _check_finished(s, b, n, t if action != DRAW else -1):
        return
    if complete:  # all six rows at 20
        _end(s, b)
    elif not s.seat[b, t, ALIVE]:  # the move finished the player: no knock window
        _next_turn(s, b, n)
    elif breaks:
        end = 0
        for k in range(1, n):
            p = (t + k) % n
            if s.seat[b, p, ALIVE]:
                g[b, DEC0 + end] = p
                end += 1
        g[b, DEC_AT] = 0
        g[b, DEC_END] = end
        g[b, W_BREAK] = was_break
        g[b, W_ENDS] = ends_turn
        g[b, PHASE] = KNOCK_PHASE
    elif ends_turn:
        _next_turn(s, b, n)


@njit(cache=True)
def _apply_knock(s, b, r, action):
    n = r.num_players
    g = s.g
    decider = g[b, DEC0 + g[b, DEC_AT]]
    g[b, DEC_AT] += 1
    g[b, NEWLY] = 0
    g[b, L_PLAYER] = decider
    g[b, L_ACTION] = action
    t = g[b, TURN]
    if action == PASS:
        if g[b, DEC_AT] == g[b, DEC_END]:
            g[b, PHASE] = PLAY
            if g[b, W_ENDS]:
                _next_turn(s, b, n)
        return
    g[b, DEC_AT] = g[b, DEC_END]
    g[b, PHASE] = PLAY
    if g[b, W_BREAK]:  # correct knock
        s.seat[b, decider, STATS0 + KNOCKS_CORRECT] += 1
        s.seat[b, t, STATS0 + CAUGHT] += 1
        if g[b, DRAWN] >= 0:  # a forbidden draw: the drawn card goes onto the own pile
            _push(s, b, t, g[b, DRAWN])
            g[b, DRAWN] = -1
        _collect_penalty(s, b, n, t)
        ends_turn = True
    else:
        s.seat[b, decider, STATS0 + KNOCKS_FALSE] += 1
        _collect_penalty(s, b, n, decider)
        ends_turn = g[b, W_ENDS] != 0
    if g[b, SUPPLY_LEN] == 0 and _check_finished(s, b, n, -1):
        return
    if ends_turn or not s.seat[b, t, ALIVE]:
        _next_turn(s, b, n)


@njit(cache=True)
def _apply(s, b, r, action):
    if s.g[b, PHASE] == KNOCK_PHASE:
        _apply_knock(s, b, r, action)
    else:
        _apply_play(s, b, r, action, s.g[b, BREAKS])
    _refresh(s, b, r)


# ------------------------------------------------------------------------ deal
@njit(cache=True)
def _deal(s, b, r, gen):
    n = r.num_players
    order = gen.permutation(NUM_CARDS)  # the reference: rng.permutation(full_deck())
    for i in range(NUM_CARDS):
        s.supply[b, i] = DECK[order[i]]
    s.g[b] = 0
    s.seat[b] = 0
    s.g[b, SUPPLY_LEN] = NUM_CARDS
    s.g[b, DRAWN] = -1
    s.g[b, PHASE] = PLAY
    s.g[b, ALIVE_COUNT] = n
    s.g[b, M_PLAYER] = -1
    s.g[b, L_PLAYER] = -1
    for p in range(n):
        s.seat[b, p, ALIVE] = 1
    _refresh(s, b, r)


# ----------------------------------------------------------------- mask, view
@njit(cache=True)
def _current_player(s, b):
    if s.g[b, PHASE] == KNOCK_PHASE:
        return s.g[b, DEC0 + s.g[b, DEC_AT]]
    return s.g[b, TURN]


@njit(cache=True)
def _write_observation(s, b, r, player, obs):
    """ObservationBuffer.encode: the public table, seats relative to ``player``."""
    n = r.num_players
    g = s.g
    obs[:] = 0.0
    p = player
    for i in range(n):
        obs[O_PRESENT + i] = 1.0
        if not s.seat[b, p, ALIVE]:
            obs[O_FINISHED + i] = 1.0
        k = s.seat[b, p, PILE_LEN]
        if k:
            start = s.seat[b, p, PILE_START]
            obs[O_TOP + i] = _top(s, b, p)
            obs[O_PILE + i] = k
            obs[O_BOTTOM + i] = s.piles[b, p, start & WRAP]
            if k > 1:
                obs[O_UNDER + i] = s.piles[b, p, (start + k - 2) & WRAP]
            counts_at = O_PILE_COUNTS + i * TOP_CARD - 1  # card c counts at counts_at + c
            for j in range(k):
                obs[counts_at + s.piles[b, p, (start + j) & WRAP]] += 1.0
        stack = s.seat[b, p, STACK_LEN]
        obs[O_STACK + i] = stack
        if stack:
            obs[O_STACK_TOP + i] = s.stacks[b, p, stack - 1]
        p = p + 1 if p + 1 < n else 0
    t = g[b, TURN]
    obs[O_TURN + (t - player) % n] = 1.0
    phase = g[b, PHASE]
    if phase != OVER:
        obs[O_PHASE + (1 if phase == KNOCK_PHASE else 0)] = 1.0
        if g[b, DRAWN] >= 0:
            obs[O_CARD] = g[b, DRAWN]
            obs[O_SOURCE + 1] = 1.0
        elif s.seat[b, t, PILE_LEN]:
            obs[O_CARD] = _top(s, b, t)
            obs[O_SOURCE] = 1.0
    rows = g[b, CENTRE_LEN]
    for i in range(rows):  # the row tops, highest first: count the rows placed before each
        top = g[b, CENTRE0 + i]
        place = 0
        for j in range(rows):
            other = g[b, CENTRE0 + j]
            if other > top or (other == top and j < i):
                place += 1
        obs[O_CENTRE + place] = top
    obs[O_SUPPLY] = g[b, SUPPLY_LEN]
    for j in range(g[b, SUPPLY_LEN]):
        obs[O_SUPPLY_COUNTS + s.supply[b, j] - 1] += 1.0
    if g[b, M_PLAYER] >= 0:
        obs[O_MPLAYER + (g[b, M_PLAYER] - player) % n] = 1.0
        obs[O_MKIND + ACTION_KIND[g[b, M_ACTION]]] = 1.0
        if g[b, M_TARGET] >= 0:
            obs[O_MTARGET + (g[b, M_TARGET] - player) % n] = 1.0
        obs[O_MCARD] = g[b, M_CARD]
        if g[b, M_BREAK]:
            obs[O_MBREAK] = 1.0
    if g[b, L_PLAYER] >= 0:
        obs[O_LPLAYER + (g[b, L_PLAYER] - player) % n] = 1.0
        obs[O_LKIND + ACTION_KIND[g[b, L_ACTION]]] = 1.0


# ------------------------------------------------------------------ batch calls
@njit(cache=True)
def _final_ranks(s, b, n, truncated, out):
    """Table.final_ranks (or CardGame.truncation_ranks): finished seats keep their ranks, the
    others follow by fewest cards held, ties sharing (truncated: ties broken by seat)."""
    finish = np.zeros(n, np.int64)
    keys = np.empty(n, np.int64)
    for p in range(n):
        if not s.seat[b, p, ALIVE]:
            finish[p] = s.seat[b, p, FINISH_RANK]
        keys[p] = _held(s, b, p) * n + p if truncated else _held(s, b, p)
    rank_rest(finish, keys, out)


@njit(cache=True)
def step_rows(s, r, rows, actions, gens, over):
    """Apply ``actions[i]`` in game ``rows[i]``; ``over[i]``: that game has ended."""
    for i in range(rows.size):
        b = rows[i]
        _apply(s, b, r, actions[i])
        over[i] = s.g[b, PHASE] == OVER


@njit(cache=True)
def deal_rows(s, r, rows, gens):
    for i in range(rows.size):
        _deal(s, rows[i], r, gens[rows[i]])


@njit(cache=True)
def write_rows(s, r, rows, observations, masks, current):
    """The decider, its mask and its observation, for each game in ``rows``."""
    for i in range(rows.size):
        b = rows[i]
        current[b] = _write_row(s, b, r, observations[b], masks[b])


@njit(cache=True)
def _write_row(s, b, r, obs, mask):
    player = _current_player(s, b)
    bits = s.g[b, LEGAL]
    for a in range(mask.size):
        mask[a] = (bits >> a) & 1
    _write_observation(s, b, r, player, obs)
    return player


@njit(cache=True)
def refresh_rows(s, r, rows):
    """Compute the options (LEGAL, BREAKS) of games just loaded."""
    for i in range(rows.size):
        _refresh(s, rows[i], r)


@njit(cache=True)
def ranks_rows(s, r, rows, truncated, out):
    for i in range(rows.size):
        _final_ranks(s, rows[i], r.num_players, truncated[i], out[i])


@njit(cache=True)
def observe_rows(s, r, rows, players, out):
    """Observation of ``players[i]`` in game ``rows[i]`` (any seat, not only the decider)."""
    for i in range(rows.size):
        _write_observation(s, rows[i], r, players[i], out[i])


@njit(cache=True)
def held_rows(s, rows, out):
    """``cards_held``: open pile plus stack, plus the drawn card while it is in play."""
    for i in range(rows.size):
        b = rows[i]
        for p in range(out.shape[1]):
            drawn = p == s.g[b, TURN] and s.g[b, DRAWN] >= 0
            out[i, p] = s.seat[b, p, PILE_LEN] + s.seat[b, p, STACK_LEN] + (1 if drawn else 0)


# ------------------------------------------------- one row (BatchedGame.play_out)
@njit(cache=True)
def step1(k, b, action, gen):
    _apply(k[0], b, k[1], action)


@njit(cache=True)
def write1(k, b, observation, mask):
    return _write_row(k[0], b, k[1], observation, mask)


@njit(cache=True)
def over1(k, b):
    return k[0].g[b, PHASE] == OVER


@njit(cache=True)
def ranks1(k, b, truncated, out):
    _final_ranks(k[0], b, k[1].num_players, truncated, out)


# ------------------------------------------------------------------- the class
class TockKernels:
    """The batched Tock rules for :class:`card_envs.batched.game.BatchedGame`."""

    def __init__(self, game: TockGame, batch_size: int) -> None:
        self.game = game
        self.rules = Rules(
            num_players=game.num_players,
            nearest=game.opponent_choice == "nearest",
            allow_violations=bool(game.allow_violations),
        )
        self.state = TockArrays.zeros(batch_size, game.num_players)

    def deal(self, rows: np.ndarray, gens: Any) -> None:
        deal_rows(self.state, self.rules, rows, gens)

    def step(self, rows: np.ndarray, actions: np.ndarray, gens: Any, over: np.ndarray) -> None:
        step_rows(self.state, self.rules, rows, actions, gens, over)

    def write(
        self, rows: np.ndarray, observations: np.ndarray, masks: np.ndarray, current: np.ndarray
    ) -> None:
        write_rows(self.state, self.rules, rows, observations, masks, current)

    def observe(self, rows: np.ndarray, players: np.ndarray, out: np.ndarray) -> None:
        observe_rows(self.state, self.rules, rows, players, out)

    def ranks(self, rows: np.ndarray, truncated: np.ndarray, out: np.ndarray) -> None:
        ranks_rows(self.state, self.rules, rows, truncated, out)

    def held(self, rows: np.ndarray, out: np.ndarray) -> None:
        held_rows(self.state, rows, out)

    def row_functions(self) -> tuple[Any, Any, Any, Any, Any]:
        """``(k, step1, write1, over1, ranks1)``: one row's rules, for a compiled play-out."""
        return (self.state, self.rules), step1, write1, over1, ranks1

    # ------------------------------------------------------------ the codec
    def state_dict(self, index: int) -> dict[str, Any]:
        """Game ``index`` as the reference engine's ``state_dict()``."""
        return {**self.game.state_header(), **S.to_dict(self.read(index))}

    def load(self, index: int, state: dict[str, Any]) -> None:
        """Write a ``state_dict()`` the reference engine accepts into row ``index``
        (:meth:`card_envs.batched.BatchedGame.load` checks it first)."""
        self.write_table(index, S.from_dict(state, self.rules.num_players))

    def load_engine(self, index: int, game: TockGame) -> None:
        """:meth:`load` of ``game``'s position, read from its typed state without the round trip
        through ``state_dict()`` (a search loads thousands of sampled worlds a second)."""
        self.write_table(index, game.table)

    def read(self, index: int) -> Table:
        """Row ``index`` as the engine's typed :class:`~.state.Table`."""
        s, n = self.state, self.rules.num_players
        g, seat = s.g[index].tolist(), s.seat[index].tolist()
        piles = []
        for p in range(n):
            at = (seat[p][PILE_START] + np.arange(seat[p][PILE_LEN])) & WRAP
            piles.append(s.piles[index, p, at].tolist())
        phase = g[PHASE]
        move = None
        if g[M_PLAYER] >= 0:
            source = None if g[M_SOURCE] < 0 else SOURCES[g[M_SOURCE]]
            move = Move(g[M_PLAYER], g[M_ACTION], g[M_CARD], g[M_TARGET], bool(g[M_BREAK]), source)
        last = None if g[L_PLAYER] < 0 else LAST_ACTIONS[g[L_PLAYER]][g[L_ACTION]]
        penalty = None  # read only while the last action is a knock, which set it (-1: unknown)
        if last is not None and last.action == S.KNOCK and g[PEN_LEN] >= 0:
            penalty = [(g[PEN0 + 2 * i], g[PEN0 + 2 * i + 1]) for i in range(g[PEN_LEN])]
        table = Table(
            supply=s.supply[index, : g[SUPPLY_LEN]].tolist(),
            centre=g[CENTRE0 : CENTRE0 + g[CENTRE_LEN]],
            piles=piles,
            stacks=[s.stacks[index, p, : seat[p][STACK_LEN]].tolist() for p in range(n)],
            drawn=None if g[DRAWN] < 0 else g[DRAWN],
            turn=g[TURN],
            phase=S.PHASES[phase],
            finished=g[FIN0 : FIN0 + g[FINISHED_LEN]],
            finish_ranks=[seat[p][FINISH_RANK] or None for p in range(n)],
            alive=[bool(seat[p][ALIVE]) for p in range(n)],
            window=None
            if phase != KNOCK_PHASE
            else KnockWindow(g[DEC0 + g[DEC_AT] : DEC0 + g[DEC_END]], bool(g[W_BREAK]), bool(g[W_ENDS])),
            move=move,
            last_action=last,
            stats=[Stats(*seat[p][STATS0:]) for p in range(n)],
            penalty=penalty,
            newly_finished=g[NEWLY],
        )
        if phase == OVER:
            table.ranks = table.final_ranks()
        return table

    def write_table(self, index: int, table: Table) -> None:
        """Write the typed table ``table`` into row ``index`` (the inverse of :meth:`read`)."""
        s, n = self.state, table.num_players
        g = np.zeros(GAME_FIELDS, np.int64)
        none = -1  # how a row writes None
        g[SUPPLY_LEN], g[CENTRE_LEN], g[FINISHED_LEN] = (
            len(table.supply),
            len(table.centre),
            len(table.finished),
        )
        g[DRAWN] = none if table.drawn is None else table.drawn
        g[TURN], g[PHASE], g[ALIVE_COUNT] = table.turn, S.PHASES.index(table.phase), table.alive.count(True)
        g[CENTRE0 : CENTRE0 + len(table.centre)] = table.centre
        g[FIN0 : FIN0 + len(table.finished)] = table.finished
        window = table.window
        if window is not None:
            g[DEC_END], g[W_BREAK], g[W_ENDS] = len(window.deciders), window.rule_break, window.ends_turn
            g[DEC0 : DEC0 + len(window.deciders)] = window.deciders
        m = table.move
        g[M_PLAYER] = none
        if m is not None:
            source = none if m.source is None else SOURCES.index(m.source)
            g[M_PLAYER : M_SOURCE + 1] = m.player, m.action, m.card, m.target, m.rule_break, source
        last = table.last_action
        g[L_PLAYER] = none
        if last is not None:
            g[L_PLAYER], g[L_ACTION] = last.player, last.action
        g[PEN_LEN] = none if table.penalty is None else len(table.penalty)
        for i, (giver, card) in enumerate(table.penalty or ()):
            g[PEN0 + 2 * i : PEN0 + 2 * i + 2] = giver, card
        g[NEWLY] = table.newly_finished
        seat = np.zeros((n, SEAT_FIELDS), np.int64)
        s.supply[index] = 0
        s.supply[index, : len(table.supply)] = table.supply
        s.piles[index] = 0
        s.stacks[index] = 0
        for p in range(n):
            seat[p, PILE_LEN], seat[p, STACK_LEN] = len(table.piles[p]), len(table.stacks[p])
            seat[p, FINISH_RANK] = table.finish_ranks[p] or 0
            seat[p, ALIVE] = table.alive[p]
            seat[p, STATS0:] = [getattr(table.stats[p], key) for key in S.STAT_KEYS]
            s.piles[index, p, : len(table.piles[p])] = table.piles[p]
            s.stacks[index, p, : len(table.stacks[p])] = table.stacks[p]
        s.g[index] = g
        s.seat[index] = seat
        refresh_rows(s, self.rules, np.array([index], np.int64))
