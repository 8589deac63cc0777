"""The Chip It rules compiled with numba, for many games at once (:mod:`card_envs.batched.game`).

The same rules as :mod:`.engine`, over one int32 row of state per game (``ROW`` names the
offsets of the fields of :class:`~.state.Table` in it). The deal is one ``permutation`` of
the game's own generator, as in the reference, so a batched game and a reference game
reset with the same seed and fed the same actions stay identical;
``tests/test_batched.py`` checks it at every step.

The chip arithmetic is the engine's own, :mod:`.arith` (compiled once for both). The
per-value costs of a seat's hand (the observation's ``play_costs``, which also decide the
direct-value mask) are cached per seat until its hand or the number of cards to play
changes. :class:`ChipItKernels` is also the codec between a game's
``state_dict()`` and its row (``state_dict``, ``load``), through the engine's typed
:class:`~.state.Table`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange

from card_envs.core import ranking
from card_envs.core.compiled import key_compiled_cache
from card_envs.games.chipit import arith, cards, engine
from card_envs.games.chipit import encoding as E
from card_envs.games.chipit import state as S
from card_envs.games.chipit.arith import (
    NUM_DIRECT,
    card_options,
    chip_cost,
    free_counts,
    mark_blocks,
    mark_units,
    mark_values,
    play_costs,
)
from card_envs.games.chipit.cards import (
    COPIES,
    DEAL_SIZE,
    MAX_HAND,
    NUM_CARDS,
    NUM_TYPES,
    START_CHIPS,
    TOTAL_CHIPS,
)
from card_envs.games.chipit.engine import ChipItGame
from card_envs.games.chipit.state import Build, LastPlay, Shown, Table, Turn

key_compiled_cache(
    __name__, arith.__file__, cards.__file__, E.__file__, engine.__file__, S.__file__, ranking.__file__
)
rank_rest = njit(cache=True)(ranking.rank_rest)  # the one ranking rule of every game, compiled

LEAD, ANSWER, UNITS_PHASE, CARDS_PHASE, OVER = range(len(E.PHASES))
TURN_KINDS = S.TURN_KINDS
DEAL_SIZES = np.array([DEAL_SIZE.get(n, 0) for n in range(ChipItGame.max_players + 1)], dtype=np.int64)
#: the observation fields, in the order of :func:`.encoding.observation_layout`
FIELDS = (
    "phase", "hand", "chips", "hand_sizes", "holdings", "display", "display_chips", "discard",
    "to_beat_count", "to_beat_value", "to_beat_seat", "supply", "passes", "finished", "build_value",
    "build_block", "build_cards", "build_chips", "build_needed", "free_cards", "play_costs",
)  # fmt: skip
(F_PHASE, F_HAND, F_CHIPS, F_SIZES, F_HOLDINGS, F_DISPLAY, F_DISPLAY_CHIPS, F_DISCARD, F_BEAT_COUNT,
 F_BEAT_VALUE, F_BEAT_SEAT, F_SUPPLY, F_PASSES, F_FINISHED, F_BUILD_VALUE, F_BUILD_BLOCK, F_BUILD_CARDS,
 F_BUILD_CHIPS, F_BUILD_NEEDED, F_FREE_CARDS, F_PLAY_COSTS) = range(len(FIELDS))  # fmt: skip


class Rules(NamedTuple):
    """The table and variant as plain ints, the form the kernels take."""

    num_players: int
    play_to_end: bool


MAX_SEATS = ChipItGame.max_players


def _layout(fields: list[tuple[str, int]]) -> dict[str, int]:
    """Offsets of consecutive fields of the given widths in a game's row of the table."""
    offsets, at = {}, 0
    for name, width in fields:
        offsets[name] = at
        at += width
    offsets["WIDTH"] = at
    return offsets


#: A game is one int32 row of ``table`` (the fields of :class:`~.state.Table`; -1 stands
#: for None), sized for the most seats so that the offsets are compile-time constants. One
#: array rather than a tuple of arrays: numba copies a tuple of arrays, counting references
#: to each, whenever a helper takes it, which cost more than the rules themselves.
ROW = _layout(
    [
        ("SUPPLY", 1),
        ("LAST", 3),  # combination to beat: seat (-1: none), count, value
        ("PASSES", 1),
        ("DISCARD_LEN", 1),
        ("OUT_LEN", 1),
        ("FINISHED_LEN", 1),
        ("CURRENT", 1),
        ("BUILDING", 1),  # 1 while a play is being built
        ("BUILD_VALUE", 1),  # -1 while only a block is chosen
        ("BUILD_BLOCK", 1),  # -1 if no block was chosen
        ("BUILD_LEN", 1),
        ("BUILD_CHIPS", 1),
        ("GAME_OVER", 1),  # 1 once the ranks are set
        ("TURN", 5),  # last turn: seat (-1: none), kind, returned, stood (-1: none), took
        ("HAND_SIZES", MAX_SEATS),
        ("HELD", MAX_SEATS),
        ("DISPLAY_LEN", MAX_SEATS),
        ("IS_FINISHED", MAX_SEATS),
        ("FINISHED", MAX_SEATS),  # seats in finishing order
        ("RANKS", MAX_SEATS),
        ("RETURNED", MAX_SEATS),
        ("COSTS_K", MAX_SEATS),  # the card count each seat's cached play costs are for (-1: stale)
        ("HANDS", MAX_SEATS * NUM_TYPES),  # count per seat and card type
        ("DISPLAY", MAX_SEATS * MAX_HAND),  # card types lying out per seat, in the order laid out
        ("DISPLAY_CHIPS", MAX_SEATS * MAX_HAND),  # the chips on each of them
        ("DISCARD", NUM_CARDS),  # in discarding order
        ("DISCARD_COUNTS", NUM_TYPES),
        ("OUT", NUM_CARDS),  # cards not dealt, sorted
        ("BUILD_CARDS", MAX_HAND),  # types chosen, ascending
        ("BUILD_REST", NUM_TYPES),  # the hand less the cards chosen
    ]
)
SUPPLY = ROW["SUPPLY"]
LAST = ROW["LAST"]
PASSES = ROW["PASSES"]
DISCARD_LEN = ROW["DISCARD_LEN"]
OUT_LEN = ROW["OUT_LEN"]
FINISHED_LEN = ROW["FINISHED_LEN"]
CURRENT = ROW["CURRENT"]
BUILDING = ROW["BUILDING"]
BUILD_VALUE = ROW["BUILD_VALUE"]
BUILD_BLOCK = ROW["BUILD_BLOCK"]
BUILD_LEN = ROW["BUILD_LEN"]
BUILD_CHIPS = ROW["BUILD_CHIPS"]
GAME_OVER = ROW["GAME_OVER"]
TURN = ROW["TURN"]
HAND_SIZES = ROW["HAND_SIZES"]
HELD = ROW["HELD"]
DISPLAY_LEN = ROW["DISPLAY_LEN"]
IS_FINISHED = ROW["IS_FINISHED"]
FINISHED = ROW["FINISHED"]
RANKS = ROW["RANKS"]
RETURNED = ROW["RETURNED"]
COSTS_K = ROW["COSTS_K"]
HANDS = ROW["HANDS"]
DISPLAY = ROW["DISPLAY"]
DISPLAY_CHIPS = ROW["DISPLAY_CHIPS"]
DISCARD = ROW["DISCARD"]
DISCARD_COUNTS = ROW["DISCARD_COUNTS"]
OUT = ROW["OUT"]
BUILD_CARDS = ROW["BUILD_CARDS"]
BUILD_REST = ROW["BUILD_REST"]


class ChipItArrays(NamedTuple):
    """The B games: one int32 row of the table each, and each seat's cached play costs."""

    table: np.ndarray  # [B, ROW["WIDTH"]]
    costs: np.ndarray  # [B, N, 128] play_costs of each seat's hand for COSTS_K cards

    @classmethod
    def zeros(cls, batch_size: int, num_players: int) -> ChipItArrays:
        return cls(
            table=np.zeros((batch_size, ROW["WIDTH"]), np.int32),
            costs=np.zeros((batch_size, num_players, NUM_DIRECT), np.int16),
        )


# ------------------------------------------------------------ chip arithmetic
@njit(cache=True)
def _seat_costs(st, cc, b, p, k):
    """The cached ``play_costs`` of seat ``p``'s hand for ``k`` cards (computed when stale)."""
    if st[b, COSTS_K + p] != k:
        play_costs(st[b, HANDS + p * NUM_TYPES : HANDS + (p + 1) * NUM_TYPES], k, cc[b, p])
        st[b, COSTS_K + p] = k
    return cc[b, p]


# --------------------------------------------------------------------- ranking
@njit(cache=True)
def _cards_held(st, b, p):
    chips = 0
    for i in range(st[b, DISPLAY_LEN + p]):
        chips += st[b, DISPLAY_CHIPS + p * MAX_HAND + i]
    return st[b, HAND_SIZES + p] + st[b, HELD + p] + chips


@njit(cache=True)
def _rank_rest(st, b, n, truncated, out):
    """``ranks_after_finishers``: finishers keep their places, the rest follow by cards held
    (ties share a rank; when truncated, ties are broken by seat)."""
    finish = np.zeros(n, np.int64)
    for i in range(st[b, FINISHED_LEN]):
        finish[st[b, FINISHED + i]] = i + 1
    keys = np.empty(n, np.int64)
    for p in range(n):
        keys[p] = _cards_held(st, b, p) * n + p if truncated else _cards_held(st, b, p)
    rank_rest(finish, keys, out)


@njit(cache=True)
def _finish(st, b, r, p):
    st[b, FINISHED + st[b, FINISHED_LEN]] = p
    st[b, FINISHED_LEN] += 1
    st[b, IS_FINISHED + p] = 1
    if st[b, FINISHED_LEN] >= (r.num_players - 1 if r.play_to_end else 1):
        _rank_rest(st, b, r.num_players, False, st[b, RANKS : RANKS + r.num_players])
        st[b, GAME_OVER] = 1


# --------------------------------------------------------------------- actions
@njit(cache=True)
def _advance(st, b, r):
    """Move the turn on, ending the round and clearing displays on the way (engine._advance);
    returns (stood, took) for the last-turn record."""
    n = r.num_players
    p = st[b, CURRENT]
    stood = -1
    took = 0
    while True:
        p = (p + 1) % n
        if st[b, LAST] == p:
            st[b, LAST] = -1
            st[b, LAST + 1] = -1
            st[b, LAST + 2] = -1
            st[b, PASSES] = 0
            stood = p
        k = st[b, DISPLAY_LEN + p]
        if k:
            took = 0
            for i in range(k):
                card = st[b, DISPLAY + p * MAX_HAND + i]
                st[b, DISCARD + st[b, DISCARD_LEN]] = card
                st[b, DISCARD_LEN] += 1
                st[b, DISCARD_COUNTS + card] += 1
                took += st[b, DISPLAY_CHIPS + p * MAX_HAND + i]
            st[b, HELD + p] += took
            st[b, DISPLAY_LEN + p] = 0
        if not st[b, IS_FINISHED + p]:
            st[b, CURRENT] = p
            return stood, took


@njit(cache=True)
def _set_turn(st, b, seat, kind, returned, stood, took):
    st[b, TURN] = seat
    st[b, TURN + 1] = kind
    st[b, TURN + 2] = returned
    st[b, TURN + 3] = stood
    st[b, TURN + 4] = took


@njit(cache=True)
def _pass(st, b, r, p, returned):
    st[b, HELD + p] -= returned
    st[b, SUPPLY] += returned
    st[b, RETURNED + p] += returned
    st[b, PASSES] += 1
    if st[b, HAND_SIZES + p] == 0 and st[b, HELD + p] == 0:
        _finish(st, b, r, p)
    if st[b, GAME_OVER]:
        _set_turn(st, b, p, 0, returned, -1, 0)
    else:
        stood, took = _advance(st, b, r)
        _set_turn(st, b, p, 0, returned, stood, took)


@njit(cache=True)
def _complete(st, b, r, p):
    """Lay the built play out: cards from the hand, chips from the supply (engine._complete)."""
    st[b, BUILDING] = 0
    value = st[b, BUILD_VALUE]
    count = st[b, BUILD_LEN]
    for t in range(NUM_TYPES):
        st[b, HANDS + p * NUM_TYPES + t] = st[b, BUILD_REST + t]
    st[b, COSTS_K + p] = -1  # the hand changed
    st[b, HAND_SIZES + p] -= count
    st[b, SUPPLY] -= st[b, BUILD_CHIPS]
    for i in range(count):
        t = st[b, BUILD_CARDS + i]
        st[b, DISPLAY + p * MAX_HAND + i] = t
        st[b, DISPLAY_CHIPS + p * MAX_HAND + i] = chip_cost(t, value)
    st[b, DISPLAY_LEN + p] = count
    kind = 1 if st[b, LAST] < 0 else 2
    st[b, LAST] = p
    st[b, LAST + 1] = count
    st[b, LAST + 2] = value
    st[b, PASSES] = 0
    if st[b, HAND_SIZES + p] == 0 and st[b, HELD + p] == 0 and st[b, BUILD_CHIPS] == 0:
        _finish(st, b, r, p)
    took = 0
    if not st[b, GAME_OVER]:
        took = _advance(st, b, r)[1]
    _set_turn(st, b, p, kind, 0, -1, took)


@njit(cache=True)
def _start_build(st, b, p, value, block):
    st[b, BUILDING] = 1
    st[b, BUILD_VALUE] = value
    st[b, BUILD_BLOCK] = block
    st[b, BUILD_LEN] = 0
    st[b, BUILD_CHIPS] = 0
    for t in range(NUM_TYPES):
        st[b, BUILD_REST + t] = st[b, HANDS + p * NUM_TYPES + t]


@njit(cache=True)
def _apply(st, b, r, action):
    p = st[b, CURRENT]
    if action < E.VALUE:
        _pass(st, b, r, p, action - E.PASS)
    elif action < E.HIGH:
        _start_build(st, b, p, action - E.VALUE + E.MIN_VALUE, -1)
    elif action < E.UNITS:
        _start_build(st, b, p, -1, E.HIGH_START + E.BLOCK * (action - E.HIGH))
    elif action < E.CARD:
        st[b, BUILD_VALUE] = st[b, BUILD_BLOCK] + action - E.UNITS
    elif action < E.DONE:
        t = action - E.CARD
        st[b, BUILD_REST + t] -= 1
        st[b, BUILD_CARDS + st[b, BUILD_LEN]] = t
        st[b, BUILD_LEN] += 1
        st[b, BUILD_CHIPS] += chip_cost(t, st[b, BUILD_VALUE])
        if st[b, LAST] >= 0 and st[b, BUILD_LEN] == st[b, LAST + 1]:
            _complete(st, b, r, p)
    else:
        _complete(st, b, r, p)


# ------------------------------------------------------------------------ deal
@njit(cache=True)
def _deal(st, b, r, gen):
    """Table.empty, then engine._deal: one permutation of the 60 cards."""
    n = r.num_players
    size = DEAL_SIZES[n]
    st[b, :] = 0
    deck = gen.permutation(NUM_CARDS)
    for p in range(n):
        for i in range(p * size, (p + 1) * size):
            st[b, HANDS + p * NUM_TYPES + deck[i] // COPIES] += 1
        st[b, HAND_SIZES + p] = size
        st[b, HELD + p] = START_CHIPS
        st[b, COSTS_K + p] = -1
    left = np.zeros(NUM_TYPES, np.int64)
    for i in range(n * size, NUM_CARDS):
        left[deck[i] // COPIES] += 1
    k = 0
    for t in range(NUM_TYPES):
        for _ in range(left[t]):
            st[b, OUT + k] = t
            k += 1
    st[b, OUT_LEN] = k
    st[b, SUPPLY] = TOTAL_CHIPS - START_CHIPS * n
    st[b, LAST] = -1
    st[b, LAST + 1] = -1
    st[b, LAST + 2] = -1
    st[b, BUILD_VALUE] = -1
    st[b, BUILD_BLOCK] = -1
    st[b, TURN] = -1


# ----------------------------------------------------------------- mask, view
@njit(cache=True)
def _phase(st, b):
    if st[b, GAME_OVER]:
        return OVER
    if not st[b, BUILDING]:
        return LEAD if st[b, LAST] < 0 else ANSWER
    return UNITS_PHASE if st[b, BUILD_VALUE] < 0 else CARDS_PHASE


@njit(cache=True)
def _write_mask(st, cc, b, r, mask):
    """engine._legal_mask (all zeros once over)."""
    mask[:] = 0
    if st[b, GAME_OVER]:
        return
    p = st[b, CURRENT]
    supply = st[b, SUPPLY]
    leading = st[b, LAST] < 0
    k = 1 if leading else st[b, LAST + 1]
    lo = E.MIN_VALUE if leading else st[b, LAST + 2] + 1
    size = st[b, HAND_SIZES + p]
    hand = st[b, HANDS + p * NUM_TYPES : HANDS + (p + 1) * NUM_TYPES]
    if not st[b, BUILDING]:
        if not leading or size == 0:
            held = st[b, HELD + p]
            most = held if held < E.MAX_RETURN else E.MAX_RETURN
            for a in range(E.PASS, E.PASS + most + 1):
                mask[a] = 1
        if size >= k and size > 0:
            mark_values(_seat_costs(st, cc, b, p, k), lo, supply, mask)
            mark_blocks(hand, k, lo, supply, mask)
    elif st[b, BUILD_VALUE] < 0:
        mark_units(hand, k, lo, st[b, BUILD_BLOCK], supply, mask)
    else:
        count = st[b, BUILD_LEN]
        need = 0 if leading else k - count
        min_type = st[b, BUILD_CARDS + count - 1] if count else 0
        card_options(
            st[b, BUILD_REST : BUILD_REST + NUM_TYPES],
            st[b, BUILD_VALUE],
            need,
            supply - st[b, BUILD_CHIPS],
            min_type,
            mask[E.CARD : E.DONE],
        )
        if leading and count:
            mask[E.DONE] = 1


@njit(cache=True)
def _write_observation(st, cc, b, r, player, starts, obs):
    """engine.observe(player): per-player fields in relative seat order, own first."""
    n = r.num_players
    obs[:] = 0.0
    obs[starts[F_PHASE] + _phase(st, b)] = 1.0
    hand = HANDS + player * NUM_TYPES
    at_hand, at_discard, at_free = starts[F_HAND], starts[F_DISCARD], starts[F_FREE_CARDS]
    for t in range(NUM_TYPES):
        obs[at_hand + t] = st[b, hand + t]
        obs[at_discard + t] = st[b, DISCARD_COUNTS + t]
    free_counts(st[b, hand : hand + NUM_TYPES], obs[at_free : at_free + NUM_DIRECT])
    obs[starts[F_CHIPS]] = st[b, HELD + player]
    for i in range(n):
        q = (player + i) % n
        obs[starts[F_SIZES] + i] = st[b, HAND_SIZES + q]
        obs[starts[F_HOLDINGS] + i] = st[b, HELD + q]
        chips = 0
        at = starts[F_DISPLAY] + i * NUM_TYPES
        for j in range(st[b, DISPLAY_LEN + q]):
            obs[at + st[b, DISPLAY + q * MAX_HAND + j]] += 1.0
            chips += st[b, DISPLAY_CHIPS + q * MAX_HAND + j]
        obs[starts[F_DISPLAY_CHIPS] + i] = chips
        obs[starts[F_FINISHED] + i] = st[b, IS_FINISHED + q]
    leading = st[b, LAST] < 0
    if not leading:
        obs[starts[F_BEAT_COUNT]] = st[b, LAST + 1]
        obs[starts[F_BEAT_VALUE]] = st[b, LAST + 2]
        obs[starts[F_BEAT_SEAT] + (st[b, LAST] - player) % n] = 1.0
    obs[starts[F_SUPPLY]] = st[b, SUPPLY]
    passes = st[b, PASSES]
    obs[starts[F_PASSES]] = passes if passes < n else n
    if st[b, BUILDING]:
        if st[b, BUILD_VALUE] >= 0:
            obs[starts[F_BUILD_VALUE]] = st[b, BUILD_VALUE]
        if st[b, BUILD_BLOCK] >= 0:
            obs[starts[F_BUILD_BLOCK]] = st[b, BUILD_BLOCK]
        for i in range(st[b, BUILD_LEN]):
            obs[starts[F_BUILD_CARDS] + st[b, BUILD_CARDS + i]] += 1.0
        obs[starts[F_BUILD_CHIPS]] = st[b, BUILD_CHIPS]
        if not leading:
            obs[starts[F_BUILD_NEEDED]] = st[b, LAST + 1] - st[b, BUILD_LEN]
    costs = _seat_costs(st, cc, b, player, 1 if leading else st[b, LAST + 1])
    at = starts[F_PLAY_COSTS]
    for i in range(NUM_DIRECT):
        obs[at + i] = costs[i]


# ------------------------------------------------------------------ batch calls
@njit(cache=True, parallel=True)
def step_rows(st, r, rows, actions, over):
    """Apply ``actions[i]`` in game ``rows[i]``; ``over[i]``: that game has ended."""
    for i in prange(rows.size):
        b = rows[i]
        _apply(st, b, r, actions[i])
        over[i] = st[b, GAME_OVER] != 0


@njit(cache=True)
def deal_rows(st, r, rows, gens):
    for i in range(rows.size):
        _deal(st, rows[i], r, gens[rows[i]])


@njit(cache=True, parallel=True)
def write_rows(st, cc, r, rows, starts, observations, masks, current):
    """The decider, its mask and its observation, for each game in ``rows``."""
    for i in prange(rows.size):
        b = rows[i]
        current[b] = _write_row(st, cc, b, r, starts, observations[b], masks[b])


@njit(cache=True)
def _write_row(st, cc, b, r, starts, obs, mask):
    player = st[b, CURRENT]
    _write_mask(st, cc, b, r, mask)
    _write_observation(st, cc, b, r, player, starts, obs)
    return player


@njit(cache=True)
def ranks_rows(st, r, rows, truncated, out):
    """Final ranks, or ``truncation_ranks`` for games stopped by the step cap."""
    for i in range(rows.size):
        _ranks_row(st, rows[i], r.num_players, truncated[i], out[i])


@njit(cache=True)
def _ranks_row(st, b, n, truncated, out):
    if truncated:
        _rank_rest(st, b, n, True, out)
    else:
        for p in range(n):
            out[p] = st[b, RANKS + p]


@njit(cache=True)
def observe_rows(st, cc, r, rows, players, starts, out):
    """Observation of ``players[i]`` in game ``rows[i]`` (any seat, not only the decider)."""
    for i in range(rows.size):
        _write_observation(st, cc, rows[i], r, players[i], starts, out[i])


@njit(cache=True)
def held_rows(st, r, rows, out):
    """``cards_held`` of every seat (hand cards plus chip points held and lying out)."""
    for i in range(rows.size):
        for p in range(r.num_players):
            out[i, p] = _cards_held(st, rows[i], p)


# ------------------------------------------------- one row (BatchedGame.play_out)
@njit(cache=True)
def step1(k, b, action, gen):
    _apply(k[0], b, k[2], action)


@njit(cache=True)
def write1(k, b, observation, mask):
    return _write_row(k[0], k[1], b, k[2], k[3], observation, mask)


@njit(cache=True)
def over1(k, b):
    return k[0][b, GAME_OVER] != 0


@njit(cache=True)
def ranks1(k, b, truncated, out):
    _ranks_row(k[0], b, k[2].num_players, truncated, out)


# ------------------------------------------------------------------- the class
class ChipItKernels:
    """The batched Chip It rules for :class:`card_envs.batched.game.BatchedGame`."""

    def __init__(self, game: ChipItGame, batch_size: int) -> None:
        self.game = game
        self.rules = Rules(num_players=game.num_players, play_to_end=bool(game.play_to_end))
        self.state = ChipItArrays.zeros(batch_size, game.num_players)
        layout = game.observation_layout
        self.starts = np.array([layout.slices[name].start for name in FIELDS], dtype=np.int64)

    def deal(self, rows: np.ndarray, gens: Any) -> None:
        deal_rows(self.state.table, self.rules, rows, gens)

    def step(self, rows: np.ndarray, actions: np.ndarray, gens: Any, over: np.ndarray) -> None:
        step_rows(self.state.table, self.rules, rows, actions, over)

    def write(
        self, rows: np.ndarray, observations: np.ndarray, masks: np.ndarray, current: np.ndarray
    ) -> None:
        st, cc = self.state
        write_rows(st, cc, self.rules, rows, self.starts, observations, masks, current)

    def observe(self, rows: np.ndarray, players: np.ndarray, out: np.ndarray) -> None:
        st, cc = self.state
        observe_rows(st, cc, self.rules, rows, players, self.starts, out)

    def ranks(self, rows: np.ndarray, truncated: np.ndarray, out: np.ndarray) -> None:
        ranks_rows(self.state.table, self.rules, rows, truncated, out)

    def held(self, rows: np.ndarray, out: np.ndarray) -> None:
        held_rows(self.state.table, self.rules, rows, out)

    def row_functions(self) -> tuple[Any, Any, Any, Any, Any]:
        """``(k, step1, write1, over1, ranks1)``: one row's rules, for a compiled play-out."""
        st, cc = self.state
        return (st, cc, self.rules, self.starts), step1, write1, over1, ranks1

    # ------------------------------------------------------------ the codec
    def state_dict(self, index: int) -> dict[str, Any]:
        """Game ``index`` as the reference engine's ``state_dict()``."""
        return {**self.game.state_header(), **S.to_dict(self.read(index))}

    def load(self, index: int, state: dict[str, Any]) -> None:
        """Write a ``state_dict()`` the reference engine accepts into row ``index``
        (:meth:`card_envs.batched.BatchedGame.load` checks it first)."""
        self.write_table(index, S.from_dict(state, self.rules.num_players))

    def load_engine(self, index: int, game: ChipItGame) -> None:
        """:meth:`load` of ``game``'s position, read from its typed state without the round trip
        through ``state_dict()`` (a search loads thousands of sampled worlds a second)."""
        self.write_table(index, game.table)

    def read(self, index: int) -> Table:
        """Row ``index`` as the engine's typed :class:`~.state.Table`."""
        n = self.rules.num_players
        row = self.state.table[index].astype(int).tolist()

        def cut(at: int, size: int) -> list[int]:
            return row[at : at + size]

        def optional(value: int) -> int | None:
            return None if value < 0 else value

        build = None
        if row[BUILDING]:
            build = Build(
                optional(row[BUILD_VALUE]),
                optional(row[BUILD_BLOCK]),
                cut(BUILD_CARDS, row[BUILD_LEN]),
                row[BUILD_CHIPS],
                cut(BUILD_REST, NUM_TYPES),
            )
        seat, count, value = cut(LAST, 3)
        turn = None
        if row[TURN] >= 0:
            seat_, kind, returned, stood, took = cut(TURN, 5)
            turn = Turn(seat_, TURN_KINDS[kind], returned, optional(stood), took)
        display = []
        for p in range(n):
            at, size = p * MAX_HAND, row[DISPLAY_LEN + p]
            display.append([Shown(row[DISPLAY + at + i], row[DISPLAY_CHIPS + at + i]) for i in range(size)])
        return Table(
            hands=[cut(HANDS + p * NUM_TYPES, NUM_TYPES) for p in range(n)],
            hand_sizes=cut(HAND_SIZES, n),
            held=cut(HELD, n),
            supply=row[SUPPLY],
            display=display,
            last=None if seat < 0 else LastPlay(seat, count, value),
            passes=row[PASSES],
            discard=cut(DISCARD, row[DISCARD_LEN]),
            discard_counts=cut(DISCARD_COUNTS, NUM_TYPES),
            out=cut(OUT, row[OUT_LEN]),
            finished=cut(FINISHED, row[FINISHED_LEN]),
            is_finished=[bool(f) for f in cut(IS_FINISHED, n)],
            current=row[CURRENT],
            build=build,
            ranks=cut(RANKS, n) if row[GAME_OVER] else None,
            returned=cut(RETURNED, n),
            turn=turn,
        )

    def write_table(self, index: int, table: Table) -> None:
        """Write the typed table ``table`` into row ``index`` (the inverse of :meth:`read`)."""
        n = table.num_players
        row = np.zeros(ROW["WIDTH"], np.int32)

        def put(at: int, values: list[int]) -> None:
            row[at : at + len(values)] = values

        none = -1  # how a row writes None
        row[SUPPLY], row[PASSES], row[CURRENT] = table.supply, table.passes, table.current
        put(LAST, [none] * 3 if table.last is None else [table.last.seat, table.last.count, table.last.value])
        row[DISCARD_LEN], row[OUT_LEN], row[FINISHED_LEN] = (
            len(table.discard),
            len(table.out),
            len(table.finished),
        )
        row[BUILD_VALUE] = row[BUILD_BLOCK] = none
        b = table.build
        if b is not None:
            row[BUILDING], row[BUILD_LEN], row[BUILD_CHIPS] = 1, len(b.cards), b.chips
            row[BUILD_VALUE] = none if b.value is None else b.value
            row[BUILD_BLOCK] = none if b.block is None else b.block
            put(BUILD_CARDS, b.cards)
            put(BUILD_REST, b.rest)
        if table.ranks is not None:
            row[GAME_OVER] = 1
            put(RANKS, table.ranks)
        t = table.turn
        row[TURN] = none
        if t is not None:
            stood = none if t.stood is None else t.stood
            put(TURN, [t.seat, TURN_KINDS.index(t.kind), t.returned, stood, t.took])
        put(HAND_SIZES, table.hand_sizes)
        put(HELD, table.held)
        put(DISPLAY_LEN, [len(shown) for shown in table.display])
        put(IS_FINISHED, [int(f) for f in table.is_finished])
        put(FINISHED, table.finished)
        put(RETURNED, table.returned)
        put(COSTS_K, [none] * n)  # no seat's play costs are cached yet
        for p in range(n):
            put(HANDS + p * NUM_TYPES, table.hands[p])
            put(DISPLAY + p * MAX_HAND, [s.card for s in table.display[p]])
            put(DISPLAY_CHIPS + p * MAX_HAND, [s.chips for s in table.display[p]])
        put(DISCARD, table.discard)
        put(DISCARD_COUNTS, table.discard_counts)
        put(OUT, table.out)
        self.state.table[index] = row
