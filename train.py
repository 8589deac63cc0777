"""Train a MaskablePPO agent against scripted opponents, save it, and report its win rates.

    python train.py                       # 4-player UNO vs three rule-based players, a few minutes
    python train.py --timesteps 1000000 --opponents random --rule stacking=false

A thin shell over :func:`card_envs.training.train` and :func:`card_envs.evaluation.evaluate`.
"""

from __future__ import annotations

import argparse
import time

from card_envs.cli import add_game_arguments, game_rules


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_game_arguments(parser)
    parser.add_argument(
        "--opponents", default="rule", help="'rule', 'random' or 'model:PATH' (default: rule)"
    )
    parser.add_argument(
        "--timesteps",
        type=int,
        default=150_000,
        help="learner decisions to train on (default: 150000, a few minutes)",
    )
    parser.add_argument("--envs", type=int, default=2, help="parallel envs in subprocesses (default: 2)")
    parser.add_argument(
        "--out", default=None, help="where to save the model (default: models/<game>_maskppo.zip)"
    )
    parser.add_argument("--eval-episodes", type=int, default=300, help="games per evaluation (default: 300)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    rules = game_rules(parser, args)

    from agents.model import ModelPolicy
    from card_envs.evaluation import evaluate
    from card_envs.training import train

    out = args.out or f"models/{args.game}_maskppo.zip"
    print(f"Training MaskablePPO on {args.players}-player {args.game} against '{args.opponents}' opponents")
    start = time.perf_counter()
    model = train(
        game=args.game,
        num_players=args.players,
        opponents=args.opponents,
        timesteps=args.timesteps,
        n_envs=args.envs,
        seed=args.seed,
        save_path=out,
        progress_bar=not args.no_progress,
        **rules,
    )
    print(f"Trained {model.num_timesteps} steps in {time.perf_counter() - start:.0f} s; saved to {out}")
    policy = ModelPolicy(model)
    for opponents in ("rule", "random"):
        result = evaluate(
            policy,
            args.game,
            args.players,
            opponents,
            episodes=args.eval_episodes,
            seed=args.seed + 1,
            **rules,
        )
        print(result.summary())
    print(f"(a random player wins about {1 / args.players:.0%} against equals)")


if __name__ == "__main__":
    main()
