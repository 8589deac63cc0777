"""The Tock rules engine (docs/rules/tock.md): rows in the centre, open piles, rule breaks and TOCK!

Decisions (engine phases):

* ``"play"``: the player on turn decides about its *card in play*: the drawn
  card if it holds one, else the top card of its own open pile; with an
  empty open pile the only move is to draw.
* ``"knock"``: a knock window is open after a move for which a rule break was
  available; :attr:`current_player` is the player deciding KNOCK or PASS.
* ``"over"``: the game has ended.

Turning the own open pile over (once the supply is empty) is never a choice
of its own: it is what DRAW does when the supply and the own stack are empty.

The position lives in :attr:`TockGame.table` (:class:`~card_envs.games.tock.state.Table`);
this module holds the rules only. The observation, the text and the JSON
format are in :mod:`.encoding`, :mod:`.text` and :mod:`.state`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core.checks import check_choice
from card_envs.core.choices import ChoiceGroup
from card_envs.core.game import CardGame
from card_envs.core.view import TableView
from card_envs.core.worlds import SeatView
from card_envs.games.tock import choices, text, view, worlds
from card_envs.games.tock import state as S
from card_envs.games.tock.cards import MAX_ROWS, ROW_END, full_deck
from card_envs.games.tock.encoding import (
    CENTRE,
    DRAW,
    KNOCK,
    LAYOUT,
    MAX_SEATS,
    NUM_ACTIONS,
    OWN_PILE,
    PASS,
    ObservationBuffer,
)
from card_envs.games.tock.state import LAST_ACTIONS, KnockWindow, Move, Table

_DRAW_BIT = 1 << DRAW
_OWN_BIT = 1 << OWN_PILE
_KNOCK_BITS = 1 << KNOCK | 1 << PASS
_MASKS: dict[int, np.ndarray] = {}


def _mask_of(bits: int) -> np.ndarray:
    """The int8 mask of a bit set of actions (built once per bit set; copy before handing out)."""
    mask = _MASKS.get(bits)
    if mask is None:
        mask = np.array([bits >> a & 1 for a in range(NUM_ACTIONS)], dtype=np.int8)
        mask.flags.writeable = False
        _MASKS[bits] = mask
    return mask


class TockGame(CardGame):
    """Tock for 2 to 6 players.

    Args:
        num_players: seats (default 4).
        opponent_choice: ``"free"`` (any fitting opponent) or ``"nearest"``
            (the first fitting opponent in seat order after the player).
        allow_violations: mask in the three rule breaks and open knock windows.
    """

    name = "tock"
    min_players = 2
    max_players = MAX_SEATS
    default_players = 4
    default_max_steps = 10_000
    num_actions = NUM_ACTIONS
    observation_layout = LAYOUT  # the same for every table size

    def __init__(
        self,
        num_players: int | None = None,
        *,
        opponent_choice: str = "free",
        allow_violations: bool = True,
    ) -> None:
        super().__init__(num_players)
        self.opponent_choice = check_choice("opponent_choice", opponent_choice, ["free", "nearest"])
        self.allow_violations = check_choice("allow_violations", allow_violations, [True, False])
        self._nearest = opponent_choice == "nearest"
        #: the whole position (public and typed: read it, change it only through ``step``)
        self.table = Table.empty(self.num_players)
        self._opts: tuple[int, int] | None = None  # _options() of the current state, set by the mask
        self._obs = ObservationBuffer()

    def _deal(self) -> None:
        self.table = Table.empty(self.num_players)
        self.table.supply = self.rng.permutation(full_deck()).tolist()
        self._opts = None

    # ------------------------------------------------------------ game facts
    @property
    def current_player(self) -> int:
        return self.table.current_player

    @property
    def phase(self) -> str:
        return self.table.phase

    @property
    def is_over(self) -> bool:
        return self.table.phase == "over"

    @property
    def turn_player(self) -> int:
        return self.table.turn

    @property
    def ranks(self) -> list[int] | None:
        ranks = self.table.ranks
        return None if ranks is None else list(ranks)

    def finished_ranks(self) -> dict[int, int]:
        return self.table.finished_ranks()

    def cards_held(self, player: int) -> int:
        """Open pile plus own stack (plus the drawn card while it is in play)."""
        return self.table.cards_held(player)

    def card_in_play(self) -> tuple[int | None, str | None]:
        """The card the player on turn decides about, and where it is: ``"pile"`` or ``"drawn"``."""
        return self.table.card_in_play()

    def player_info(self, player: int) -> dict[str, float]:
        tb = self.table
        info: dict[str, float] = {
            "cards_held": tb.cards_held(player),
            "open_pile": len(tb.piles[player]),
            "stack": len(tb.stacks[player]),
            "finished": float(not tb.alive[player]),
        }
        info.update(tb.stats[player].as_dict())
        return info

    # ----------------------------------------------------------- decisions
    def _options(self) -> tuple[int, int]:
        """Bit sets (legal actions, rule-break actions) of the play decision.

        docs/rules/tock.md, "Where a card may go" and "Rule breaks and TOCK!".
        """
        tb = self.table
        t = tb.turn
        card = tb.drawn
        from_pile = card is None
        piles = tb.piles
        if card is None:
            pile = piles[t]
            if not pile:
                return _DRAW_BIT, 0
            card = pile[-1]
        rows = tb.centre
        if card == 1:
            centre = len(rows) < MAX_ROWS
        elif card <= ROW_END:
            centre = (card - 1) in rows
        else:
            centre = False
        opponents = 0
        n = self.num_players
        for k in range(1, n):
            p = piles[(t + k) % n]
            if p:
                d = p[-1] - card
                if d == 1 or d == -1:
                    opponents |= 1 << k
                    if self._nearest:
                        break
        other = _DRAW_BIT if from_pile else _OWN_BIT
        if centre:
            legal, breaks = 1 << CENTRE, opponents | other
        elif opponents:
            legal, breaks = opponents, other
        else:
            return other, 0
        if not self.allow_violations:
            return legal, 0
        return legal | breaks, breaks

    def rule_break_actions(self) -> list[int]:
        """The legal actions that are rule breaks now (empty outside the play phase)."""
        if self.table.phase != "play":
            return []
        breaks = self._options()[1]
        return [a for a in range(NUM_ACTIONS) if breaks >> a & 1]

    def _legal_mask(self) -> np.ndarray:
        if self.table.phase == "knock":
            self._opts = None
            bits = _KNOCK_BITS
        else:
            self._opts = opts = self._options()
            bits = opts[0]
        return _mask_of(bits).copy()

    # ---------------------------------------------------------------- moves
    def _apply(self, action: int) -> None:
        if self.table.phase == "knock":
            self._apply_knock(action)
        else:
            opts = self._opts or self._options()  # the mask was just computed for this state
            self._opts = None
            self._apply_play(action, opts[1])

    def _apply_play(self, action: int, breaks: int) -> None:
        tb = self.table
        tb.newly_finished = 0  # what this action causes is recorded as it happens
        t = tb.turn
        was_break = bool(breaks >> action & 1)
        card = 0
        target = S.NO_TARGET
        ends_turn = complete = False
        if action == DRAW:
            if tb.supply:
                tb.drawn = tb.supply.pop()
                source = "supply"
            else:
                stack = tb.stacks[t]
                source = "stack"
                if not stack:  # turn the open pile over as one block: its bottom card is now on top
                    stack = tb.piles[t]
                    stack.reverse()
                    tb.stacks[t] = stack
                    tb.piles[t] = []
                    source = "turned"
                tb.drawn = stack.pop()
        elif action == OWN_PILE:
            card = tb.drawn  # type: ignore[assignment]  # OWN_PILE is legal only with a drawn card
            tb.piles[t].append(card)
            tb.drawn = None
            ends_turn = True
            source = "drawn"
        else:
            if tb.drawn is not None:
                card = tb.drawn
                tb.drawn = None
                source = "drawn"
            else:
                card = tb.piles[t].pop()
                source = "pile"
            if action == CENTRE:
                rows = tb.centre
                if card == 1:
                    rows.append(1)
                else:
                    rows[rows.index(card - 1)] = card
                    complete = card == ROW_END and len(rows) == MAX_ROWS and rows.count(ROW_END) == MAX_ROWS
            else:
                target = (t + action) % self.num_players
                tb.piles[target].append(card)
        tb.move = Move(t, action, card, target, was_break, source)
        tb.last_action = LAST_ACTIONS[t][action]
        if was_break:
            tb.stats[t].rule_breaks += 1
        if not tb.supply and self._check_finished(t if action != DRAW else -1):
            return
        if complete:  # all six rows at 20: only the 21 is left outside the centre
            self._end()
        elif not tb.alive[t]:  # the move finished the player: no knock window
            self._next_turn()
        elif breaks:
            n = self.num_players
            deciders = [s for s in ((t + k) % n for k in range(1, n)) if tb.alive[s]]
            tb.window = KnockWindow(deciders, was_break, ends_turn)
            tb.phase = "knock"
        elif ends_turn:
            self._next_turn()

    def _apply_knock(self, action: int) -> None:
        tb = self.table
        window = tb.window
        assert window is not None  # phase "knock"
        decider = window.deciders.pop(0)
        tb.newly_finished = 0
        tb.last_action = LAST_ACTIONS[decider][action]
        t = tb.turn
        if action == PASS:
            if not window.deciders:
                tb.window = None
                tb.phase = "play"
                if window.ends_turn:
                    self._next_turn()
            return
        tb.window = None
        tb.phase = "play"
        if window.rule_break:  # correct knock
            tb.stats[decider].knocks_correct += 1
            tb.stats[t].caught += 1
            if tb.drawn is not None:  # a forbidden draw: the drawn card goes onto the own pile
                tb.piles[t].append(tb.drawn)
                tb.drawn = None
            self._collect_penalty(t)
            ends_turn = True
        else:
            tb.stats[decider].knocks_false += 1
            self._collect_penalty(decider)
            ends_turn = window.ends_turn
        if not tb.supply and self._check_finished():
            return
        if ends_turn or not tb.alive[t]:
            self._next_turn()

    def _collect_penalty(self, receiver: int) -> None:
        """The bottom card of every other open pile, from the receiver's left, under its own pile;
        kept as (giver, card) for the text."""
        n = self.num_players
        piles = self.table.piles
        own = piles[receiver]
        penalty = []
        for k in range(1, n):
            giver = (receiver + k) % n
            p = piles[giver]
            if p:
                card = p.pop(0)
                own.insert(0, card)
                penalty.append((giver, card))
        self.table.penalty = penalty

    def _next_turn(self) -> None:
        tb = self.table
        n = self.num_players
        t = tb.turn
        for k in range(1, n + 1):
            s = (t + k) % n
            if tb.alive[s]:
                tb.turn = s
                break
        tb.phase = "play"

    def _check_finished(self, only: int = -1) -> bool:
        """Let players without cards finish (supply empty); True if the game ended.

        ``only``: the one seat that can have lost cards (-1: check every seat).
        """
        tb = self.table
        alive, piles, stacks = tb.alive, tb.piles, tb.stacks
        holder = tb.turn if tb.drawn is not None else -1  # the drawn card is held by the player on turn
        seats = range(self.num_players) if only < 0 else (only,)
        newly = [s for s in seats if alive[s] and not piles[s] and not stacks[s] and s != holder]
        if newly:
            rank = len(tb.finished) + 1  # seats finishing together share the better rank
            for s in newly:
                tb.alive[s] = False
                tb.finish_ranks[s] = rank
            tb.finished.extend(newly)
            tb.newly_finished = len(newly)
            if tb.alive.count(True) <= 1:
                self._end()
                return True
        return False

    def _end(self) -> None:
        """docs/rules/tock.md, "End and ranking": the players still in rank after the finished ones."""
        tb = self.table
        tb.phase = "over"
        tb.window = None
        tb.ranks = tb.final_ranks()

    # ---------------------------------------------------------- observation
    def observe(self, player: int) -> np.ndarray:
        return self._obs.encode(self.table, player)

    # ----------------------------------------------------------------- text
    def move_choices(self) -> list[ChoiceGroup]:
        return choices.move_choices(self)

    def describe_action(self, action: int) -> str:
        return text.describe_action(self.table, int(action))

    def _seat_view(self, seat: int) -> SeatView:
        return worlds.seat_view(self, seat)

    def _render_text(self, seat: int | None, color: bool) -> str:
        return text.render(self.table, seat, color)

    def _table_view(self, seat: int | None) -> TableView:
        return view.table_view(self.table, seat)

    def last_move(self) -> str:
        return text.last_move(self.table)

    def legend(self) -> str:
        return text.LEGEND

    # ----------------------------------------------------------- state dict
    def _state_fields(self) -> dict[str, Any]:
        return S.to_dict(self.table)

    def _load_state(self, state: dict[str, Any]) -> None:
        self.table = S.from_dict(state, self.num_players)
        self._opts = None

    def check_consistency(self) -> None:
        """The invariants of the position (:meth:`Table.check_consistency`), and no rule break
        without ``allow_violations``."""
        tb = self.table
        tb.check_consistency()
        if not self.allow_violations:
            move, last = tb.move, tb.last_action
            if (
                tb.phase == "knock"
                or (move is not None and move.rule_break)
                or (last is not None and last.action in (KNOCK, PASS))
                or any(s.rule_breaks or s.knocks_correct or s.knocks_false for s in tb.stats)
            ):
                raise ValueError("with allow_violations=False there are no rule breaks, knocks or passes")
