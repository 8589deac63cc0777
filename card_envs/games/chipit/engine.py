"""Rules engine of Chip It, the chip-climbing game (docs/rules/chipit.md).

The engine is a small state machine; its phases say which decision is asked for:

* ``lead``: the round is open: choose the common value of a new combination
  (a player with an empty hand can only pass here, and the lead moves on);
* ``answer``: beat the combination lying out (same number of cards, strictly
  higher common value) by choosing its value, or pass returning 0..2 points;
* ``units``: a value above 129 was chosen by its block of ten: choose the last digit;
* ``cards``: add the cards one type at a time; a lead ends with ``DONE``, an
  answer completes itself once it has enough cards;
* ``over``: the game has ended.

The position lives in ``self.table`` (a :class:`~card_envs.games.chipit.state.Table`).
A play built over several decisions lives in ``table.build`` and touches no
other part of the state until it is complete. The mask only offers choices
from which the play can still be completed; the chip arithmetic behind it, shared with
the compiled kernels and the agents, is :mod:`.arith`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core.checks import check_choice
from card_envs.core.choices import ChoiceGroup
from card_envs.core.game import CardGame
from card_envs.core.ranking import ranks_after_finishers
from card_envs.core.view import TableView
from card_envs.core.worlds import SeatView
from card_envs.games.chipit import choices, text, view, worlds
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
from card_envs.games.chipit.cards import COPIES, DEAL_SIZE, NUM_CARDS, NUM_TYPES, START_CHIPS, TOTAL_CHIPS
from card_envs.games.chipit.state import Build, LastPlay, Shown, Table, Turn

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
        self.table = Table.empty(self.num_players)

    # ----------------------------------------------------------- game facts
    @property
    def current_player(self) -> int:
        return self.table.current

    @property
    def phase(self) -> str:
        return self.table.phase

    @property
    def is_over(self) -> bool:
        return self.table.ranks is not None

    @property
    def ranks(self) -> list[int] | None:
        ranks = self.table.ranks
        return None if ranks is None else list(ranks)

    def cards_held(self, player: int) -> int:
        """Hand cards plus chip points (held and on the own display): fewest is best."""
        return self.table.cards_held(player)

    def finished_ranks(self) -> dict[int, int]:
        return self.table.finished_ranks()

    def player_info(self, player: int) -> dict[str, float]:
        tb = self.table
        return {
            "hand_cards": float(tb.hand_sizes[player]),
            "chips": float(tb.held[player]),
            "display_chips": float(tb.display_chips(player)),
            "chips_returned": float(tb.returned[player]),
            "finished": float(tb.is_finished[player]),
        }

    def move_choices(self) -> list[ChoiceGroup]:
        return choices.move_choices(self)

    def describe_action(self, action: int) -> str:
        return text.describe_action(self.table, action)

    # ------------------------------------------------------------- lifecycle
    def _deal(self) -> None:
        n = self.num_players
        tb = self.table = Table.empty(n)
        deck = (self.rng.permutation(NUM_CARDS) // COPIES).tolist()  # card types in shuffled order
        size = DEAL_SIZE[n]
        for p in range(n):
            hand = tb.hands[p]
            for t in deck[p * size : (p + 1) * size]:
                hand[t] += 1
            tb.hand_sizes[p] = size
        tb.out = sorted(deck[n * size :])
        tb.held = [START_CHIPS] * n
        tb.supply = TOTAL_CHIPS - START_CHIPS * n

    # ------------------------------------------------------------------ mask
    def _legal_mask(self) -> np.ndarray:
        mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
        tb = self.table
        p = tb.current
        b = tb.build
        last = tb.last
        if b is None:
            if last is not None or tb.hand_sizes[p] == 0:  # answer, or a lead with an empty hand
                mask[E.PASS : E.PASS + min(E.MAX_RETURN, tb.held[p]) + 1] = 1
            if last is None:
                if tb.hand_sizes[p]:
                    self._mark_plays(mask, tb.hands[p], 1, E.MIN_VALUE, tb.supply)
            elif tb.hand_sizes[p] >= last.count:
                self._mark_plays(mask, tb.hands[p], last.count, last.value + 1, tb.supply)
        elif b.value is None:
            low = b.block
            assert low is not None  # phase units: a block was chosen
            k, lo = (1, E.MIN_VALUE) if last is None else (last.count, last.value + 1)
            mark_units(np.array(tb.hands[p], np.int64), k, lo, low, tb.supply, mask)
        else:
            need = 0 if last is None else last.count - len(b.cards)
            min_type = b.cards[-1] if b.cards else 0
            rest = np.array(b.rest, np.int64)
            card_options(rest, b.value, need, tb.supply - b.chips, min_type, mask[E.CARD : E.DONE])
            if last is None and b.cards:
                mask[E.DONE] = 1
        return mask

    @staticmethod
    def _mark_plays(mask: np.ndarray, hand: list[int], k: int, lo: int, supply: int) -> None:
        """The VALUE and HIGH actions: the values >= ``lo`` that ``k`` cards of ``hand`` show within
        ``supply``."""
        cards = np.array(hand, np.int64)
        costs = np.empty(NUM_DIRECT, np.int64)
        play_costs(cards, k, costs)
        mark_values(costs, lo, supply, mask)
        mark_blocks(cards, k, lo, supply, mask)

    # ----------------------------------------------------------------- apply
    def _apply(self, action: int) -> None:
        tb = self.table
        p = tb.current
        if action < E.VALUE:
            self._pass(p, action - E.PASS)
        elif action < E.HIGH:
            tb.build = Build(action - E.VALUE + E.MIN_VALUE, None, [], 0, tb.hands[p][:])
        elif action < E.UNITS:
            tb.build = Build(None, E.block_low(action - E.HIGH), [], 0, tb.hands[p][:])
        elif action < E.CARD:
            b = self._building()
            assert b.block is not None  # phase units: a block was chosen
            b.value = b.block + action - E.UNITS
        elif action < E.DONE:
            b = self._building()
            t = action - E.CARD
            b.rest[t] -= 1
            b.cards.append(t)
            b.chips += chip_cost(t, b.target)
            if tb.last is not None and len(b.cards) == tb.last.count:
                self._complete(p, b)
        else:
            self._complete(p, self._building())

    def _building(self) -> Build:
        b = self.table.build
        if b is None:  # the mask offers these actions only while a play is being built
            raise RuntimeError("no play is being built")
        return b

    def _pass(self, p: int, returned: int) -> None:
        tb = self.table
        tb.held[p] -= returned
        tb.supply += returned
        tb.returned[p] += returned
        tb.passes += 1
        if tb.hand_sizes[p] == 0 and tb.held[p] == 0:  # the own display was cleared at turn start
            self._finish(p)
        if tb.ranks is None:
            stood, took = self._advance()
            tb.turn = Turn(p, "pass", returned, stood, took)
        else:
            tb.turn = Turn(p, "pass", returned)

    def _complete(self, p: int, b: Build) -> None:
        """Put the built play out: cards from the hand, chips from the supply."""
        tb = self.table
        tb.build = None
        value = b.target
        cards = b.cards
        tb.hands[p] = b.rest
        tb.hand_sizes[p] -= len(cards)
        tb.supply -= b.chips
        tb.display[p] = [Shown(t, chip_cost(t, value)) for t in cards]
        kind = "lead" if tb.last is None else "answer"
        tb.last = LastPlay(p, len(cards), value)
        tb.passes = 0
        if tb.hand_sizes[p] == 0 and tb.held[p] == 0 and b.chips == 0:
            self._finish(p)
        took = 0 if tb.ranks is not None else self._advance()[1]  # a play never ends the round
        tb.turn = Turn(p, kind, 0, None, took)

    def _advance(self) -> tuple[int | None, int]:
        """Move the turn on; start the next turn (round end, clearing the own display).

        Returns what ``last_move()`` cannot read from the table afterwards: the seat
        whose play ended the round (None if none) and the chip points the new
        decider took from its cards (a finished seat passed over has none).
        """
        tb = self.table
        n = self.num_players
        p = tb.current
        stood = None
        took = 0
        while True:
            p = (p + 1) % n
            if tb.last is not None and tb.last.seat == p:
                # everyone else passed since p's play: the round ends and p (or,
                # if p has finished, the next player in) leads anew
                tb.last = None
                tb.passes = 0
                stood = p
            shown = tb.display[p]
            if shown:
                took = 0
                for s in shown:
                    tb.discard.append(s.card)
                    tb.discard_counts[s.card] += 1
                    took += s.chips
                tb.held[p] += took
                tb.display[p] = []
            if not tb.is_finished[p]:
                tb.current = p
                return stood, took

    def _finish(self, p: int) -> None:
        tb = self.table
        tb.finished.append(p)
        tb.is_finished[p] = True
        tb.ranks = self._final_ranks()

    def _final_ranks(self) -> list[int] | None:
        """Ranks once the game has ended (docs/rules/chipit.md, "End and ranking"), else None.

        Without ``play_to_end`` the first player out ends the game; with it, the
        game ends when one player is left. The players still in are ranked after
        the finished ones by hand cards plus chip points.
        """
        tb = self.table
        if len(tb.finished) < (self.num_players - 1 if self.play_to_end else 1):
            return None
        return ranks_after_finishers(self.num_players, tb.finished_ranks(), key=tb.cards_held)

    # ----------------------------------------------------------- observation
    def observe(self, player: int) -> np.ndarray:
        tb = self.table
        n = self.num_players
        obs = self.observation_layout.new()
        v = self.observation_layout.view(obs)
        v["phase"][_PHASE_INDEX[tb.phase]] = 1.0
        v["hand"][:] = tb.hands[player]
        v["chips"][0] = tb.held[player]
        # per-player fields in relative seat order: player, player + 1, ...
        v["hand_sizes"][:] = tb.hand_sizes[player:] + tb.hand_sizes[:player]
        v["holdings"][:] = tb.held[player:] + tb.held[:player]
        display = v["display"]
        display_chips = v["display_chips"]
        for i in range(n):
            shown = tb.display[(player + i) % n]
            for s in shown:
                display[i * NUM_TYPES + s.card] += 1.0
                display_chips[i] += s.chips
        v["discard"][:] = tb.discard_counts
        last = tb.last
        if last is not None:
            v["to_beat_count"][0] = last.count
            v["to_beat_value"][0] = last.value
            v["to_beat_seat"][(last.seat - player) % n] = 1.0
        v["supply"][0] = tb.supply
        v["passes"][0] = min(tb.passes, n)
        v["finished"][:] = tb.is_finished[player:] + tb.is_finished[:player]
        b = tb.build
        if b is not None:
            if b.value is not None:
                v["build_value"][0] = b.value
            if b.block is not None:
                v["build_block"][0] = b.block
            build_cards = v["build_cards"]
            for t in b.cards:
                build_cards[t] += 1.0
            v["build_chips"][0] = b.chips
            if last is not None:
                v["build_needed"][0] = last.count - len(b.cards)
        self._observe_values(v, tb.hands[player], last.count if last is not None else 1)
        return obs

    @staticmethod
    def _observe_values(v: dict[str, np.ndarray], hand: list[int], k: int) -> None:
        """The value features: what each directly chosen value T would cost this hand, so the
        network need not work out the chip arithmetic of 30 card types itself."""
        cards = np.array(hand, np.int64)
        costs = np.empty(NUM_DIRECT, np.int64)
        play_costs(cards, k, costs)  # capped at NO_PLAY
        v["play_costs"][:] = costs
        free_counts(cards, v["free_cards"])

    # ----------------------------------------------------------------- state
    def _state_fields(self) -> dict[str, Any]:
        return S.to_dict(self.table)

    def _load_state(self, state: dict[str, Any]) -> None:
        self.table = S.from_dict(state, self.num_players)
        self._mask = None  # the cached mask was the old state's
        if "phase" in state:  # derived from the rest, so compared once the rest is known to be consistent
            self.check_consistency()
            S.check_phase(self.table, state["phase"])

    def check_consistency(self) -> None:
        """Cards and chips conserved, counts that match, ranks that follow from the finishers."""
        tb = self.table
        tb.check_consistency()
        most = self.num_players - 1 if self.play_to_end else 1
        if len(tb.finished) > most:
            raise ValueError(f"at most {most} player(s) can finish, got finished {tb.finished}")
        ranks = self._final_ranks()
        if tb.ranks != ranks:
            raise ValueError(f"ranks {tb.ranks} do not follow from finished {tb.finished} (they are {ranks})")
        if tb.build is not None and not self.action_mask().any():
            b = tb.build
            raise ValueError(
                f"the play being built (value {b.value}, block {b.block}, cards {b.cards})"
                " cannot be completed"
            )

    # ------------------------------------------------------------------ text
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
