"""The position of a Chip It game: typed parts, ``state_dict()`` and its checked loader.

:class:`Table` holds everything that changes during a game; the engine owns one
and the helpers (rendering, the JSON format) read it, never the engine's
internals. The JSON format is in docs/chipit.md; the rules in docs/rules/chipit.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from card_envs.core.checks import (
    check_card_counts,
    check_choice,
    check_int,
    check_list,
    check_optional_seat,
    check_per_seat,
    check_seat,
    check_seats,
)
from card_envs.games.chipit.arith import card_cost, card_value, chip_cost
from card_envs.games.chipit.cards import (
    CODES,
    COPIES,
    DEAL_SIZE,
    MAX_VALUE,
    NUM_TYPES,
    TOTAL_CHIPS,
    TYPE_OF_CODE,
)
from card_envs.games.chipit.encoding import BLOCK, HIGH_START, MAX_RETURN, MIN_VALUE, NUM_BLOCKS, PHASES

#: no rule caps the passes in a row: empty-handed leaders may pass round after round
MAX_PASSES = 10**9


@dataclass(frozen=True, slots=True)
class Shown:
    """A card lying out: its type and the chip points on it."""

    card: int
    chips: int

    @property
    def value(self) -> int:
        return int(card_value(self.card, self.chips))


@dataclass(frozen=True, slots=True)
class LastPlay:
    """The combination to beat: who played it, how many cards, at which common value."""

    seat: int
    count: int
    value: int


#: the kinds of a completed turn (:class:`Turn`)
TURN_KINDS = ("pass", "lead", "answer")


@dataclass(slots=True)
class Turn:
    """The last completed turn (a pass or a play laid out) and what it caused, for ``last_move()``.

    Only what the table cannot tell afterwards is kept (the step path stays cheap):
    the cards and value of a play are those of ``last`` and the player's display,
    a rank comes from ``finished``, and the next decider is ``current``.
    """

    seat: int
    kind: str  # "pass", "lead" (a play led) or "answer" (a play beating the last one)
    returned: int = 0  # points a pass gave back to the supply
    stood: int | None = None  # a pass that ended the round: the seat whose play everybody passed on
    took: int = 0  # chip points the next decider took into its holding from its cards lying out


@dataclass(slots=True)
class Build:
    """A play being built over several decisions of the current player (docs/chipit.md).

    ``value`` is None while only a HIGH ``block`` (its lowest value) is chosen;
    ``cards`` are the types chosen so far, in ascending order; ``rest`` is the
    hand less those cards; ``chips`` the points the chosen cards need.
    """

    value: int | None
    block: int | None
    cards: list[int]
    chips: int
    rest: list[int]

    @property
    def target(self) -> int:
        """The common value, once chosen (phase ``cards``)."""
        if self.value is None:
            raise ValueError("the value of the play being built is not chosen yet")
        return self.value


@dataclass(slots=True)
class Table:
    """Everything that changes during a game of Chip It.

    Hands are counts per card type; ``hand_sizes``, ``discard_counts`` and
    ``is_finished`` repeat what ``hands``, ``discard`` and ``finished`` say, for
    speed (:meth:`check_consistency` checks that they agree).
    """

    hands: list[list[int]]
    hand_sizes: list[int]
    held: list[int]  # chip points held (a burden)
    supply: int  # chip points in the general supply
    display: list[list[Shown]]  # the cards lying out, per seat
    last: LastPlay | None = None  # the combination to beat; None when a lead is due
    passes: int = 0  # passes since the last play or the round start
    discard: list[int] = field(default_factory=list)
    discard_counts: list[int] = field(default_factory=lambda: [0] * NUM_TYPES)
    out: list[int] = field(default_factory=list)  # cards not dealt
    finished: list[int] = field(default_factory=list)  # seats in finishing order
    is_finished: list[bool] = field(default_factory=list)
    current: int = 0  # the seat that decides now
    build: Build | None = None
    ranks: list[int] | None = None  # set when the game is over
    returned: list[int] = field(default_factory=list)  # chip points each seat gave back by passing
    turn: Turn | None = None  # the last completed turn (None before the first)

    @classmethod
    def empty(cls, num_players: int) -> Table:
        n = num_players
        return cls(
            hands=[[0] * NUM_TYPES for _ in range(n)],
            hand_sizes=[0] * n,
            held=[0] * n,
            supply=TOTAL_CHIPS,
            display=[[] for _ in range(n)],
            is_finished=[False] * n,
            returned=[0] * n,
        )

    @property
    def num_players(self) -> int:
        return len(self.hands)

    @property
    def current_player(self) -> int:
        """The seat to decide (the name every game's ``Table`` gives it)."""
        return self.current

    @property
    def phase(self) -> str:
        if self.ranks is not None:
            return "over"
        b = self.build
        if b is None:
            return "lead" if self.last is None else "answer"
        return "units" if b.value is None else "cards"

    def display_chips(self, player: int) -> int:
        return sum(s.chips for s in self.display[player])

    def cards_held(self, player: int) -> int:
        """Hand cards plus chip points (held and on the own display): fewest is best."""
        return self.hand_sizes[player] + self.held[player] + self.display_chips(player)

    def finished_ranks(self) -> dict[int, int]:
        return {seat: i + 1 for i, seat in enumerate(self.finished)}

    def check_consistency(self) -> None:
        """Raise ValueError unless the position could occur in a game (docs/chipit.md, "Invariants").

        The rules-dependent part (when the game is over, the ranks) is the engine's.
        """
        n = self.num_players
        if type_counts(self.discard) != self.discard_counts:
            raise ValueError("discard_counts does not count the discard")
        counts = type_counts(self.discard + self.out + [s.card for shown in self.display for s in shown])
        for p in range(n):
            if sum(self.hands[p]) != self.hand_sizes[p] or min(self.hands[p]) < 0:
                raise ValueError(f"hand_sizes[{p}] = {self.hand_sizes[p]} does not count hands[{p}]")
            for t in range(NUM_TYPES):
                counts[t] += self.hands[p][t]
        check_card_counts(
            f"cards (each type exactly {COPIES} times in hands, displays, discard and out)",
            counts,
            [COPIES] * NUM_TYPES,
        )
        chips = self.supply + sum(self.held) + sum(self.display_chips(p) for p in range(n))
        if chips != TOTAL_CHIPS:
            raise ValueError(
                f"supply, holdings and chips lying out must add up to {TOTAL_CHIPS}, got {chips}"
            )

        for p, shown in enumerate(self.display):
            if len({s.value for s in shown}) > 1:
                raise ValueError(f"the cards lying out at seat {p} do not show one common value")
        last = self.last
        if last is not None:
            shown = self.display[last.seat]
            if len(shown) != last.count or any(s.value != last.value for s in shown):
                raise ValueError(f"last_play {last} is not what seat {last.seat} has lying out")

        if self.is_finished != [p in self.finished for p in range(n)]:
            raise ValueError(f"is_finished does not match finished {self.finished}")
        for p in range(n):
            if self.is_finished[p] != (self.cards_held(p) == 0):  # docs/rules/chipit.md, "the win"
                raise ValueError(
                    f"seat {p} holds {self.cards_held(p)} cards and chip points;"
                    f" a seat is finished exactly when it holds none (finished: {self.finished})"
                )
        if self.ranks is None:
            self._check_passes()
            if self.is_finished[self.current]:
                raise ValueError(f"current_player {self.current} has already finished")
            if self.display[self.current]:
                raise ValueError(
                    "the current player's cards were cleared when its turn started; display must be empty"
                )
        if self.build is not None:
            self._check_build(self.build)
        if self.turn is not None:
            self._check_turn(self.turn)

    def _check_passes(self) -> None:
        """Since the last play every seat still in between its player and the decider passed once.

        Seats that finished earlier were skipped; one that finished by this very
        pass counted, so the passes lie between the two counts.
        """
        last = self.last
        if last is None:  # passes at the lead: empty-handed leaders, any number of rounds
            return
        n = self.num_players
        between = [(last.seat + i) % n for i in range(1, (self.current - last.seat) % n)]
        still_in = sum(not self.is_finished[q] for q in between)
        if not still_in <= self.passes <= len(between):
            raise ValueError(
                f"passes {self.passes} do not fit: seats {between} acted since seat {last.seat}'s play"
                f" ({still_in} of them still in)"
            )

    def _check_build(self, b: Build) -> None:
        p = self.current
        if self.ranks is not None:
            raise ValueError("a finished game has no play being built")
        if b.value is None and (b.block is None or b.cards):
            raise ValueError("a play being built needs a value (or a block, with no cards chosen yet)")
        if b.value is not None and b.block is not None and not b.block <= b.value < b.block + BLOCK:
            raise ValueError(f"the value {b.value} of the play being built is not in its block {b.block}")
        if b.cards != sorted(b.cards):
            raise ValueError(f"the cards of a play are chosen in ascending type order, got {b.cards}")
        chosen = type_counts(b.cards)
        for t in range(NUM_TYPES):
            if chosen[t] > self.hands[p][t]:
                raise ValueError(f"the play being built uses {CODES[t]} more often than seat {p} holds it")
            if b.rest[t] != self.hands[p][t] - chosen[t]:
                raise ValueError("the rest of the play being built is not the hand less the cards chosen")
        chips = sum(chip_cost(t, b.target) for t in b.cards)
        if b.chips != chips:
            raise ValueError(f"the play being built needs {chips} chip points, not {b.chips}")
        if chips > self.supply:
            raise ValueError(f"the play being built needs {chips} chip points, the supply has {self.supply}")
        if self.last is not None and len(b.cards) >= self.last.count:
            raise ValueError(
                f"an answer to {self.last.count} card(s) is complete with {len(b.cards)};"
                " it cannot be building"
            )

    def _check_turn(self, turn: Turn) -> None:
        """The last turn must be the one that led to this position: its text is read from the table."""
        over = self.ranks is not None
        if not over and turn.seat == self.current:
            raise ValueError(f"last_turn: seat {turn.seat} ended its turn, so it cannot decide now")
        if turn.kind != "pass" and (self.last is None or self.last.seat != turn.seat):
            raise ValueError(f"last_turn: a play of seat {turn.seat} must be the combination to beat")
        if turn.kind != "pass" and (turn.returned or turn.stood is not None):
            raise ValueError("last_turn: a play returns no points and ends no round")
        if self.is_finished[turn.seat] and self.finished[-1] != turn.seat:
            raise ValueError(f"last_turn: seat {turn.seat} finished before it, yet acted")
        if turn.stood is not None and (over or self.last is not None):
            raise ValueError("last_turn: a round that ended leaves a lead due")
        if over and turn.took:
            raise ValueError("last_turn: no turn started after the last one of the game")
        if not over and turn.took > self.held[self.current]:
            raise ValueError(f"last_turn: seat {self.current} holds less than the {turn.took} points it took")


# ------------------------------------------------------------------ JSON
def type_counts(types: list[int]) -> list[int]:
    """Cards per type of a list of card types."""
    counts = [0] * NUM_TYPES
    for t in types:
        counts[t] += 1
    return counts


def hand_codes(hand: list[int]) -> list[str]:
    return [CODES[t] for t in range(NUM_TYPES) for _ in range(hand[t])]


def to_dict(table: Table) -> dict[str, Any]:
    """The game's own part of ``state_dict()`` (docs/chipit.md)."""
    b = table.build
    last = table.last
    return {
        "current_player": table.current,
        "phase": table.phase,
        "hands": [hand_codes(h) for h in table.hands],
        "chips": list(table.held),
        "supply": table.supply,
        "display": [[{"card": CODES[s.card], "chips": s.chips} for s in shown] for shown in table.display],
        "last_play": None if last is None else {"seat": last.seat, "count": last.count, "value": last.value},
        "passes": table.passes,
        "discard": [CODES[t] for t in table.discard],
        "out": [CODES[t] for t in table.out],
        "finished": list(table.finished),
        "ranks": None if table.ranks is None else list(table.ranks),
        "returned": list(table.returned),
        "building": None
        if b is None
        else {"value": b.value, "block": b.block, "cards": [CODES[t] for t in b.cards]},
        "last_turn": _turn_dict(table.turn),
    }


def _turn_dict(turn: Turn | None) -> dict[str, Any] | None:
    if turn is None:
        return None
    return {
        "seat": turn.seat,
        "kind": turn.kind,
        "returned": turn.returned,
        "stood": turn.stood,
        "took": turn.took,
    }


def _type(name: str, code: Any) -> int:
    if not isinstance(code, str) or code not in TYPE_OF_CODE:
        raise ValueError(f"{name}: unknown card code {code!r}; codes are G2..G21 and P2..P11")
    return TYPE_OF_CODE[code]


def _types(name: str, codes: Any, most: int | None = None) -> list[int]:
    types = [_type(f"{name}[{i}]", c) for i, c in enumerate(check_list(name, codes))]
    if most is not None and len(types) > most:
        raise ValueError(f"{name} holds {len(types)} cards, more than the {most} dealt")
    return types


def _dict(name: str, value: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{name} must be a dict with keys {list(keys)}, got {value!r}")
    missing = [k for k in keys if k not in value]
    if missing:
        raise ValueError(f"{name} lacks the key(s) {missing}")
    return value


def _key(state: dict[str, Any], key: str) -> Any:
    if key not in state:
        raise ValueError(f"a chipit state needs the key {key!r}")
    return state[key]


def _optional_int(name: str, value: Any, low: int, high: int) -> int | None:
    return None if value is None else check_int(name, value, low, high)


def from_dict(state: dict[str, Any], num_players: int) -> Table:
    """A :class:`Table` from ``to_dict``-shaped data, every field checked (ValueError).

    Cross-field invariants are left to :meth:`Table.check_consistency`, and
    the derived ``phase`` to :func:`check_phase`.
    """
    n = num_players
    most = DEAL_SIZE[n]  # cards never return to a hand
    table = Table.empty(n)
    for p, codes in enumerate(check_per_seat("hands", _key(state, "hands"), n)):
        for t in _types(f"hands[{p}]", codes, most):
            table.hands[p][t] += 1
        table.hand_sizes[p] = len(codes)
    table.held = [
        check_int(f"chips[{p}]", c, 0, TOTAL_CHIPS)
        for p, c in enumerate(check_per_seat("chips", _key(state, "chips"), n))
    ]
    table.supply = check_int("supply", _key(state, "supply"), 0, TOTAL_CHIPS)
    table.returned = [  # a statistic (older states lack it); points cycle, so no upper bound but ints
        check_int(f"returned[{p}]", r, 0, 10**9)
        for p, r in enumerate(check_per_seat("returned", state.get("returned", [0] * n), n))
    ]
    for p, shown in enumerate(check_per_seat("display", _key(state, "display"), n)):
        entries = [
            _dict(f"display[{p}][{i}]", e, ("card", "chips"))
            for i, e in enumerate(check_list(f"display[{p}]", shown))
        ]
        if len(entries) > most:
            raise ValueError(f"display[{p}] holds {len(entries)} cards, more than the {most} dealt")
        table.display[p] = [
            Shown(
                _type(f"display[{p}][{i}].card", e["card"]),
                check_int(f"display[{p}][{i}].chips", e["chips"], 0, TOTAL_CHIPS),
            )
            for i, e in enumerate(entries)
        ]
    table.discard = _types("discard", _key(state, "discard"))
    table.discard_counts = type_counts(table.discard)
    table.out = _types("out", _key(state, "out"))

    last = _key(state, "last_play")
    if last is not None:
        last = _dict("last_play", last, ("seat", "count", "value"))
        table.last = LastPlay(
            check_seat("last_play.seat", last["seat"], n),
            check_int("last_play.count", last["count"], 1, most),
            check_int("last_play.value", last["value"], MIN_VALUE, MAX_VALUE),
        )
    table.passes = check_int("passes", state.get("passes", 0), 0, MAX_PASSES)
    table.finished = check_seats("finished", _key(state, "finished"), n)
    table.is_finished = [p in table.finished for p in range(n)]
    table.current = check_seat("current_player", _key(state, "current_player"), n)
    ranks = _key(state, "ranks")
    if ranks is not None:
        table.ranks = [
            check_int(f"ranks[{p}]", r, 1, n) for p, r in enumerate(check_per_seat("ranks", ranks, n))
        ]
    building = state.get("building")
    if building is not None:
        table.build = _build(table, _dict("building", building, ("value", "block", "cards")))
    turn = state.get("last_turn")  # optional: older states lack it (their last move reads "")
    if turn is not None:
        table.turn = _turn(n, _dict("last_turn", turn, ("seat", "kind", "returned", "stood", "took")))
    return table


def check_phase(table: Table, phase: Any) -> None:
    """The ``phase`` of a loaded state (derived from the rest) must fit the position."""
    if check_choice("phase", phase, PHASES) != table.phase:
        raise ValueError(f"phase {phase!r} does not fit the state (it is {table.phase!r})")


def _turn(num_players: int, turn: dict[str, Any]) -> Turn:
    """Each field of ``last_turn`` alone; :meth:`Table.check_consistency` fits it to the table."""
    return Turn(
        check_seat("last_turn.seat", turn["seat"], num_players),
        check_choice("last_turn.kind", turn["kind"], TURN_KINDS),
        check_int("last_turn.returned", turn["returned"], 0, MAX_RETURN),
        check_optional_seat("last_turn.stood", turn["stood"], num_players),
        check_int("last_turn.took", turn["took"], 0, TOTAL_CHIPS),
    )


def _build(table: Table, building: dict[str, Any]) -> Build:
    value = _optional_int("building.value", building["value"], MIN_VALUE, MAX_VALUE)
    last_block = HIGH_START + BLOCK * (NUM_BLOCKS - 1)
    block = _optional_int("building.block", building["block"], HIGH_START, last_block)
    if block is not None and (block - HIGH_START) % BLOCK:
        raise ValueError(f"building.block must be the lowest value of a block of {BLOCK}, got {block}")
    cards = _types("building.cards", building["cards"])
    chips = 0
    for t in cards:
        if value is None:
            raise ValueError("a play being built needs a value (or a block, with no cards chosen yet)")
        cost = card_cost(t, value)
        if cost is None:
            raise ValueError(f"{CODES[t]} cannot show the value {value}")
        chips += cost
    rest = [h - c for h, c in zip(table.hands[table.current], type_counts(cards), strict=True)]
    return Build(value, block, cards, chips, rest)
