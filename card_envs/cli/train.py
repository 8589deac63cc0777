"""Train a MaskablePPO agent against scripted opponents (or its past selves); report how it does.

    python train.py --game tock --recipe quick    # Tock's measured recipe, scaled to minutes
    python train.py --game tock                   # the recipe at the learning benchmark's scale
    python train.py --game tock --opponents league --recipe quick   # a league of opponents
    python train.py --opponents self,rule,rule    # a self-play pool in one seat, rule agents in two
    python train.py --opponents rule:vigilance=0.5 --rule stacking=false

With no other options a game trains with the recipe its spec names (GameSpec.recipe: the
teacher or none, the batched engine, envs, rollout, batch size, learning rate, shaping;
docs/learning.md), at the benchmark's scale (--recipe full) or in minutes (--recipe quick);
options given beside it override the recipe's. The run directory (--out) holds the model,
checkpoints, settings.json, evaluations.csv, learning_curve.png and TensorBoard logs. At
the end the agent plays the evaluation games in a rotating seat against three rule-based
players, next to a rule-based player in the same seat as the baseline. A thin shell over
card_envs.training.run.train and card_envs.evaluation.tournament.tournament.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from card_envs.agents.runs import is_finished
from card_envs.cli.args import (
    Parser,
    add_game_arguments,
    exits_on_missing_extra,
    fail,
    game_rules,
    layer_widths,
    lineup,
    non_negative,
    positive,
    whole,
)
from card_envs.core.processes import exit_on_sigterm

#: train.py's --recipe choices (card_envs.training.settings.RECIPES, named here so that the
#: parser is built without importing the training layer)
RECIPE_NAMES = ("quick", "full")
#: the learner decisions of a run without a recipe (the rllib backend's default)
TIMESTEPS_WITHOUT_RECIPE = 50_000

if TYPE_CHECKING:
    from card_envs.integrations.rllib_settings import RllibSettings
    from card_envs.training.settings import TableSettings, TrainSettings


def per_game(name: str) -> str:
    """The help text's default of a PPO option: DEFAULT_PPO's value, tuned per game and after imitation."""
    from card_envs.training.settings import DEFAULT_PPO

    value = DEFAULT_PPO[name]
    shown = ",".join(map(str, value)) if isinstance(value, list) else value
    return f"(default: {shown}; some games and imitated starts tune it: docs/learning.md)"


def build_parser() -> argparse.ArgumentParser:
    parser = Parser("train.py", description=__doc__)
    add_game_arguments(parser)
    parser.add_argument(
        "--opponents",
        type=lineup,
        default=["rule"],
        help="one spec for every other seat or one per seat, comma-separated: rule, rule:KNOB=VALUE,"
        " random, model:PATH, self; or league: each game's opponents drawn from a pool, the ones"
        " the agent does worst against most often (batched engine only; docs/training.md) (default: rule)",
    )
    parser.add_argument(
        "--recipe",
        choices=RECIPE_NAMES,
        default=None,
        help="the game's measured recipe at the benchmark's scale (full) or in minutes (quick);"
        " default: full with --backend sb3, none with rllib",
    )
    parser.add_argument(
        "--timesteps",
        type=whole(0),
        default=None,
        help="learner decisions (PPO ends its last rollout; 0: the imitation alone, no PPO;"
        " default: the recipe's, else 50,000)",
    )
    parser.add_argument(
        "--max-minutes",
        type=positive,
        default=None,
        help="stop after this much wall time, imitation included (default: no limit)",
    )
    parser.add_argument(
        "--envs",
        type=whole(1),
        default=None,
        help="env worker processes, or games with --vectorized (default: the recipe's, else 2)",
    )
    parser.add_argument(
        "--vectorized",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="step the --envs games together on the game's compiled batched engine, in this process"
        " (docs/performance.md); PPO's rollout is --n-steps per game (default: the recipe's)",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="run directory (default: the first free runs/<game>-<N>p[-K])"
    )
    parser.add_argument("--force", action="store_true", help="replace an existing run in --out")
    parser.add_argument(
        "--shaping",
        type=non_negative,
        default=None,
        help="weight of the dense progress reward (default: per game)",
    )
    parser.add_argument(
        "--mask-in-observation",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="append the legal-action mask to the observation (default: per game)",
    )
    parser.add_argument(
        "--teacher",
        default=None,
        help="a policy spec the network imitates before PPO, e.g. rule:vigilance=1.0, or none"
        " (default: per game, see docs/learning.md)",
    )
    parser.add_argument(
        "--imitate",
        nargs="+",
        default=None,
        metavar="RECORDS",
        help="folders or files of games people played (python -m card_envs.web --record DIR): the"
        " network imitates the people's own decisions before PPO, instead of a --teacher",
    )
    parser.add_argument(
        "--init-from",
        default="",
        metavar="RUN",
        help="continue from the network of a trained run (directory or .zip), e.g. self-play after"
        " training against rule-based players, or from the shipped agent's actor (pretrained) with a"
        " new value network; it imitates only a --teacher named with it",
    )
    parser.add_argument(
        "--imitation-steps",
        type=whole(1),
        default=None,
        help="teacher decisions to imitate (default: per game)",
    )
    parser.add_argument(
        "--imitation-epochs", type=whole(1), default=None, help="passes over them (default: per game)"
    )
    parser.add_argument(
        "--imitation-smoothing",
        type=non_negative,
        default=None,
        help="share of the imitation target spread over the legal actions, so PPO can still move"
        " the policy (default: 0)",
    )
    parser.add_argument(
        "--imitation-rounds",
        type=whole(1),
        default=None,
        help="expert iteration with a search teacher: each round after the first, the search plays"
        " with the network as its prior and rollout player and the network imitates it (default: 1)",
    )
    parser.add_argument(
        "--imitation-lr",
        type=positive,
        default=None,
        help="Adam's step size while imitating (default: 1e-3; smaller to fine-tune an --init-from network)",
    )
    improve = parser.add_argument_group(
        "search as a teacher by soft targets (card_envs.training.improvement; after --init-from or"
        " a --teacher, before PPO)"
    )
    from card_envs.training.settings import ImprovementSettings

    plan = ImprovementSettings()  # the help shows its defaults
    for option, convert, text, default in (
        ("games", whole(0), "games of the network against itself whose decisions are valued", "0, none"),
        ("width", whole(2), "the network's most probable moves valued at each decision", plan.width),
        ("worlds", whole(2), "sampled worlds each of them is played in", plan.worlds),
        (
            "beta",
            non_negative,
            "how far the fit moves towards moves that gain: p exp(BETA * advantage)",
            plan.beta,
        ),
        ("epochs", whole(1), "passes over the valued decisions", plan.epochs),
        ("lr", positive, "Adam's step size while fitting", plan.learning_rate),
        ("rollout", None, "who plays every seat of the play-outs, a spec with a batched twin", plan.rollout),
    ):
        typed: dict[str, Any] = {"type": convert} if convert else {}  # a spec is text, checked later
        improve.add_argument(
            f"--improve-{option}",
            **typed,
            default=None,
            help=f"{text} (default: {default})",
        )
    league = parser.add_argument_group("league (--opponents league)")
    for name, kind, text in (
        (
            "rule-players",
            whole(0),
            "rule-based players with knobs drawn from their documented ranges (default: 6)",
        ),
        ("snapshots", whole(0), "the agent's recent snapshots kept (default: 4)"),
        ("others", lineup, "more opponents for the pool, comma-separated specs, e.g. random,model:runs/x"),
        (
            "exponent",
            non_negative,
            "how much the opponents the agent does worst against are preferred: each is drawn in"
            " proportion to (1 - score)^EXPONENT + FLOOR, its score 0..1 (default: 2, at most 10)",
        ),
        (
            "floor",
            non_negative,
            "the FLOOR above, which keeps every opponent in play (default: 0.05, above 0)",
        ),
    ):
        league.add_argument(f"--league-{name}", type=kind, default=None, help=text)
    ppo = parser.add_argument_group("PPO")
    ppo.add_argument(
        "--n-steps", type=whole(1), help=f"rollout steps per env and update {per_game('n_steps')}"
    )
    ppo.add_argument("--batch-size", type=whole(1), help=f"minibatch size {per_game('batch_size')}")
    ppo.add_argument(
        "--epochs", type=whole(1), dest="n_epochs", help=f"passes per update {per_game('n_epochs')}"
    )
    ppo.add_argument(
        "--lr", type=non_negative, dest="learning_rate", help=f"learning rate {per_game('learning_rate')}"
    )
    ppo.add_argument("--gamma", type=non_negative, help=f"discount factor, at most 1 {per_game('gamma')}")
    ppo.add_argument("--ent-coef", type=non_negative, help=f"entropy bonus {per_game('ent_coef')}")
    ppo.add_argument("--net-arch", type=layer_widths, help=f"hidden layer widths {per_game('net_arch')}")
    runs = parser.add_argument_group("run")
    runs.add_argument("--eval-every", type=whole(1), default=50_000, help="steps between evaluations")
    runs.add_argument("--eval-games", type=whole(1), default=100, help="games per periodic evaluation")
    runs.add_argument(
        "--stop-when-ahead",
        action="store_true",
        help="end the run at the first periodic evaluation whose mean-reward interval lies above 0",
    )
    runs.add_argument("--final-games", type=whole(1), default=300, help="games of the final evaluation")
    runs.add_argument("--checkpoint-every", type=whole(1), default=50_000, help="steps between checkpoints")
    runs.add_argument(
        "--snapshot-every", type=whole(1), default=20_000, help="self-play: steps between snapshots"
    )
    runs.add_argument("--threads", type=whole(1), default=1, help="torch and numba threads per process")
    backend = parser.add_argument_group("backend")
    backend.add_argument(
        "--backend",
        choices=["sb3", "rllib"],
        default="sb3",
        help="sb3: sb3-contrib MaskablePPO (default); rllib: RLlib's multi-agent PPO on Ray"
        " (pip install 'card-envs[rllib]'; --opponents self trains one policy for every seat)",
    )
    backend.add_argument(
        "--env-runners",
        type=whole(0),
        default=0,
        help="rllib: env runner processes (0: sample in the driver)",
    )
    backend.add_argument(
        "--address", default=None, help="rllib: a running Ray cluster to join, e.g. 127.0.0.1:6379"
    )
    runs.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: only in a terminal; log lines otherwise)",
    )
    return parser


def settings_from(args: argparse.Namespace, rules: dict[str, Any]) -> TrainSettings:
    """The run's settings from the options (their names are the settings' own)."""
    from card_envs.training.settings import DEFAULT_PPO, IMPROVEMENT_NAMES, TrainSettings

    recipe = args.recipe if args.recipe is not None else ("full" if args.backend == "sb3" else "")
    league = {
        f"league_{k}": getattr(args, f"league_{k}")
        for k in ("rule_players", "snapshots", "others", "exponent", "floor")
    }
    return TrainSettings.from_options(
        recipe=recipe,
        **{k: v for k, v in league.items() if v is not None},
        game=args.game,
        num_players=args.players,
        rules=rules,
        opponents=args.opponents,
        reward_shaping=args.shaping,
        mask_in_observation=args.mask_in_observation,
        ppo={k: getattr(args, k) for k in DEFAULT_PPO if getattr(args, k) is not None},
        teacher="" if args.teacher == "none" else args.teacher,
        **({"imitate": args.imitate} if args.imitate else {}),
        **{k: getattr(args, k) for k in IMITATION_OPTIONS},
        **{k: getattr(args, k) for k in IMPROVEMENT_NAMES if getattr(args, k) is not None},
        **{k: getattr(args, k) for k in RUN_OPTIONS if getattr(args, k) is not None},
        **({} if recipe or args.timesteps else {"timesteps": TIMESTEPS_WITHOUT_RECIPE}),
    )


#: the imitation's options, named as TrainSettings.from_options names them
IMITATION_OPTIONS = (
    "imitation_steps", "imitation_epochs", "imitation_smoothing", "imitation_rounds", "imitation_lr",
)  # fmt: skip
#: options named as the RunSettings fields they set
RUN_OPTIONS = (
    "timesteps",
    "envs",
    "seed",
    "vectorized",
    "threads",
    "max_minutes",
    "eval_every",
    "eval_games",
    "stop_when_ahead",
    "checkpoint_every",
    "snapshot_every",
    "init_from",
)


def check_backend_options(args: argparse.Namespace) -> None:
    """The options that only one backend takes, and the final evaluation's size."""
    if args.final_games < 1:
        raise ValueError(f"--final-games must be a whole number >= 1, got {args.final_games}")
    if args.env_runners < 0:
        raise ValueError(f"--env-runners must be a whole number >= 0, got {args.env_runners}")
    if args.backend == "sb3" and (args.env_runners or args.address):
        raise ValueError("--env-runners and --address are for --backend rllib")
    if args.backend == "rllib" and args.vectorized:
        raise ValueError("--vectorized is for --backend sb3")
    if args.backend == "rllib" and "league" in args.opponents:
        raise ValueError("--opponents league is for --backend sb3 (it draws opponents on the batched engine)")
    if args.backend == "rllib" and args.recipe:
        raise ValueError("--recipe is for --backend sb3 (the rllib backend starts from random play)")


@exits_on_missing_extra("train.py")
def main(argv: list[str] | None = None) -> None:
    arguments = sys.argv[1:] if argv is None else argv
    if "--algo=az" in arguments or any(
        a == "--algo" and arguments[i + 1 : i + 2] == ["az"] for i, a in enumerate(arguments)
    ):
        from card_envs.cli import train_az  # search in the loop: a parser of its own

        train_az.main(arguments)
        return
    parser = build_parser()
    args = parser.parse_args(argv)
    exit_on_sigterm()
    rules = game_rules(parser, args)
    from card_envs.training.run import prepare_run_dir, train

    out = args.out or free_run_dir(Path("runs") / f"{args.game}-{args.players}p")
    try:
        check_backend_options(args)
        settings = settings_from(args, rules)
        if args.backend == "rllib":
            from card_envs.integrations.rllib_settings import RllibSettings

            rllib_settings = RllibSettings.from_train_settings(settings, args.env_runners, args.address)
            rllib_settings.check()
        else:
            settings.check()
        prepare_run_dir(out, args.force)  # created and writable, or refused, before any work
    except (ValueError, FileExistsError) as error:
        fail(parser, str(error).replace("force=True (--force)", "--force"))
    if args.backend == "rllib":
        train_with_rllib(parser, rllib_settings, out, args)
        return

    print(f"Training MaskablePPO on {args.players}-player {args.game} against {','.join(settings.seats())}")
    start = time.perf_counter()
    model = train(settings, out, force=args.force, progress=args.progress)
    seconds = time.perf_counter() - start
    print(
        f"Trained {model.num_timesteps:,} steps in {seconds:.0f} s ({model.num_timesteps / seconds:,.0f}/s);"
        f" saved to {out}"
    )
    report(settings.table, settings.run.seed, out, args.final_games)
    plot_curve(out)


def plot_curve(out: Path) -> None:
    """The run's learning curve (evaluations.csv) as ``learning_curve.png``, where matplotlib
    is installed (the report extra)."""
    curve = out / "evaluations.csv"
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: no learning curve plot (pip install 'card-envs[report]')")
        return
    if not curve.is_file():
        return
    if len(curve.read_text().splitlines()) < 3:  # a header and one evaluation: no PPO (--timesteps 0)
        print("one evaluation, no PPO steps: no learning curve to draw")
        return
    matplotlib.use("Agg")
    from card_envs.evaluation.report import plot_learning_curve

    path = plot_learning_curve(curve, out / "learning_curve.png", title=f"learning curve of {out}")
    print(f"learning curve: {path}")


def train_with_rllib(
    parser: argparse.ArgumentParser, settings: RllibSettings, out: Path, args: argparse.Namespace
) -> None:
    """The RLlib backend: train on Ray (kept on loopback), then the same report."""
    try:
        from card_envs.integrations import rllib
    except ImportError as error:
        fail(parser, str(error))
    print(f"Training RLlib PPO on {args.players}-player {args.game} against {','.join(settings.seats())}")
    try:
        figures = rllib.train(settings, out, force=args.force)
    except ValueError as error:
        fail(parser, str(error))
    finally:
        rllib.stop_ray()
    print(
        f"Trained {figures['steps']:,} env steps in {figures['seconds']:.0f} s"
        f" ({figures['steps_per_s']:,.0f}/s); saved to {out}"
    )
    report(settings.table, settings.run.seed, out, args.final_games)


def free_run_dir(base: Path) -> Path:
    """``base``, or ``base-2``, ``base-3``... : the first that holds no finished run, so no
    trained model is overwritten (an interrupted run's directory is used again)."""
    candidate, k = base, 1
    while is_finished(candidate):
        k += 1
        candidate = base.with_name(f"{base.name}-{k}")
    return candidate


def report(table: TableSettings, seed: int, out: Path, games: int) -> None:
    """The trained agent and, as the baseline, a rule-based player, each in the same rotating
    seats against the same opponents and deals."""
    from card_envs.evaluation.tournament import tournament

    others = table.num_players - 1
    agent, baseline = ("trained agent", f"greedy:{out}"), ("rule-based player", "rule")
    for opponents, players in (("rule", (agent, baseline)), ("random", (agent,))):
        print(f"vs {others} {opponents} players, {games} games, seats rotated:")
        for name, entry in players:
            lineup = [entry, *[opponents] * others]
            a = tournament(table.spec, lineup, games, dict(table.rules), seed=seed + 1).agents[0]
            print(
                f"  {name:<18} win rate {a.win_rate:.1%}, mean rank {a.mean_rank:.2f},"
                f" mean reward {a.mean_reward:+.3f}"
            )
    print(f"(equal share: win rate {1 / table.num_players:.0%}, mean reward 0; 95% intervals in brackets)")
