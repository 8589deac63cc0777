"""Rules engine of the UNO-style shedding game with stacking and the LETZTE call.

The rules are those of RULES.md "Game B", restated in docs/rules/uno.md. The
engine is a small state machine; its phases say which decision is asked for:

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

from card_envs.core.game import CardGame, check_choice, check_int
from card_envs.core.ranking import ranks_by_key
from card_envs.games.uno import cards as C
from card_envs.games.uno import encoding as E

DEAL_SIZE = 7


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
        self._clear()

    @property
    def rules(self) -> dict[str, Any]:
        return {
            "draw_four": self.draw_four,
            "voluntary_draw": self.voluntary_draw,
            "stacking": self.stacking,
            "two_player_reverse_skips": self.two_player_reverse_skips,
            "missed_call_penalty": self.missed_call_penalty,
        }

    def _clear(self) -> None:
        n = self.num_players
        self.hands: list[list[int]] = [[0] * C.NUM_TYPES for _ in range(n)]
        self.hand_sizes = [0] * n
        self.draw_pile: list[int] = []  # top is the last element
        self.discard: list[int] = []  # top is the last element
        self.colour: int | None = None
        self.direction = 1
        self.turn = 0
        self._phase = "play"
        self.pending = 0
        self.drawn: int | None = None
        self.called = [False] * n
        self.skip_next = False  # a Skip/Reverse waits for a colour choice or catch window
        self.opening = False  # the colour being named is that of a first-card wild
        self.challenge: dict[str, Any] | None = None  # {"seat", "bluff"} of a challengeable Draw Four
        self.catchers: list[int] = []  # players still to decide in the catch window
        self.winner: int | None = None

    # ------------------------------------------------------------ interface
    @property
    def current_player(self) -> int:
        return self.catchers[0] if self._phase == "catch" else self.turn

    @property
    def top(self) -> int:
        return self.discard[-1]

    @property
    def ranks(self) -> list[int] | None:
        if self.winner is None:
            return None
        points = self.hand_points()
        order = ranks_by_key(range(self.num_players), key=lambda p: (p != self.winner, points[p]))
        return [order[p] for p in range(self.num_players)]

    def cards_held(self, player: int) -> int:
        return self.hand_sizes[player]

    def hand_points(self) -> list[int]:
        return [sum(C.points(t) * k for t, k in enumerate(hand) if k) for hand in self.hands]

    def score(self) -> int:
        """Points the winner scores: the cards left in the others' hands (0 before the end)."""
        return sum(self.hand_points()) if self.winner is not None else 0

    def player_info(self, player: int) -> dict[str, float]:
        return {
            "score": float(self.score() if player == self.winner else 0),
            "hand_points": float(self.hand_points()[player]),
        }

    def describe_action(self, action: int) -> str:
        return E.describe_action(action)

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
            mask[E.CHOOSE_COLOUR : E.CHOOSE_COLOUR + 4] = 1
        elif phase == "play_drawn":
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
        hand = self.hands[player]
        return [t for t in C.MATCHING[self.top][self.colour] if hand[t]]

    def _stackable(self) -> list[int]:
        """Cards the player facing the stack may add to it."""
        if not self.stacking:
            return []
        hand = self.hands[self.turn]
        if C.draw_amount(self.top) == 4:
            return [C.WILD_DRAW_FOUR] if hand[C.WILD_DRAW_FOUR] else []
        return [c * 13 + C.DRAW_TWO for c in range(4) if hand[c * 13 + C.DRAW_TWO]]

    # -------------------------------------------------------------- actions
    def _apply(self, action: int) -> None:
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
            bluff = any(self.hands[player][t] for t in range(C.NUM_COLOURED) if C.colour_of(t) == self.colour)
            self.challenge = {"seat": player, "bluff": bluff}
        else:
            self.challenge = None
        self._take(player, card)
        self.discard.append(card)
        self.drawn = None
        self.pending += C.draw_amount(card)
        if self.hand_sizes[player] == 0:
            self._end_round(player)
            return
        self.called[player] = call and self.hand_sizes[player] == 1
        rank = C.rank_of(card)
        if rank == C.SKIP or (rank == C.REVERSE and self.num_players == 2 and self.two_player_reverse_skips):
            self.skip_next = True
        elif rank == C.REVERSE:
            self.direction = -self.direction
        if C.is_wild(card):
            self._phase = "choose_colour"
            return
        self.colour = C.colour_of(card)
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
        if drawn and C.matches(drawn[0], self.top, self.colour):
            self.drawn = drawn[0]
            self._phase = "play_drawn"
        else:  # nothing to draw, or it does not match: the turn ends
            self._end_turn()

    def _challenge(self) -> None:
        assert self.challenge is not None
        victim, offender, bluff = self.turn, self.challenge["seat"], self.challenge["bluff"]
        self.challenge = None
        if bluff:  # guilty: the offender draws its 4; the victim then plays normally
            self._draw(offender, 4)
            self.pending -= 4
            self._start_turn()
        else:  # innocent: the challenger draws the stack plus 2 and loses the turn
            self._draw(victim, self.pending + 2)
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
        return drawn

    def _reshuffle(self) -> None:
        rest = self.discard[:-1]
        self.discard = self.discard[-1:]
        self.draw_pile = [rest[i] for i in self.rng.permutation(len(rest))]

    # ---------------------------------------------------------- observing
    def observe(self, player: int) -> np.ndarray:
        n = self.num_players
        obs = self.observation_layout.new()
        v = self.observation_layout.view(obs)
        v["hand"][:] = self.hands[player]
        v["top_card"][self.top] = 1
        if self.colour is not None:
            v["colour"][self.colour] = 1
        v["clockwise"][0] = self.direction == 1
        v["pending_draw"][0] = self.pending
        if self.pending:
            v["pending_kind"][C.draw_amount(self.top) == 4] = 1
        v["challengeable"][0] = self.challenge is not None
        rel = [(player + i) % n for i in range(n)]
        v["hand_sizes"][:] = [self.hand_sizes[p] for p in rel]
        v["called"][:] = [self.called[p] for p in rel]
        v["draw_pile_size"][0] = len(self.draw_pile)
        v["discard_counts"][:] = np.bincount(self.discard, minlength=C.NUM_TYPES)
        v["phase"][E.PHASES.index(self._phase)] = 1
        if self.drawn is not None:
            v["drawn"][self.drawn] = 1
        if not self.is_over:
            v["deciding"][(self.current_player - player) % n] = 1
            v["turn"][(self.turn - player) % n] = 1
        if self._phase == "catch":
            v["catch_target"][(self.turn - player) % n] = 1
        return obs

    # ------------------------------------------------------------ state
    def state_dict(self) -> dict[str, Any]:
        return {
            "game": self.name,
            "num_players": self.num_players,
            "rules": self.rules,
            "current_player": self.current_player,
            "turn_player": self.turn,
            "phase": self._phase,
            "hands": [C.expand(h) for h in self.hands],
            "draw_pile": [C.CODES[t] for t in reversed(self.draw_pile)],
            "discard_pile": [C.CODES[t] for t in self.discard],
            "colour": None if self.colour is None else C.COLOURS[self.colour],
            "direction": self.direction,
            "pending_draw": self.pending,
            "drawn": None if self.drawn is None else C.CODES[self.drawn],
            "called": list(self.called),
            "skip_next": self.skip_next,
            "opening": self.opening,
            "challenge": None if self.challenge is None else dict(self.challenge),
            "catchers": list(self.catchers),
            "winner": self.winner,
            "score": self.score(),
            "ranks": self.ranks,
        }

    def _load_state(self, state: dict[str, Any]) -> None:
        """Set the state from ``state_dict()`` output.

        Optional keys (defaults in brackets): ``turn_player`` [current_player],
        ``direction`` [1], ``pending_draw`` [0], ``drawn`` [null], ``called``
        [all false], ``skip_next`` [false], ``opening`` [false], ``challenge``
        [null], ``catchers`` [the others from the offender's left when the
        phase is "catch"], ``winner`` [null]. ``rules``, ``score``, ``ranks``
        and ``current_player`` are derived and ignored.
        """
        self._clear()
        n = self.num_players
        self.hands = [C.to_counts(h) for h in state["hands"]]
        self.hand_sizes = [sum(h) for h in self.hands]
        self.draw_pile = [C.parse_card(c) for c in reversed(state["draw_pile"])]
        self.discard = [C.parse_card(c) for c in state["discard_pile"]]
        total = sum(self.hand_sizes) + len(self.draw_pile) + len(self.discard)
        if len(self.hands) != n or not self.discard:
            raise ValueError(f"state needs {n} hands and a non-empty discard pile")
        if total > C.DECK_SIZE:
            raise ValueError(f"state holds {total} cards, more than the {C.DECK_SIZE} of the deck")
        self.colour = None if state.get("colour") is None else C.parse_colour(state["colour"])
        self._phase = check_choice("phase", state["phase"], E.PHASES)
        self.turn = int(state.get("turn_player", state.get("current_player", 0)))
        self.direction = int(state.get("direction", 1))
        self.pending = int(state.get("pending_draw", 0))
        self.drawn = None if state.get("drawn") is None else C.parse_card(state["drawn"])
        self.called = [bool(c) for c in state.get("called", [False] * n)]
        self.skip_next = bool(state.get("skip_next", False))
        self.opening = bool(state.get("opening", False))
        self.challenge = None if state.get("challenge") is None else dict(state["challenge"])
        default_catchers = [(self.turn + i) % n for i in range(1, n)] if self._phase == "catch" else []
        self.catchers = [int(p) for p in state.get("catchers", default_catchers)]
        self.winner = state.get("winner")
        if self._phase == "over" and self.winner is None:
            raise ValueError("an 'over' state needs its winner")

    def render_text(self) -> str:
        colour = "-" if self.colour is None else C.COLOUR_NAMES[self.colour]
        lines = [
            f"UNO  top {C.CODES[self.top]}  colour {colour}  "
            f"{'clockwise' if self.direction == 1 else 'counter-clockwise'}  "
            f"pending {self.pending}  draw pile {len(self.draw_pile)}  phase {self._phase}"
        ]
        for p in range(self.num_players):
            marker = ">" if not self.is_over and p == self.current_player else " "
            call = " LETZTE" if self.called[p] else ""
            lines.append(
                f"{marker} player_{p} ({self.hand_sizes[p]}){call}: {' '.join(C.expand(self.hands[p]))}"
            )
        if self.is_over:
            lines.append(f"player_{self.winner} wins, scoring {self.score()}; ranks {self.ranks}")
        return "\n".join(lines)
