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
    lineup,
    whole,
)
from card_envs.cli.dataclass_options import add_dataclass_options
from card_envs.core.processes import exit_on_sigterm

#: train.py's --recipe choices (card_envs.training.settings.RECIPES, named here so that the
#: parser is built without importing the training layer)
RECIPE_NAMES = ("quick", "full")
#: the learner decisions of a run without a recipe (the rllib backend's default)
TIMESTEPS_WITHOUT_RECIPE = 50_000

if TYPE_CHECKING:
    from card_envs.core.table import Table
    from card_envs.integrations.rllib_settings import RllibSettings
    from card_envs.training.settings import TrainSettings


def build_parser() -> argparse.ArgumentParser:
    """train.py's options: the settings' own (names, defaults and help from their fields,
    card_envs.core.fields), in their groups, and the few that only the tool has."""
    from card_envs.training.settings import SETTING_GROUPS, PPOSettings

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
        "--out", type=Path, default=None, help="run directory (default: the first free runs/<game>-<N>p[-K])"
    )
    parser.add_argument("--force", action="store_true", help="replace an existing run in --out")
    titles = {
        "learner": "the learner's env",
        "imitation": "imitation before PPO",
        "improvement": "search as a teacher by soft targets (card_envs.training.improvement; after"
        " --init-from or a --teacher, before PPO)",
        "run": "run",
        "league": "league (--opponents league)",
    }
    for group, (prefix, settings) in SETTING_GROUPS.items():
        add_dataclass_options(
            parser.add_argument_group(titles[group]), settings, prefix=prefix, none_default=True
        )
    add_dataclass_options(parser.add_argument_group("PPO"), PPOSettings, none_default=True)
    runs = parser.add_argument_group("evaluation and output")
    runs.add_argument("--final-games", type=whole(1), default=300, help="games of the final evaluation")
    runs.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: only in a terminal; log lines otherwise)",
    )
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
    return parser


def settings_from(args: argparse.Namespace, rules: dict[str, Any]) -> TrainSettings:
    """The run's settings from the options (each option's destination is the setting's flat
    name, TrainSettings.from_options's)."""
    from card_envs.core.fields import flat_names
    from card_envs.training.settings import SETTING_GROUPS, PPOSettings, TrainSettings

    recipe = args.recipe if args.recipe is not None else ("full" if args.backend == "sb3" else "")
    given = {
        name: getattr(args, name)
        for prefix, settings in SETTING_GROUPS.values()
        for name in flat_names(settings, prefix, options_only=True)
        if getattr(args, name) is not None
    }
    if given.get("teacher") == "none":
        given["teacher"] = ""
    ppo = {name: getattr(args, name) for name in flat_names(PPOSettings) if getattr(args, name) is not None}
    return TrainSettings.from_options(
        recipe=recipe,
        game=args.game,
        num_players=args.players,
        rules=rules,
        seed=args.seed,
        opponents=args.opponents,
        ppo=ppo,
        **given,
        **({} if recipe or args.timesteps else {"timesteps": TIMESTEPS_WITHOUT_RECIPE}),
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


def report(table: Table, seed: int, out: Path, games: int) -> None:
    """The trained agent and, as the baseline, a rule-based player, each in the same rotating
    seats against the same opponents and deals."""
    from card_envs.evaluation.tournament import tournament

    others = table.num_players - 1
    agent, baseline = ("trained agent", f"greedy:{out}"), ("rule-based player", "rule")
    for opponents, players in (("rule", (agent, baseline)), ("random", (agent,))):
        print(f"vs {others} {opponents} players, {games} games, seats rotated:")
        for name, entry in players:
            lineup = [entry, *[opponents] * others]
            a = tournament(table, lineup, games, seed=seed + 1).agents[0]
            print(
                f"  {name:<18} win rate {a.win_rate:.1%}, mean rank {a.mean_rank:.2f},"
                f" mean reward {a.mean_reward:+.3f}"
            )
    print(f"(equal share: win rate {1 / table.num_players:.0%}, mean reward 0; 95% intervals in brackets)")
