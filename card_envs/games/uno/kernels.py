"""The UNO-style rules compiled with numba, for many games at once (:mod:`card_envs.batched.game`).

The same rules as :mod:`.engine`, line for line, over struct-of-arrays state: row ``b``
of every array is game ``b``. Each game draws from its own generator exactly as the
reference engine does (the deal and every reshuffle are one ``permutation`` each), so
a batched game and a reference game reset with the same seed and fed the same actions
stay identical; ``tests/test_batched.py`` checks it at every step. :class:`UnoKernels` is
also the codec between a game's ``state_dict()`` and its row (``state_dict``, ``load``),
through the engine's typed :class:`~.state.Table`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange

from card_envs.core import ranking
from card_envs.core.compiled import key_compiled_cache
from card_envs.games.uno import cards as C
from card_envs.games.uno import encoding as E
from card_envs.games.uno import engine
from card_envs.games.uno import state as S
from card_envs.games.uno.cards import COLOUR_OF, DRAW_AMOUNT, MATCHES, POINTS, RANK_OF
from card_envs.games.uno.engine import CHALLENGE_PENALTY, DEAL_SIZE, UnoGame
from card_envs.games.uno.state import Challenge, LastMove, Table

key_compiled_cache(__name__, C.__file__, E.__file__, engine.__file__, ranking.__file__)
rank_rest = njit(cache=True)(ranking.rank_rest)  # the one ranking rule of every game, compiled

PLAY, PLAY_DRAWN, CHOOSE_COLOUR, PENDING, CATCH, OVER = range(len(E.PHASES))
W4 = C.WILD_DRAW_FOUR
DECK = np.array([t for t, k in enumerate(C.deck_counts()) for _ in range(k)], dtype=np.int8)
DRAW_TWOS = np.array(C.DRAW_TWOS, dtype=np.int64)
#: the observation fields, in the order of :func:`.encoding.observation_layout`
FIELDS = (
    "hand", "top_card", "colour", "clockwise", "pending_draw", "pending_kind", "challengeable", "hand_sizes",
    "called", "draw_pile_size", "discard_counts", "phase", "drawn", "deciding", "turn", "catch_target",
)  # fmt: skip
(O_HAND, O_TOP, O_COLOUR, O_CLOCKWISE, O_PENDING_DRAW, O_PENDING_KIND, O_CHALLENGEABLE, O_SIZES, O_CALLED,
 O_PILE_SIZE, O_DISCARDS, O_PHASE, O_DRAWN, O_DECIDING, O_TURN, O_TARGET) = range(len(FIELDS))  # fmt: skip


class Rules(NamedTuple):
    """The table and variant as plain ints, the form the kernels take."""

    num_players: int
    official_draw_four: bool
    voluntary_draw: bool
    stacking: bool
    reverse_skips: bool  # two_player_reverse_skips
    missed_call_penalty: int


# Per-game ints, ``g[b, FIELD]`` (-1 stands for None, 0/1 for False/True). A few arrays rather
# than one per field: each array of the state costs on every call of a kernel helper (23 made
# a step about four times slower than these six).
(PILE_LEN, DISCARD_LEN, COLOUR, DIRECTION, TURN, PHASE, STACK, DRAWN, SKIP_NEXT, OPENING,
 CHALLENGE_SEAT, CHALLENGE_BLUFF, CATCHERS_LEFT, WINNER, DRAWS_LEN) = range(15)  # fmt: skip
MOVE = 15  # the last action: seat (-1 before the first), action, turn before, stack before
DRAWS = MOVE + 4  # (seat, cards drawn) caused by the last action, at most two pairs
MAX_DRAWS = 2
GAME_FIELDS = DRAWS + 2 * MAX_DRAWS
SIZE, CALLED = range(2)  # per seat, ``seat[b, p, FIELD]``: cards held, LETZTE called for them


class UnoArrays(NamedTuple):
    """Every field of :class:`~.state.Table` for B games."""

    g: np.ndarray  # [B, GAME_FIELDS]
    seat: np.ndarray  # [B, N, 2]
    hands: np.ndarray  # [B, N, 54] count per card type
    pile: np.ndarray  # [B, 108] draw pile, top = pile[b, g[b, PILE_LEN] - 1]
    discard: np.ndarray  # [B, 108] discard pile, top = discard[b, g[b, DISCARD_LEN] - 1]
    discard_counts: np.ndarray  # [B, 54] (derived: the observation's field, kept up to date)

    @classmethod
    def zeros(cls, batch_size: int, num_players: int) -> UnoArrays:
        b, n = batch_size, num_players
        return cls(
            g=np.zeros((b, GAME_FIELDS), np.int64),
            seat=np.zeros((b, n, 2), np.int64),
            hands=np.zeros((b, n, C.NUM_TYPES), np.int8),
            pile=np.zeros((b, C.DECK_SIZE), np.int8),
            discard=np.zeros((b, C.DECK_SIZE), np.int8),
            discard_counts=np.zeros((b, C.NUM_TYPES), np.int8),
        )


# ------------------------------------------------------------------ card moves
@njit(cache=True)
def _give(s, b, player, card):
    s.hands[b, player, card] += 1
    s.seat[b, player, SIZE] += 1
    s.seat[b, player, CALLED] = False


@njit(cache=True)
def _reshuffle(s, b, gen):
    rest = s.g[b, DISCARD_LEN] - 1
    order = gen.permutation(rest)
    for i in range(rest):
        s.pile[b, i] = s.discard[b, order[i]]
    s.g[b, PILE_LEN] = rest
    top = s.discard[b, rest]
    s.discard[b, 0] = top
    s.g[b, DISCARD_LEN] = 1
    s.discard_counts[b, :] = 0
    s.discard_counts[b, top] = 1


@njit(cache=True)
def _draw(s, b, player, count, gen):
    """Draw up to ``count`` cards (reshuffling when needed); returns (drawn, the last card)."""
    drawn, card = 0, -1
    for _ in range(count):
        if s.g[b, PILE_LEN] == 0:
            _reshuffle(s, b, gen)
            if s.g[b, PILE_LEN] == 0:
                break
        s.g[b, PILE_LEN] -= 1
        card = s.pile[b, s.g[b, PILE_LEN]]
        _give(s, b, player, card)
        drawn += 1
    k = s.g[b, DRAWS_LEN]
    s.g[b, DRAWS + 2 * k] = player
    s.g[b, DRAWS + 2 * k + 1] = drawn
    s.g[b, DRAWS_LEN] = k + 1
    return drawn, card


# ------------------------------------------------------------------ turn order
@njit(cache=True)
def _next_seat(s, b, seat, steps, n):
    return ((seat + steps * s.g[b, DIRECTION]) % n + n) % n


@njit(cache=True)
def _has_stackable(s, b, r):
    if not r.stacking:
        return False
    turn = s.g[b, TURN]
    if s.discard[b, s.g[b, DISCARD_LEN] - 1] == W4:
        return s.hands[b, turn, W4] > 0
    for t in DRAW_TWOS:  # noqa: SIM110 (a loop: numba compiles no generator in any())
        if s.hands[b, turn, t]:
            return True
    return False


@njit(cache=True)
def _start_turn(s, b, r, gen):
    s.g[b, DRAWN] = -1
    s.g[b, CATCHERS_LEFT] = 0
    if s.g[b, STACK] and not (_has_stackable(s, b, r) or s.g[b, CHALLENGE_SEAT] >= 0):
        _draw(s, b, s.g[b, TURN], s.g[b, STACK], gen)
        s.g[b, STACK] = 0
        s.g[b, TURN] = _next_seat(s, b, s.g[b, TURN], 1, r.num_players)
    s.g[b, PHASE] = PENDING if s.g[b, STACK] else PLAY


@njit(cache=True)
def _end_turn(s, b, r, gen):
    s.g[b, TURN] = _next_seat(s, b, s.g[b, TURN], 2 if s.g[b, SKIP_NEXT] else 1, r.num_players)
    s.g[b, SKIP_NEXT] = False
    _start_turn(s, b, r, gen)


@njit(cache=True)
def _after_play(s, b, r, gen):
    player = s.g[b, TURN]
    if s.seat[b, player, SIZE] == 1 and not s.seat[b, player, CALLED] and r.missed_call_penalty:
        s.g[b, CATCHERS_LEFT] = r.num_players - 1
        s.g[b, PHASE] = CATCH
    else:
        _end_turn(s, b, r, gen)


@njit(cache=True)
def _end_round(s, b, r, winner, gen):
    if s.g[b, STACK]:
        _draw(s, b, _next_seat(s, b, winner, 1, r.num_players), s.g[b, STACK], gen)
        s.g[b, STACK] = 0
    s.g[b, CHALLENGE_SEAT] = -1
    s.g[b, CHALLENGE_BLUFF] = False
    s.g[b, WINNER] = winner
    s.g[b, PHASE] = OVER


# --------------------------------------------------------------------- actions
@njit(cache=True)
def _play(s, b, r, card, call, gen):
    player = s.g[b, TURN]
    if card == W4 and r.official_draw_four:
        colour = s.g[b, COLOUR]
        s.g[b, CHALLENGE_SEAT] = player
        s.g[b, CHALLENGE_BLUFF] = (
            s.hands[b, player, colour * C.NUM_RANKS : (colour + 1) * C.NUM_RANKS].sum() > 0
        )
    else:
        s.g[b, CHALLENGE_SEAT] = -1
        s.g[b, CHALLENGE_BLUFF] = False
    s.hands[b, player, card] -= 1
    s.seat[b, player, SIZE] -= 1
    s.discard[b, s.g[b, DISCARD_LEN]] = card
    s.g[b, DISCARD_LEN] += 1
    s.discard_counts[b, card] += 1
    s.g[b, DRAWN] = -1
    s.g[b, STACK] += DRAW_AMOUNT[card]
    if COLOUR_OF[card] >= 0:  # set before a last card ends the round (the engine's order)
        s.g[b, COLOUR] = COLOUR_OF[card]
    if s.seat[b, player, SIZE] == 0:
        _end_round(s, b, r, player, gen)
        return
    s.seat[b, player, CALLED] = call and s.seat[b, player, SIZE] == 1
    rank = RANK_OF[card]
    if rank == C.SKIP or (rank == C.REVERSE and r.num_players == 2 and r.reverse_skips):
        s.g[b, SKIP_NEXT] = True
    elif rank == C.REVERSE:
        s.g[b, DIRECTION] = -s.g[b, DIRECTION]
    if COLOUR_OF[card] < 0:  # a wild
        s.g[b, PHASE] = CHOOSE_COLOUR
        return
    _after_play(s, b, r, gen)


@njit(cache=True)
def _choose_colour(s, b, r, colour, gen):
    s.g[b, COLOUR] = colour
    if s.g[b, OPENING]:
        s.g[b, OPENING] = False
        s.g[b, STACK] = DRAW_AMOUNT[s.discard[b, s.g[b, DISCARD_LEN] - 1]]
        _start_turn(s, b, r, gen)
    else:
        _after_play(s, b, r, gen)


@njit(cache=True)
def _draw_action(s, b, r, gen):
    player = s.g[b, TURN]
    if s.g[b, PHASE] == PENDING:
        _draw(s, b, player, s.g[b, STACK], gen)
        s.g[b, STACK] = 0
        s.g[b, CHALLENGE_SEAT] = -1
        s.g[b, CHALLENGE_BLUFF] = False
        _end_turn(s, b, r, gen)
        return
    drawn, card = _draw(s, b, player, 1, gen)
    if drawn and MATCHES[s.discard[b, s.g[b, DISCARD_LEN] - 1], s.g[b, COLOUR], card]:
        s.g[b, DRAWN] = card
        s.g[b, PHASE] = PLAY_DRAWN
    else:
        _end_turn(s, b, r, gen)


@njit(cache=True)
def _challenge(s, b, r, gen):
    victim, offender, bluff = s.g[b, TURN], s.g[b, CHALLENGE_SEAT], s.g[b, CHALLENGE_BLUFF]
    s.g[b, CHALLENGE_SEAT] = -1
    s.g[b, CHALLENGE_BLUFF] = False
    if bluff:
        _draw(s, b, offender, 4, gen)
        s.g[b, STACK] -= 4
        _start_turn(s, b, r, gen)
    else:
        _draw(s, b, victim, s.g[b, STACK] + CHALLENGE_PENALTY, gen)
        s.g[b, STACK] = 0
        _end_turn(s, b, r, gen)


@njit(cache=True)
def _current_player(s, b, n):
    if s.g[b, PHASE] == CATCH:
        return (s.g[b, TURN] + n - s.g[b, CATCHERS_LEFT]) % n
    return s.g[b, TURN]


@njit(cache=True)
def _apply(s, b, r, action, gen):
    s.g[b, MOVE + 0] = _current_player(s, b, r.num_players)
    s.g[b, MOVE + 1] = action
    s.g[b, MOVE + 2] = s.g[b, TURN]
    s.g[b, MOVE + 3] = s.g[b, STACK]
    s.g[b, DRAWS_LEN] = 0
    if action < E.CHOOSE_COLOUR:
        call = action >= E.PLAY_CALL
        _play(s, b, r, action - E.PLAY_CALL if call else action, call, gen)
    elif action < E.DRAW:
        _choose_colour(s, b, r, action - E.CHOOSE_COLOUR, gen)
    elif action == E.DRAW:
        _draw_action(s, b, r, gen)
    elif action == E.KEEP:
        _end_turn(s, b, r, gen)
    elif action == E.CHALLENGE:
        _challenge(s, b, r, gen)
    elif action == E.CATCH:
        s.g[b, CATCHERS_LEFT] = 0
        _draw(s, b, s.g[b, TURN], r.missed_call_penalty, gen)
        _end_turn(s, b, r, gen)
    else:  # PASS
        s.g[b, CATCHERS_LEFT] -= 1
        if s.g[b, CATCHERS_LEFT] == 0:
            _end_turn(s, b, r, gen)


# ------------------------------------------------------------------------ deal
@njit(cache=True)
def _deal(s, b, r, gen):
    n = r.num_players
    s.hands[b] = 0
    s.seat[b, :, SIZE] = 0
    s.seat[b, :, CALLED] = 0
    order = gen.permutation(C.DECK_SIZE)
    for i in range(C.DECK_SIZE):
        s.pile[b, i] = DECK[order[i]]
    s.g[b, PILE_LEN] = C.DECK_SIZE
    s.g[b, DISCARD_LEN] = 0
    s.discard_counts[b] = 0
    s.g[b, COLOUR] = -1
    s.g[b, DIRECTION] = 1
    s.g[b, TURN] = 0
    s.g[b, STACK] = 0
    s.g[b, DRAWN] = -1
    s.g[b, SKIP_NEXT] = False
    s.g[b, OPENING] = False
    s.g[b, CHALLENGE_SEAT] = -1
    s.g[b, CHALLENGE_BLUFF] = False
    s.g[b, CATCHERS_LEFT] = 0
    s.g[b, WINNER] = -1
    s.g[b, MOVE + 0] = -1
    for _ in range(DEAL_SIZE):
        for p in range(n):
            s.g[b, PILE_LEN] -= 1
            _give(s, b, p, s.pile[b, s.g[b, PILE_LEN]])
    s.g[b, PILE_LEN] -= 1
    first = s.pile[b, s.g[b, PILE_LEN]]
    s.discard[b, 0] = first
    s.g[b, DISCARD_LEN] = 1
    s.discard_counts[b, first] = 1
    if COLOUR_OF[first] < 0:  # a wild
        s.g[b, OPENING] = True
        s.g[b, PHASE] = CHOOSE_COLOUR
    else:
        s.g[b, COLOUR] = COLOUR_OF[first]
        rank = RANK_OF[first]
        if rank == C.SKIP:
            s.g[b, TURN] = 1 % n
        elif rank == C.REVERSE:
            s.g[b, DIRECTION] = -1
            s.g[b, TURN] = n - 1
        elif rank == C.DRAW_TWO:
            s.g[b, STACK] = 2
        _start_turn(s, b, r, gen)
    s.g[b, DRAWS_LEN] = 0


# ----------------------------------------------------------------- mask, view
@njit(cache=True)
def _allow_play(s, b, mask, card):
    mask[E.PLAY + card] = 1
    if s.seat[b, s.g[b, TURN], SIZE] == 2:
        mask[E.PLAY_CALL + card] = 1


@njit(cache=True)
def _write_mask(s, b, r, mask):
    mask[:] = 0
    phase = s.g[b, PHASE]
    turn = s.g[b, TURN]
    if phase == CATCH:
        mask[E.CATCH] = 1
        mask[E.PASS] = 1
    elif phase == CHOOSE_COLOUR:
        mask[E.CHOOSE_COLOUR : E.CHOOSE_COLOUR + C.NUM_COLOURS] = 1
    elif phase == PLAY_DRAWN:
        _allow_play(s, b, mask, s.g[b, DRAWN])
        mask[E.KEEP] = 1
    elif phase == PENDING:
        if r.stacking:
            if s.discard[b, s.g[b, DISCARD_LEN] - 1] == W4:
                if s.hands[b, turn, W4]:
                    _allow_play(s, b, mask, W4)
            else:
                for t in DRAW_TWOS:
                    if s.hands[b, turn, t]:
                        _allow_play(s, b, mask, t)
        mask[E.DRAW] = 1
        if s.g[b, CHALLENGE_SEAT] >= 0:
            mask[E.CHALLENGE] = 1
    elif phase == PLAY:
        matches = MATCHES[s.discard[b, s.g[b, DISCARD_LEN] - 1], s.g[b, COLOUR]]
        playable = False
        for t in range(C.NUM_TYPES):
            if matches[t] and s.hands[b, turn, t]:
                _allow_play(s, b, mask, t)
                playable = True
        if r.voluntary_draw or not playable:
            mask[E.DRAW] = 1


@njit(cache=True)
def _write_observation(s, b, r, player, starts, obs):
    n = r.num_players
    obs[:] = 0.0
    for t in range(C.NUM_TYPES):
        obs[starts[O_HAND] + t] = s.hands[b, player, t]
        obs[starts[O_DISCARDS] + t] = s.discard_counts[b, t]
    top = s.discard[b, s.g[b, DISCARD_LEN] - 1]
    obs[starts[O_TOP] + top] = 1.0
    if s.g[b, COLOUR] >= 0:
        obs[starts[O_COLOUR] + s.g[b, COLOUR]] = 1.0
    obs[starts[O_CLOCKWISE]] = s.g[b, DIRECTION] == 1
    obs[starts[O_PENDING_DRAW]] = s.g[b, STACK]
    if s.g[b, STACK]:
        obs[starts[O_PENDING_KIND] + (1 if top == W4 else 0)] = 1.0
    obs[starts[O_CHALLENGEABLE]] = s.g[b, CHALLENGE_SEAT] >= 0
    for i in range(n):
        p = (player + i) % n
        obs[starts[O_SIZES] + i] = s.seat[b, p, SIZE]
        obs[starts[O_CALLED] + i] = s.seat[b, p, CALLED]
    obs[starts[O_PILE_SIZE]] = s.g[b, PILE_LEN]
    obs[starts[O_PHASE] + s.g[b, PHASE]] = 1.0
    if s.g[b, DRAWN] >= 0:
        obs[starts[O_DRAWN] + s.g[b, DRAWN]] = 1.0
    if s.g[b, PHASE] != OVER:
        obs[starts[O_DECIDING] + (_current_player(s, b, n) - player) % n] = 1.0
        obs[starts[O_TURN] + (s.g[b, TURN] - player) % n] = 1.0
    if s.g[b, PHASE] == CATCH:
        obs[starts[O_TARGET] + (s.g[b, TURN] - player) % n] = 1.0


# ------------------------------------------------------------------ batch calls
@njit(cache=True)
def _final_ranks(s, b, n, truncated, out):
    """Ranks as the reference engine gives them: the winner, then fewest points left;
    when truncated, fewest cards then seat order (CardGame.truncation_ranks)."""
    finish = np.zeros(n, np.int64)
    keys = np.empty(n, np.int64)
    for p in range(n):
        if truncated:
            keys[p] = s.seat[b, p, SIZE] * n + p
        else:
            points = 0
            for t in range(C.NUM_TYPES):
                points += POINTS[t] * s.hands[b, p, t]
            keys[p] = points
    if not truncated:
        finish[s.g[b, WINNER]] = 1
    rank_rest(finish, keys, out)


@njit(cache=True, parallel=True)
def step_rows(s, r, rows, actions, gens, over):
    """Apply ``actions[i]`` in game ``rows[i]``; ``over[i]``: that game has ended."""
    for i in prange(rows.size):
        b = rows[i]
        _apply(s, b, r, actions[i], gens[b])
        over[i] = s.g[b, PHASE] == OVER


@njit(cache=True)
def deal_rows(s, r, rows, gens):
    for i in range(rows.size):
        _deal(s, rows[i], r, gens[rows[i]])


@njit(cache=True, parallel=True)
def write_rows(s, r, rows, starts, observations, masks, current):
    """The decider, its mask and its observation, for each game in ``rows``."""
    for i in prange(rows.size):
        b = rows[i]
        current[b] = _write_row(s, b, r, starts, observations[b], masks[b])


@njit(cache=True)
def _write_row(s, b, r, starts, obs, mask):
    player = _current_player(s, b, r.num_players)
    _write_mask(s, b, r, mask)
    _write_observation(s, b, r, player, starts, obs)
    return player


# ------------------------------------------------- one row (BatchedGame.play_out)
@njit(cache=True)
def step1(k, b, action, gen):
    _apply(k[0], b, k[1], action, gen)


@njit(cache=True)
def write1(k, b, observation, mask):
    return _write_row(k[0], b, k[1], k[2], observation, mask)


@njit(cache=True)
def over1(k, b):
    return k[0].g[b, PHASE] == OVER


@njit(cache=True)
def ranks1(k, b, truncated, out):
    _final_ranks(k[0], b, k[1].num_players, truncated, out)


@njit(cache=True)
def ranks_rows(s, r, rows, truncated, out):
    for i in range(rows.size):
        _final_ranks(s, rows[i], r.num_players, truncated[i], out[i])


@njit(cache=True)
def observe_rows(s, r, rows, players, starts, out):
    """Observation of ``players[i]`` in game ``rows[i]`` (any seat, not only the decider)."""
    for i in range(rows.size):
        _write_observation(s, rows[i], r, players[i], starts, out[i])


@njit(cache=True)
def held_rows(s, rows, out):
    for i in range(rows.size):
        out[i] = s.seat[rows[i], :, SIZE]


# ------------------------------------------------------------------- the class
class UnoKernels:
    """The batched UNO-style rules for :class:`card_envs.batched.game.BatchedGame`."""

    def __init__(self, game: UnoGame, batch_size: int) -> None:
        self.game = game
        self.rules = Rules(
            num_players=game.num_players,
            official_draw_four=game.draw_four == "official",
            voluntary_draw=game.voluntary_draw,
            stacking=game.stacking,
            reverse_skips=game.two_player_reverse_skips,
            missed_call_penalty=game.missed_call_penalty,
        )
        self.state = UnoArrays.zeros(batch_size, game.num_players)
        layout = game.observation_layout
        self.starts = np.array([layout.slices[name].start for name in FIELDS], dtype=np.int64)

    def deal(self, rows: np.ndarray, gens: Any) -> None:
        deal_rows(self.state, self.rules, rows, gens)

    def step(self, rows: np.ndarray, actions: np.ndarray, gens: Any, over: np.ndarray) -> None:
        step_rows(self.state, self.rules, rows, actions, gens, over)

    def write(
        self, rows: np.ndarray, observations: np.ndarray, masks: np.ndarray, current: np.ndarray
    ) -> None:
        write_rows(self.state, self.rules, rows, self.starts, observations, masks, current)

    def observe(self, rows: np.ndarray, players: np.ndarray, out: np.ndarray) -> None:
        observe_rows(self.state, self.rules, rows, players, self.starts, out)

    def ranks(self, rows: np.ndarray, truncated: np.ndarray, out: np.ndarray) -> None:
        ranks_rows(self.state, self.rules, rows, truncated, out)

    def held(self, rows: np.ndarray, out: np.ndarray) -> None:
        held_rows(self.state, rows, out)

    def row_functions(self) -> tuple[Any, Any, Any, Any, Any]:
        """``(k, step1, write1, over1, ranks1)``: one row's rules, for a compiled play-out."""
        return (self.state, self.rules, self.starts), step1, write1, over1, ranks1

    # ------------------------------------------------------------ the codec
    def state_dict(self, index: int) -> dict[str, Any]:
        """Game ``index`` as the reference engine's ``state_dict()``."""
        return {**self.game.state_header(), **S.state_fields(self.read(index))}

    def load(self, index: int, state: dict[str, Any]) -> None:
        """Write a ``state_dict()`` the reference engine accepts into row ``index``
        (:meth:`card_envs.batched.BatchedGame.load` checks it first)."""
        self.write_table(index, S.from_dict(state, self.rules.num_players))

    def load_engine(self, index: int, game: UnoGame) -> None:
        """:meth:`load` of ``game``'s position, read from its typed state without the round trip
        through ``state_dict()`` (a search loads thousands of sampled worlds a second)."""
        self.write_table(index, game.state_view())

    def read(self, index: int) -> Table:
        """Row ``index`` as the engine's typed state."""
        s, n = self.state, self.rules.num_players
        g = s.g[index].tolist()
        optional = lambda value: None if value < 0 else value  # noqa: E731
        last = None
        if g[MOVE] >= 0:
            pairs = g[DRAWS : DRAWS + 2 * g[DRAWS_LEN]]
            draws = tuple(zip(pairs[::2], pairs[1::2], strict=True))
            last = LastMove(
                seat=g[MOVE], action=g[MOVE + 1], turn=g[MOVE + 2], pending=g[MOVE + 3], draws=draws
            )
        left = g[CATCHERS_LEFT]
        return Table(
            hands=s.hands[index].astype(int).tolist(),
            hand_sizes=s.seat[index, :, SIZE].tolist(),
            called=[bool(c) for c in s.seat[index, :, CALLED]],
            draw_pile=s.pile[index, : g[PILE_LEN]].astype(int).tolist(),
            discard=s.discard[index, : g[DISCARD_LEN]].astype(int).tolist(),
            colour=optional(g[COLOUR]),
            direction=g[DIRECTION],
            turn=g[TURN],
            phase=E.PHASES[g[PHASE]],
            pending=g[STACK],
            drawn=optional(g[DRAWN]),
            skip_next=bool(g[SKIP_NEXT]),
            opening=bool(g[OPENING]),
            challenge=None
            if g[CHALLENGE_SEAT] < 0
            else Challenge(seat=g[CHALLENGE_SEAT], bluff=bool(g[CHALLENGE_BLUFF])),
            catchers=[(g[TURN] + n - left + i) % n for i in range(left)],
            winner=optional(g[WINNER]),
            last=last,
        )

    def write_table(self, index: int, table: Table) -> None:
        """Write the typed state ``table`` into row ``index`` (the inverse of :meth:`read`)."""
        draws = () if table.last is None else table.last.draws
        if len(draws) > MAX_DRAWS:
            raise ValueError(
                f"last_move.draws: a batched game keeps at most {MAX_DRAWS} (seat, cards) pairs,"
                f" the most one action causes; got {len(draws)}"
            )
        s = self.state
        g = np.zeros(GAME_FIELDS, np.int64)
        none = -1  # how a row writes None
        g[PILE_LEN], g[DISCARD_LEN] = len(table.draw_pile), len(table.discard)
        g[COLOUR] = none if table.colour is None else table.colour
        g[DIRECTION], g[TURN], g[PHASE], g[STACK] = (
            table.direction,
            table.turn,
            E.PHASES.index(table.phase),
            table.pending,
        )
        g[DRAWN] = none if table.drawn is None else table.drawn
        g[SKIP_NEXT], g[OPENING] = table.skip_next, table.opening
        g[CHALLENGE_SEAT] = none if table.challenge is None else table.challenge.seat
        g[CHALLENGE_BLUFF] = table.challenge is not None and table.challenge.bluff
        g[CATCHERS_LEFT] = len(table.catchers)
        g[WINNER] = none if table.winner is None else table.winner
        g[MOVE] = none
        if table.last is not None:
            g[MOVE : MOVE + 4] = table.last.seat, table.last.action, table.last.turn, table.last.pending
        g[DRAWS_LEN] = len(draws)
        for k, (seat, count) in enumerate(draws):
            g[DRAWS + 2 * k : DRAWS + 2 * k + 2] = seat, count
        s.g[index] = g
        s.seat[index, :, SIZE] = table.hand_sizes
        s.seat[index, :, CALLED] = table.called
        s.hands[index] = table.hands
        s.pile[index] = 0
        s.pile[index, : len(table.draw_pile)] = table.draw_pile
        s.discard[index] = 0
        s.discard[index, : len(table.discard)] = table.discard
        s.discard_counts[index] = np.bincount(table.discard, minlength=C.NUM_TYPES)
