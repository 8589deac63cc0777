"""An independent heuristic Tock player, written from docs/rules/tock.md and docs/tock.md only.

It was written without reading the rule agent (:mod:`.rules`), so that an agent trained
against the rule agent meets a player whose habits it never saw (the gauntlet,
docs/gauntlet.md). It never breaks a rule that a knock can punish, knocks every rule
break and nothing else (the observation says whether the move under review was one), and
gives each card it must pass on to the opponent it hurts most: the one closest to
finishing, preferring a pile where the card sticks (fits neither the centre nor another
pile soon). A move that finishes it opens no knock window, so there it breaks rule (b)
and dumps a card that fits the centre on the leader instead. It decides from the
observation alone and draws no random numbers.
"""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import RuleAgent
from card_envs.core.checks import check_int
from card_envs.games.tock import encoding as E
from card_envs.games.tock.cards import MAX_ROWS
from card_envs.games.tock.engine import TockGame


class TockHeuristicAgent(RuleAgent):
    """A strong, deterministic Tock player (see the module docstring); no knobs. Its compiled
    twin plays it in batches (:mod:`.heuristic_compiled`)."""

    compiled = "card_envs.agents.tock.heuristic_compiled:TockBatchedHeuristicAgent"

    def __init__(self, num_players: int = TockGame.default_players) -> None:
        self.num_players = check_int("num_players", num_players, TockGame.min_players, TockGame.max_players)

    def __repr__(self) -> str:
        return f"TockHeuristicAgent(num_players={self.num_players})"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        v = E.LAYOUT.view(observation)
        legal = action_mask > 0
        if v["phase"][1]:  # a knock window: everybody saw whether the move broke a rule
            return E.KNOCK if v["move_break"][0] and legal[E.KNOCK] else E.PASS
        opponents = [k for k in range(E.FIRST_OPPONENT, E.LAST_OPPONENT + 1) if legal[k]]
        if legal[E.CENTRE]:
            if opponents and _finishes(v):
                return self._target(v, opponents)  # rule break (b), but no window opens
            return E.CENTRE
        if opponents:
            return self._target(v, opponents)
        for action in (E.DRAW, E.OWN_PILE):  # the one rule-following move left
            if legal[action]:
                return action
        return int(np.flatnonzero(legal)[0])

    def _target(self, v: dict[str, np.ndarray], opponents: list[int]) -> int:
        """The opponent (relative seat) that the card in play hurts most."""
        card = int(v["card"][0])
        return max(opponents, key=lambda k: _harm(v, k, card, self.num_players))


def _finishes(v: dict[str, np.ndarray]) -> bool:
    """Would placing the card in play anywhere but the own pile leave us with no cards at all?"""
    if v["supply_size"][0] or v["stack_size"][0]:
        return False
    drawn = bool(v["card_source"][1])
    return int(v["pile_size"][0]) == (0 if drawn else 1)


def _fits_centre(card: int, centre: np.ndarray) -> bool:
    tops = centre[centre > 0]
    return (card == 1 and tops.size < MAX_ROWS) or bool((tops == card - 1).any())


def _harm(v: dict[str, np.ndarray], k: int, card: int, n: int) -> tuple[float, ...]:
    """How much giving ``card`` to relative seat ``k`` hurts it, as a sort key: fewer cards
    held first (the leader), then a card that sticks (it fits neither the centre nor any
    other pile, so ``k`` cannot pass it on at its turn), then the seat that moves soonest."""
    held = float(v["pile_size"][k] + v["stack_size"][k])
    tops = v["pile_top"]
    others = [j for j in range(1, n) if j != k and not v["finished"][j] and tops[j]]
    passes_on = _fits_centre(card, v["centre"]) or any(abs(int(tops[j]) - card) == 1 for j in others)
    return (-held, 0.0 if passes_on else 1.0, -float(k))
