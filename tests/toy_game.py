"""A fourth game that lives only in the test tree: proof that a game registers through its spec alone.

"Climb": sixteen cards, values 0..3 four times. Each player is dealt three.
On your turn play a card at least as high as the top of the pile, or DRAW
(a card from the deck, if any), which also clears the pile. The first to
empty their hand wins; the others rank by cards held.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.agents.registry import RuleAgentSpec, register_rule_agent
from card_envs.core.checks import check_card_counts, check_choice, check_int, check_list, check_seat
from card_envs.core.game import CardGame
from card_envs.core.layout import Field, ObservationLayout
from card_envs.core.policy import Policy
from card_envs.core.ranking import ranks_after_finishers
from card_envs.core.registry import register
from card_envs.core.spec import GameSpec
from card_envs.core.view import Card, TableView, Zone

VALUES, COPIES, HAND = 4, 4, 3
DRAW = VALUES  # actions 0..3 play that value; 4 draws


class ClimbGame(CardGame):
    name, min_players, max_players, default_players = "climb", 2, 4, 3
    num_actions, default_max_steps = VALUES + 1, 500

    def __init__(self, num_players: int | None = None, *, draw_clears: bool = True) -> None:
        super().__init__(num_players)
        self.draw_clears = check_choice("draw_clears", draw_clears, [True, False])
        n = self.num_players
        self.observation_layout = ObservationLayout(
            [
                Field("hand", VALUES, COPIES, "own cards per value"),
                Field("top", VALUES + 1, 1, "one-hot top of the pile, last entry: empty pile"),
                Field("deck", 1, VALUES * COPIES, "cards left in the deck"),
                Field("hand_sizes", n, VALUES * COPIES, "cards held, own seat first"),
            ]
        )
        self.hands, self.deck, self.pile, self.turn = [[0] * VALUES for _ in range(n)], [], [], 0
        self._phase = "play"

    @property
    def current_player(self) -> int:
        return self.turn

    @property
    def ranks(self) -> list[int] | None:
        winner = next((p for p, h in enumerate(self.hands) if not any(h)), None)
        return (
            None if winner is None else ranks_after_finishers(self.num_players, {winner: 1}, self.cards_held)
        )

    def cards_held(self, player: int) -> int:
        return sum(self.hands[player])

    def _deal(self) -> None:
        cards = [int(c) for c in self.rng.permutation(np.repeat(np.arange(VALUES), COPIES))]
        self.hands = [
            np.bincount(cards[p * HAND : (p + 1) * HAND], minlength=VALUES).tolist()
            for p in range(self.num_players)
        ]
        self.deck, self.pile, self.turn, self._phase = cards[self.num_players * HAND :], [], 0, "play"

    def _legal_mask(self) -> np.ndarray:
        floor = self.pile[-1] if self.pile else 0
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[floor:VALUES] = np.array(self.hands[self.turn][floor:]) > 0
        mask[DRAW] = 1
        return mask

    def _apply(self, action: int) -> None:
        if action == DRAW:
            if self.deck:
                self.hands[self.turn][self.deck.pop()] += 1
            if self.draw_clears:
                self.deck[:0], self.pile = self.pile, []  # the pile goes under the deck
        else:
            self.hands[self.turn][action] -= 1
            self.pile.append(action)
        if self.ranks is not None:
            self._phase = "over"
        else:
            self.turn = (self.turn + 1) % self.num_players

    def observe(self, player: int) -> np.ndarray:
        obs = self.observation_layout.new()
        v = self.observation_layout.view(obs)
        v["hand"][:] = self.hands[player]
        v["top"][self.pile[-1] if self.pile else VALUES] = 1
        v["deck"][0] = len(self.deck)
        v["hand_sizes"][:] = [
            self.cards_held((player + i) % self.num_players) for i in range(self.num_players)
        ]
        return obs

    def describe_action(self, action: int) -> str:
        return "draw" if action == DRAW else f"play a {action}"

    def _render_text(self, seat: int | None, color: bool) -> str:
        hands = self.hands if seat is None else [h if p == seat else sum(h) for p, h in enumerate(self.hands)]
        return f"pile {self.pile} deck {len(self.deck)} hands {hands} phase {self._phase}"

    def _table_view(self, seat: int | None) -> TableView:
        def hand(p: int) -> list[Card]:
            values = [v for v in range(VALUES) for _ in range(self.hands[p][v])]
            return (
                [Card(face_down=True) for _ in values]
                if seat not in (None, p)
                else [Card(str(v), "blue") for v in values]
            )

        pile = [Card(str(v), "red") for v in self.pile[-5:]]
        players = [
            Zone(self.player_name(p), hand(p), highlight=not self.is_over and p == self.turn)
            for p in range(self.num_players)
        ]
        return TableView(
            f"Climb, phase {self._phase}", [Zone("pile", pile, f"deck {len(self.deck)}")], players
        )

    def _state_fields(self) -> dict[str, Any]:
        return {
            "hands": [list(h) for h in self.hands],
            "deck": list(self.deck),
            "pile": list(self.pile),
            "turn": self.turn,
            "phase": self._phase,
        }

    def _load_state(self, state: dict[str, Any]) -> None:
        n = self.num_players
        self.hands = [
            [check_int("hand count", c, 0, COPIES) for c in check_list("hand", h, VALUES)]
            for h in check_list("hands", state["hands"], n)
        ]
        self.deck = [check_int("deck card", c, 0, VALUES - 1) for c in check_list("deck", state["deck"])]
        self.pile = [check_int("pile card", c, 0, VALUES - 1) for c in check_list("pile", state["pile"])]
        self.turn = check_seat("turn", state["turn"], n)
        self._phase = check_choice("phase", state["phase"], ["play", "over"])

    def check_consistency(self) -> None:
        counts = np.sum(self.hands, axis=0) + np.bincount(self.deck + self.pile, minlength=VALUES)
        check_card_counts("cards", counts.tolist(), [COPIES] * VALUES)
        if (self._phase == "over") != (self.ranks is not None):
            raise ValueError("the phase is 'over' exactly when a hand is empty")


class ClimbRuleAgent(Policy):
    """Plays its lowest playable card; with ``mistake_rate`` a random legal move instead."""

    def __init__(self, num_players: int, mistake_rate: float = 0.0) -> None:
        self.mistake_rate = mistake_rate

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(action_mask)
        if self.mistake_rate and rng.random() < self.mistake_rate:
            return int(rng.choice(legal))
        return int(legal[0])


SPEC = register(
    GameSpec(
        name="climb",
        title="Climb",
        engine=ClimbGame,
        rule_mixes=({"draw_clears": False},),
    )
)
register_rule_agent(RuleAgentSpec(game="climb", agent=ClimbRuleAgent, random_knobs={"mistake_rate": 0.5}))
