"""An independent heuristic Chip It player, written from docs/rules/chipit.md and docs/chipit.md only.

It was written without reading the rule agent (:mod:`.rules`), so that an agent trained
against the rule agent meets a player whose habits it never saw (the gauntlet,
docs/gauntlet.md). It reasons in the one currency of the ranking, cards in hand plus
chip points: a chip on a laid card comes back as a point held, so a play of k cards that
needs c chips gains k less what the c points weigh (half a card each while passes can
still return them, up to a whole card near the end), and a pass gains the points it
returns. It leads its biggest set at one value (cheap chip-bearing cards included, low
values first: the high cards stay to answer with; more cards than an opponent close to
going out holds, where it can), answers with the k cards that need the fewest chips when
that gains more than passing (keeping such an opponent from leading anew counts), and
always returns as many points as it may when it passes. It goes out whenever a play
empties its hand without chips. It decides from the observation alone and draws no random
numbers; a play built over several actions is worked out again, the same, at each of them.
"""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import RuleAgent
from card_envs.core.checks import check_int
from card_envs.games.chipit.arith import chip_cost
from card_envs.games.chipit.cards import FACE, IMPOSSIBLE, IS_PURPLE, MAX_GREEN_VALUE, NUM_TYPES
from card_envs.games.chipit.encoding import (
    CARD,
    DONE,
    MAX_RETURN,
    MIN_VALUE,
    PASS,
    PHASES,
    UNITS,
    VALUE,
    observation_layout,
)
from card_envs.games.chipit.engine import ChipItGame

#: values a play is chosen at: those of a direct VALUE action (higher ones need purple cards
#: with at least 11 chips, never worth it)
VALUES = range(MIN_VALUE, MAX_GREEN_VALUE + 1)
#: on equal chips, the card to lay first: green before purple (a purple card can show more
#: values later), low before high
CARD_ORDER = sorted(range(NUM_TYPES), key=lambda t: (IS_PURPLE[t], FACE[t]))

# The weights below were set by measuring against the rule-based players (docs/gauntlet.md).
#: what a chip point taken on weighs against a card shed, far from the end: it comes back as
#: a point held, but passes return up to 2 points each
CHIP_WEIGHT = 0.5
#: a lead adds a card that needs chips if what they weigh is at most this
LEAD_EXTRA = 1.0
#: what beating the combination lying out is worth beyond the cards it sheds: the chance to
#: end the round and lead anew
TEMPO = 1.7
#: per point of the value played: low values first, the high cards answer later
LOW_FIRST = 0.045
#: an opponent with this many cards or fewer threatens to go out ...
THREAT = 3
#: ... and keeping it from leading (beating its play, leading more cards than it holds) is worth
BLOCK = 1.5
#: what each point a pass returns is worth
RETURN_WEIGHT = 1.0
#: a chip point's weight rises from CHIP_WEIGHT to a whole card's as the fewest cards anybody
#: holds (we too) falls from this to none
HORIZON = 5


class ChipItHeuristicAgent(RuleAgent):
    """A strong, deterministic Chip It player (see the module docstring); no knobs. Its
    compiled twin plays it in batches (:mod:`.heuristic_compiled`)."""

    compiled = "card_envs.agents.chipit.heuristic_compiled:ChipItBatchedHeuristicAgent"

    def __init__(self, num_players: int = ChipItGame.default_players) -> None:
        self.num_players = check_int(
            "num_players", num_players, ChipItGame.min_players, ChipItGame.max_players
        )
        self.layout = observation_layout(self.num_players)

    def __repr__(self) -> str:
        return f"ChipItHeuristicAgent(num_players={self.num_players})"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        table = _Table(self.layout.view(observation))
        legal = action_mask > 0
        if table.phase == "cards":
            return _next_card(table, legal)
        if table.phase == "units":  # a block is never chosen by this player; be safe anyway
            return UNITS + int(np.flatnonzero(legal[UNITS:CARD])[0])
        value = table.lead_value(legal) if table.to_beat_count == 0 else table.answer_value(legal)
        if value is not None:
            return VALUE + value - MIN_VALUE
        return PASS + max(r for r in range(MAX_RETURN + 1) if legal[PASS + r])


class _Table:
    """What one observation says, and the plays this player would make from it."""

    def __init__(self, fields: dict[str, np.ndarray]) -> None:
        self.phase = PHASES[int(np.argmax(fields["phase"]))]
        self.hand = fields["hand"].astype(np.int64)
        self.held = int(fields["chips"][0])
        self.supply = int(fields["supply"][0])
        self.to_beat_count = int(fields["to_beat_count"][0])
        self.build_value = int(fields["build_value"][0])
        self.build_cards = fields["build_cards"].astype(np.int64)
        self.cards = int(self.hand.sum())
        sizes = fields["hand_sizes"].astype(np.int64)
        out = fields["finished"] > 0
        opponents = [i for i in range(1, sizes.size) if not out[i]]
        # opponents who could go out soon: few cards in hand
        self.threats = {i: int(sizes[i]) for i in opponents if sizes[i] <= THREAT}
        beaten = np.flatnonzero(fields["to_beat_seat"])
        self.to_beat_seat = int(beaten[0]) if beaten.size else -1
        # how near the end is: a chip is worth less than a card while there are passes
        # left to return it, and as much once somebody (we too) is about to go out
        nearest = min([self.cards, *(int(sizes[i]) for i in opponents)])
        urgency = float(np.clip((HORIZON - nearest) / HORIZON, 0.0, 1.0))
        self.chip_weight = CHIP_WEIGHT + (1.0 - CHIP_WEIGHT) * urgency

    def plan(self, value: int) -> list[int]:
        """The cards (types, ascending) this player lays at ``value``: for an answer the
        ``to_beat_count`` cheapest, for a lead every card showing it for few enough chips."""
        costs = [chip_cost(t, value) for t in range(NUM_TYPES)]
        copies = [t for t in CARD_ORDER for _ in range(self.hand[t]) if costs[t] < IMPOSSIBLE]
        copies.sort(key=lambda t: costs[t])  # stable: CARD_ORDER breaks the ties
        if self.to_beat_count:
            return sorted(copies[: self.to_beat_count])
        chosen: list[int] = []
        budget = self.supply
        for t in copies:
            if (not chosen or self.chip_weight * costs[t] <= LEAD_EXTRA) and costs[t] <= budget:
                chosen.append(t)
                budget -= int(costs[t])
        return sorted(chosen)

    def gain(self, cards: list[int], value: int) -> float:
        """Cards shed less the chips taken on (weighed by how near the end is), plus a
        bonus for going out at once; lower values first, the high cards answer later."""
        chips = int(sum(chip_cost(t, value) for t in cards))
        if len(cards) == self.cards and chips == 0 and self.held == 0:
            return 1000.0  # no cards, no chips: we win
        return len(cards) - self.chip_weight * chips - LOW_FIRST * value

    def lead_value(self, legal: np.ndarray) -> int | None:
        """The value of the lead: the best gain, more cards than a threatening opponent holds."""
        best, best_score = None, -np.inf
        for value in VALUES:
            if not legal[VALUE + value - MIN_VALUE]:
                continue
            cards = self.plan(value)
            score = self.gain(cards, value)
            if self.threats and len(cards) > max(self.threats.values()):
                score += BLOCK
            if score > best_score:
                best, best_score = value, score
        return best

    def answer_value(self, legal: np.ndarray) -> int | None:
        """The value of the best answer, if it gains more than a pass (None: pass); beating a
        threatening opponent's play keeps it from leading anew."""
        best, best_score = None, -np.inf
        for value in VALUES:
            if legal[VALUE + value - MIN_VALUE]:
                score = self.gain(self.plan(value), value)
                if score > best_score:
                    best, best_score = value, score
        if best is None:
            return None
        bonus = TEMPO + (BLOCK if self.to_beat_seat in self.threats else 0.0)
        passing = RETURN_WEIGHT * min(MAX_RETURN, self.held)
        return best if best_score + bonus > passing else None


def _next_card(table: _Table, legal: np.ndarray) -> int:
    """The next card of the planned play at the value chosen (or DONE once all are laid)."""
    plan = table.plan(table.build_value)
    rest = np.bincount(plan, minlength=NUM_TYPES) - table.build_cards
    for t in range(NUM_TYPES):
        if rest[t] > 0 and legal[CARD + t]:
            return CARD + t
    if legal[DONE]:
        return DONE
    choices = [t for t in range(NUM_TYPES) if legal[CARD + t]]  # not reached: the plan fits the mask
    return CARD + min(choices, key=lambda t: chip_cost(t, table.build_value))
