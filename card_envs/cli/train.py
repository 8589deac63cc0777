"""Train a MaskablePPO agent against scripted opponents (or its past selves); report how it does.

    python train.py                               # 4-player UNO vs three rule-based players, minutes
    python train.py --game tock --timesteps 1000000 --out runs/tock
    python train.py --opponents self,rule,rule    # a self-play pool in one seat, rule agents in two
    python train.py --opponents rule:vigilance=0.5 --rule stacking=false

The run directory (--out) holds the model, checkpoints, settings.json, evaluations.csv and
TensorBoard logs. At the end the agent plays the evaluation games in a rotating seat
against three rule-based players, next to a rule-based player in the same seat as the
baseline. A thin shell over card_envs.training.run.train and card_envs.evaluation.tournament.tournament.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING

from card_envs.cli.args import add_game_arguments, exits_on_missing_extra, fail, game_rules, lineup

if TYPE_CHECKING:
    from card_envs.training.run import TrainSettings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="train.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_game_arguments(parser)
    parser.add_argument(
        "--opponents",
        type=lineup,
        default=["rule"],
        help="one spec for every other seat or one per seat, comma-separated: rule, rule:KNOB=VALUE,"
        " random, model:PATH, self (default: rule)",
    )
    parser.add_argument("--timesteps", type=int, default=50_000, help="learner decisions (default: 50000)")
    parser.add_argument(
        "--max-minutes", type=float, default=None, help="stop after this much wall time, imitation included"
    )
    parser.add_argument(
        "--envs", type=int, default=2, help="env worker processes, or games with --vectorized (default: 2)"
    )
    parser.add_argument(
        "--vectorized",
        action="store_true",
        help="step the --envs games together on the game's compiled batched engine, in this process"
        " (docs/performance.md); PPO's rollout is --n-steps per game",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="run directory (default: the first free runs/<game>-<N>p[-K])"
    )
    parser.add_argument("--force", action="store_true", help="replace an existing run in --out")
    parser.add_argument(
        "--shaping", type=float, default=None, help="weight of the dense progress reward (default: per game)"
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
        "--init-from",
        default="",
        metavar="RUN",
        help="continue from the network of a trained run (directory or .zip) instead of imitating"
        " a teacher, e.g. self-play after training against rule-based players",
    )
    parser.add_argument(
        "--imitation-steps", type=int, default=None, help="teacher decisions to imitate (default: per game)"
    )
    parser.add_argument(
        "--imitation-epochs", type=int, default=None, help="passes over them (default: per game)"
    )
    parser.add_argument(
        "--imitation-smoothing",
        type=float,
        default=None,
        help="share of the imitation target spread over the legal actions, so PPO can still move"
        " the policy (default: 0)",
    )
    ppo = parser.add_argument_group("PPO")
    ppo.add_argument("--n-steps", type=int, help="rollout steps per env and update")
    ppo.add_argument("--batch-size", type=int)
    ppo.add_argument("--epochs", type=int, dest="n_epochs")
    ppo.add_argument("--lr", type=float, dest="learning_rate")
    ppo.add_argument("--gamma", type=float)
    ppo.add_argument("--ent-coef", type=float)
    ppo.add_argument("--net-arch", type=lambda t: [int(x) for x in t.split(",")], help="e.g. 256,256")
    runs = parser.add_argument_group("run")
    runs.add_argument("--eval-every", type=int, default=50_000, help="steps between evaluations")
    runs.add_argument("--eval-games", type=int, default=100, help="games per periodic evaluation")
    runs.add_argument("--final-games", type=int, default=300, help="games of the final evaluation")
    runs.add_argument("--checkpoint-every", type=int, default=50_000)
    runs.add_argument("--snapshot-every", type=int, default=20_000, help="self-play: steps between snapshots")
    runs.add_argument(
        "--threads", type=int, default=1, help="torch and numba threads per process (default: 1)"
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
        "--env-runners", type=int, default=0, help="rllib: env runner processes (0: sample in the driver)"
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


@exits_on_missing_extra("train.py")
def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    rules = game_rules(parser, args)

    from card_envs.training.run import DEFAULT_PPO, TrainSettings, train

    ppo = {k: getattr(args, k) for k in DEFAULT_PPO if getattr(args, k, None) is not None}
    settings = TrainSettings(
        game=args.game,
        num_players=args.players,
        rules=rules,
        opponents=args.opponents,
        timesteps=args.timesteps,
        envs=args.envs,
        vectorized=args.vectorized,
        seed=args.seed,
        reward_shaping=args.shaping,
        mask_in_observation=args.mask_in_observation,
        ppo=ppo,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        checkpoint_every=args.checkpoint_every,
        snapshot_every=args.snapshot_every,
        threads=args.threads,
        teacher="" if args.teacher == "none" else args.teacher,
        imitation_steps=args.imitation_steps,
        imitation_epochs=args.imitation_epochs,
        imitation_smoothing=args.imitation_smoothing,
        max_minutes=args.max_minutes,
        init_from=args.init_from,
    )
    out = args.out or free_run_dir(Path("runs") / f"{args.game}-{args.players}p")
    try:
        settings.check()
        if args.final_games < 1:
            raise ValueError(f"final_games must be >= 1, got {args.final_games}")
        if (out / "settings.json").exists() and not args.force:
            raise ValueError(f"{out} already holds a trained model; pass --force to replace it")
        if args.env_runners < 0:
            raise ValueError(f"env_runners must be >= 0, got {args.env_runners}")
        if args.backend == "sb3" and (args.env_runners or args.address):
            raise ValueError("--env-runners and --address are for --backend rllib")
        if args.backend == "rllib" and args.vectorized:
            raise ValueError("--vectorized is for --backend sb3")
    except ValueError as error:
        fail(parser, str(error))
    if args.backend == "rllib":
        train_with_rllib(parser, settings, out, args)
        return

    print(f"Training MaskablePPO on {args.players}-player {args.game} against {','.join(settings.seats())}")
    start = time.perf_counter()
    model = train(settings, out, force=args.force, progress=args.progress)
    seconds = time.perf_counter() - start
    print(
        f"Trained {model.num_timesteps:,} steps in {seconds:.0f} s ({model.num_timesteps / seconds:,.0f}/s);"
        f" saved to {out}"
    )
    report(settings, out, args.final_games)


def train_with_rllib(
    parser: argparse.ArgumentParser, settings: TrainSettings, out: Path, args: argparse.Namespace
) -> None:
    """The RLlib backend: train on Ray (kept on loopback), then the same report."""
    try:
        from card_envs.integrations import rllib
    except ImportError as error:
        fail(parser, str(error))
    print(f"Training RLlib PPO on {args.players}-player {args.game} against {','.join(settings.seats())}")
    try:
        figures = rllib.train(
            settings, out, env_runners=args.env_runners, address=args.address, force=args.force
        )
    except ValueError as error:
        fail(parser, str(error))
    finally:
        rllib.stop_ray()
    print(
        f"Trained {figures['steps']:,} env steps in {figures['seconds']:.0f} s"
        f" ({figures['steps_per_s']:,.0f}/s); saved to {out}"
    )
    report(settings, out, args.final_games)


def free_run_dir(base: Path) -> Path:
    """``base``, or ``base-2``, ``base-3``... : the first that holds no run, so no run is overwritten."""
    candidate, k = base, 1
    while (candidate / "settings.json").exists():
        k += 1
        candidate = base.with_name(f"{base.name}-{k}")
    return candidate


def report(settings: TrainSettings, out: Path, games: int) -> None:
    """The trained agent and, as the baseline, a rule-based player, each in the same rotating
    seats against the same opponents and deals."""
    from card_envs.evaluation.tournament import tournament

    others = settings.num_players - 1
    agent, baseline = ("trained agent", f"greedy:{out}"), ("rule-based player", "rule")
    for opponents, players in (("rule", (agent, baseline)), ("random", (agent,))):
        print(f"vs {others} {opponents} players, {games} games, seats rotated:")
        for name, entry in players:
            lineup = [entry, *[opponents] * others]
            a = tournament(settings.game, lineup, games, settings.rules, seed=settings.seed + 1).agents[0]
            print(
                f"  {name:<18} win rate {a.win_rate:.1%}, mean rank {a.mean_rank:.2f},"
                f" mean reward {a.mean_reward:+.3f}"
            )
    print(f"(equal share: win rate {1 / settings.num_players:.0%}, mean reward 0; 95% intervals in brackets)")
