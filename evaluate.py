"""Evaluate a saved model (or a scripted agent) against rule-based and random opponents.

    python evaluate.py --model models/uno_maskppo.zip
    python evaluate.py --policy rule --opponents random --episodes 1000

A thin shell over :func:`card_envs.evaluation.evaluate`.
"""

from __future__ import annotations

import argparse

from card_envs.cli import add_game_arguments, game_rules


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_game_arguments(parser)
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--model", help="path of a saved MaskablePPO model")
    who.add_argument("--policy", choices=["rule", "random"], help="evaluate a scripted agent instead")
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["rule", "random"],
        help="opponent kinds to face (default: rule random)",
    )
    parser.add_argument("--episodes", type=int, default=500, help="games per opponent kind (default: 500)")
    parser.add_argument(
        "--deterministic", action="store_true", help="the model plays its most probable action"
    )
    args = parser.parse_args(argv)
    rules = game_rules(parser, args)

    from agents import make_policy
    from agents.model import ModelPolicy
    from card_envs.evaluation import evaluate

    if args.model:
        policy = ModelPolicy(args.model, deterministic=args.deterministic)
    else:
        policy = make_policy(args.policy, args.game, args.players)
    print(f"{policy!r} on {args.players}-player {args.game}:")
    for opponents in args.opponents:
        print(
            evaluate(
                policy, args.game, args.players, opponents, episodes=args.episodes, seed=args.seed, **rules
            ).summary()
        )


if __name__ == "__main__":
    main()
