"""An independent heuristic UNO-style player, written from docs/rules/uno.md and docs/uno.md only.

It was written without reading the rule agent (:mod:`.rules`), so that an agent trained
against the rule agent meets a player whose habits it never saw (the gauntlet,
docs/gauntlet.md). It never forgets LETZTE, catches every missed call, stacks whenever it
can, keeps its wilds while a coloured card plays, names the colour it holds most, turns
its Skips, Reverses and Draw cards on a next player who is about to go out, sheds its
high-scoring cards (the wilds first) once anybody is close to going out, as the losers are
ranked by the points in their hands, and challenges a Wild Draw Four when the player who
laid it is likely to have held the colour to match: when it kept many cards. It decides
from the observation alone and draws no random numbers.
"""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import RuleAgent
from card_envs.core.checks import check_int
from card_envs.games.uno.cards import (
    DRAW_TWO,
    NUM_COLOURED,
    NUM_COLOURS,
    NUM_RANKS,
    NUM_TYPES,
    REVERSE,
    SKIP,
    WILD,
    WILD_DRAW_FOUR,
    deck_counts,
    points,
)
from card_envs.games.uno.encoding import (
    CATCH,
    CHALLENGE,
    CHOOSE_COLOUR,
    DRAW,
    KEEP,
    PASS,
    PHASES,
    PLAY,
    PLAY_CALL,
    observation_layout,
)
from card_envs.games.uno.engine import UnoGame

#: copies of each card type in the deck
DECK = np.array(deck_counts())
#: the colour of each coloured card type (wilds: -1) and its rank
COLOUR_OF = np.array([t // NUM_RANKS if t < NUM_COLOURED else -1 for t in range(NUM_TYPES)])
RANK_OF = np.array([t % NUM_RANKS if t < NUM_COLOURED else -1 for t in range(NUM_TYPES)])
#: BY_COLOUR @ counts: the cards of each colour among counts per type
BY_COLOUR = (np.arange(NUM_COLOURS)[:, None] == COLOUR_OF[None, :]).astype(np.int64)
POINTS = np.array([points(t) for t in range(NUM_TYPES)])

#: a player with this many cards or fewer may go out at its next turn: attack it if it moves
#: next, and shed points (measured against 2: docs/gauntlet.md)
DANGER = 1
#: what a card's points weigh in choosing a play: little in general, much once somebody may
#: go out soon, as the losers are ranked by the points they hold (measured: docs/gauntlet.md)
POINTS_WEIGHT, POINTS_WEIGHT_CLOSE = 0.01, 0.3
#: what keeping a Wild / a Wild Draw Four for later is worth (it plays on anything then)
KEEP_WILD, KEEP_DRAW_FOUR = 4.0, 5.0
#: what each other card of the colour we leave behind is worth (we likely play again)
COLOUR_WEIGHT = 0.6
#: how much likelier a player is to lay a Wild Draw Four it may not (holding the colour to
#: match) than one it may; 1 would be a player who never minds the rule, 0 one who never
#: bluffs. Players seldom bluff: of the Draw Fours the rule players laid from hands of 5 to 7
#: cards, 7% to 13% were bluffs; from 8 or more, 44% (docs/gauntlet.md)
BLUFF_PROPENSITY = 0.1
#: challenge when the chance of a bluff is above this: a won challenge spares us 4 cards and
#: costs the offender 4, a lost one costs us 2 more than drawing (docs/rules/uno.md)
CHALLENGE_ABOVE = 0.4


class UnoHeuristicAgent(RuleAgent):
    """A strong, deterministic UNO-style player (see the module docstring); no knobs. Its
    compiled twin plays it in batches (:mod:`.heuristic_compiled`)."""

    compiled = "card_envs.agents.uno.heuristic_compiled:UnoBatchedHeuristicAgent"

    def __init__(self, num_players: int = UnoGame.default_players) -> None:
        self.num_players = check_int("num_players", num_players, UnoGame.min_players, UnoGame.max_players)
        self.layout = observation_layout(self.num_players)

    def __repr__(self) -> str:
        return f"UnoHeuristicAgent(num_players={self.num_players})"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        table = _Table(self.layout.view(observation), self.num_players)
        legal = action_mask > 0
        phase = table.phase
        if phase == "catch":
            return CATCH if legal[CATCH] else PASS
        if phase == "choose_colour":
            return CHOOSE_COLOUR + table.best_colour(legal[CHOOSE_COLOUR : CHOOSE_COLOUR + NUM_COLOURS])
        plays = [t for t in range(NUM_TYPES) if legal[PLAY + t] or legal[PLAY_CALL + t]]
        if phase == "pending":
            return self._answer_stack(table, plays, legal)
        if plays:  # never draw while a card plays: even a drawn wild is one card fewer
            card = max(plays, key=table.play_score)
            return PLAY_CALL + card if legal[PLAY_CALL + card] else PLAY + card
        return KEEP if phase == "play_drawn" else DRAW

    @staticmethod
    def _answer_stack(table: _Table, plays: list[int], legal: np.ndarray) -> int:
        """Stack when possible (the total moves on), else challenge a likely bluff, else draw."""
        if plays:
            card = max(plays, key=table.play_score)
            return PLAY_CALL + card if legal[PLAY_CALL + card] else PLAY + card
        if legal[CHALLENGE] and table.bluff_chance() > CHALLENGE_ABOVE:
            return CHALLENGE
        return DRAW


class _Table:
    """What one observation says, in the terms the heuristic thinks in."""

    def __init__(self, fields: dict[str, np.ndarray], num_players: int) -> None:
        self.n = num_players
        self.hand = fields["hand"].astype(np.int64)
        self.phase = PHASES[int(np.argmax(fields["phase"]))]
        self.colour = int(np.argmax(fields["colour"])) if fields["colour"].any() else -1
        self.sizes = fields["hand_sizes"].astype(np.int64)
        self.clockwise = bool(fields["clockwise"][0])
        self.discard = fields["discard_counts"].astype(np.int64)
        step = 1 if self.clockwise else -1
        self.next = step % self.n  # relative seat of the player after us
        self.after_next = (2 * step) % self.n
        self.previous = -step % self.n
        self.held_by_colour = BY_COLOUR @ self.hand
        opponents = self.sizes[1:]
        self.danger = bool(opponents.size and opponents.min() <= DANGER)
        self.next_in_danger = self.next != 0 and self.sizes[self.next] <= DANGER

    # ----------------------------------------------------------------- colours
    def unseen(self) -> np.ndarray:
        """Cards of each type neither in our hand nor in the discard pile: with the others or in the pile."""
        return np.maximum(DECK - self.hand - self.discard, 0)

    def best_colour(self, allowed: np.ndarray) -> int:
        """The colour we hold most of (by count, then by points, so the big cards go first);
        then the one the others are least likely to hold."""
        theirs = BY_COLOUR @ self.unseen()
        our_points = BY_COLOUR @ (self.hand * POINTS)
        keys = [
            (bool(allowed[c]), self.held_by_colour[c], our_points[c], -theirs[c], -c)
            for c in range(NUM_COLOURS)
        ]
        return max(range(NUM_COLOURS), key=keys.__getitem__)

    # ------------------------------------------------------------------- plays
    def play_score(self, card: int) -> float:
        """How good laying ``card`` now is: going out, attacking a player close to going
        out, staying in a colour we hold, shedding points; wilds are kept for need."""
        if self.hand.sum() == 1:
            return 1000.0  # our last card: we go out
        score = (POINTS_WEIGHT_CLOSE if self.danger else POINTS_WEIGHT) * POINTS[card]
        if card >= WILD:
            # a wild plays on anything later: keep it while coloured cards remain
            score -= KEEP_WILD if card == WILD else KEEP_DRAW_FOUR
            score += 1.0 if self.hand[:NUM_COLOURED].sum() == 0 else 0.0
            if card == WILD_DRAW_FOUR:
                score += self._attack_value(draw=4)
                if self.colour >= 0 and self.held_by_colour[self.colour] > 0:
                    score -= 1.5  # a bluff in the "official" variant: a challenge would cost us 4
            return score
        colour, rank = COLOUR_OF[card], RANK_OF[card]
        # the colour we leave behind: the more of it we still hold, the likelier we play next time
        score += COLOUR_WEIGHT * (self.held_by_colour[colour] - 1)
        if rank == SKIP:
            score += self._attack_value(skip=True)
        elif rank == DRAW_TWO:
            score += self._attack_value(draw=2)
        elif rank == REVERSE:
            score += self._reverse_value()
        return score

    def _attack_value(self, skip: bool = False, draw: int = 0) -> float:
        """A Skip or a Draw card hits the next player: most valuable when it is about to go out."""
        if self.next == 0:
            return 0.0
        value = 0.3 + 0.15 * draw
        if self.next_in_danger:
            value += 3.0 + (3.0 - self.sizes[self.next]) + 0.5 * draw
        if (skip or draw) and self.after_next not in (0, self.next) and self.sizes[self.after_next] <= DANGER:
            value -= 1.5  # the player after it moves up: bad if that one is about to go out
        return value

    def _reverse_value(self) -> float:
        """A Reverse: with two players (as a Skip by default) it hits the other player; with
        more, the player before us moves next instead of the one after us."""
        if self.n == 2:
            return self._attack_value(skip=True)
        value = 0.2
        if self.next_in_danger:
            value += 2.5
        if self.sizes[self.previous] <= DANGER:
            value -= 2.0
        return value

    def bluff_chance(self) -> float:
        """How likely the pending Wild Draw Four was laid while its player held the colour
        to match: its chance of holding that colour among the cards it kept (each colour
        equally likely to have been the one to match), weighed by :data:`BLUFF_PROPENSITY`."""
        kept = int(self.sizes[self.previous])
        unseen = self.unseen()
        total = unseen.sum()
        if total <= 0 or kept <= 0:
            return 0.0
        shares = (BY_COLOUR @ unseen) / total
        # one libm pow a colour, summed in order (numpy's array pow may differ in the last bit):
        # the compiled twin computes the same float
        held = sum(1.0 - (1.0 - float(share)) ** kept for share in shares) / NUM_COLOURS
        bluffing = BLUFF_PROPENSITY * held
        return float(bluffing / (bluffing + (1.0 - held)))
