"""Rules engine of the UNO-style shedding game with stacking and the LETZTE call.

The rules are those of docs/rules/uno.md; the state format is in docs/uno.md.
The engine is a small state machine; its phases say which decision is asked for:

* ``play``: the player on turn plays a matching card or draws;
* ``play_drawn``: the card just drawn matches: play it or keep it;
* ``choose_colour``: name the colour after a wild (or for a first-card wild);
* ``pending``: face a Draw Two / Draw Four stack: stack, draw it, or challenge;
* ``catch``: a player did not call LETZTE; the others, one by one from the
  offender's left, may catch (the first catch ends the window) or pass;
* ``over``: the round has ended.

A stack with no choice to make (no card to stack, no challenge) is drawn at
once, so no decision with a single forced answer is ever asked for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core.checks import check_choice, check_int
from card_envs.core.choices import ChoiceGroup
from card_envs.core.game import CardGame
from card_envs.core.view import TableView
from card_envs.core.worlds import SeatView
from card_envs.games.uno import cards as C
from card_envs.games.uno import choices, text, view, worlds
from card_envs.games.uno import encoding as E
from card_envs.games.uno import state as S
from card_envs.games.uno.state import Challenge, LastMove, Table

DEAL_SIZE = 7  # cards dealt to each player
CHALLENGE_PENALTY = C.CHALLENGE_PENALTY


class UnoGame(CardGame):
    """UNO-style game for 2 to 10 players.

    Args:
        num_players: 2..10 (default 4).
        draw_four: ``"any_time"`` (default) or ``"official"``: a Wild Draw Four
            may then only be played without a card of the colour to match; the
            mask still allows it (a bluff) and the next player may challenge.
        voluntary_draw: a player may draw instead of playing a playable card.
        stacking: a Draw Two may be answered with a Draw Two, a Draw Four with
            a Draw Four; the totals add up.
        two_player_reverse_skips: with two players a Reverse acts as a Skip.
        missed_call_penalty: cards drawn when caught without LETZTE (0 turns
            catching off).
    """

    name = "uno"
    min_players = 2
    max_players = 10
    default_players = 4
    default_max_steps = 20_000
    num_actions = E.NUM_ACTIONS

    # The fields of the round (documented in card_envs.games.uno.state.Table).
    hands: list[list[int]]
    hand_sizes: list[int]
    called: list[bool]
    draw_pile: list[int]
    discard: list[int]
    colour: int | None
    direction: int
    turn: int
    pending: int
    drawn: int | None
    skip_next: bool
    opening: bool
    challenge: Challenge | None
    catchers: list[int]
    winner: int | None
    #: the last action as (seat, action, turn before, stack before), None before the first one
    _move: tuple[int, int, int, int] | None
    #: (seat, cards) drawn because of the last action, in order
    _draws: list[tuple[int, int]]

    def __init__(
        self,
        num_players: int | None = None,
        *,
        draw_four: str = "any_time",
        voluntary_draw: bool = True,
        stacking: bool = True,
        two_player_reverse_skips: bool = True,
        missed_call_penalty: int = 1,
    ) -> None:
        super().__init__(num_players)
        self.draw_four = check_choice("draw_four", draw_four, ["any_time", "official"])
        self.voluntary_draw = check_choice("voluntary_draw", voluntary_draw, [True, False])
        self.stacking = check_choice("stacking", stacking, [True, False])
        self.two_player_reverse_skips = check_choice(
            "two_player_reverse_skips", two_player_reverse_skips, [True, False]
        )
        self.missed_call_penalty = check_int("missed_call_penalty", missed_call_penalty, 0, 10)
        self.observation_layout = E.observation_layout(self.num_players)
        self._offsets = {name: s.start for name, s in self.observation_layout.slices.items()}
        self._clear()

    def _clear(self) -> None:
        self.set_state(Table.empty(self.num_players))

    def set_state(self, s: Table) -> None:
        """Take over every field of ``s`` (its lists too; no checks: see :meth:`load_state_dict`)."""
        self.hands = s.hands
        self.hand_sizes = s.hand_sizes
        self.called = s.called
        self.draw_pile = s.draw_pile
        self.discard = s.discard
        self.colour = s.colour
        self.direction = s.direction
        self.turn = s.turn
        self._phase = s.phase
        self.pending = s.pending
        self.drawn = s.drawn
        self.skip_next = s.skip_next
        self.opening = s.opening
        self.challenge = s.challenge
        self.catchers = s.catchers
        self.winner = s.winner
        self._move = None if s.last is None else (s.last.seat, s.last.action, s.last.turn, s.last.pending)
        self._draws = [] if s.last is None else list(s.last.draws)
        self._mask = None

    def state_view(self) -> Table:
        """The round as a typed, read-only view (its lists are the engine's own)."""
        return Table(
            hands=self.hands,
            hand_sizes=self.hand_sizes,
            called=self.called,
            draw_pile=self.draw_pile,
            discard=self.discard,
            colour=self.colour,
            direction=self.direction,
            turn=self.turn,
            phase=self._phase,
            pending=self.pending,
            drawn=self.drawn,
            skip_next=self.skip_next,
            opening=self.opening,
            challenge=self.challenge,
            catchers=self.catchers,
            winner=self.winner,
            last=None if self._move is None else LastMove(*self._move, draws=tuple(self._draws)),
        )

    # ------------------------------------------------------------ interface
    @property
    def current_player(self) -> int:
        return self.catchers[0] if self._phase == "catch" else self.turn

    @property
    def top(self) -> int:
        return self.discard[-1]

    @property
    def ranks(self) -> list[int] | None:
        return S.final_ranks(self.hands, self.winner)

    def cards_held(self, player: int) -> int:
        return self.hand_sizes[player]

    def hand_points(self) -> list[int]:
        return S.hand_points(self.hands)

    def score(self) -> int:
        """Points the winner scores: the cards left in the others' hands (0 before the end)."""
        return S.score(self.hands, self.winner)

    def player_info(self, player: int) -> dict[str, float]:
        return {
            "score": float(self.score() if player == self.winner else 0),
            "hand_points": float(self.hand_points()[player]),
        }

    def describe_action(self, action: int) -> str:
        return E.describe_action(action)

    def move_choices(self) -> list[ChoiceGroup]:
        return choices.move_choices(self)

    def last_move(self) -> str:
        return text.last_move(self)

    def legend(self) -> str:
        return text.legend(self)

    # ---------------------------------------------------------------- deal
    def _deal(self) -> None:
        deck = [t for t, k in enumerate(C.deck_counts()) for _ in range(k)]
        self._deal_from([deck[i] for i in self.rng.permutation(len(deck))])

    def deal(self, draw_pile: list[str]) -> None:
        """Deal from a known pile (codes, top first) instead of a shuffle: tests and replays.

        Seven cards each, one at a time from seat 0, then the first card is turned up.
        """
        cards = [C.parse_card(code) for code in draw_pile]
        if len(cards) < self.num_players * DEAL_SIZE + 1:
            raise ValueError(f"a pile of {len(cards)} cards is too small to deal from")
        self._started = True
        self._mask = None
        self._deal_from(cards[::-1])

    def _deal_from(self, pile: list[int]) -> None:
        """Deal from ``pile`` (top = last element) and turn up the first card."""
        self._clear()
        self.draw_pile = pile
        for _ in range(DEAL_SIZE):
            for p in range(self.num_players):
                self._give(p, self.draw_pile.pop())
        first = self.draw_pile.pop()
        self.discard.append(first)
        self._turn_up(first)
        self._draws = []  # a stack the first card makes seat 0 draw is part of the deal, not a move

    def _turn_up(self, first: int) -> None:
        """The first card's effect (docs/rules/uno.md, "The first card")."""
        if C.is_wild(first):  # the starting player names the colour first
            self.opening = True
            self._phase = "choose_colour"
            return
        self.colour = C.colour_of(first)
        rank = C.rank_of(first)
        if rank == C.SKIP:
            self.turn = self._next_seat(0)
        elif rank == C.REVERSE:  # the dealer (last seat) starts, counter-clockwise
            self.direction = -1
            self.turn = self.num_players - 1
        elif rank == C.DRAW_TWO:
            self.pending = 2
        self._start_turn()

    # --------------------------------------------------------------- masks
    def _legal_mask(self) -> np.ndarray:
        mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
        phase = self._phase
        if phase == "catch":
            mask[E.CATCH] = mask[E.PASS] = 1
        elif phase == "choose_colour":
            mask[E.CHOOSE_COLOUR : E.CHOOSE_COLOUR + C.NUM_COLOURS] = 1
        elif phase == "play_drawn":
            assert self.drawn is not None
            self._allow_play(mask, self.drawn)
            mask[E.KEEP] = 1
        elif phase == "pending":
            for card in self._stackable():
                self._allow_play(mask, card)
            mask[E.DRAW] = 1
            if self.challenge is not None:
                mask[E.CHALLENGE] = 1
        else:  # play
            playable = self._playable(self.turn)
            for card in playable:
                self._allow_play(mask, card)
            if self.voluntary_draw or not playable:
                mask[E.DRAW] = 1
        return mask

    def _allow_play(self, mask: np.ndarray, card: int) -> None:
        """Mark the play of ``card``; with two cards in hand, with and without the call."""
        mask[E.PLAY + card] = 1
        if self.hand_sizes[self.turn] == 2:
            mask[E.PLAY_CALL + card] = 1

    def _playable(self, player: int) -> list[int]:
        hand, colour = self.hands[player], self.colour
        assert colour is not None  # only None while a first-card wild is named
        return [t for t in C.MATCHING[self.top][colour] if hand[t]]

    def _stackable(self) -> list[int]:
        """Cards the player facing the stack may add to it."""
        if not self.stacking:
            return []
        hand = self.hands[self.turn]
        if self.top == C.WILD_DRAW_FOUR:
            return [C.WILD_DRAW_FOUR] if hand[C.WILD_DRAW_FOUR] else []
        return [t for t in C.DRAW_TWOS if hand[t]]

    # -------------------------------------------------------------- actions
    def _apply(self, action: int) -> None:
        # noted as numbers only (the current player inlined): the words wait for last_move()
        seat = self.catchers[0] if self._phase == "catch" else self.turn
        self._move = (seat, action, self.turn, self.pending)
        self._draws = []
        if action < E.CHOOSE_COLOUR:
            call = action >= E.PLAY_CALL
            self._play(action - E.PLAY_CALL if call else action, call)
        elif action < E.DRAW:
            self._choose_colour(action - E.CHOOSE_COLOUR)
        elif action == E.DRAW:
            self._draw_action()
        elif action == E.KEEP:
            self._end_turn()
        elif action == E.CHALLENGE:
            self._challenge()
        elif action == E.CATCH:
            offender = self.turn
            self.catchers = []
            self._draw(offender, self.missed_call_penalty)
            self._end_turn()
        else:  # PASS in the catch window
            self.catchers.pop(0)
            if not self.catchers:
                self._end_turn()

    def _play(self, card: int, call: bool) -> None:
        player = self.turn
        if card == C.WILD_DRAW_FOUR and self.draw_four == "official":
            assert self.colour is not None
            bluff = any(self.hands[player][C.COLOUR_SLICES[self.colour]])
            self.challenge = Challenge(seat=player, bluff=bluff)
        else:
            self.challenge = None
        self._take(player, card)
        self.discard.append(card)
        self.drawn = None
        self.pending += C.draw_amount(card)
        wild = C.is_wild(card)
        if not wild:  # set before a last card ends the round, so the final table shows its colour
            self.colour = C.colour_of(card)
        if self.hand_sizes[player] == 0:
            self._end_round(player)
            return
        self.called[player] = call and self.hand_sizes[player] == 1
        rank = C.rank_of(card)
        if rank == C.SKIP or (rank == C.REVERSE and self.num_players == 2 and self.two_player_reverse_skips):
            self.skip_next = True
        elif rank == C.REVERSE:
            self.direction = -self.direction
        if wild:
            self._phase = "choose_colour"
            return
        self._after_play()

    def _choose_colour(self, colour: int) -> None:
        self.colour = colour
        if self.opening:  # a first-card wild: the starting player now plays (or faces a Draw Four)
            self.opening = False
            self.pending = C.draw_amount(self.top)
            self._start_turn()
        else:
            self._after_play()

    def _after_play(self) -> None:
        """Open the catch window if LETZTE was missed, else pass the turn on."""
        player = self.turn
        if self.hand_sizes[player] == 1 and not self.called[player] and self.missed_call_penalty:
            self.catchers = [(player + i) % self.num_players for i in range(1, self.num_players)]
            self._phase = "catch"
        else:
            self._end_turn()

    def _draw_action(self) -> None:
        player = self.turn
        if self._phase == "pending":  # take the whole stack and lose the turn
            self._draw(player, self.pending)
            self.pending = 0
            self.challenge = None
            self._end_turn()
            return
        drawn = self._draw(player, 1)
        assert self.colour is not None
        if drawn and C.matches(drawn[0], self.top, self.colour):
            self.drawn = drawn[0]
            self._phase = "play_drawn"
        else:  # nothing to draw, or it does not match: the turn ends
            self._end_turn()

    def _challenge(self) -> None:
        assert self.challenge is not None
        victim, offender, bluff = self.turn, self.challenge.seat, self.challenge.bluff
        self.challenge = None
        if bluff:  # guilty: the offender draws its 4; the victim then plays normally
            four = C.draw_amount(C.WILD_DRAW_FOUR)
            self._draw(offender, four)
            self.pending -= four
            self._start_turn()
        else:  # innocent: the challenger draws the stack plus 2 and loses the turn
            self._draw(victim, self.pending + CHALLENGE_PENALTY)
            self.pending = 0
            self._end_turn()

    # ---------------------------------------------------------- turn order
    def _next_seat(self, seat: int, steps: int = 1) -> int:
        return (seat + steps * self.direction) % self.num_players

    def _end_turn(self) -> None:
        self.turn = self._next_seat(self.turn, 2 if self.skip_next else 1)
        self.skip_next = False
        self._start_turn()

    def _start_turn(self) -> None:
        """Begin the turn of ``self.turn``; a stack without a choice is drawn at once."""
        self.drawn = None
        self.catchers = []
        if self.pending and not (self._stackable() or self.challenge is not None):
            self._draw(self.turn, self.pending)
            self.pending = 0
            self.turn = self._next_seat(self.turn)
        self._phase = "pending" if self.pending else "play"

    def _end_round(self, winner: int) -> None:
        """The winner played its last card; a final Draw Two/Four is still drawn."""
        if self.pending:
            self._draw(self._next_seat(winner), self.pending)
            self.pending = 0
        self.challenge = None
        self.winner = winner
        self._phase = "over"

    # --------------------------------------------------------- card moves
    def _give(self, player: int, card: int) -> None:
        self.hands[player][card] += 1
        self.hand_sizes[player] += 1
        self.called[player] = False

    def _take(self, player: int, card: int) -> None:
        self.hands[player][card] -= 1
        self.hand_sizes[player] -= 1

    def _draw(self, player: int, count: int) -> list[int]:
        """Draw up to ``count`` cards, reshuffling the discard pile (bar its top) when needed."""
        drawn = []
        for _ in range(count):
            if not self.draw_pile:
                self._reshuffle()
                if not self.draw_pile:
                    break
            card = self.draw_pile.pop()
            self._give(player, card)
            drawn.append(card)
        self._draws.append((player, len(drawn)))
        return drawn

    def _reshuffle(self) -> None:
        rest = self.discard[:-1]
        self.discard = self.discard[-1:]
        self.draw_pile = [rest[i] for i in self.rng.permutation(len(rest))]

    # ---------------------------------------------------------- observing
    def observe(self, player: int) -> np.ndarray:
        # written at the fields' offsets (no per-call view dict): the AEC loop observes every step
        n, at = self.num_players, self._offsets
        obs = self.observation_layout.new()
        obs[at["hand"] : at["hand"] + C.NUM_TYPES] = self.hands[player]
        obs[at["top_card"] + self.top] = 1
        if self.colour is not None:
            obs[at["colour"] + self.colour] = 1
        obs[at["clockwise"]] = self.direction == 1
        obs[at["pending_draw"]] = self.pending
        if self.pending:
            obs[at["pending_kind"] + (1 if self.top == C.WILD_DRAW_FOUR else 0)] = 1
        obs[at["challengeable"]] = self.challenge is not None
        rel = [(player + i) % n for i in range(n)]
        obs[at["hand_sizes"] : at["hand_sizes"] + n] = [self.hand_sizes[p] for p in rel]
        obs[at["called"] : at["called"] + n] = [self.called[p] for p in rel]
        obs[at["draw_pile_size"]] = len(self.draw_pile)
        obs[at["discard_counts"] : at["discard_counts"] + C.NUM_TYPES] = np.bincount(
            self.discard, minlength=C.NUM_TYPES
        )
        obs[at["phase"] + E.PHASES.index(self._phase)] = 1
        if self.drawn is not None:
            obs[at["drawn"] + self.drawn] = 1
        if self._phase != "over":
            obs[at["deciding"] + (self.current_player - player) % n] = 1
            obs[at["turn"] + (self.turn - player) % n] = 1
        if self._phase == "catch":
            obs[at["catch_target"] + (self.turn - player) % n] = 1
        return obs

    # ------------------------------------------------------------ state
    def _state_fields(self) -> dict[str, Any]:
        return S.state_fields(self.state_view())

    def _load_state(self, state: dict[str, Any]) -> None:
        """Set the state from ``state_dict()`` output (fields and defaults: :func:`.state.from_dict`)."""
        self.set_state(S.from_dict(state, self.num_players))

    def check_consistency(self) -> None:
        """Cards conserved (each at most once) and the fields fitting together (see :mod:`.state`)."""
        S.check_invariants(
            self.state_view(),
            draw_four=self.draw_four,
            two_player_reverse_skips=self.two_player_reverse_skips,
            missed_call_penalty=self.missed_call_penalty,
        )

    def _seat_view(self, seat: int) -> SeatView:
        return worlds.seat_view(self, seat)

    def _render_text(self, seat: int | None, color: bool) -> str:
        return text.render(self, seat, color)

    def _table_view(self, seat: int | None) -> TableView:
        return view.table_view(self, seat)
