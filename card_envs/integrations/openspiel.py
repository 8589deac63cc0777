"""OpenSpiel: every game as a pyspiel Python game, so OpenSpiel's algorithms play our games.

    from card_envs.integrations.openspiel import openspiel_game
    game = openspiel_game("uno", 4)              # or pyspiel.load_game("python_card_envs_uno(players=4)")
    state = game.new_initial_state()

Importing this module registers each game of :mod:`card_envs.core.registry` with pyspiel as
``python_card_envs_<name>`` (again on a second import: registering is idempotent). A game's
parameters are ``players``, ``max_steps`` (the step cap, OpenSpiel's ``max_game_length``),
``rng_seed`` (-1: fresh entropy) and the game's variant rules, each with its engine default.

Choices (docs/integrations.md, "OpenSpiel"):

* Chance is ``SAMPLED_STOCHASTIC``: the deal and every later reshuffle come from the engine's
  own generator, which is part of the state (a clone copies it, so a clone's future draws are
  the original's). A state holds no chance node; :meth:`CardEnvsGame.new_initial_state` deals
  from a seed drawn from the game's generator (seeded by ``rng_seed``), and
  :meth:`CardEnvsGame.deal` deals a given seed.
* The observation of a seat (:meth:`CardGame.observe`, :meth:`CardGame.render_text`) is both
  its observation and its information state: what the seat may see now, not a perfect recall
  of its past. ISMCTS keys its nodes by it, which it allows.
* :meth:`CardEnvsState.resample_from_infostate` deals the cards the player cannot see anew
  (:meth:`CardGame.sample_world`), with a future of its own: ISMCTS's determinizations.
* Returns are the zero-sum rank rewards (:func:`card_envs.core.ranking.rank_rewards`); a
  game stopped at ``max_steps`` is ranked by :meth:`CardGame.truncation_ranks`.
"""

from __future__ import annotations

import pickle
from typing import Any, ClassVar

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'card_envs.integrations.openspiel needs OpenSpiel: pip install -e ".[openspiel]"'
    ) from error

import numpy as np

from card_envs.core.checks import check_int
from card_envs.core.game import SEED_BOUND, CardGame
from card_envs.core.ranking import rank_rewards
from card_envs.core.registry import GameRef, game_class, game_spec, game_specs

#: every game's OpenSpiel name is this prefix and the game's name
NAME_PREFIX = "python_card_envs_"
#: the parameters every game takes, besides its rules
COMMON_PARAMETERS = ("players", "max_steps", "rng_seed")
TERMINAL = int(pyspiel.PlayerId.TERMINAL)


def short_name(game: GameRef) -> str:
    """The name a game is registered under in pyspiel: ``python_card_envs_<name>``."""
    return NAME_PREFIX + game_spec(game).name


def register(game: GameRef) -> str:
    """Register one game with pyspiel (nothing happens if it already is); return its short name."""
    name = short_name(game)
    if name not in pyspiel.registered_names():
        engine = game_class(game)
        game_type = _game_type(name, engine)
        members = {"engine_class": engine, "game_type": game_type}
        cls = type(f"{engine.__name__}OpenSpiel", (CardEnvsGame,), members)
        pyspiel.register_game(game_type, cls)
    return name


def register_all() -> list[str]:
    """Register every game of the registry (built-in and plug-in); return their short names."""
    return [register(spec) for spec in game_specs().values()]


def openspiel_game(game: GameRef = "uno", num_players: int | None = None, **params: Any) -> pyspiel.Game:
    """The game as a loaded ``pyspiel.Game`` (registered first if needed).

    ``params``: ``max_steps``, ``rng_seed`` or a rule of the game; ``num_players`` None is the
    game's default table. Unknown names or bad values raise ValueError naming them.
    """
    name = register(game)
    if num_players is not None:
        params["players"] = num_players
    known = set(default_parameters(game_class(game)))
    unknown = sorted(set(params) - known)
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown} of {name}; known: {sorted(known)}")
    return pyspiel.load_game(name, params)


def default_parameters(engine: type[CardGame]) -> dict[str, Any]:
    """Every parameter of a game and its default: the table, the cap, the seed and the rules."""
    return {
        "players": engine.default_players,
        "max_steps": engine.default_max_steps,
        "rng_seed": -1,
        **engine.from_rules(engine.default_players).rules,
    }


def _game_type(name: str, engine: type[CardGame]) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=name,
        long_name=f"card_envs {engine.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=engine.max_players,
        min_num_players=engine.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=default_parameters(engine),
    )


class CardEnvsGame(pyspiel.Game):
    """One of our games as a pyspiel game; :func:`register` makes a subclass per game."""

    engine_class: ClassVar[type[CardGame]]
    game_type: ClassVar[pyspiel.GameType]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        values = {**default_parameters(self.engine_class), **(params or {})}
        self.rules = {k: v for k, v in values.items() if k not in COMMON_PARAMETERS}
        self.engine_class.from_rules(values["players"], **self.rules)  # a bad table or rule raises here
        self.num_seats: int = values["players"]
        self.max_steps = check_int("max_steps", values["max_steps"], 1, 10**9)
        seed = check_int("rng_seed", values["rng_seed"], -1, SEED_BOUND - 1)
        self.rng = np.random.default_rng(None if seed == -1 else seed)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.engine_class.num_actions,
            max_chance_outcomes=0,
            num_players=self.num_seats,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.max_steps,
        )
        super().__init__(self.game_type, info, params or {})

    def new_engine(self) -> CardGame:
        """An engine of this game's table and rules, not dealt yet."""
        return self.engine_class(self.num_seats, **self.rules)

    def new_initial_state(self) -> CardEnvsState:
        """A fresh deal, from a seed drawn from this game's generator (parameter ``rng_seed``).

        OpenSpiel's clone of a Python state starts from a new initial state too, so the
        deals that follow a seeded game depend on how often it was cloned: use :meth:`deal`
        to repeat one."""
        return self.deal(int(self.rng.integers(SEED_BOUND)))

    def deal(self, seed: int) -> CardEnvsState:
        """The state dealt from ``seed``: the deal ``CardGame.reset(seed)`` makes."""
        return CardEnvsState(self, check_int("seed", seed, 0, SEED_BOUND - 1))

    def state_at(self, engine: CardGame) -> CardEnvsState:
        """A state holding a copy of ``engine``'s position (its history starts there), so that an
        OpenSpiel bot can decide in a position our engines reached (bench/search.py)."""
        if type(engine) is not self.engine_class or engine.num_players != self.num_seats:
            raise ValueError(f"a {engine.num_players}-player {engine.name} position does not fit {self}")
        state = self.deal(engine.seed)
        state._held = HeldEngine(engine)
        state = state.clone()  # the copy: the bot's moves must not touch the caller's engine
        state.over = state.engine.is_over
        return state

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> SeatObserver:
        return SeatObserver(self, iig_obs_type, params)


class HeldEngine:
    """A state's engine, copied by a pickle round trip when OpenSpiel clones the state.

    OpenSpiel clones a Python state by deep-copying each of its attributes; pickling copies
    our engines in about half the time ``copy.deepcopy`` takes (a game's engine must pickle).
    """

    __slots__ = ("engine",)

    def __init__(self, engine: CardGame) -> None:
        self.engine = engine

    def __deepcopy__(self, memo: dict[int, Any]) -> HeldEngine:
        return HeldEngine(pickle.loads(pickle.dumps(self.engine, pickle.HIGHEST_PROTOCOL)))


class CardEnvsState(pyspiel.State):
    """A position: our engine, the seed it was dealt from and the steps played (the game ends
    at ``max_steps``).

    The engine is dealt when first used: OpenSpiel clones a Python state by making a new
    initial state and copying the attributes of the original over it, so a deal made at
    once would be thrown away.
    """

    def __init__(self, game: CardEnvsGame, seed: int) -> None:
        super().__init__(game)
        #: the seed of the deal: ``CardGame.reset(seed)`` and the :meth:`history` replay this state
        self.seed = seed
        self.steps = 0
        self.max_steps = game.max_steps
        #: the game has ended, by its rules or at the cap (kept: OpenSpiel asks many times a step)
        self.over = False
        self._held: HeldEngine | None = None  # None: not dealt yet

    @property
    def engine(self) -> CardGame:
        """The rules engine holding the full position, hidden cards included."""
        if self._held is None:
            engine = self.get_game().new_engine()
            engine.reset(self.seed)
            self._held = HeldEngine(engine)
        return self._held.engine

    def current_player(self) -> int:
        if self.over:
            return TERMINAL
        return self.engine.current_player

    def _legal_actions(self, player: int) -> list[int]:
        if self.over or player != self.engine.current_player:
            return []
        return self.engine.legal_actions()

    def _apply_action(self, action: int) -> None:
        self.engine.step(action)
        self.steps += 1
        self.over = self.engine.is_over or self.steps >= self.max_steps

    def _action_to_string(self, player: int, action: int) -> str:
        return f"player_{player}: {self.engine.describe_action(action)}"

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> list[float]:
        """Rank rewards at the end (the cap's ranks if the game was stopped there), zeros before."""
        if self.engine.is_over:
            return rank_rewards(self.engine.final_ranks())
        if self.steps >= self.max_steps:
            return rank_rewards(self.engine.truncation_ranks())
        return [0.0] * self.engine.num_players

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CardEnvsState:
        """A state ``player_id`` cannot tell from this one: the hidden cards dealt anew.

        The deal comes from :meth:`CardGame.sample_world`, which reads only what the player
        sees; its generator is seeded from ``probability_sampler`` (a callable giving uniform
        floats in [0, 1), as ``pyspiel.UniformProbabilitySampler``). The sample keeps this
        state's history, seed and step count."""
        seed = int(probability_sampler() * 2**53)
        world = self.engine.sample_world(player_id, np.random.default_rng(seed))
        held, self._held = self._held, None  # clone the history, not the engine the sample replaces
        try:
            sample = self.clone()
        finally:
            self._held = held
        sample._held = HeldEngine(world)
        return sample

    def __str__(self) -> str:
        return f"step {self.steps}\n{self.engine.render_text(None)}"


class SeatObserver:
    """One seat's view, as pyspiel's ``PyObserver``: the observation vector and the table text.

    The same for observations and information states (perfect recall asked or not): the
    seat's view now. Views without the seat's private cards (public-only) are not provided.
    """

    def __init__(
        self, game: CardEnvsGame, iig_obs_type: pyspiel.IIGObservationType | None, params: Any
    ) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is not None and (
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info
        ):
            raise ValueError(
                "only a seat's own view is provided (private_info=SINGLE_PLAYER, public_info=True);"
                f" got private_info={iig_obs_type.private_info.name},"
                f" public_info={iig_obs_type.public_info}"
            )
        self.tensor = np.zeros(game.new_engine().observation_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CardEnvsState, player: int) -> None:
        self.tensor[:] = state.engine.observe(player)

    def string_from(self, state: CardEnvsState, player: int) -> str:
        return state.engine.render_text(player)


register_all()
