"""Live games: one per tab, each with its own engine, opponents and generator; capped and expiring.

A :class:`Session` is one table: a person in ``seat`` (or nobody, when agents are watched),
a policy in every other seat, and the generator they draw from. Seeded as the terminal's
``play`` is (``numpy.random.default_rng(seed)`` deals and decides), a seed and the person's
moves give the same game. A move is checked by the engine before anything changes; the
agents then play until the person decides again, and every move comes back as a frame the
page shows one by one. :class:`Sessions` holds them: at most ``max_games`` at once, each
dropped after ``idle_seconds`` without a request.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from card_envs.core.game import CardGame
from card_envs.core.play import decide
from card_envs.core.policy import Policy
from card_envs.web.security import SECRET_HEADER, same
from card_envs.web.tables import frame_json, result_json, table_json

#: the most agent moves one watch request plays
MAX_ADVANCE = 200


class NotYourTurnError(RuntimeError):
    """A move or an advance that does not fit the table now (another seat decides, the game is
    over, nobody plays in a watched game): the app answers 409."""


class UnknownGameError(KeyError):
    """No live game has this id (never created, ended by the person, or expired): 404."""


class TooManyGamesError(RuntimeError):
    """The cap on live games is reached: 429."""


class WrongSecretError(PermissionError):
    """A request about a game without that game's secret, or with another one: 403."""


@dataclass
class Session:
    """One table: the engine, who sits where, and the generator every agent draws from."""

    game: CardGame
    seat: int | None
    policies: list[Policy | None]
    names: list[str]
    rng: np.random.Generator
    seed: int
    steps: int = 0
    last_used: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: what every request about this game must carry (the id alone moves nothing)
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(18), repr=False)

    def check_secret(self, given: str | None) -> None:
        """Raise :class:`WrongSecretError` unless ``given`` is this game's secret."""
        if given is None:
            raise WrongSecretError(
                f"a request about a game must carry its secret (the header {SECRET_HEADER})"
            )
        if not same(given, self.secret):
            raise WrongSecretError(f"the {SECRET_HEADER} sent is not this game's secret")

    @property
    def truncated(self) -> bool:
        return not self.game.is_over and self.steps >= self.game.default_max_steps

    @property
    def over(self) -> bool:
        return self.game.is_over or self.truncated

    def frame(self, mover: int | None) -> dict[str, Any]:
        return frame_json(self.game, self.seat, self.steps, mover)

    def state(self) -> dict[str, Any]:
        """Everything the page draws now: the table, the person's moves when they decide, the end."""
        game = self.game
        yours = not self.over and self.seat is not None and game.current_player == self.seat
        return {
            "game": game.name,
            "players": game.num_players,
            "rules": game.rules,
            "seat": self.seat,
            "names": self.names,
            "seed": self.seed,
            "step": self.steps,
            "current": None if self.over else game.current_player,
            "phase": game.phase,
            "table": table_json(game, self.seat, text=True),
            "your_turn": yours,
            "choices": [group.to_json() for group in game.move_choices()] if yours else [],
            "result": result_json(game, self.names, self.truncated),
            "legend": game.legend(),
        }

    def _agents_move(self, limit: int) -> list[dict[str, Any]]:
        """Agents play until the person decides, the game ends, or ``limit`` moves were played."""
        frames: list[dict[str, Any]] = []
        game = self.game
        while not self.over and game.current_player != self.seat and len(frames) < limit:
            mover = game.current_player
            policy = self.policies[mover]
            assert policy is not None
            action = decide(policy, game, game.observe(mover), game.action_mask(), self.rng)
            game.step(action)
            self.steps += 1
            frames.append(self.frame(mover))
        return frames

    def start(self) -> list[dict[str, Any]]:
        """The deal, then the agents' moves up to the person's first decision (none when watched)."""
        frames = [self.frame(None)]
        if self.seat is not None:
            frames += self._agents_move(self.game.default_max_steps)
        return frames

    def move(self, action: Any) -> list[dict[str, Any]]:
        """The person plays ``action`` (checked by the engine first; an illegal one raises
        :class:`IllegalActionError` and changes nothing), then the agents reply."""
        if self.seat is None:
            raise NotYourTurnError("nobody plays in a watched game; advance it instead")
        if self.over:
            raise NotYourTurnError("the game is over")
        if self.game.current_player != self.seat:
            raise NotYourTurnError(
                f"player {self.game.current_player} decides now, not you (player {self.seat})"
            )
        action = self.game.check_action(action)
        self.game.step(action)
        self.steps += 1
        return [self.frame(self.seat), *self._agents_move(self.game.default_max_steps)]

    def advance(self, steps: Any) -> list[dict[str, Any]]:
        """Up to ``steps`` agents' moves of a watched game."""
        if self.seat is not None:
            raise NotYourTurnError("this game has a person in it; the agents move after each of their moves")
        if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_ADVANCE:
            raise ValueError(f"steps must be an int 1..{MAX_ADVANCE}, got {steps!r}")
        if self.over:
            raise NotYourTurnError("the game is over")
        return self._agents_move(steps)


class Sessions:
    """The live games of one server, by id: created up to a cap, dropped when idle."""

    def __init__(
        self, max_games: int = 200, idle_seconds: float = 1800.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._games: dict[str, Session] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def expire(self) -> int:
        """Drop every game idle longer than ``idle_seconds``; return how many went."""
        now = self.clock()
        with self._lock:
            idle = [key for key, s in self._games.items() if now - s.last_used > self.idle_seconds]
            for key in idle:
                del self._games[key]
        return len(idle)

    def add(
        self,
        game: CardGame,
        seat: int | None,
        policies: Sequence[Policy | None],
        names: Sequence[str],
        seed: int,
    ) -> tuple[str, Session]:
        """Deal ``game`` from ``seed`` and keep it under a new id (:class:`TooManyGamesError` at the cap)."""
        self.expire()
        rng = np.random.default_rng(seed)
        game.reset(rng)
        session = Session(game, seat, list(policies), list(names), rng, seed, last_used=self.clock())
        with self._lock:
            if len(self._games) >= self.max_games:
                raise TooManyGamesError(
                    f"{self.max_games} games are live, the most this server keeps; close one"
                    f" or wait {self.idle_seconds:.0f} s for idle ones to expire"
                )
            key = secrets.token_urlsafe(12)
            self._games[key] = session
        return key, session

    def get(self, key: str) -> Session:
        self.expire()
        with self._lock:
            session = self._games.get(key)
        if session is None:
            raise UnknownGameError(
                f"no live game {key!r} (it ended, or expired after {self.idle_seconds:.0f} s idle)"
            )
        session.last_used = self.clock()
        return session

    def remove(self, key: str) -> None:
        with self._lock:
            if self._games.pop(key, None) is None:
                raise UnknownGameError(f"no live game {key!r}")
