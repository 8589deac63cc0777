"""Live games: one per table, each with its own engine, players and generator; capped and expiring.

A :class:`Session` is one table: people in some seats (none, when agents are watched), a
policy in every other seat, and the generator they all draw from. Seeded as the terminal's
``play`` is (``numpy.random.default_rng(seed)`` deals and decides), a seed and the people's
moves give the same game. Each person (or the watcher) has a secret that every request
carries; it says which seat asks, so each sees only what that seat sees. A move is checked
by the engine before anything changes; the agents then play until a person decides again.
Every move is kept as a frame for each viewer, so the page of a person who waits fetches the
moves made since it last asked. A person's seat has a stand-in policy too: it plays for them
while they are away (no request for ``away_seconds``: never joined, left, or gone). Every
move comes back as a frame the page shows one by one. :class:`Sessions` holds them: at most
``max_games`` at once, each dropped after ``idle_seconds`` without a request.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from card_envs.core.game import CardGame
from card_envs.core.play import decide
from card_envs.core.policy import Policy
from card_envs.records.people import STAND_IN
from card_envs.records.record import GameRecorder
from card_envs.web.security import SECRET_HEADER, same
from card_envs.web.tables import frame_json, result_json, table_json

#: the most agent moves one watch request plays
MAX_ADVANCE = 200
#: the frames kept for a viewer who has not asked for them (an invited friend not yet there)
KEPT_FRAMES = 2000
#: who watches a game with no person in it (the viewer's key where people have their seats)
WATCHER = None
#: a viewer: a person's seat, or :data:`WATCHER`
Viewer = int | None


class NotYourTurnError(RuntimeError):
    """A move or an advance that does not fit the table now (another seat decides, the game is
    over, nobody plays in a watched game): the app answers 409."""


class UnknownGameError(KeyError):
    """No live game has this id (never created, ended by the person, or expired): 404."""


class TooManyGamesError(RuntimeError):
    """The cap on live games is reached: 429."""


class WrongSecretError(PermissionError):
    """A request about a game without one of that game's secrets: 403."""


@dataclass
class Session:
    """One table: the engine, who sits where, and the generator every agent draws from.

    ``people`` are the seats of people, the creator's first; ``policies`` has every seat's
    policy, a person's seat its stand-in's."""

    game: CardGame
    people: tuple[int, ...]
    policies: list[Policy]
    names: list[str]
    rng: np.random.Generator
    seed: int
    clock: Callable[[], float] = time.monotonic
    away_seconds: float = 60.0
    steps: int = 0
    last_used: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)
    secrets: dict[Viewer, str] = field(init=False, repr=False)
    seen: dict[Viewer, float] = field(init=False)
    frames: dict[Viewer, deque[dict[str, Any]]] = field(init=False, repr=False)
    left: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        viewers: list[Viewer] = list(self.people) or [WATCHER]
        self.secrets = {viewer: secrets.token_urlsafe(18) for viewer in viewers}
        now = self.clock()
        self.seen = dict.fromkeys(viewers, now)
        self.frames = {viewer: deque(maxlen=KEPT_FRAMES) for viewer in viewers}

    @property
    def seat(self) -> Viewer:
        """The creator's seat (None: a watched game)."""
        return self.people[0] if self.people else WATCHER

    @property
    def secret(self) -> str:
        """The creator's secret."""
        return self.secrets[self.seat]

    def invites(self) -> list[dict[str, Any]]:
        """Each other person's seat and secret, for the creator to hand on."""
        return [{"seat": seat, "secret": self.secrets[seat]} for seat in self.people[1:]]

    def viewer(self, given: str | None) -> Viewer:
        """Whose secret ``given`` is (and that they are here now); :class:`WrongSecretError` if none."""
        if given is None:
            raise WrongSecretError(
                f"a request about a game must carry its secret (the header {SECRET_HEADER})"
            )
        found = [viewer for viewer, secret in self.secrets.items() if same(given, secret)]
        if not found:
            raise WrongSecretError(f"the {SECRET_HEADER} sent is not one of this game's secrets")
        self.seen[found[0]] = self.clock()
        return found[0]

    def present(self, seat: int) -> bool:
        """A person is in ``seat`` and asked something within ``away_seconds``."""
        if seat not in self.people or seat in self.left:
            return False
        return self.clock() - self.seen[seat] < self.away_seconds

    @property
    def truncated(self) -> bool:
        return not self.game.is_over and self.steps >= self.game.default_max_steps

    @property
    def over(self) -> bool:
        return self.game.is_over or self.truncated

    def names_for(self, viewer: Viewer) -> list[str]:
        return ["you" if seat == viewer else name for seat, name in enumerate(self.names)]

    def state(self, viewer: Viewer) -> dict[str, Any]:
        """Everything ``viewer``'s page draws now: the table as that seat sees it, their moves
        when they decide, the end."""
        game = self.game
        yours = not self.over and viewer is not None and game.current_player == viewer
        names = self.names_for(viewer)
        return {
            "game": game.name,
            "players": game.num_players,
            "rules": game.rules,
            "seat": viewer,
            "people": list(self.people),
            "present": [seat for seat in self.people if self.present(seat)],
            "names": names,
            "seed": self.seed,
            "step": self.steps,
            "current": None if self.over else game.current_player,
            "phase": game.phase,
            "table": table_json(game, viewer, text=True),
            "your_turn": yours,
            "choices": [group.to_json() for group in game.move_choices()] if yours else [],
            "result": result_json(game, names, self.truncated),
            "legend": game.legend(),
        }

    def frames_since(self, viewer: Viewer, step: int) -> list[dict[str, Any]]:
        """``viewer``'s frames after ``step`` (-1: from the deal on), as far as they are kept.

        Those are then dropped: a page that asks from ``step`` has the ones before, and now
        these, so a present person's frames never pile up (only an absent one's, up to
        :data:`KEPT_FRAMES`)."""
        kept = self.frames[viewer]
        found = [frame for frame in kept if frame["step"] > step]
        kept.clear()
        return found

    def _record(self, mover: int | None) -> None:
        for viewer, kept in self.frames.items():
            kept.append(frame_json(self.game, viewer, self.steps, mover))

    def _agents_move(self, limit: int) -> None:
        """Agents (and the stand-ins of people away) play until a person here decides, the game
        ends, or ``limit`` moves were played."""
        game = self.game
        played = 0
        while not self.over and not self.present(game.current_player) and played < limit:
            mover = game.current_player
            action = decide(self.policies[mover], game, game.observe(mover), game.action_mask(), self.rng)
            if mover in self.people and isinstance(game.recorder, GameRecorder):
                game.recorder.mark_next(by=STAND_IN)  # not the person's own move
            game.step(action)
            self.steps += 1
            played += 1
            self._record(mover)

    def start(self) -> list[dict[str, Any]]:
        """The deal, then the agents' moves up to a person's first decision (none when
        watched): the creator's frames."""
        self._record(None)
        if self.people:
            self._agents_move(self.game.default_max_steps)
        return self.frames_since(self.seat, -1)

    def catch_up(self, viewer: Viewer, step: int | None) -> list[dict[str, Any]]:
        """The stand-ins play for people away, then ``viewer``'s frames after ``step`` (None:
        none, and those kept stay for a later ask)."""
        if self.people:
            self._agents_move(self.game.default_max_steps)
        return [] if step is None else self.frames_since(viewer, step)

    def move(self, viewer: Viewer, action: Any) -> list[dict[str, Any]]:
        """The person in ``viewer``'s seat plays ``action`` (checked by the engine first; an
        illegal one raises :class:`IllegalActionError` and changes nothing), then the agents
        reply; their frames."""
        if viewer is None:
            raise NotYourTurnError("nobody plays in a watched game; advance it instead")
        if self.over:
            raise NotYourTurnError("the game is over")
        if self.game.current_player != viewer:
            raise NotYourTurnError(
                f"player {self.game.current_player} decides now, not you (player {viewer})"
            )
        action = self.game.check_action(action)
        before = self.steps
        self.game.step(action)
        self.steps += 1
        self._record(viewer)
        self._agents_move(self.game.default_max_steps)
        return self.frames_since(viewer, before)

    def advance(self, viewer: Viewer, steps: Any) -> list[dict[str, Any]]:
        """Up to ``steps`` agents' moves of a watched game."""
        if self.people:
            raise NotYourTurnError("this game has a person in it; the agents move after each of their moves")
        if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_ADVANCE:
            raise ValueError(f"steps must be an int 1..{MAX_ADVANCE}, got {steps!r}")
        if self.over:
            raise NotYourTurnError("the game is over")
        before = self.steps
        self._agents_move(steps)
        return self.frames_since(viewer, before)

    def close(self) -> None:
        """The game is dropped: a recorded one is written as far as it went."""
        if isinstance(self.game.recorder, GameRecorder):
            self.game.recorder.save()

    def leave(self, viewer: Viewer) -> bool:
        """``viewer`` leaves (their stand-in plays on for them); True when nobody is left."""
        if viewer is not None:
            self.left.add(viewer)
        return viewer is None or self.left >= set(self.people)


class Sessions:
    """The live games of one server, by id: created up to a cap, dropped when idle."""

    def __init__(
        self,
        max_games: int = 200,
        idle_seconds: float = 1800.0,
        clock: Callable[[], float] = time.monotonic,
        away_seconds: float = 60.0,
    ) -> None:
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self.away_seconds = away_seconds
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
                self._games.pop(key).close()
        return len(idle)

    def add(
        self,
        game: CardGame,
        people: Sequence[int],
        policies: Sequence[Policy],
        names: Sequence[str],
        seed: int,
    ) -> tuple[str, Session]:
        """Deal ``game`` from ``seed`` and keep it under a new id (:class:`TooManyGamesError` at the cap)."""
        self.expire()
        rng = np.random.default_rng(seed)
        game.reset(rng)
        session = Session(
            game,
            tuple(people),
            list(policies),
            list(names),
            rng,
            seed,
            clock=self.clock,
            away_seconds=self.away_seconds,
            last_used=self.clock(),
        )
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
            session = self._games.pop(key, None)
        if session is None:
            raise UnknownGameError(f"no live game {key!r}")
        session.close()
