"""The state of an UNO-style round: its fields, their ``state_dict()`` form, the loader and the invariants.

The format is documented in docs/uno.md ("state_dict()"), the rules behind the
invariants in docs/rules/uno.md. :class:`Table` is the typed view of a
round that the engine hands out (``UnoGame.state_view()``) and takes in
(``UnoGame.set_state()``); :func:`from_dict` checks every field of a loaded
state, :func:`check_invariants` the rules that tie the fields together.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from card_envs.core.checks import (
    check_bool,
    check_card_counts,
    check_choice,
    check_int,
    check_list,
    check_optional_seat,
    check_per_seat,
    check_seat,
    check_seats,
)
from card_envs.core.ranking import ranks_after_finishers
from card_envs.games.uno import cards as C
from card_envs.games.uno.encoding import NUM_ACTIONS, PHASES

#: copies of each card type in the deck: no state holds more
DECK_COUNTS = C.deck_counts()
#: phases in which a Draw Two / Draw Four stack may be waiting
PENDING_PHASES = ("choose_colour", "pending", "catch")


@dataclass(frozen=True)
class Challenge:
    """A Wild Draw Four that may still be challenged (``draw_four="official"``, docs/rules/uno.md)."""

    seat: int  # who played it
    bluff: bool  # it held a card of the colour to match when it played it (guilty if challenged)

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "bluff": self.bluff}


@dataclass(frozen=True)
class LastMove:
    """The last action and what it caused, as the engine noted it (the text: :mod:`.text`).

    Only numbers, so that noting it costs the step next to nothing; the line is
    written from it and the state after the move when someone asks.
    """

    seat: int  # who acted
    action: int  # what it did (the action number)
    turn: int  # the player on turn before it (in a catch window: the one who may be caught)
    pending: int  # the Draw Two / Draw Four stack before it
    draws: tuple[tuple[int, int], ...] = ()  # (seat, cards drawn) caused by it, in order

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "action": self.action,
            "turn_player": self.turn,
            "pending_draw": self.pending,
            "draws": [list(d) for d in self.draws],
        }


@dataclass
class Table:
    """Every field of a round, cards as type numbers (docs/uno.md, "Card types").

    The engine's view shares its lists with the engine: read it, do not change it.
    """

    hands: list[list[int]]  # per seat: count per card type
    hand_sizes: list[int]  # per seat: cards held (the sums of ``hands``)
    called: list[bool]  # per seat: LETZTE called for the one-card hand held now
    draw_pile: list[int] = field(default_factory=list)  # top is the last element
    discard: list[int] = field(default_factory=list)  # top is the last element
    colour: int | None = None  # colour to match; None while a first-card wild is named
    direction: int = 1  # 1 clockwise (seat order), -1 counter-clockwise
    turn: int = 0  # seat on turn
    phase: str = "play"
    pending: int = 0  # stacked total of Draw Two / Draw Four cards to draw
    drawn: int | None = None  # the card just drawn that may still be played
    skip_next: bool = False  # a Skip (or 2-player Reverse) waits for the catch window to close
    opening: bool = False  # the colour being named is that of a first-card wild
    challenge: Challenge | None = None  # the Wild Draw Four that may be challenged
    catchers: list[int] = field(default_factory=list)  # seats still to decide in the catch window
    winner: int | None = None  # seat that went out
    last: LastMove | None = None  # the last action (None before the first one)

    @classmethod
    def empty(cls, num_players: int) -> Table:
        """No cards anywhere: the state before a deal."""
        n = num_players
        return cls(hands=[[0] * C.NUM_TYPES for _ in range(n)], hand_sizes=[0] * n, called=[False] * n)

    @property
    def num_players(self) -> int:
        return len(self.hands)

    @property
    def top(self) -> int:
        return self.discard[-1]

    @property
    def current_player(self) -> int:
        """The seat that decides: the first catcher during a catch window, else the one on turn."""
        return self.catchers[0] if self.phase == "catch" else self.turn


# ------------------------------------------------------------------ the outcome
def hand_points(hands: list[list[int]]) -> list[int]:
    """Points of the cards left in each hand (docs/rules/uno.md, "Scoring")."""
    return [sum(C.points(t) * k for t, k in enumerate(hand) if k) for hand in hands]


def score(hands: list[list[int]], winner: int | None) -> int:
    """Points the winner scores: the cards left in the others' hands (0 before the end)."""
    return sum(hand_points(hands)) if winner is not None else 0


def final_ranks(hands: list[list[int]], winner: int | None) -> list[int] | None:
    """The winner first, then by fewest points left (docs/rules/uno.md); None before the end."""
    if winner is None:
        return None
    points = hand_points(hands)
    return ranks_after_finishers(len(hands), {winner: 1}, key=lambda p: points[p])


# ------------------------------------------------------------------ to JSON
def state_fields(s: Table) -> dict[str, Any]:
    """Everything of ``state_dict()`` after the header (docs/uno.md), derived fields included."""
    return {
        "current_player": s.current_player,
        **to_dict(s),
        "score": score(s.hands, s.winner),
        "ranks": final_ranks(s.hands, s.winner),
    }


def to_dict(table: Table) -> dict[str, Any]:
    """The fields of ``state_dict()`` after the header, bar the derived current player, score and ranks."""
    return {
        "turn_player": table.turn,
        "phase": table.phase,
        "hands": [C.expand(h) for h in table.hands],
        "draw_pile": [C.CODES[t] for t in reversed(table.draw_pile)],
        "discard_pile": [C.CODES[t] for t in table.discard],
        "colour": None if table.colour is None else C.COLOURS[table.colour],
        "direction": table.direction,
        "pending_draw": table.pending,
        "drawn": None if table.drawn is None else C.CODES[table.drawn],
        "called": list(table.called),
        "skip_next": table.skip_next,
        "opening": table.opening,
        "challenge": None if table.challenge is None else table.challenge.to_dict(),
        "catchers": list(table.catchers),
        "winner": table.winner,
        "last_move": None if table.last is None else table.last.to_dict(),
    }


# ---------------------------------------------------------------- from JSON
def _cards(name: str, codes: Any) -> list[int]:
    codes = check_list(name, codes)
    known = C.CODE_TO_TYPE
    if all(type(code) is str and code in known for code in codes):  # the usual case, without naming each card
        return [known[code] for code in codes]
    return [C.parse_card(code, f"{name}[{i}]") for i, code in enumerate(codes)]


def _challenge(value: Any, num_players: int) -> Challenge | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"seat", "bluff"}:
        raise ValueError(f'challenge must be null or {{"seat", "bluff"}}, got {value!r}')
    return Challenge(
        seat=check_seat("challenge.seat", value["seat"], num_players),
        bluff=check_bool("challenge.bluff", value["bluff"]),
    )


LAST_MOVE_KEYS = {"seat", "action", "turn_player", "pending_draw", "draws"}


def _last_move(value: Any, num_players: int) -> LastMove | None:
    """The optional ``last_move`` record: null (or absent, in older states) before the first action."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != LAST_MOVE_KEYS:
        raise ValueError(f"last_move must be null or a dict of {sorted(LAST_MOVE_KEYS)}, got {value!r}")
    draws = []
    for i, pair in enumerate(check_list("last_move.draws", value["draws"])):
        seat, count = check_list(f"last_move.draws[{i}]", pair, 2)
        draws.append(
            (
                check_seat(f"last_move.draws[{i}][0]", seat, num_players),
                check_int(f"last_move.draws[{i}][1]", count, 0, C.DECK_SIZE),
            )
        )
    return LastMove(
        seat=check_seat("last_move.seat", value["seat"], num_players),
        action=check_int("last_move.action", value["action"], 0, NUM_ACTIONS - 1),
        turn=check_seat("last_move.turn_player", value["turn_player"], num_players),
        pending=check_int("last_move.pending_draw", value["pending_draw"], 0, C.DECK_SIZE),
        draws=tuple(draws),
    )


def from_dict(state: Mapping[str, Any], num_players: int) -> Table:
    """Read the fields of a ``state_dict()``-shaped dict, checking each one (ValueError naming it).

    Optional keys (defaults in brackets): ``turn_player`` [current_player],
    ``direction`` [1], ``pending_draw`` [0], ``drawn`` [null], ``called``
    [all false], ``skip_next`` [false], ``opening`` [false], ``challenge``
    [null], ``catchers`` [the others from the offender's left when the
    phase is "catch"], ``winner`` [null], ``last_move`` [null]. ``score``, ``ranks`` and
    ``current_player`` are derived and ignored. How the fields fit together
    is checked by :func:`check_invariants`.
    """
    n = num_players
    hands = []
    for p, codes in enumerate(check_per_seat("hands", state["hands"], n)):
        hand = [0] * C.NUM_TYPES
        for t in _cards(f"hands[{p}]", codes):
            hand[t] += 1
        hands.append(hand)
    phase = check_choice("phase", state["phase"], PHASES)
    turn = check_seat("turn_player", state.get("turn_player", state.get("current_player", 0)), n)
    direction = check_int("direction", state.get("direction", 1), -1, 1)
    if direction == 0:
        raise ValueError("direction must be 1 (clockwise) or -1 (counter-clockwise), got 0")
    colour = state.get("colour")
    drawn = state.get("drawn")
    called = check_per_seat("called", state.get("called", [False] * n), n)
    default_catchers = [(turn + i) % n for i in range(1, n)] if phase == "catch" else []
    return Table(
        hands=hands,
        hand_sizes=[sum(h) for h in hands],
        called=[check_bool(f"called[{p}]", c) for p, c in enumerate(called)],
        draw_pile=_cards("draw_pile", state["draw_pile"])[::-1],
        discard=_cards("discard_pile", state["discard_pile"]),
        colour=None if colour is None else C.parse_colour(colour),
        direction=direction,
        turn=turn,
        phase=phase,
        pending=check_int("pending_draw", state.get("pending_draw", 0), 0, C.DECK_SIZE),
        drawn=None if drawn is None else C.parse_card(drawn, "drawn"),
        skip_next=check_bool("skip_next", state.get("skip_next", False)),
        opening=check_bool("opening", state.get("opening", False)),
        challenge=_challenge(state.get("challenge"), n),
        catchers=check_seats("catchers", state.get("catchers", default_catchers), n),
        winner=check_optional_seat("winner", state.get("winner"), n),
        last=_last_move(state.get("last_move"), n),
    )


# --------------------------------------------------------------- invariants
def check_invariants(
    s: Table, *, draw_four: str, two_player_reverse_skips: bool, missed_call_penalty: int
) -> None:
    """Raise ValueError if the fields of ``s`` do not fit together as docs/rules/uno.md makes them."""
    _check_cards(s)
    _check_phase(s)
    _check_colour_and_stack(s, draw_four)
    _check_windows(s, two_player_reverse_skips, missed_call_penalty)


def _check_cards(s: Table) -> None:
    """Each card of the 108-card deck at most once: scenario states may leave cards out."""
    if s.hand_sizes != [sum(h) for h in s.hands]:
        raise ValueError(f"hand sizes {s.hand_sizes} do not match the hands")
    counts = np.bincount(s.draw_pile + s.discard, minlength=C.NUM_TYPES) + np.sum(s.hands, axis=0)
    total = int(counts.sum())
    if total > C.DECK_SIZE:
        raise ValueError(f"the state holds {total} cards, more than the {C.DECK_SIZE} of the deck")
    check_card_counts("the cards", counts.tolist(), DECK_COUNTS, exact=False)
    if not s.discard:
        raise ValueError("the discard pile needs at least its top card")


def _check_phase(s: Table) -> None:
    """The winner and the phase: a round is over exactly when a player holds no card."""
    over = s.phase == "over"
    if (s.winner is not None) != over:
        raise ValueError(f"winner {s.winner} does not fit phase {s.phase!r}: a winner exactly when 'over'")
    if s.winner is not None:
        if s.hand_sizes[s.winner] or s.turn != s.winner:
            raise ValueError(f"winner {s.winner} must be the player on turn and hold no card")
        if s.pending or s.challenge is not None or s.skip_next or s.opening:
            raise ValueError("a finished round has no stack, challenge, skip or opening left")
    elif not all(s.hand_sizes):
        raise ValueError(f"a player without cards has won: the phase must be 'over', not {s.phase!r}")
    if (s.drawn is not None) != (s.phase == "play_drawn"):
        raise ValueError(
            f"drawn {s.drawn} does not fit phase {s.phase!r}: a drawn card exactly in 'play_drawn'"
        )
    if s.phase == "choose_colour" and not C.is_wild(s.top):
        raise ValueError(f"a colour is named only after a wild; the top card is {C.CODES[s.top]}")
    for p, called in enumerate(s.called):
        if called and s.hand_sizes[p] != 1 and p != s.winner:
            raise ValueError(
                f"called[{p}]: LETZTE is called for a one-card hand; seat {p} holds {s.hand_sizes[p]}"
            )


def _check_colour_and_stack(s: Table, draw_four: str) -> None:
    """The colour to match, the drawn card, the Draw Two / Draw Four stack and its challenge."""
    top = s.top
    if s.opening:
        if s.phase != "choose_colour" or s.colour is not None or s.pending:
            raise ValueError(
                "opening: a first-card wild waits for its colour (phase choose_colour, no colour yet)"
            )
    elif s.colour is None:
        raise ValueError("colour may be null only while a first-card wild is named (opening)")
    elif s.phase != "over" and not C.is_wild(top) and s.colour != C.colour_of(top):
        raise ValueError(f"colour {C.COLOURS[s.colour]} is not that of the top card {C.CODES[top]}")
    if s.drawn is not None and s.colour is not None:  # the colour is set: no drawn card while opening
        if not s.hands[s.turn][s.drawn]:
            raise ValueError(f"the drawn card {C.CODES[s.drawn]} is not in the hand of seat {s.turn}")
        if not C.matches(s.drawn, top, s.colour):
            raise ValueError(f"the drawn card {C.CODES[s.drawn]} does not match; the turn would have ended")
    amount = C.draw_amount(top)
    if s.pending and (s.phase not in PENDING_PHASES or not amount or s.pending % amount):
        raise ValueError(
            f"pending_draw {s.pending} does not fit the top card {C.CODES[top]} in phase {s.phase!r}"
        )
    if s.phase == "pending" and not s.pending:
        raise ValueError("phase 'pending' needs a stack to draw (pending_draw > 0)")
    c = s.challenge
    if c is None:
        return
    if draw_four != "official" or top != C.WILD_DRAW_FOUR or s.pending < amount:
        raise ValueError(f"only a Wild Draw Four on a stack may be challenged ({draw_four!r} rules)")
    if s.phase == "pending":
        offender_ok = (c.seat + s.direction) % s.num_players == s.turn
    else:  # the player still names the colour or waits for the catch window
        offender_ok = s.phase in PENDING_PHASES and c.seat == s.turn
    if not offender_ok:
        raise ValueError(
            f"challenge.seat {c.seat} does not fit turn_player {s.turn} in phase {s.phase!r}: only the"
            " Draw Four just played, by the player on turn or the one before, can be challenged"
        )


def _check_windows(s: Table, two_player_reverse_skips: bool, missed_call_penalty: int) -> None:
    """The catch window after a missed LETZTE and the Skip that waits for it to close."""
    n = s.num_players
    if s.skip_next:
        rank = C.rank_of(s.top)
        skips = rank == C.SKIP or (rank == C.REVERSE and n == 2 and two_player_reverse_skips)
        if s.phase != "catch" or not skips:
            raise ValueError("skip_next: only a Skip (or 2-player Reverse) waits, for the catch window")
    if s.phase != "catch":
        if s.catchers:
            raise ValueError(f"catchers {s.catchers} outside the catch window")
        return
    offender = s.turn
    if not missed_call_penalty or s.hand_sizes[offender] != 1 or s.called[offender]:
        raise ValueError(f"a catch window opens only after seat {offender} missed LETZTE with one card left")
    order = [(offender + i) % n for i in range(1, n)]
    if not s.catchers or s.catchers != order[n - 1 - len(s.catchers) :]:
        raise ValueError(
            f"catchers {s.catchers} must be the seats still to decide, in seat order from the"
            f" left of the offender {offender} (the last ones of {order})"
        )
