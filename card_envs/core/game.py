"""The engine interface every game implements: a pure rules engine.

An engine knows nothing of gymnasium or pettingzoo. It holds the full game
state, says whose decision it is (which may be a player who is not on turn,
e.g. during a knock or catch window), exposes the int8 mask of legal actions,
and applies one action at a time. The generic envs in :mod:`card_envs.core`
turn any engine into a PettingZoo AEC env and a single-agent Gymnasium env.
"""

from __future__ import annotations

import functools
import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np

from card_envs.core.checks import check_float, check_int
from card_envs.core.choices import ChoiceGroup, plain_choices
from card_envs.core.layout import ObservationLayout
from card_envs.core.ranking import ranks_after_finishers
from card_envs.core.worlds import SeatView, deal_unknown

if TYPE_CHECKING:
    from card_envs.core.view import TableView

Seed = int | np.random.Generator | None

#: deal seeds are drawn below this bound (they fit in a JSON number and a signed 64-bit int)
SEED_BOUND = 2**63
#: deals of the unknown cards tried before :meth:`CardGame.sample_world` gives up (see there)
SAMPLE_TRIES = 1000


def check_max_steps(max_steps: int | None, game: CardGame) -> int:
    """The step cap of a game's episodes: ``max_steps``, or the game's default for None."""
    if max_steps is None:
        return game.default_max_steps
    return check_int("max_steps", max_steps, 1, 10**9)


@functools.cache
def _keyword_only(function: Any) -> tuple[str, ...]:
    """A function's keyword-only parameters, read once (a search reads a game's rules often)."""
    params = inspect.signature(function).parameters.values()
    return tuple(p.name for p in params if p.kind is p.KEYWORD_ONLY)


class IllegalActionError(ValueError):
    """Raised for an action that is out of range, of the wrong type or masked out.

    The message names the action and the legal choices; the game state is
    left exactly as it was.
    """


class Recorder(Protocol):
    """What the engine tells a game recorder (:class:`card_envs.records.record.GameRecorder`)."""

    def dealt(self, game: CardGame) -> None: ...

    def stepped(self, game: CardGame, player: int, action: int, move: str) -> None: ...


class CardGame(ABC):
    """Base class of a rules engine for one card game.

    Subclasses implement the ``_``-prefixed hooks; the public methods here add
    the checks (action type, range, mask) so that every game rejects bad input
    the same way, and cache the mask so the env and the check share one
    computation per state.
    """

    #: short name used in registries and ``state_dict()["game"]``
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int]
    #: step cap used by the envs unless the user passes ``max_steps``
    default_max_steps: ClassVar[int] = 10_000
    #: the decision asked for now, for games that keep it rather than derive it (see :attr:`phase`)
    _phase: str

    def __init__(self, num_players: int | None = None) -> None:
        if num_players is None:
            num_players = self.default_players
        self.num_players = check_int(
            f"num_players of {self.name}", num_players, self.min_players, self.max_players
        )
        self.rng: np.random.Generator = np.random.default_rng()
        #: the int the current deal's generator was seeded with (a game record needs no more)
        self.seed = 0
        #: writes every game this engine plays, when set (:mod:`card_envs.records.record`)
        self.recorder: Recorder | None = None
        self._mask: np.ndarray | None = None
        self._started = False
        self._dealt_holding = 1.0

    @classmethod
    def rule_names(cls) -> list[str]:
        """The variant keywords: the keyword-only arguments of the constructor."""
        return list(_keyword_only(cls.__init__))

    @classmethod
    def from_rules(cls, num_players: int | None = None, **rules: Any) -> CardGame:
        """Build a game from variant keywords, with ValueError (not TypeError) for unknown ones."""
        known = cls.rule_names()
        unknown = sorted(set(rules) - set(known))
        if unknown:
            raise ValueError(f"unknown {cls.name} rule keyword(s) {unknown}; known: {known}")
        return cls(num_players, **rules)

    @property
    def rules(self) -> dict[str, Any]:
        """This game's variant keywords and their values (each kept as an attribute of that name)."""
        return {name: getattr(self, name) for name in self.rule_names()}

    # ----------------------------------------------------------- static facts
    #: size of the Discrete action space
    num_actions: ClassVar[int]
    #: named fields of the observation vector (set by the subclass; also documents it)
    observation_layout: ObservationLayout

    @property
    def observation_size(self) -> int:
        return self.observation_layout.size

    # ------------------------------------------------------------- lifecycle
    def reset(self, seed: Seed = None) -> None:
        """Deal a new game from an int seed, one drawn from a generator, or a fresh one (None).

        The game keeps its own generator, seeded with the int :attr:`seed`:
        what the game draws (the deal, reshuffles) never depends on what the
        players draw from a shared one, so a seed and the actions replay it.
        """
        if isinstance(seed, np.random.Generator):
            seed = int(seed.integers(SEED_BOUND))
        elif seed is None:
            seed = int(np.random.default_rng().integers(SEED_BOUND))
        self.seed = check_int("seed", seed, 0, SEED_BOUND - 1)
        self.rng = np.random.default_rng(self.seed)
        self._mask = None
        self._started = True
        self._deal()
        self._dealt_holding = self._mean_holding()
        if self.recorder is not None:
            self.recorder.dealt(self)

    def step(self, action: Any) -> None:
        """Apply ``action`` for :attr:`current_player`, or raise and change nothing."""
        action = self.check_action(action)
        if self.recorder is None:
            self._mask = None
            self._apply(action)
            return
        player, move = self.current_player, self.describe_action(action)  # as seen before the move
        self._mask = None
        self._apply(action)
        self.recorder.stepped(self, player, action, move)

    def check_action(self, action: Any) -> int:
        """Return ``action`` as an int if it is legal now, else raise IllegalActionError."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self.is_over:
            raise IllegalActionError(f"the game is over; no action is legal (got {action!r})")
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()  # a 0-d array, as model.predict returns (Discrete.contains takes it)
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                f"action must be an int, got {action!r} ({type(action).__name__});"
                f" legal: {self.legal_actions_text()}"
            )
        action = int(action)
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(
                f"action {action} is out of range 0..{self.num_actions - 1};"
                f" legal: {self.legal_actions_text()}"
            )
        if not self.action_mask()[action]:
            raise IllegalActionError(
                f"action {action} ({self.describe_action(action)}) is not legal for"
                f" player {self.current_player} in phase {self.phase!r};"
                f" legal: {self.legal_actions_text()}"
            )
        return action

    def action_mask(self) -> np.ndarray:
        """Int8 mask of the legal actions of :attr:`current_player` (all 0 once over)."""
        if self._mask is None:
            if self.is_over:
                self._mask = np.zeros(self.num_actions, dtype=np.int8)
            else:
                self._mask = self._legal_mask()
        return self._mask

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.action_mask()).tolist()

    def move_choices(self) -> list[ChoiceGroup]:
        """The legal moves of :attr:`current_player` as a person chooses them (:mod:`card_envs.core.choices`):
        grouped, each with its consequence; the terminal and the web page show these. Default:
        one group of every legal action; a game overrides it to group and explain its moves."""
        return plain_choices(self.legal_actions(), self.describe_action)

    def legal_actions_text(self) -> str:
        return ", ".join(f"{a} ({self.describe_action(a)})" for a in self.legal_actions())

    # ----------------------------------------------------------- game facts
    @property
    @abstractmethod
    def current_player(self) -> int:
        """Seat that decides now (during a window: not necessarily the one on turn)."""

    @property
    def phase(self) -> str:
        """Name of the decision being asked for, e.g. ``"play"`` or ``"catch"``; ``"over"`` at the end.

        Games keep it in ``self._phase`` unless they derive it from their state.
        """
        return self._phase

    @property
    def is_over(self) -> bool:
        """True once the game has ended by its rules."""
        return self.phase == "over"

    @property
    @abstractmethod
    def ranks(self) -> list[int] | None:
        """Rank per seat (1 = best, ties share the better rank) once over, else None."""

    def final_ranks(self) -> list[int]:
        """:attr:`ranks` of a game that is over (an error before the end)."""
        ranks = self.ranks
        if ranks is None:
            raise RuntimeError("the game is not over; it has no ranks yet")
        return ranks

    @abstractmethod
    def cards_held(self, player: int) -> int:
        """What a player still holds, for ranking a truncated game (fewest is best)."""

    def progress(self, player: int) -> float:
        """How far ``player`` has come towards winning, for reward shaping (not for ranks).

        The default is the share shed of what a player held at the deal (on
        average): 0 at the deal, 1 when it holds nothing. A game may define
        its own measure (rows built, chips returned).
        """
        return 1.0 - self.cards_held(player) / self._dealt_holding

    @property
    def dealt_holding(self) -> float:
        """What a player held at the deal, on average (at least 1): the base of :meth:`progress`."""
        return self._dealt_holding

    def _mean_holding(self) -> float:
        return max(1.0, sum(self.cards_held(p) for p in range(self.num_players)) / self.num_players)

    def finished_ranks(self) -> dict[int, int]:
        """Ranks already fixed for players who left before the end (none by default)."""
        return {}

    def truncation_ranks(self) -> list[int]:
        """Ranks of a game stopped by the step cap (docs/rules/, "Rewards").

        Players who already finished keep their ranks; the others follow, by
        fewest cards held, then by seat order after the dealer (seat 0 first).
        """
        return ranks_after_finishers(
            self.num_players, self.finished_ranks(), key=lambda p: (self.cards_held(p), p)
        )

    @abstractmethod
    def observe(self, player: int) -> np.ndarray:
        """Float32 observation vector of everything ``player`` may see."""

    @abstractmethod
    def describe_action(self, action: int) -> str:
        """Human-readable text of an action (for errors, logs and rendering)."""

    def state_dict(self) -> dict[str, Any]:
        """The full state as JSON-able data (replays, debugging, tests).

        The header (``game``, ``num_players``, ``rules``) is the same for every
        game; the rest is the game's own (:meth:`_state_fields`).
        """
        return {**self.state_header(), **self._state_fields()}

    def state_header(self) -> dict[str, Any]:
        """The part of :meth:`state_dict` every game shares: ``game``, ``num_players``, ``rules``."""
        return {"game": self.name, "num_players": self.num_players, "rules": self.rules}

    def load_state_dict(self, state: dict[str, Any], *, dealt_holding: float | None = None) -> None:
        """Set the full state from :meth:`state_dict` output (scenario tests, replays).

        The rules and player count stay those of this instance (a state whose
        header names others is refused); fields derived from the others (such
        as ``current_player``) are ignored; ``self.rng`` and ``self.seed`` are
        kept (set ``rng`` to a generator in a known state if draws must be
        repeatable). The game validates every field; a malformed or
        inconsistent state raises ValueError and changes nothing.

        The deal is not part of a state, so :meth:`progress` counts from the
        loaded position, unless ``dealt_holding`` says what a player held at the
        deal the state was played from (:attr:`dealt_holding` of the game it
        was taken from; :meth:`card_envs.batched.BatchedGame.engine` passes it).
        """
        self._load_checked(state, dealt_holding, views=True)

    def _load_checked(self, state: dict[str, Any], dealt_holding: float | None, views: bool) -> None:
        """:meth:`load_state_dict`; ``views=False`` skips drawing every seat's observation and the
        text, for a sampled world: it only moves hidden cards of a state whose views were drawn."""
        self._check_header(state)
        if dealt_holding is not None:
            dealt_holding = check_float("dealt_holding", dealt_holding, 1.0, float(10**9))
        backup = dict(self.__dict__)  # loaders replace attributes, so a shallow copy restores them
        try:
            self._load_state(state)
            self._mask = None
            self._started = True
            self._dealt_holding = self._mean_holding() if dealt_holding is None else dealt_holding
            self.check_consistency()
            self._check_playable(views)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
            self.__dict__.clear()
            self.__dict__.update(backup)  # a bad state changes nothing
            if isinstance(error, ValueError):
                raise
            raise ValueError(f"bad {self.name} state: {error!r}") from error

    def clone(self) -> CardGame:
        """A new engine of the same table in the same state: position, :attr:`dealt_holding`,
        seed and generator state (so it plays on as this one would); this one is untouched."""
        twin = type(self).from_rules(self.num_players, **self.rules)
        twin.load_state_dict(self.state_dict(), dealt_holding=self._dealt_holding)
        twin.seed = self.seed
        twin.rng.bit_generator.state = self.rng.bit_generator.state
        return twin

    def _check_header(self, state: Any) -> None:
        if not isinstance(state, dict):
            raise ValueError(f"a {self.name} state must be a dict, got {type(state).__name__}")
        if state.get("game") != self.name or state.get("num_players") != self.num_players:
            raise ValueError(
                f"state is for {state.get('game')!r} with {state.get('num_players')!r} players,"
                f" this game is {self.name!r} with {self.num_players}"
            )
        if "rules" in state and state["rules"] != self.rules:
            raise ValueError(f"state has rules {state['rules']!r}, this game has {self.rules!r}")

    # ------------------------------------------------------ hidden cards
    def sample_world(self, seat: int, rng: np.random.Generator) -> CardGame:
        """A full engine that agrees with everything ``seat`` knows, the unknown cards dealt anew.

        The seat's information view (:meth:`_seat_view`, :mod:`card_envs.core.worlds`)
        names the cards the seat cannot place and the slots holding them; one
        uniform permutation of those cards, drawn from ``rng``, fills the slots,
        and the state is loaded into a fresh engine of the same table. The
        sample's own generator (future draws, reshuffles) is seeded from
        ``rng`` too, so its future is not the true one. A deal that breaks a
        rule of the state (e.g. a play half built that the dealt hand cannot
        finish) is refused by the loader and dealt again: the sample is then
        uniform among the deals that fit what the seat saw. The true state is
        left unchanged; the same ``rng`` state gives the same sample.
        """
        return self.world_sampler(seat)(rng)

    def world_sampler(self, seat: int) -> Callable[[np.random.Generator], CardGame]:
        """:meth:`sample_world` for many samples of this position: the seat's view is read once,
        and each call ``sampler(rng)`` deals one world from it. A search draws hundreds of worlds
        from one position; the sampler is valid while this game is not stepped or loaded."""
        if not self._started:
            raise RuntimeError("call reset() (or load_state_dict()) before sample_world()")
        seat = check_int("seat", seat, 0, self.num_players - 1)
        view = self._seat_view(seat)

        def sample(rng: np.random.Generator) -> CardGame:
            if not isinstance(rng, np.random.Generator):
                raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
            world = type(self).from_rules(self.num_players, **self.rules)
            for _ in range(SAMPLE_TRIES):
                try:
                    world._load_checked(view.fill(deal_unknown(view, rng)), self._dealt_holding, views=False)
                except ValueError:
                    continue
                world.seed = int(rng.integers(SEED_BOUND))
                world.rng = np.random.default_rng(world.seed)
                return world
            raise RuntimeError(
                f"no deal of the {len(view.unknown)} cards unknown to seat {seat} fits the state"
                f" after {SAMPLE_TRIES} tries"
            )

        return sample

    @classmethod
    def samples_worlds(cls) -> bool:
        """Whether :meth:`sample_world` works for this game (it defines :meth:`_seat_view`)."""
        return cls._seat_view is not CardGame._seat_view

    def _seat_view(self, seat: int) -> SeatView:
        """What ``seat`` knows (a :class:`card_envs.core.worlds.SeatView`); each game defines it."""
        raise NotImplementedError(f"{self.name} does not sample hidden cards (no _seat_view)")

    def check_consistency(self) -> None:
        """Raise ValueError if the state breaks an invariant of the game.

        Called on every loaded state after its fields were read: cards and
        chips conserved (none lost or duplicated), counts that agree with the
        lists they count, seats in range. Tests also call it after each step.
        A game with no such invariants keeps this default.
        """
        return

    def _check_playable(self, views: bool = True) -> None:
        """A loaded state must answer every query: a decider with a legal move, views for all seats."""
        if not self.is_over:
            check_int("current_player", self.current_player, 0, self.num_players - 1)
            if not self.action_mask().any():
                raise ValueError(f"the loaded state leaves player {self.current_player} no legal action")
        if not views:
            return
        for seat in range(self.num_players):
            self.observe(seat)
        self.render_text()

    def render_text(self, seat: int | None = None, color: bool = False) -> str:
        """The table as text a person can follow, ending with the :meth:`last_move` line.

        ``seat=None`` shows every hand (debugging, replays); a seat shows what
        that player may see, other hands as counts. ``color`` adds ANSI
        colours (:mod:`card_envs.core.colors`) for a terminal.
        """
        return self._render_text(self._view_seat(seat), color)

    def table_view(self, seat: int | None = None) -> TableView | None:
        """The table as data for the picture renderer (``render_mode="rgb_array"``): zones of
        cards as ``seat`` sees them (None: everything), the last move as the footer. None
        for a game without :meth:`_table_view`: the picture then shows the text."""
        view = self._table_view(self._view_seat(seat))
        return None if view is None else replace(view, footer=self.last_move_line())

    def last_move_line(self) -> str:
        """The last line of every table, text or picture."""
        return f"Last move: {self.last_move() or 'none yet'}"

    def _view_seat(self, seat: int | None) -> int | None:
        return None if seat is None else check_int("seat", seat, 0, self.num_players - 1)

    def last_move(self) -> str:
        """One line on the last action and what it caused (cards drawn, penalties, chips
        returned, a knock right or wrong); "" before the first action."""
        return ""

    def legend(self) -> str:
        """What the card codes of :meth:`render_text` and :meth:`describe_action` mean."""
        return ""

    @staticmethod
    def player_name(seat: int) -> str:
        """The one name of a seat everywhere: text, envs (agent ids) and records."""
        return f"player_{seat}"

    def player_info(self, player: int) -> dict[str, float]:
        """Numeric per-player facts for the env's ``infos`` (e.g. a score)."""
        return {}

    # ----------------------------------------------------------------- hooks
    @abstractmethod
    def _deal(self) -> None:
        """Set up a fresh game using ``self.rng``."""

    @abstractmethod
    def _state_fields(self) -> dict[str, Any]:
        """The game's own part of :meth:`state_dict` (everything after the header)."""

    @abstractmethod
    def _load_state(self, state: dict[str, Any]) -> None:
        """Set every field from a ``state_dict()``-shaped dict, checking each (ValueError)."""

    @abstractmethod
    def _legal_mask(self) -> np.ndarray:
        """Compute the int8 mask for the current decision (game not over)."""

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Apply a legal action (already checked)."""

    @abstractmethod
    def _render_text(self, seat: int | None, color: bool) -> str:
        """:meth:`render_text` for a checked seat (or None)."""

    def _table_view(self, seat: int | None) -> TableView | None:
        """:meth:`table_view` for a checked seat, without the footer; None: draw the text."""
        return None
