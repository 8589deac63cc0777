"""A rule-based UNO-style player with human-like lapses (rules: docs/rules/uno.md)."""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import RuleAgent, check_probability
from card_envs.games.uno import cards as C
from card_envs.games.uno import encoding as E


class UnoRuleAgent(RuleAgent):
    """Plays sensibly: sheds high-point cards, keeps wilds for need, stacks when it can.

    * plays a coloured card if it has one (the highest-scoring one, preferring
      the colour it holds most); wilds only when nothing else fits; an
      attacking card first when the next player is close to winning;
    * names the colour it holds most; always stacks a Draw card if it can;
    * never draws voluntarily; plays a drawn card that fits;
    * so it plays a Wild Draw Four only without a card of the colour to match,
      except to stack on another one.

    Knobs: ``forget_call`` (probability to forget LETZTE), ``catch_rate``
    (probability to catch a missed call it may catch), ``challenge_rate``
    (probability to challenge a Wild Draw Four).
    """

    compiled = "card_envs.agents.uno.compiled:UnoBatchedRuleAgent"

    def __init__(
        self,
        num_players: int,
        forget_call: float = 0.1,
        catch_rate: float = 0.9,
        challenge_rate: float = 0.2,
    ) -> None:
        self.num_players = num_players
        self.layout = E.observation_layout(num_players)
        self.forget_call = check_probability("forget_call", forget_call)
        self.catch_rate = check_probability("catch_rate", catch_rate)
        self.challenge_rate = check_probability("challenge_rate", challenge_rate)

    def __repr__(self) -> str:
        return (
            f"UnoRuleAgent(forget_call={self.forget_call}, catch_rate={self.catch_rate},"
            f" challenge_rate={self.challenge_rate})"
        )

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        v = self.layout.view(observation)
        if action_mask[E.CATCH]:
            return E.CATCH if rng.random() < self.catch_rate else E.PASS
        if action_mask[E.CHOOSE_COLOUR]:
            return E.CHOOSE_COLOUR + self._favourite_colour(v["hand"])
        playable = [t for t in range(C.NUM_TYPES) if action_mask[E.PLAY + t]]
        if action_mask[E.CHALLENGE] and not playable and rng.random() < self.challenge_rate:
            return E.CHALLENGE
        if not playable:
            return E.DRAW if action_mask[E.DRAW] else E.KEEP
        card = self._choose_card(playable, v)
        if action_mask[E.PLAY_CALL + card] and rng.random() >= self.forget_call:
            return E.PLAY_CALL + card
        return E.PLAY + card

    def _favourite_colour(self, hand: np.ndarray) -> int:
        per_colour = [hand[s].sum() for s in C.COLOUR_SLICES]
        return int(np.argmax(per_colour))

    def _choose_card(self, playable: list[int], v: dict[str, np.ndarray]) -> int:
        hand = v["hand"]
        colour_counts = [hand[s].sum() for s in C.COLOUR_SLICES]
        coloured = [t for t in playable if not C.is_wild(t)]
        if not coloured:  # so a Draw Four is never a bluff outside a stack
            return min(playable, key=lambda t: t == C.WILD_DRAW_FOUR)  # plain Wild before Draw Four
        next_seat = 1 if v["clockwise"][0] else self.num_players - 1
        if v["hand_sizes"][next_seat] <= 2:  # attack a player about to win
            attacks = [t for t in coloured if C.rank_of(t) in (C.SKIP, C.REVERSE, C.DRAW_TWO)]
            if attacks:
                coloured = attacks
        # t is coloured here, so t // NUM_RANKS is its colour
        return max(coloured, key=lambda t: (C.points(t), colour_counts[t // C.NUM_RANKS], -t))
