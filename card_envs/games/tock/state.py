"""The position of a Tock game: typed parts, ``state_dict()`` and its checked loader.

:class:`Table` holds everything that changes during a game; the engine owns one
and the helpers (the observation, the text, the JSON format) read it, never the
engine's internals. Lists are kept as the rules engine uses them: the supply
and the own stacks keep their top card *last* (``state_dict`` lists them top
first), open piles are bottom first, so a pile's top card is ``pile[-1]``.
The JSON format is in docs/tock.md; the rules in docs/rules/tock.md.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, fields
from itertools import chain
from typing import Any

from card_envs.core.checks import (
    check_bool,
    check_card_counts,
    check_choice,
    check_int,
    check_list,
    check_per_seat,
    check_seat,
    check_seats,
)
from card_envs.core.ranking import ranks_after_finishers
from card_envs.games.tock.cards import (
    DECK_COUNTS,
    MAX_ROWS,
    ROW_END,
    TOP_CARD,
    card_counts,
    row_cards,
)
from card_envs.games.tock.encoding import (
    CENTRE,
    DRAW,
    KNOCK,
    MAX_SEATS,
    NUM_ACTIONS,
    OWN_PILE,
    PASS,
)

PHASES = ("play", "knock", "over")
#: ``Move.target`` of a move that put no card on an opponent's pile
NO_TARGET = -1
#: ``Move.source`` of a draw: the supply, the own stack, or the own open pile turned over first
DRAW_SOURCES = ("supply", "stack", "turned")
#: ``Move.source`` of a played card: the drawn card, or the top of the own open pile
PLAY_SOURCES = ("drawn", "pile")
#: counters have no cap of their own (the step cap is the env's)
_MAX_COUNT = sys.maxsize


@dataclass(slots=True)
class Move:
    """The last move of a player on turn: the move a knock window is about.

    ``card`` is 0 for a draw (the drawn card is the card in play);
    ``target`` is the seat whose open pile got the card, else :data:`NO_TARGET`;
    ``source`` where the card came from (:data:`DRAW_SOURCES`, :data:`PLAY_SOURCES`),
    None when unknown (a state saved before it was kept).
    """

    player: int
    action: int
    card: int
    target: int
    rule_break: bool
    source: str | None = None


@dataclass(slots=True)
class KnockWindow:
    """The open knock window (docs/rules/tock.md, "Rule breaks and TOCK!").

    ``deciders``: the seats still to answer, the first answers now;
    ``rule_break``: the move under review was a rule break;
    ``ends_turn``: that move ended the turn (a drawn card put on the own pile).
    """

    deciders: list[int]
    rule_break: bool
    ends_turn: bool


@dataclass(frozen=True, slots=True)
class LastAction:
    """The last action of anyone (a knock or a pass included)."""

    player: int
    action: int


#: every possible :class:`LastAction`, by player and action (the engine records one per step)
LAST_ACTIONS = tuple(tuple(LastAction(p, a) for a in range(NUM_ACTIONS)) for p in range(MAX_SEATS))


@dataclass(slots=True)
class Stats:
    """Per-seat counters, reported in the env's infos."""

    rule_breaks: int = 0
    caught: int = 0  # times caught by a correct knock
    knocks_correct: int = 0
    knocks_false: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "rule_breaks": self.rule_breaks,
            "caught": self.caught,
            "knocks_correct": self.knocks_correct,
            "knocks_false": self.knocks_false,
        }


STAT_KEYS = tuple(f.name for f in fields(Stats))


@dataclass(slots=True)
class Table:
    """Everything that changes during a game of Tock.

    ``alive`` repeats what ``finished`` says, for speed (:meth:`check_consistency`
    checks that they agree). ``window`` is set exactly in phase ``"knock"``.
    ``penalty`` and ``newly_finished`` say what the last action caused, for the
    text (``last_move``); the engine stores them as they happen and words nothing.
    """

    supply: list[int]  # face-down supply, top card last
    centre: list[int]  # top card of each opened centre row, in opening order
    piles: list[list[int]]  # open pile per seat, bottom first
    stacks: list[list[int]]  # own face-down stack per seat, top card last
    drawn: int | None = None  # the drawn card of the player on turn, not yet placed
    turn: int = 0  # the seat on turn
    phase: str = "play"
    finished: list[int] = field(default_factory=list)  # seats in finishing order
    finish_ranks: list[int | None] = field(default_factory=list)  # per seat; None while still in
    alive: list[bool] = field(default_factory=list)  # per seat: not finished
    ranks: list[int] | None = None  # set when the game is over
    window: KnockWindow | None = None
    move: Move | None = None
    last_action: LastAction | None = None
    stats: list[Stats] = field(default_factory=list)
    #: (giver, card) of the penalty of the last knock, in collection order; read only while the
    #: last action is a knock; None: unknown (a state saved before it was kept)
    penalty: list[tuple[int, int]] | None = None
    #: how many seats finished with the last action: the last ones of ``finished``
    newly_finished: int = 0

    @classmethod
    def empty(cls, num_players: int) -> Table:
        n = num_players
        return cls(
            supply=[],
            centre=[],
            piles=[[] for _ in range(n)],
            stacks=[[] for _ in range(n)],
            finish_ranks=[None] * n,
            alive=[True] * n,
            stats=[Stats() for _ in range(n)],
        )

    # ------------------------------------------------------------ facts
    @property
    def num_players(self) -> int:
        return len(self.piles)

    @property
    def current_player(self) -> int:
        """The seat deciding now: the first decider of an open knock window, else the seat on turn."""
        window = self.window
        return window.deciders[0] if window is not None else self.turn

    def card_in_play(self) -> tuple[int | None, str | None]:
        """The card the player on turn decides about, and where it is: ``"pile"`` or ``"drawn"``."""
        if self.drawn is not None:
            return self.drawn, "drawn"
        pile = self.piles[self.turn]
        return (pile[-1], "pile") if pile else (None, None)

    def cards_held(self, seat: int) -> int:
        """Open pile plus own stack (plus the drawn card while it is in play)."""
        held = len(self.piles[seat]) + len(self.stacks[seat])
        if seat == self.turn and self.drawn is not None:
            held += 1
        return held

    def finished_ranks(self) -> dict[int, int]:
        ranks = self.finish_ranks
        return {s: r for s in self.finished if (r := ranks[s]) is not None}

    def final_ranks(self) -> list[int]:
        """docs/rules/tock.md, "End and ranking": the players still in follow the finished ones,
        by fewest cards held, ties sharing a rank."""
        return ranks_after_finishers(self.num_players, self.finished_ranks(), key=self.cards_held)

    def centre_complete(self) -> bool:
        """All six rows at 20: only the 21 is left outside the centre, so the game ends."""
        return len(self.centre) == MAX_ROWS and all(top == ROW_END for top in self.centre)

    def all_cards(self) -> list[int]:
        """Every card on the table, the centre rows included."""
        drawn = [] if self.drawn is None else [self.drawn]
        rows = (row_cards(top) for top in self.centre)
        return list(chain(self.supply, *self.piles, *self.stacks, drawn, *rows))

    # ------------------------------------------------------- invariants
    def check_consistency(self) -> None:
        """Raise ValueError unless the position could occur in a game (docs/rules/tock.md).

        Cards may be missing (scenario tests use small tables), but no card is
        there more often than in the full set. The rules-dependent part (no
        rule breaks without ``allow_violations``) is the engine's.
        """
        counts = card_counts(self.all_cards())
        check_card_counts("cards (no card more often than in the full set)", counts, DECK_COUNTS, exact=False)
        if len(self.centre) > MAX_ROWS:
            raise ValueError(f"the centre has at most {MAX_ROWS} rows, got {len(self.centre)}")
        self._check_seats()
        self._check_phase()
        self._check_window()
        self._check_moves()
        self._check_outcome()
        self._check_stats()

    def _check_seats(self) -> None:
        n = self.num_players
        finished = self.finished
        if len(set(finished)) != len(finished):
            raise ValueError(f"finished lists a seat twice: {finished}")
        if self.alive != [s not in finished for s in range(n)]:
            raise ValueError(f"alive {self.alive} does not match finished {finished}")
        for s in range(n):
            if (self.finish_ranks[s] is None) != self.alive[s]:
                raise ValueError(f"finish_ranks {self.finish_ranks} must rank exactly the finished seats")
        for i, s in enumerate(finished):
            # seats finishing together share the better rank: 1, then the same or i + 1
            rank = self.finish_ranks[s]
            allowed = (1,) if i == 0 else (self.finish_ranks[finished[i - 1]], i + 1)
            if rank not in allowed:
                raise ValueError(
                    f"finish_ranks {self.finish_ranks} do not follow the finishing order {finished}"
                )
            if self.cards_held(s):
                raise ValueError(f"finished seat {s} still holds cards")

    def _check_phase(self) -> None:
        still_in = self.alive.count(True)
        if self.phase == "over":
            if still_in > 1 and not self.centre_complete():
                raise ValueError("the game is over only with at most one player left or all rows at 20")
            if self.ranks != self.final_ranks():
                raise ValueError(f"ranks {self.ranks} are not the final ranks {self.final_ranks()}")
            return
        if self.ranks is not None:
            raise ValueError("ranks are given exactly when the phase is 'over'")
        if still_in < 2 or self.centre_complete():
            raise ValueError(f"the game has ended (players still in: {still_in}); the phase must be 'over'")
        if not self.alive[self.turn]:
            raise ValueError(f"turn_player {self.turn} has finished")
        if not self.supply:
            empty = [s for s in range(self.num_players) if self.alive[s] and not self.cards_held(s)]
            if empty:
                raise ValueError(f"seats {empty} hold no cards with the supply empty: they have finished")

    def _check_window(self) -> None:
        window = self.window
        if (window is not None) != (self.phase == "knock"):
            raise ValueError("a knock window is open exactly in phase 'knock'")
        if window is None:
            return
        n = self.num_players
        # the players still in answer in seat order from the mover's left
        order = [s for s in ((self.turn + k) % n for k in range(1, n)) if self.alive[s]]
        deciders = window.deciders
        if not deciders or deciders != order[len(order) - len(deciders) :]:
            raise ValueError(f"window deciders {deciders} must be the last of {order}, in that order")
        move = self.move
        if move is not None and (
            move.player != self.turn
            or move.rule_break != window.rule_break
            or window.ends_turn != (move.action == OWN_PILE)
            or (self.drawn is not None) != (move.action == DRAW)
        ):
            raise ValueError(f"the knock window {window} is not about the last move {move}")

    def _check_moves(self) -> None:
        n = self.num_players
        move, last = self.move, self.last_action
        if move is not None:
            action = move.action
            opponent = CENTRE < action < DRAW
            if opponent and action >= n:
                raise ValueError(f"move action {action}: there is no seat {action} to the left")
            target = (move.player + action) % n if opponent else NO_TARGET
            if move.target != target:
                raise ValueError(f"move target {move.target} does not fit action {action} ({target})")
            low, high = (0, 0) if action == DRAW else (1, ROW_END if action == CENTRE else TOP_CARD)
            if not low <= move.card <= high:
                raise ValueError(f"move card {move.card} does not fit action {action} ({low}..{high})")
            sources = DRAW_SOURCES if action == DRAW else ("drawn",) if action == OWN_PILE else PLAY_SOURCES
            if move.source is not None and move.source not in sources:
                raise ValueError(f"move source {move.source!r} does not fit action {action} ({sources})")
            if last is None:
                raise ValueError("a move was made, so there is a last action")
        if (
            last is not None
            and last.action not in (KNOCK, PASS)
            and (move is None or (move.player, move.action) != (last.player, last.action))
        ):
            raise ValueError(f"last_action {last} is a move, so it is the last move {move}")

    def _check_outcome(self) -> None:
        """What the last action caused must be what the position shows (docs/tock.md, ``outcome``)."""
        last, k = self.last_action, self.newly_finished
        if not 0 <= k <= len(self.finished):
            raise ValueError(f"{k} seats cannot have just finished; {len(self.finished)} finished in all")
        if k and (last is None or self.supply):
            raise ValueError("seats finish only by an action with the supply empty")
        newly = self.finished[len(self.finished) - k :]
        if len({self.finish_ranks[s] for s in newly}) > 1:
            raise ValueError(f"seats {newly} finished with one action, so they share one rank")
        if last is None or last.action != KNOCK or self.penalty is None:
            return
        move = self.move
        if move is None:
            raise ValueError("a knock's penalty needs the move it was about")
        receiver = move.player if move.rule_break else last.player
        givers = [g for g, _ in self.penalty]
        n = self.num_players
        order = [(receiver + i) % n for i in range(1, n)]
        if receiver in givers or givers != [s for s in order if s in givers]:
            raise ValueError(f"penalty givers {givers} must be others than {receiver}, from its left")
        cards = [c for _, c in reversed(self.penalty)]  # each went under the receiver's pile
        if self.piles[receiver][: len(cards)] != cards:
            raise ValueError(f"penalty cards {cards} are not at the bottom of seat {receiver}'s open pile")

    def _check_stats(self) -> None:
        stats = self.stats
        if sum(s.caught for s in stats) != sum(s.knocks_correct for s in stats):
            raise ValueError("every correct knock catches one rule break: caught and knocks_correct differ")


# ------------------------------------------------------------ the JSON format
def to_dict(table: Table) -> dict[str, Any]:
    """The game's part of ``state_dict()`` (docs/tock.md)."""
    window = table.window
    move = table.move
    last = table.last_action
    return {
        "current_player": table.current_player,
        "turn_player": table.turn,
        "phase": table.phase,
        "supply": table.supply[::-1],
        "centre": list(table.centre),
        "piles": [list(p) for p in table.piles],
        "stacks": [s[::-1] for s in table.stacks],
        "drawn": table.drawn,
        "finished": list(table.finished),
        "finish_ranks": list(table.finish_ranks),
        "ranks": None if table.ranks is None else list(table.ranks),
        "window": None
        if window is None
        else {
            "deciders": list(window.deciders),
            "rule_break": window.rule_break,
            "ends_turn": window.ends_turn,
        },
        "move": None
        if move is None
        else {
            "player": move.player,
            "action": move.action,
            "card": move.card,
            "target": move.target,
            "rule_break": move.rule_break,
            "source": move.source,
        },
        "last_action": None if last is None else {"player": last.player, "action": last.action},
        "stats": [s.as_dict() for s in table.stats],
        "outcome": _outcome(table),
    }


def _outcome(table: Table) -> dict[str, Any] | None:
    """What the last action caused: the penalty of a knock, the seats that finished."""
    last = table.last_action
    if last is None:
        return None
    penalty = table.penalty if last.action == KNOCK else None
    finished = table.finished
    return {
        "penalty": None if penalty is None else [[giver, card] for giver, card in penalty],
        "finished": finished[len(finished) - table.newly_finished :],
    }


def _cards(name: str, value: Any, high: int = TOP_CARD) -> list[int]:
    cards = check_list(name, value)
    if all(type(c) is int and 1 <= c <= high for c in cards):  # the usual case, without naming each card
        return list(cards)
    return [check_int(f"{name}[{i}]", c, 1, high) for i, c in enumerate(cards)]


def _record(name: str, value: Any, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """A JSON object with exactly ``keys``, and maybe some of ``optional``."""
    if not isinstance(value, dict) or not set(keys) <= set(value) <= set(keys + optional):
        raise ValueError(f"{name} must be an object with the keys {list(keys)}, got {value!r}")
    return value


def _penalty_card(name: str, value: Any, num_players: int) -> tuple[int, int]:
    """One ``[giver, card]`` pair of a knock's penalty."""
    giver, card = check_list(name, value, 2)
    return check_seat(f"{name} giver", giver, num_players), check_int(f"{name} card", card, 1, TOP_CARD)


def _load_outcome(table: Table, value: Any) -> None:
    """``outcome``: optional (unknown in older states); its fit with the table is checked later."""
    record = _record("outcome", value, ("penalty", "finished"))
    penalty = record["penalty"]
    if penalty is not None:
        last = table.last_action
        if last is None or last.action != KNOCK:
            raise ValueError(f"outcome penalty {penalty!r}: only a knock moves penalty cards")
        table.penalty = [
            _penalty_card(f"outcome penalty[{i}]", pair, table.num_players)
            for i, pair in enumerate(check_list("outcome penalty", penalty))
        ]
    newly = check_seats("outcome finished", record["finished"], table.num_players)
    if newly != table.finished[len(table.finished) - len(newly) :]:
        raise ValueError(f"outcome finished {newly} must be the last seats of finished {table.finished}")
    table.newly_finished = len(newly)


def from_dict(state: dict[str, Any], num_players: int) -> Table:
    """A :class:`Table` from a ``to_dict``-shaped dict, every field checked (ValueError).

    ``current_player`` is derived and ignored. Optional: ``drawn``, ``finished``,
    ``finish_ranks`` (default: one rank per finisher, in order), ``window``
    outside phase ``"knock"``, ``move`` (and its ``source``), ``last_action``, ``stats``
    and ``outcome``.
    Cross-field invariants are :meth:`Table.check_consistency`'s.
    """
    n = num_players
    table = Table.empty(n)
    table.phase = check_choice("phase", state["phase"], PHASES)
    table.supply = _cards("supply", state["supply"])[::-1]
    table.centre = _cards("centre", state["centre"], ROW_END)
    table.piles = [_cards(f"piles[{s}]", p) for s, p in enumerate(check_per_seat("piles", state["piles"], n))]
    stacks = check_per_seat("stacks", state["stacks"], n)
    table.stacks = [_cards(f"stacks[{s}]", p)[::-1] for s, p in enumerate(stacks)]
    drawn = state.get("drawn")
    table.drawn = None if drawn is None else check_int("drawn", drawn, 1, TOP_CARD)
    table.turn = check_seat("turn_player", state["turn_player"], n)

    table.finished = finished = check_seats("finished", state.get("finished", []), n)
    table.alive = [s not in finished for s in range(n)]
    finish_ranks = state.get("finish_ranks")
    if finish_ranks is None:
        table.finish_ranks = [finished.index(s) + 1 if s in finished else None for s in range(n)]
    else:
        table.finish_ranks = [
            None if r is None else check_int(f"finish_ranks[{s}]", r, 1, n)
            for s, r in enumerate(check_per_seat("finish_ranks", finish_ranks, n))
        ]
    ranks = state.get("ranks")
    if ranks is not None:
        ranks = check_per_seat("ranks", ranks, n)
        table.ranks = [check_int(f"ranks[{s}]", r, 1, n) for s, r in enumerate(ranks)]

    window = state.get("window")
    if window is not None:
        if table.phase != "knock":
            raise ValueError(f"a knock window is open only in phase 'knock', got {window!r}")
        window = _record("window", window, ("deciders", "rule_break", "ends_turn"))
        table.window = KnockWindow(
            check_seats("window deciders", window["deciders"], n),
            check_bool("window rule_break", window["rule_break"]),
            check_bool("window ends_turn", window["ends_turn"]),
        )
    move = state.get("move")
    if move is not None:
        move = _record("move", move, ("player", "action", "card", "target", "rule_break"), ("source",))
        source = move.get("source")
        table.move = Move(
            check_seat("move player", move["player"], n),
            check_int("move action", move["action"], CENTRE, OWN_PILE),
            check_int("move card", move["card"], 0, TOP_CARD),
            check_int("move target", move["target"], NO_TARGET, n - 1),
            check_bool("move rule_break", move["rule_break"]),
            None if source is None else check_choice("move source", source, DRAW_SOURCES + PLAY_SOURCES),
        )
    last = state.get("last_action")
    if last is not None:
        last = _record("last_action", last, ("player", "action"))
        player = check_seat("last_action player", last["player"], n)
        action = check_int("last_action action", last["action"], 0, NUM_ACTIONS - 1)
        table.last_action = LAST_ACTIONS[player][action]
    stats = state.get("stats")
    if stats is not None:
        table.stats = []
        for s, value in enumerate(check_per_seat("stats", stats, n)):
            record = _record(f"stats[{s}]", value, STAT_KEYS)
            counts = {k: check_int(f"stats[{s}].{k}", record[k], 0, _MAX_COUNT) for k in STAT_KEYS}
            table.stats.append(Stats(**counts))
    outcome = state.get("outcome")
    if outcome is not None:
        if table.last_action is None:
            raise ValueError(f"outcome {outcome!r} without a last action")
        _load_outcome(table, outcome)
    return table
