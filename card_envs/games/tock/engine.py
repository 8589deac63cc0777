"""The Tock rules engine (RULES.md, "Game A"): rows in the centre, open piles, rule breaks and TOCK!

Decisions (engine phases):

* ``"play"``: the player on turn decides about its *card in play*: the drawn
  card if it holds one, else the top card of its own open pile; with an
  empty open pile the only move is to draw.
* ``"knock"``: a knock window is open after a move for which a rule break was
  available; :attr:`current_player` is the player deciding KNOCK or PASS.
* ``"over"``: the game has ended.

Turning the own open pile over (once the supply is empty) is never a choice
of its own: it is what DRAW does when the supply and the own stack are empty.

Hot paths use plain lists: the supply and the own stacks keep their top card
at the *end* of the list (``state_dict`` lists them top first), open piles
are bottom first, so the top card is ``pile[-1]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core.game import CardGame, check_choice
from card_envs.core.ranking import ranks_by_key
from card_envs.games.tock.encoding import (
    CENTRE,
    DRAW,
    KNOCK,
    LAYOUT,
    MAX_ROWS,
    NUM_ACTIONS,
    OFF,
    OWN_PILE,
    PASS,
    ROW_END,
    TOP_CARD,
    action_kind,
)

PHASES = ("play", "knock", "over")
STAT_KEYS = ("rule_breaks", "caught", "knocks_correct", "knocks_false")

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


# observation offsets as plain ints (observe() is on the env's hot path)
_O_PRESENT = OFF["seat_present"]
_O_FINISHED = OFF["finished"]
_O_TURN = OFF["turn"]
_O_PHASE = OFF["phase"]
_O_CENTRE = OFF["centre"]
_O_TOP = OFF["pile_top"]
_O_PSIZE = OFF["pile_size"]
_O_SSIZE = OFF["stack_size"]
_O_SUPPLY = OFF["supply_size"]
_O_CARD = OFF["card"]
_O_SOURCE = OFF["card_source"]
_O_MPLAYER = OFF["move_player"]
_O_MKIND = OFF["move_kind"]
_O_MTARGET = OFF["move_target"]
_O_MCARD = OFF["move_card"]
_O_MBREAK = OFF["move_break"]
_O_LPLAYER = OFF["last_player"]
_O_LKIND = OFF["last_kind"]


def full_deck() -> list[int]:
    """The 121 active cards: six sets of 1..20 and one 21."""
    return [v for v in range(1, ROW_END + 1) for _ in range(6)] + [TOP_CARD]


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
    max_players = 6
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
        self._set_empty()

    # ------------------------------------------------------------ the state
    def _set_empty(self) -> None:
        n = self.num_players
        self._supply: list[int] = []  # top card last
        self._rows: list[int] = []  # top card of each opened row, in opening order
        self._piles: list[list[int]] = [[] for _ in range(n)]  # bottom first
        self._stacks: list[list[int]] = [[] for _ in range(n)]  # top card last
        self._drawn: int | None = None
        self._turn = 0
        self._phase = "play"
        self._alive = [True] * n
        self._n_alive = n
        self._finished: list[int] = []
        self._finish_rank: list[int | None] = [None] * n
        self._ranks: list[int] | None = None
        self._window: list[int] = []  # seats still to decide, the first decides now
        self._window_break = False  # the move under review was a rule break
        self._window_ends_turn = False  # the move under review ended the turn
        # last move of a player on turn: (player, action, card, target seat or -1, rule break)
        self._move: tuple[int, int, int, int, bool] | None = None
        self._last: tuple[int, int] | None = None  # last action of anyone: (player, action)
        self._stats = [dict.fromkeys(STAT_KEYS, 0) for _ in range(n)]
        self._opts: tuple[int, int] | None = None  # _options() of the current state, set by the mask

    def _deal(self) -> None:
        self._set_empty()
        self._supply = self.rng.permutation(full_deck()).tolist()

    # ------------------------------------------------------------ game facts
    @property
    def current_player(self) -> int:
        return self._window[0] if self._phase == "knock" else self._turn

    @property
    def turn_player(self) -> int:
        return self._turn

    @property
    def ranks(self) -> list[int] | None:
        return None if self._ranks is None else list(self._ranks)

    def finished_ranks(self) -> dict[int, int]:
        return {s: self._finish_rank[s] for s in self._finished}  # type: ignore[misc]

    def cards_held(self, player: int) -> int:
        """Open pile plus own stack (plus the drawn card while it is in play)."""
        held = len(self._piles[player]) + len(self._stacks[player])
        if player == self._turn and self._drawn is not None:
            held += 1
        return held

    def card_in_play(self) -> tuple[int | None, str | None]:
        """The card the player on turn decides about, and where it is: ``"pile"`` or ``"drawn"``."""
        if self._drawn is not None:
            return self._drawn, "drawn"
        pile = self._piles[self._turn]
        return (pile[-1], "pile") if pile else (None, None)

    def player_info(self, player: int) -> dict[str, float]:
        info: dict[str, float] = {
            "cards_held": self.cards_held(player),
            "open_pile": len(self._piles[player]),
            "stack": len(self._stacks[player]),
            "finished": float(not self._alive[player]),
        }
        info.update(self._stats[player])
        return info

    # ----------------------------------------------------------- decisions
    def _options(self) -> tuple[int, int]:
        """Bit sets (legal actions, rule-break actions) of the play decision."""
        t = self._turn
        card = self._drawn
        from_pile = card is None
        if card is None:
            pile = self._piles[t]
            if not pile:
                return _DRAW_BIT, 0
            card = pile[-1]
        rows = self._rows
        if card == 1:
            centre = len(rows) < MAX_ROWS
        elif card <= ROW_END:
            centre = (card - 1) in rows
        else:
            centre = False
        opponents = 0
        n = self.num_players
        piles = self._piles
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
        if self._phase != "play":
            return []
        breaks = self._options()[1]
        return [a for a in range(NUM_ACTIONS) if breaks >> a & 1]

    def _legal_mask(self) -> np.ndarray:
        if self._phase == "knock":
            self._opts = None
            bits = _KNOCK_BITS
        else:
            self._opts = opts = self._options()
            bits = opts[0]
        return _mask_of(bits).copy()

    # ---------------------------------------------------------------- moves
    def _apply(self, action: int) -> None:
        if self._phase == "knock":
            self._apply_knock(action)
        else:
            opts = self._opts or self._options()  # the mask was just computed for this state
            self._opts = None
            self._apply_play(action, opts[1])

    def _apply_play(self, action: int, breaks: int) -> None:
        t = self._turn
        was_break = bool(breaks >> action & 1)
        card = 0
        target = -1
        ends_turn = complete = False
        if action == DRAW:
            if self._supply:
                self._drawn = self._supply.pop()
            else:
                stack = self._stacks[t]
                if not stack:  # turn the open pile over as one block: its bottom card is now on top
                    stack = self._piles[t]
                    stack.reverse()
                    self._stacks[t] = stack
                    self._piles[t] = []
                self._drawn = stack.pop()
        elif action == OWN_PILE:
            card = self._drawn  # type: ignore[assignment]
            self._piles[t].append(card)
            self._drawn = None
            ends_turn = True
        else:
            if self._drawn is not None:
                card = self._drawn
                self._drawn = None
            else:
                card = self._piles[t].pop()
            if action == CENTRE:
                rows = self._rows
                if card == 1:
                    rows.append(1)
                else:
                    rows[rows.index(card - 1)] = card
                    complete = card == ROW_END and len(rows) == MAX_ROWS and rows.count(ROW_END) == MAX_ROWS
            else:
                target = (t + action) % self.num_players
                self._piles[target].append(card)
        self._move = (t, action, card, target, was_break)
        self._last = (t, action)
        if was_break:
            self._stats[t]["rule_breaks"] += 1
        if not self._supply and self._check_finished(t if action != DRAW else -1):
            return
        if complete:  # all six rows at 20: only the 21 is left outside the centre
            self._end()
        elif not self._alive[t]:  # the move finished the player: no knock window
            self._next_turn()
        elif breaks:
            n = self.num_players
            self._window = [s for s in ((t + k) % n for k in range(1, n)) if self._alive[s]]
            self._window_break = was_break
            self._window_ends_turn = ends_turn
            self._phase = "knock"
        elif ends_turn:
            self._next_turn()

    def _apply_knock(self, action: int) -> None:
        decider = self._window.pop(0)
        self._last = (decider, action)
        t = self._turn
        if action == PASS:
            if not self._window:
                self._phase = "play"
                if self._window_ends_turn:
                    self._next_turn()
            return
        self._window = []
        self._phase = "play"
        if self._window_break:  # correct knock
            self._stats[decider]["knocks_correct"] += 1
            self._stats[t]["caught"] += 1
            if self._drawn is not None:  # a forbidden draw: the drawn card goes onto the own pile
                self._piles[t].append(self._drawn)
                self._drawn = None
            self._collect_penalty(t)
            ends_turn = True
        else:
            self._stats[decider]["knocks_false"] += 1
            self._collect_penalty(decider)
            ends_turn = self._window_ends_turn
        if not self._supply and self._check_finished():
            return
        if ends_turn or not self._alive[t]:
            self._next_turn()

    def _collect_penalty(self, receiver: int) -> None:
        """The bottom card of every other open pile, from the receiver's left, under its own pile."""
        n = self.num_players
        piles = self._piles
        own = piles[receiver]
        for k in range(1, n):
            p = piles[(receiver + k) % n]
            if p:
                own.insert(0, p.pop(0))

    def _next_turn(self) -> None:
        n = self.num_players
        t = self._turn
        for k in range(1, n + 1):
            s = (t + k) % n
            if self._alive[s]:
                self._turn = s
                break
        self._phase = "play"

    def _check_finished(self, only: int = -1) -> bool:
        """Let players without cards finish (supply empty); True if the game ended.

        ``only``: the one seat that can have lost cards (-1: check every seat).
        """
        newly = [
            s
            for s in (range(self.num_players) if only < 0 else (only,))
            if self._alive[s]
            and not self._piles[s]
            and not self._stacks[s]
            and not (s == self._turn and self._drawn is not None)
        ]
        if newly:
            rank = len(self._finished) + 1
            for s in newly:
                self._alive[s] = False
                self._finish_rank[s] = rank
            self._finished.extend(newly)
            self._n_alive -= len(newly)
            if self._n_alive <= 1:
                self._end()
                return True
        return False

    def _end(self) -> None:
        """Rank the players still in after the finished ones, by fewest cards held."""
        self._phase = "over"
        self._window = []
        ranks = [r or 0 for r in self._finish_rank]
        still_in = [s for s in range(self.num_players) if self._alive[s]]
        offset = len(self._finished)
        for seat, rank in ranks_by_key(still_in, key=self.cards_held).items():
            ranks[seat] = rank + offset
        self._ranks = ranks

    # ---------------------------------------------------------- observation
    def observe(self, player: int) -> np.ndarray:
        n = self.num_players
        o = [0.0] * LAYOUT.size
        piles = self._piles
        stacks = self._stacks
        alive = self._alive
        for r in range(n):
            s = (player + r) % n
            o[_O_PRESENT + r] = 1.0
            if not alive[s]:
                o[_O_FINISHED + r] = 1.0
            p = piles[s]
            if p:
                o[_O_TOP + r] = p[-1]
                o[_O_PSIZE + r] = len(p)
            o[_O_SSIZE + r] = len(stacks[s])
        o[_O_TURN + (self._turn - player) % n] = 1.0
        o[_O_PHASE + (self._phase == "knock")] = 1.0 if self._phase != "over" else 0.0
        for i, top in enumerate(sorted(self._rows, reverse=True)):
            o[_O_CENTRE + i] = top
        o[_O_SUPPLY] = len(self._supply)
        if self._phase != "over":
            card, source = self.card_in_play()
            if card is not None:
                o[_O_CARD] = card
                o[_O_SOURCE + (source == "drawn")] = 1.0
        if self._move is not None:
            mover, action, card, target, was_break = self._move
            o[_O_MPLAYER + (mover - player) % n] = 1.0
            o[_O_MKIND + action_kind(action)] = 1.0
            if target >= 0:
                o[_O_MTARGET + (target - player) % n] = 1.0
            o[_O_MCARD] = card
            o[_O_MBREAK] = float(was_break)
        if self._last is not None:
            actor, action = self._last
            o[_O_LPLAYER + (actor - player) % n] = 1.0
            o[_O_LKIND + action_kind(action)] = 1.0
        return np.array(o, dtype=np.float32)

    # ----------------------------------------------------------------- text
    def _seat_name(self, seat: int) -> str:
        return f"player_{seat}"

    def describe_action(self, action: int) -> str:
        action = int(action)
        card, _ = self.card_in_play() if self._phase == "play" else (None, None)
        what = f"play {card}" if card is not None else "play the card"
        if action == CENTRE:
            return f"{what} to the centre"
        if 1 <= action < DRAW:
            seat = (self._turn + action) % self.num_players
            where = f" ({self._seat_name(seat)})" if action < self.num_players else " (no such seat)"
            return f"{what} onto the open pile {action} seat(s) to the left{where}"
        if action == DRAW:
            if not self._supply and not self._stacks[self._turn]:
                return "turn the own open pile over and draw its top card"
            return "draw a face-down card" if self._supply else "draw from the own stack"
        if action == OWN_PILE:
            return f"put the drawn card{'' if card is None else f' {card}'} on the own open pile"
        if action == KNOCK:
            return "knock (TOCK!)"
        if action == PASS:
            return "pass (no knock)"
        return f"action {action} (unknown)"

    def render_text(self) -> str:
        n = self.num_players
        head = f"Tock, {n} players | turn: {self._seat_name(self._turn)} | phase: {self._phase}"
        if self._phase == "knock":
            head += f" ({self._seat_name(self.current_player)} decides KNOCK or PASS)"
        head += f" | supply: {len(self._supply)}"
        rows = " ".join(f"{top:2d}" for top in self._rows) + " .." * (MAX_ROWS - len(self._rows))
        lines = [head, f"Centre rows: {rows}"]
        for s in range(n):
            mark = ">" if s == self._turn and self._phase != "over" else " "
            pile = self._piles[s]
            top = f"top {pile[-1]:2d}" if pile else "empty "
            stack = len(self._stacks[s])
            line = f"{mark} {self._seat_name(s):9s} open pile {len(pile):3d} ({top})  stack {stack:3d}"
            if s == self._turn and self._drawn is not None:
                line += f"  drawn: {self._drawn}"
            if not self._alive[s]:
                line += f"  finished, rank {self._finish_rank[s]}"
            if self._ranks is not None:
                line += f"  final rank {self._ranks[s]}"
            lines.append(line)
        if self._move is not None:
            mover, action, card, target, was_break = self._move
            if action == DRAW:
                text = "drew a card"
            elif action == CENTRE:
                text = f"played {card} to the centre"
            elif action == OWN_PILE:
                text = f"put {card} on the own pile"
            else:
                text = f"played {card} onto {self._seat_name(target)}'s pile"
            lines.append(f"Last move: {self._seat_name(mover)} {text}{' (RULE BREAK)' if was_break else ''}")
        if self._last is not None and self._last[1] in (KNOCK, PASS):
            verb = "knocked: TOCK!" if self._last[1] == KNOCK else "passed"
            lines.append(f"Last action: {self._seat_name(self._last[0])} {verb}")
        return "\n".join(lines)

    # ----------------------------------------------------------- state dict
    def state_dict(self) -> dict[str, Any]:
        window = None
        if self._phase == "knock":
            window = {
                "deciders": list(self._window),
                "rule_break": self._window_break,
                "ends_turn": self._window_ends_turn,
            }
        move = None
        if self._move is not None:
            mover, action, card, target, was_break = self._move
            move = {
                "player": mover,
                "action": action,
                "card": card,
                "target": target,
                "rule_break": was_break,
            }
        last = None if self._last is None else {"player": self._last[0], "action": self._last[1]}
        return {
            "game": self.name,
            "num_players": self.num_players,
            "rules": {"opponent_choice": self.opponent_choice, "allow_violations": self.allow_violations},
            "current_player": self.current_player,
            "turn_player": self._turn,
            "phase": self._phase,
            "supply": self._supply[::-1],
            "centre": list(self._rows),
            "piles": [list(p) for p in self._piles],
            "stacks": [s[::-1] for s in self._stacks],
            "drawn": self._drawn,
            "finished": list(self._finished),
            "finish_ranks": list(self._finish_rank),
            "ranks": self.ranks,
            "window": window,
            "move": move,
            "last_action": last,
            "stats": [dict(s) for s in self._stats],
        }

    def _load_state(self, state: dict[str, Any]) -> None:
        n = self.num_players

        def cards(value: Any, what: str) -> list[int]:
            if not isinstance(value, list) or any(
                isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= TOP_CARD for c in value
            ):
                raise ValueError(f"{what} must be a list of cards 1..{TOP_CARD}, got {value!r}")
            return list(value)

        def seat(value: Any, what: str) -> int:
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
                raise ValueError(f"{what} must be a seat 0..{n - 1}, got {value!r}")
            return value

        def per_seat(value: Any, what: str) -> list[list[int]]:
            if not isinstance(value, list) or len(value) != n:
                raise ValueError(f"{what} needs one list per seat ({n}), got {value!r}")
            return [cards(v, f"{what}[{i}]") for i, v in enumerate(value)]

        phase = state["phase"]
        if phase not in PHASES:
            raise ValueError(f"phase must be one of {PHASES}, got {phase!r}")
        rows = cards(state["centre"], "centre")
        if len(rows) > MAX_ROWS or any(top > ROW_END for top in rows):
            raise ValueError(f"centre holds at most {MAX_ROWS} row tops 1..{ROW_END}, got {rows!r}")
        self._set_empty()
        self._supply = cards(state["supply"], "supply")[::-1]
        self._rows = rows
        self._piles = per_seat(state["piles"], "piles")
        self._stacks = [s[::-1] for s in per_seat(state["stacks"], "stacks")]
        drawn = state.get("drawn")
        self._drawn = None if drawn is None else cards([drawn], "drawn")[0]
        self._turn = seat(state["turn_player"], "turn_player")
        self._phase = phase
        self._finished = [seat(s, "finished") for s in state.get("finished", [])]
        if len(set(self._finished)) != len(self._finished):
            raise ValueError(f"finished lists a seat twice: {self._finished}")
        finish_ranks = state.get("finish_ranks")
        if finish_ranks is None:
            finish_ranks = [None] * n
            for i, s in enumerate(self._finished):
                finish_ranks[s] = i + 1
        self._finish_rank = list(finish_ranks)
        if len(self._finish_rank) != n or any(
            (r is None) != (s not in self._finished) for s, r in enumerate(self._finish_rank)
        ):
            raise ValueError("finish_ranks must give a rank exactly for the finished seats")
        self._alive = [s not in self._finished for s in range(n)]
        self._n_alive = self._alive.count(True)
        ranks = state.get("ranks")
        self._ranks = None if ranks is None else list(ranks)
        if (phase == "over") != (self._ranks is not None) or (ranks is not None and len(ranks) != n):
            raise ValueError("ranks (one per seat) are given exactly when the phase is 'over'")
        if phase != "over":
            if not self._alive[self._turn]:
                raise ValueError(f"turn_player {self._turn} has finished")
            if not self._supply:
                empty = [s for s in range(n) if self._alive[s] and not self.cards_held(s)]
                if empty:
                    raise ValueError(f"seats {empty} hold no cards with the supply empty: they have finished")
        window = state.get("window")
        if phase == "knock":
            if not window or not window.get("deciders"):
                raise ValueError("phase 'knock' needs a window with deciders")
            self._window = [seat(s, "window deciders") for s in window["deciders"]]
            if any(s == self._turn or not self._alive[s] for s in self._window):
                raise ValueError(f"window deciders {self._window} must be other players still in")
            self._window_break = bool(window.get("rule_break", False))
            self._window_ends_turn = bool(window.get("ends_turn", False))
        move = state.get("move")
        if move is not None:
            self._move = (
                seat(move["player"], "move player"),
                int(move["action"]),
                int(move.get("card", 0)),
                int(move.get("target", -1)),
                bool(move.get("rule_break", False)),
            )
        last = state.get("last_action")
        if last is not None:
            self._last = (seat(last["player"], "last_action player"), int(last["action"]))
        stats = state.get("stats")
        if stats is not None:
            self._stats = [{k: int(s.get(k, 0)) for k in STAT_KEYS} for s in stats]
