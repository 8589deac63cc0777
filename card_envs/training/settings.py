"""What defines a training run, in small groups that each check themselves before any work.

* the table: a :class:`~card_envs.core.table.Table` (the game's spec, its players and rules);
* the opponents: one policy spec per other seat (or one for all), a tuple of strings;
* :class:`LearnerSettings`: what the learner's env adds (reward shaping, the mask in the
  observation, scaled inputs);
* :class:`PPOSettings`: MaskablePPO's hyperparameters (None: the default for the game);
* :class:`ImitationSettings`: the teacher imitated before PPO, and how long;
* :class:`RunSettings`: steps, env workers, seeds, evaluations, checkpoints, threads;
* :class:`~card_envs.training.league.LeagueSettings`: the pool of ``opponents=("league",)``.

A game's spec names its measured recipe (``GameSpec.recipe``, docs/learning.md):
:meth:`TrainSettings.from_options` with ``recipe="quick"`` or ``"full"`` fills every option
left out (or None) from it, so ``train.py --game G`` trains as the learning benchmark does.

:class:`TrainSettings` (the sb3 backend) holds all six; a backend that uses fewer owns a
class of its own (:class:`card_envs.integrations.rllib.RllibSettings`), so a run's
``settings.json`` says exactly what its backend used. Every ``check()`` validates
without building an env or loading a network: it runs before the run directory is touched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from card_envs.agents.policy_spec import spec_kind
from card_envs.agents.pretrained import is_pretrained_spec, load_pretrained
from card_envs.agents.specs import check_spec, check_trained_run
from card_envs.core.fields import flat_names, option
from card_envs.core.registry import game_spec
from card_envs.core.spec import GameSpec
from card_envs.core.table import Table
from card_envs.training.league import LEAGUE, LeagueSettings, league_pool

#: PPO settings of every run unless the settings override them
DEFAULT_PPO: dict[str, Any] = {
    "n_steps": 1024,
    "batch_size": 256,
    "n_epochs": 5,
    "learning_rate": 3e-4,
    "gamma": 0.995,
    "ent_coef": 0.01,
    "net_arch": [256, 256],
}


def ppo_default(name: str) -> str:
    """The help's default of a PPO setting: DEFAULT_PPO's, tuned per game and after imitation."""
    value = DEFAULT_PPO[name]
    shown = ",".join(map(str, value)) if isinstance(value, list) else value
    return f"{shown}; some games and imitated starts tune it: docs/learning.md"


#: changes to DEFAULT_PPO when the network starts from a teacher: smaller steps and less entropy
#: bonus, so PPO refines the imitated play instead of first flattening it (Chip It: with the
#: defaults -0.67 -> -0.48 after 100k steps, with these -0.11 -> -0.02; docs/learning.md)
FINE_TUNING_PPO: dict[str, Any] = {"learning_rate": 1e-4, "ent_coef": 0.001}
#: what a setting left at None takes when its game's recipe (GameSpec.recipe) names none: the
#: recipe is the one source of a game's defaults (the teachers there are the strongest
#: scripted players whose imitation started PPO ahead; docs/learning.md)
GENERAL_DEFAULTS: dict[str, Any] = {
    "reward_shaping": 0.0,
    "mask_in_observation": False,
    "teacher": "",
    "imitation_steps": 100_000,
    "imitation_epochs": 8,
    "imitation_smoothing": 0.0,
    "imitation_rounds": 1,
    "imitation_lr": 1e-3,
}


def game_default(game: GameSpec, name: str) -> Any:
    """A setting's default at ``game``: its recipe's value, else the general one."""
    return game.recipe.get(name, GENERAL_DEFAULTS[name])


def check_count(name: str, value: Any, low: int = 1) -> None:
    """A whole number of at least ``low``, or ValueError naming the setting."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")


def check_number(name: str, value: Any, low: float, high: float, *, open_low: bool = False) -> None:
    """A finite number in ``low..high`` (``open_low``: above ``low``), or ValueError naming it."""
    bad = isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
    if bad or not (value > low if open_low else value >= low) or value > high:
        bound = f"in ({low}, {high}]" if open_low else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be a number {bound}, got {value!r}")


@dataclass(frozen=True)
class LearnerSettings:
    """What the learner's env adds to the game (None: the game's default, :func:`game_default`)."""

    #: weight of the dense, zero-sum progress reward (card_envs.envs.single)
    reward_shaping: float | None = option(
        help="weight of the dense progress reward", flag="shaping", shown="the game's recipe, else 0"
    )
    mask_in_observation: bool | None = option(
        help="append the legal-action mask to the observation", shown="off"
    )
    #: divide each observation entry by its declared bound inside the network (card_envs.agents.networks)
    scale_observations: bool = True

    def resolved(self, game: GameSpec) -> LearnerSettings:
        """These settings with every None replaced by the game's default."""
        shaping = (
            self.reward_shaping if self.reward_shaping is not None else game_default(game, "reward_shaping")
        )
        mask = self.mask_in_observation
        mask = mask if mask is not None else game_default(game, "mask_in_observation")
        return LearnerSettings(float(shaping), bool(mask), self.scale_observations)

    def check(self, game: GameSpec) -> None:
        check_number("reward_shaping", self.resolved(game).reward_shaping, 0.0, 100.0)


@dataclass(frozen=True)
class PPOSettings:
    """MaskablePPO's hyperparameters; None takes DEFAULT_PPO, tuned by FINE_TUNING_PPO when the
    network starts trained, and by the game's defaults."""

    n_steps: int | None = option(help="rollout steps per env and update", low=1, shown=ppo_default("n_steps"))
    batch_size: int | None = option(help="minibatch size", low=1, shown=ppo_default("batch_size"))
    n_epochs: int | None = option(
        help="passes per update", low=1, flag="epochs", shown=ppo_default("n_epochs")
    )
    learning_rate: float | None = option(help="learning rate", flag="lr", shown=ppo_default("learning_rate"))
    gamma: float | None = option(help="discount factor, at most 1", shown=ppo_default("gamma"))
    ent_coef: float | None = option(help="entropy bonus", shown=ppo_default("ent_coef"))
    net_arch: tuple[int, ...] | None = option(help="hidden layer widths", shown=ppo_default("net_arch"))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> PPOSettings:
        """From a mapping of DEFAULT_PPO's names, refusing unknown ones."""
        unknown = sorted(set(values) - set(DEFAULT_PPO))
        if unknown:
            raise ValueError(f"unknown PPO setting(s) {unknown}; known: {sorted(DEFAULT_PPO)}")
        given = dict(values)
        if given.get("net_arch") is not None:
            given["net_arch"] = tuple(given["net_arch"])
        return cls(**given)

    def resolved(self, starts_trained: bool) -> dict[str, Any]:
        """Every setting as the run uses it (a game's recipe sets its PPO settings through
        ``recipe=``, as the options it fills)."""
        given = {k: v for k, v in asdict(self).items() if v is not None}
        merged = {**DEFAULT_PPO, **(FINE_TUNING_PPO if starts_trained else {}), **given}
        merged["net_arch"] = list(merged["net_arch"])
        return merged

    def check(self) -> None:
        for name in ("n_steps", "batch_size", "n_epochs"):
            if getattr(self, name) is not None:
                check_count(name, getattr(self, name))
        if self.learning_rate is not None:
            check_number("learning_rate", self.learning_rate, 0.0, 1.0)  # 0: a run that learns nothing
        if self.gamma is not None:
            check_number("gamma", self.gamma, 0.0, 1.0, open_low=True)
        if self.ent_coef is not None:
            check_number("ent_coef", self.ent_coef, 0.0, 1.0)
        if self.net_arch is not None:
            if not self.net_arch:
                raise ValueError("net_arch needs at least one layer, e.g. 256,256")
            for width in self.net_arch:
                check_count("net_arch layer width", width)


@dataclass(frozen=True)
class ImitationPlan:
    """The imitation a run does, every default resolved ("" teacher: none)."""

    teacher: str
    steps: int
    epochs: int
    smoothing: float
    rounds: int
    learning_rate: float


@dataclass(frozen=True)
class ImitationSettings:
    """The teacher the network imitates before PPO (None: the game's default; "": none)."""

    teacher: str | None = option(
        help="a policy spec the network imitates before PPO, e.g. rule:vigilance=1.0, or none",
        name="teacher",
        shown="the game's recipe, see docs/learning.md",
    )
    steps: int | None = option(
        help="teacher decisions to imitate", low=1, shown="the game's recipe, else 100,000"
    )
    epochs: int | None = option(help="passes over them", low=1, shown="the game's recipe, else 8")
    smoothing: float | None = option(
        help="share of the imitation target spread over the legal actions, so PPO can still move the policy",
        shown="0",
    )
    rounds: int | None = option(
        help="expert iteration with a search teacher: each round after the first, the search plays"
        " with the network as its prior and rollout player and the network imitates it",
        low=1,
        shown="1",
    )
    learning_rate: float | None = option(
        help="Adam's step size while imitating (smaller to fine-tune an --init-from network)",
        positive=True,
        name="imitation_lr",
        shown="1e-3",
    )
    records: tuple[str, ...] = option(
        (),
        "folders or files of games people played (python -m card_envs.web --record DIR): the"
        " network imitates the people's own decisions before PPO, instead of a --teacher",
        name="imitate",
        nargs="+",
        shown="none",
        metavar="RECORDS",
    )

    def resolved(self, game: GameSpec) -> ImitationPlan:
        def pick(value: Any, name: str) -> Any:
            return value if value is not None else game_default(game, name)

        return ImitationPlan(
            str(pick(self.teacher, "teacher")),
            int(pick(self.steps, "imitation_steps")),
            int(pick(self.epochs, "imitation_epochs")),
            float(pick(self.smoothing, "imitation_smoothing")),
            int(pick(self.rounds, "imitation_rounds")),
            float(pick(self.learning_rate, "imitation_lr")),
        )

    def check(self, table: Table) -> None:
        used = self.resolved(table.spec)
        check_count("imitation_steps", used.steps)
        check_count("imitation_epochs", used.epochs)
        if not 0 <= used.smoothing < 1:
            raise ValueError(f"imitation_smoothing must be in [0, 1), got {used.smoothing}")
        check_count("imitation_rounds", used.rounds)
        check_number("imitation_lr", used.learning_rate, 0.0, 1.0, open_low=True)
        if self.records and self.teacher:
            raise ValueError("imitate either people's records or a teacher, not both")
        missing = [path for path in self.records if not Path(path).exists()]
        if missing:
            raise ValueError(f"imitation records: no such file or folder: {', '.join(missing)}")
        if used.teacher and not self.records:
            check_spec(used.teacher, table, what="teacher")
        if used.rounds > 1 and not (used.teacher and spec_kind(used.teacher) == "search"):
            raise ValueError(
                f"imitation_rounds {used.rounds} needs a search teacher (search:...), got {used.teacher!r}"
            )


@dataclass(frozen=True)
class ImprovementSettings:
    """Search as a teacher by soft targets (:mod:`card_envs.training.improvement`), after the
    network is loaded or has imitated and before PPO: ``games`` games of the network against
    itself, each decision's ``width`` most probable moves played in the same ``worlds`` sampled
    worlds and played out by ``rollout`` players, the network fitted to ``p exp(beta * advantage)``
    (0 games: none)."""

    games: int = option(0, "games of the network against itself whose decisions are valued", shown="0, none")
    width: int = option(4, "the network's most probable moves valued at each decision", low=2)
    worlds: int = option(16, "sampled worlds each of them is played in", low=2)
    rollout: str = option("heuristic", "who plays every seat of the play-outs, a spec with a batched twin")
    beta: float = option(10.0, "how far the fit moves towards moves that gain: p exp(BETA * advantage)")
    epochs: int = option(30, "passes over the valued decisions", low=1)
    learning_rate: float = option(3e-4, "Adam's step size while fitting", positive=True, name="improve_lr")

    def check(self, table: Table) -> None:
        check_count("improve_games", self.games, 0)
        check_count("improve_width", self.width, 2)
        check_count("improve_worlds", self.worlds, 2)
        check_number("improve_beta", self.beta, 0.0, 1000.0)
        check_count("improve_epochs", self.epochs)
        check_number("improve_lr", self.learning_rate, 0.0, 1.0, open_low=True)
        check_spec(self.rollout, table, what="improve_rollout")
        if spec_kind(self.rollout) == "search":
            raise ValueError(
                f"improve_rollout {self.rollout!r}: play-outs run on the batched engine, which a search"
                " player cannot decide from; use a scripted player or a network"
            )
        if self.games and table.spec.batched is None:
            raise ValueError(f"improve_games plays out on a batched engine; {table.name!r} has none")


@dataclass(frozen=True)
class RunSettings:
    """How long, how wide and how watched a run is."""

    timesteps: int = option(
        150_000,
        "learner decisions (PPO ends its last rollout; 0: the imitation alone, no PPO)",
        shown="the recipe's, else 50,000",
    )
    envs: int = option(
        2, "env worker processes, or games with --vectorized", low=1, shown="the recipe's, else 2"
    )
    seed: int = 0  # train.py's --seed is every tool's (card_envs.cli.args.add_game_arguments)
    vectorized: bool = option(
        False,
        "step the --envs games together on the game's compiled batched engine, in this process"
        " (docs/performance.md); PPO's rollout is --n-steps per game",
        shown="the recipe's",
        negatable=True,
    )
    threads: int = option(1, "torch and numba threads per process", low=1)
    max_minutes: float | None = option(
        help="stop after this much wall time, imitation included", positive=True, shown="no limit"
    )
    eval_every: int = option(50_000, "steps between evaluations", low=1)
    eval_games: int = option(100, "games per periodic evaluation", low=1)
    stop_when_ahead: bool = option(
        False,
        "end the run at the first periodic evaluation whose mean-reward interval lies above 0",
        shown="off",
    )
    checkpoint_every: int = option(50_000, "steps between checkpoints", low=1)
    snapshot_every: int = option(20_000, "self-play: steps between snapshots", low=1)
    init_from: str = option(
        "",
        "continue from the network of a trained run (directory or .zip), e.g. self-play after"
        " training against rule-based players, or from the shipped agent's actor (pretrained) with a"
        " new value network; it imitates only a --teacher named with it",
        metavar="RUN",
        shown="none",
    )

    def check(self, table: Table) -> None:
        for name in ("envs", "eval_every", "eval_games", "checkpoint_every", "snapshot_every"):
            check_count(name, getattr(self, name))
        check_count("timesteps", self.timesteps, 0)  # 0: the imitation alone (TrainSettings.check)
        check_count("threads", self.threads)
        check_count("seed", self.seed, 0)
        if self.max_minutes is not None:
            check_number("max_minutes", self.max_minutes, 0.0, 10**7, open_low=True)
        if self.vectorized and table.spec.batched is None:
            raise ValueError(f"vectorized training needs a batched engine; {table.name!r} has none")
        if is_pretrained_spec(self.init_from):
            check_spec(self.init_from, table, what="init_from")
        elif self.init_from:
            check_trained_run(self.init_from, table.engine(), what="init_from")


#: the groups of settings a flat name may set (TrainSettings.from_options, train.py's options),
#: with the prefix of their flat names (``imitation_steps`` is ImitationSettings.steps)
SETTING_GROUPS: dict[str, tuple[str, type]] = {
    "learner": ("", LearnerSettings),
    "imitation": ("imitation_", ImitationSettings),
    "improvement": ("improve_", ImprovementSettings),
    "run": ("", RunSettings),
    "league": ("league_", LeagueSettings),
}
#: how a recipe scales its run (GameSpec.recipe's "timesteps" names one count per recipe)
RECIPES = ("quick", "full")
#: the options a recipe may set (TrainSettings.from_options names)
RECIPE_OPTIONS = (
    "teacher",
    "imitation_steps",
    "imitation_epochs",
    "reward_shaping",
    "vectorized",
    "envs",
    "ppo",
    "timesteps",
)


def recipe_options(spec: GameSpec, recipe: str) -> dict[str, Any]:
    """The options ``recipe`` (quick or full) sets for the game of ``spec``: its spec's
    measured recipe, with the timesteps of that scale; ValueError naming a bad one."""
    if recipe not in RECIPES:
        raise ValueError(f"recipe must be one of {list(RECIPES)}, got {recipe!r}")
    options = dict(spec.recipe)
    unknown = sorted(set(options) - set(RECIPE_OPTIONS))
    if unknown:
        raise ValueError(
            f"{spec.name}'s recipe names unknown option(s) {unknown}; known: {list(RECIPE_OPTIONS)}"
        )
    if "timesteps" in options:
        scales = options["timesteps"]
        if not isinstance(scales, Mapping) or set(scales) != set(RECIPES):
            raise ValueError(f"{spec.name}'s recipe timesteps must name {list(RECIPES)}, got {scales!r}")
        options["timesteps"] = scales[recipe]
    return options


def seats_of(opponents: tuple[str, ...] | list[str], num_players: int) -> list[str]:
    """One opponent spec per other seat (one spec given: the same in every seat)."""
    return list(opponents) * (num_players - 1) if len(opponents) == 1 else list(opponents)


def check_opponents(opponents: tuple[str, ...] | list[str], table: Table) -> None:
    """One spec, or one per other seat, each one that could be built ("league" only alone)."""
    n_other = table.num_players - 1
    if LEAGUE in opponents and len(opponents) != 1:
        raise ValueError(f"opponents 'league' fills every other seat; give it alone, got {list(opponents)}")
    if list(opponents) == [LEAGUE]:
        return
    if len(opponents) not in (1, n_other):
        raise ValueError(f"opponents needs 1 spec or {n_other} (one per other seat), got {list(opponents)}")
    for spec in opponents:
        if spec != "self":
            check_spec(spec, table, what="opponent")


def table_of(
    game: str = "uno", num_players: int | None = None, rules: Mapping[str, Any] | None = None
) -> Table:
    """The run's table from its flat settings (``game``, ``num_players``, ``rules``)."""
    return Table.of(game, num_players, **dict(rules or {}))


@dataclass(frozen=True)
class TrainSettings:
    """Everything that defines an sb3 MaskablePPO run (saved as settings.json in the run directory)."""

    table: Table = field(default_factory=table_of)
    #: one spec for every other seat, or one per seat: "rule", "rule:KNOB=V", "random",
    #: "model:PATH", "self" (a pool of the learner's own snapshots)
    opponents: tuple[str, ...] = ("rule",)
    learner: LearnerSettings = field(default_factory=LearnerSettings)
    ppo: PPOSettings = field(default_factory=PPOSettings)
    imitation: ImitationSettings = field(default_factory=ImitationSettings)
    improvement: ImprovementSettings = field(default_factory=ImprovementSettings)
    run: RunSettings = field(default_factory=RunSettings)
    #: the pool when ``opponents`` is ``("league",)``
    league: LeagueSettings = field(default_factory=LeagueSettings)
    #: the recipe the options were filled from ("": none; RECIPES)
    recipe: str = ""

    @classmethod
    def from_options(cls, **options: Any) -> TrainSettings:
        """Settings from flat names, as train.py's options name them (``game``, ``num_players``,
        ``rules``, ``opponents``, ``reward_shaping``, ``ppo`` (a mapping), ``teacher``,
        ``imitation_steps``, ``timesteps``, ``envs``, ``league_rule_players``...); an unknown
        name is an error. ``recipe`` (``"quick"``, ``"full"``) fills the options left out or
        None from the game's recipe (:func:`recipe_options`); a given ``ppo`` mapping is
        merged over the recipe's."""
        recipe = options.pop("recipe", None) or ""
        if recipe:
            spec = game_spec(options.get("game", "uno"))
            from_recipe = recipe_options(spec, recipe)
            if options.get("init_from"):  # a continued run imitates only a teacher named for it
                imitation = [k for k in from_recipe if k == "teacher" or k.startswith("imitation")]
                from_recipe = {k: v for k, v in from_recipe.items() if k not in imitation}
            if options.get("imitate"):  # people's records are imitated instead of the recipe's teacher
                from_recipe.pop("teacher", None)
            ppo = {**from_recipe.pop("ppo", {}), **options.get("ppo", {})}
            options = {**from_recipe, **{k: v for k, v in options.items() if v is not None}, "ppo": ppo}
        groups: dict[str, dict[str, Any]] = {name: {} for name in ("table", *SETTING_GROUPS)}
        names = {name: ("table", name) for name in ("game", "num_players", "rules")}
        for group, (prefix, group_class) in SETTING_GROUPS.items():
            names.update({flat: (group, name) for flat, name in flat_names(group_class, prefix).items()})
        rest: dict[str, Any] = {}
        for name, value in options.items():
            if name in ("opponents", "ppo"):
                rest[name] = value
            elif name in names:
                group, field_name = names[name]
                groups[group][field_name] = tuple(value) if isinstance(value, list) else value
            else:
                raise ValueError(f"unknown training setting {name!r}")
        return cls(
            table=table_of(**groups["table"]),
            opponents=tuple(rest.get("opponents", ("rule",))),
            learner=LearnerSettings(**groups["learner"]),
            ppo=PPOSettings.from_mapping(rest.get("ppo", {})),
            imitation=ImitationSettings(**groups["imitation"]),
            improvement=ImprovementSettings(
                **{k: v for k, v in groups["improvement"].items() if v is not None}
            ),
            run=RunSettings(**groups["run"]),
            league=LeagueSettings(**groups["league"]),
            recipe=recipe,
        )

    def check(self) -> None:
        """Raise ValueError with one sentence for the first nonsense setting, before any work."""
        check_opponents(self.opponents, self.table)
        self.league.check(self.table)
        if self.trains_in_league() and not self.run.vectorized:
            raise ValueError(
                "opponents 'league' draws each game's opponents on the batched engine: it needs"
                " vectorized (--vectorized)"
            )
        self.learner.check(self.table.spec)
        self.ppo.check()
        self.run.check(self.table)
        if is_pretrained_spec(self.run.init_from):
            self.check_fits_pretrained()
        if self.run.vectorized and any(spec_kind(spec) == "search" for spec in self.opponents):
            raise ValueError(
                "search opponents decide from the engine, which the batched engine keeps none of:"
                " train against them without --vectorized"
            )
        if self.imitates() or not self.run.init_from:
            self.imitation.check(self.table)
        self.improvement.check(self.table)
        if self.improvement.games and not (self.imitates() or self.run.init_from):
            raise ValueError(
                "improve_games improves a network that plays: it needs init_from (a trained run or"
                " pretrained) or a teacher"
            )
        if self.run.timesteps == 0 and not (self.imitates() or self.improvement.games):
            raise ValueError(
                "timesteps 0 (no PPO) saves the network as it starts: it needs a teacher or improve_games"
            )
        rollout = self.ppo_settings()["n_steps"] * self.run.envs
        if rollout < 2:
            raise ValueError(f"n_steps x envs must be at least 2 (PPO's rollout), got {rollout}")

    def check_fits_pretrained(self) -> None:
        """Refuse a run whose actor the shipped agent's network cannot start: other hidden
        layers, or observations scaled or extended by the mask where the shipped ones were not."""
        network = load_pretrained(self.table.spec.name, self.num_players)
        learner = self.learner_env()
        ours = {
            "hidden layers": list(self.ppo_settings()["net_arch"]),
            "activation": "tanh",
            "mask_in_observation": learner.mask_in_observation,
            "scale_observations": learner.scale_observations,
        }
        if network.shape() != ours:
            raise ValueError(
                f"init_from {self.run.init_from!r}: the shipped network is {network.shape()},"
                f" this run's would be {ours}"
            )

    @property
    def game(self) -> str:
        return self.table.name

    @property
    def num_players(self) -> int:
        return self.table.num_players

    def seats(self) -> list[str]:
        """One opponent spec per other seat."""
        return seats_of(self.opponents, self.table.num_players)

    def trains_in_league(self) -> bool:
        return list(self.opponents) == [LEAGUE]

    def teacher(self) -> str:
        """The teacher's spec, or "" for no imitation. A run that continues another imitates only
        a teacher named for it (not the game's default): the continued network is then fine-tuned
        on that teacher's play before PPO (e.g. a search's decisions: expert iteration)."""
        if self.imitation.records:
            return ""  # the people's records are imitated instead
        if self.run.init_from:
            return self.imitation.teacher or ""
        return str(self.imitation.resolved(self.table.spec).teacher)

    def imitates(self) -> bool:
        """Whether the network imitates before PPO (a teacher, or people's records)."""
        return bool(self.teacher() or self.imitation.records)

    def starts_trained(self) -> bool:
        """Whether PPO starts from a trained network (imitated, or continued from a run)."""
        return self.imitates() or bool(self.run.init_from)

    def learner_env(self) -> LearnerSettings:
        return self.learner.resolved(self.table.spec)

    def ppo_settings(self) -> dict[str, Any]:
        return self.ppo.resolved(self.starts_trained())

    def env_kwargs(self) -> dict[str, Any]:
        """The learner's env: its table, rules and features (the opponents go beside them)."""
        learner = self.learner_env()
        return {
            "game": self.table,
            "reward_shaping": learner.reward_shaping,
            "shaping_discount": self.ppo_settings()["gamma"],
            "mask_in_observation": learner.mask_in_observation,
        }

    def as_json(self) -> dict[str, Any]:
        """What the run uses, every default resolved: the table at the top, then each group."""
        teacher = self.teacher()
        imitation = asdict(self.imitation.resolved(self.table.spec)) if teacher else None
        if self.imitation.records:
            imitation = {**asdict(self.imitation.resolved(self.table.spec)), "teacher": ""}
            imitation["records"] = list(self.imitation.records)
        return {
            "backend": "sb3",
            "game": self.game,
            "num_players": self.num_players,
            "rules": dict(self.table.rules),
            "opponents": list(self.opponents),
            "learner": asdict(self.learner_env()),
            "ppo": self.ppo_settings(),
            "imitation": imitation,
            "improvement": asdict(self.improvement) if self.improvement.games else None,
            "run": asdict(self.run),
            **({"recipe": self.recipe_json()} if self.recipe else {}),
            **({"league": self.league_json()} if self.trains_in_league() else {}),
        }

    def recipe_json(self) -> dict[str, Any]:
        """The recipe's name and the options it sets (those given beside it override them)."""
        return {"name": self.recipe, "options": recipe_options(self.table.spec, self.recipe)}

    def league_json(self) -> dict[str, Any]:
        """The league's settings and its pool at the start (snapshots join as it trains)."""
        pool = league_pool(self.game, self.league, self.run.seed)
        return {**asdict(self.league), "others": list(self.league.others), "pool": pool}
