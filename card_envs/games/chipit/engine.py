"""Rules engine of Chip It, the chip-climbing game (RULES.md "Game C", docs/rules/chipit.md).

The engine is a small state machine; its phases say which decision is asked for:

* ``lead``: the round is open: choose the common value of a new combination
  (a player with an empty hand can only pass here, and the lead moves on);
* ``answer``: beat the combination lying out (same number of cards, strictly
  higher common value) by choosing its value, or pass returning 0..2 points;
* ``units``: a value above 129 was chosen by its block of ten: choose the last digit;
* ``cards``: add the cards one type at a time; a lead ends with ``DONE``, an
  answer completes itself once it has enough cards;
* ``over``: the game has ended.

A play built over several decisions lives in ``self.build`` and touches no
other part of the state until it is complete. The mask only offers choices
from which the play can still be completed (see :mod:`moves`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core.game import CardGame, check_choice
from card_envs.core.ranking import ranks_by_key
from card_envs.games.chipit import encoding as E
from card_envs.games.chipit import state as S
from card_envs.games.chipit import text
from card_envs.games.chipit.cards import (
    COPIES,
    DEAL_SIZE,
    MAX_GREEN_VALUE,
    NUM_CARDS,
    NUM_TYPES,
    START_CHIPS,
    TOTAL_CHIPS,
    card_cost,
)
from card_envs.games.chipit.moves import card_options, feasible_values

_PHASE_INDEX = {name: i for i, name in enumerate(E.PHASES)}


class ChipItGame(CardGame):
    """Chip It for 2 to 6 players (2 is a variant of ours).

    Args:
        num_players: 2..6 (default 4).
        play_to_end: False (default): the game ends when the first player has
            no cards and no chips; the others are ranked by hand cards plus
            chip points. True: the others play on for the later ranks until
            one player is left.
    """

    name = "chipit"
    min_players = 2
    max_players = 6
    default_players = 4
    default_max_steps = 5_000
    num_actions = E.NUM_ACTIONS

    def __init__(self, num_players: int | None = None, *, play_to_end: bool = False) -> None:
        super().__init__(num_players)
        self.play_to_end = check_choice("play_to_end", play_to_end, [False, True])
        self.observation_layout = E.observation_layout(self.num_players)
        self._clear()

    def _clear(self) -> None:
        n = self.num_players
        self.hands: list[list[int]] = [[0] * NUM_TYPES for _ in range(n)]
        self.hand_sizes = [0] * n
        self.held = [0] * n  # chip points held (a burden)
        self.supply = TOTAL_CHIPS  # chip points in the general supply
        self.display: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (type, chips) lying out
        self.last: tuple[int, int, int] | None = None  # (seat, count, value) to beat
        self.passes = 0  # passes since the last play or the round start
        self.discard: list[int] = []
        self.discard_counts = [0] * NUM_TYPES
        self.out: list[int] = []  # cards not dealt
        self.finished: list[int] = []  # seats in finishing order
        self.is_finished = [False] * n
        self._current = 0
        #: the play being built: {"value", "block", "cards", "chips", "rest"} or None
        self.build: dict[str, Any] | None = None
        self._ranks: list[int] | None = None

    # ----------------------------------------------------------- static facts
    # ----------------------------------------------------------- game facts
    @property
    def current_player(self) -> int:
        return self._current

    @property
    def phase(self) -> str:
        if self._ranks is not None:
            return "over"
        b = self.build
        if b is None:
            return "lead" if self.last is None else "answer"
        return "units" if b["value"] is None else "cards"

    @property
    def is_over(self) -> bool:
        return self._ranks is not None

    @property
    def ranks(self) -> list[int] | None:
        return None if self._ranks is None else list(self._ranks)

    def display_chips(self, player: int) -> int:
        return sum(c for _, c in self.display[player])

    def cards_held(self, player: int) -> int:
        """Hand cards plus chip points (held and on the own display): fewest is best."""
        return self.hand_sizes[player] + self.held[player] + self.display_chips(player)

    def finished_ranks(self) -> dict[int, int]:
        return {seat: i + 1 for i, seat in enumerate(self.finished)}

    def player_info(self, player: int) -> dict[str, float]:
        return {
            "hand_cards": float(self.hand_sizes[player]),
            "chips": float(self.held[player]),
            "display_chips": float(self.display_chips(player)),
            "finished": float(self.is_finished[player]),
        }

    def describe_action(self, action: int) -> str:
        return E.describe_action(action)

    # ------------------------------------------------------------- lifecycle
    def _deal(self) -> None:
        self._clear()
        n = self.num_players
        deck = (self.rng.permutation(NUM_CARDS) // COPIES).tolist()  # card types in shuffled order
        size = DEAL_SIZE[n]
        for p in range(n):
            hand = self.hands[p]
            for t in deck[p * size : (p + 1) * size]:
                hand[t] += 1
            self.hand_sizes[p] = size
        self.out = sorted(deck[n * size :])
        self.held = [START_CHIPS] * n
        self.supply = TOTAL_CHIPS - START_CHIPS * n
        self._current = 0

    # ------------------------------------------------------------------ mask
    def _legal_mask(self) -> np.ndarray:
        mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
        p = self._current
        b = self.build
        last = self.last
        if b is None:
            if last is not None or self.hand_sizes[p] == 0:  # answer, or a lead with an empty hand
                mask[E.PASS : E.PASS + min(E.MAX_RETURN, self.held[p]) + 1] = 1
            if last is None:
                if self.hand_sizes[p]:
                    self._mask_values(mask, feasible_values(self.hands[p], 1, E.MIN_VALUE, self.supply))
            elif self.hand_sizes[p] >= last[1]:
                self._mask_values(mask, feasible_values(self.hands[p], last[1], last[2] + 1, self.supply))
        elif b["value"] is None:
            low = b["block"]
            k, lo = (1, E.MIN_VALUE) if last is None else (last[1], last[2] + 1)
            feas = feasible_values(self.hands[p], k, max(lo, low), self.supply)
            mask[E.UNITS : E.UNITS + E.BLOCK] = feas[low : low + E.BLOCK]
        else:
            need = 0 if last is None else last[1] - len(b["cards"])
            min_type = b["cards"][-1] if b["cards"] else 0
            for t in card_options(b["rest"], b["value"], need, self.supply - b["chips"], min_type):
                mask[E.CARD + t] = 1
            if last is None and b["cards"]:
                mask[E.DONE] = 1
        return mask

    @staticmethod
    def _mask_values(mask: np.ndarray, feas: np.ndarray) -> None:
        mask[E.VALUE : E.HIGH] = feas[E.MIN_VALUE : MAX_GREEN_VALUE + 1]
        mask[E.HIGH : E.UNITS] = feas[E.HIGH_START :].reshape(E.NUM_BLOCKS, E.BLOCK).any(axis=1)

    # ----------------------------------------------------------------- apply
    def _apply(self, action: int) -> None:
        p = self._current
        if action < E.VALUE:
            self._pass(p, action - E.PASS)
        elif action < E.HIGH:
            self._start_build(p, action - E.VALUE + E.MIN_VALUE, None)
        elif action < E.UNITS:
            self._start_build(p, None, E.block_low(action - E.HIGH))
        elif action < E.CARD:
            b = self.build
            b["value"] = b["block"] + action - E.UNITS
        elif action < E.DONE:
            b = self.build
            t = action - E.CARD
            b["rest"][t] -= 1
            b["cards"].append(t)
            b["chips"] += card_cost(t, b["value"])
            if self.last is not None and len(b["cards"]) == self.last[1]:
                self._complete(p)
        else:
            self._complete(p)

    def _start_build(self, p: int, value: int | None, block: int | None) -> None:
        self.build = {"value": value, "block": block, "cards": [], "chips": 0, "rest": self.hands[p][:]}

    def _pass(self, p: int, returned: int) -> None:
        self.held[p] -= returned
        self.supply += returned
        self.passes += 1
        if self.hand_sizes[p] == 0 and self.held[p] == 0:  # the own display was cleared at turn start
            self._finish(p)
        if self._ranks is None:
            self._advance()

    def _complete(self, p: int) -> None:
        """Put the built play out: cards from the hand, chips from the supply."""
        b = self.build
        self.build = None
        value = b["value"]
        cards = b["cards"]
        self.hands[p] = b["rest"]
        self.hand_sizes[p] -= len(cards)
        self.supply -= b["chips"]
        self.display[p] = [(t, card_cost(t, value)) for t in cards]
        self.last = (p, len(cards), value)
        self.passes = 0
        if self.hand_sizes[p] == 0 and self.held[p] == 0 and b["chips"] == 0:
            self._finish(p)
        if self._ranks is None:
            self._advance()

    def _advance(self) -> None:
        """Move the turn on; start the next turn (round end, clearing the own display)."""
        n = self.num_players
        p = self._current
        while True:
            p = (p + 1) % n
            if self.last is not None and self.last[0] == p:
                # everyone else passed since p's play: the round ends and p (or,
                # if p has finished, the next player in) leads anew
                self.last = None
                self.passes = 0
            shown = self.display[p]
            if shown:
                for t, chips in shown:
                    self.discard.append(t)
                    self.discard_counts[t] += 1
                    self.held[p] += chips
                self.display[p] = []
            if not self.is_finished[p]:
                self._current = p
                return

    def _finish(self, p: int) -> None:
        self.finished.append(p)
        self.is_finished[p] = True
        n = self.num_players
        if not self.play_to_end:
            others = [q for q in range(n) if q != p]
            order = ranks_by_key(others, key=self.cards_held)
            ranks = [0] * n
            ranks[p] = 1
            for q, r in order.items():
                ranks[q] = r + 1
            self._ranks = ranks
        elif len(self.finished) >= n - 1:
            ranks = [n] * n
            for i, q in enumerate(self.finished):
                ranks[q] = i + 1
            self._ranks = ranks

    # ----------------------------------------------------------- observation
    def observe(self, player: int) -> np.ndarray:
        n = self.num_players
        seats = [(player + i) % n for i in range(n)]
        phase = [0.0] * len(E.PHASES)
        phase[_PHASE_INDEX[self.phase]] = 1.0
        display: list[float] = [0.0] * (n * NUM_TYPES)
        for i, q in enumerate(seats):
            for t, _ in self.display[q]:
                display[i * NUM_TYPES + t] += 1.0
        last = self.last
        to_beat_seat = [0.0] * n
        if last is not None:
            to_beat_seat[(last[0] - player) % n] = 1.0
        b = self.build
        build_cards = [0.0] * NUM_TYPES
        if b is not None:
            for t in b["cards"]:
                build_cards[t] += 1.0
        need = 0 if b is None or last is None else last[1] - len(b["cards"])
        vec = [
            *phase,
            *self.hands[player],
            self.held[player],
            *[self.hand_sizes[q] for q in seats],
            *[self.held[q] for q in seats],
            *display,
            *[self.display_chips(q) for q in seats],
            *self.discard_counts,
            0 if last is None else last[1],
            0 if last is None else last[2],
            *to_beat_seat,
            self.supply,
            min(self.passes, n),
            *[float(self.is_finished[q]) for q in seats],
            0 if b is None or b["value"] is None else b["value"],
            0 if b is None or b["block"] is None else b["block"],
            *build_cards,
            0 if b is None else b["chips"],
            need,
        ]
        return np.array(vec, dtype=np.float32)

    # ----------------------------------------------------------------- state
    def state_dict(self) -> dict[str, Any]:
        return S.to_dict(self)

    def _load_state(self, state: dict[str, Any]) -> None:
        S.load(self, state)

    def render_text(self) -> str:
        return text.render(self)
