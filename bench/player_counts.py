"""Learning at every table size: one short run per game and player count, judged against rule-based players.

    python bench/player_counts.py                        # every game, every count but 4 (hours on 2 cores)
    python bench/player_counts.py --game tock --players 2 6 --steps 200000
    python bench/player_counts.py --quick                # a smoke run of the pipeline

The 4-player tables are bench/learning.py's full benchmark; this one asks whether the same
defaults learn at the other player counts the rules allow. Per table: one run with the
game's defaults (its recipe's teacher imitated, if it names one, then --steps PPO
steps against rule-based players at their default knobs; a step budget, so runs in parallel
get the same training). Then, with seats rotated, the run's agent (its most probable legal
action) against N-1 rule-based players and against N-1 random players, next to a rule-based
player and the teacher in the same seats. Every figure is the true rank reward or the win
rate with its 95% interval, on duplicate deals where they help (bench/learning.py's DUPLICATE_HELPS).

Each table's numbers go to docs/results/player-counts/<game>-<N>p.json as soon as it is
done (<game>-<N>p-<S>steps.json for another --steps, a row beside the default one), and
docs/results.md is rewritten, so tables can be run a few at a time.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from learning import (
    PLAYER_COUNTS,
    PLAYERS,
    ROOT,
    add_evaluation_arguments,
    add_training_arguments,
    duplicate_deals,
    judge,
    table_name,
    train_run,
    training_speed,
    write_results,
)

from card_envs.core.registry import game_class, game_specs
from card_envs.training.settings import TrainSettings

STEPS = 200_000  # PPO steps per table unless --steps says otherwise


def player_counts(game: str) -> list[int]:
    """Every table size the game's rules allow, but the full benchmark's 4."""
    engine = game_class(game)
    return [n for n in range(engine.min_players, engine.max_players + 1) if n != PLAYERS]


def result_name(game: str, players: int, steps: int) -> str:
    """The name of a table's run and numbers: a table trained for other than the default
    steps keeps its own, beside the default run's, so a longer run adds a row."""
    name = table_name(game, players)
    return name if steps == STEPS else f"{name}-{steps:_}steps"


def bench_table(game: str, players: int, name: str, args: argparse.Namespace, runs: Path) -> dict[str, Any]:
    """Train one agent for ``players`` seats with the game's defaults into ``runs/name``, and
    judge it."""
    settings = TrainSettings.from_options(
        game=game,
        num_players=players,
        timesteps=args.steps,
        seed=args.seed,
        eval_every=args.steps,  # the curve's only points: after imitation and at the end
        eval_games=args.curve_games,
        imitation_steps=args.imitation_steps,
        **training_speed(args, game),
    )
    print(f"== {name}: {args.steps:,} PPO steps against rule-based players", flush=True)
    out: dict[str, Any] = {"game": game, "players": players, "bench": " ".join(args.argv)}
    out["train"] = train_run(settings, runs / name)
    agent, others = f"greedy:{runs / name}", players - 1
    seated = {"agent": agent, "baseline": "rule"}
    if settings.teacher() not in ("", "rule"):
        seated["teacher"] = settings.teacher()
    results = {}
    for opponents in ("rule", "random"):
        for who, entry in seated.items():
            if opponents == "random" and who != "agent":
                continue
            print(f"== {name}: {who} vs {opponents} ({args.games} games)", flush=True)
            lineup = [entry, *[opponents] * others]
            result = judge(game, lineup, args.games, args.seed + 1, args)
            results[f"{who} vs {opponents}"] = result.as_json()["agents"][0]
    out["results"] = results
    out["duplicate"] = duplicate_deals(game, args)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", action="append", choices=sorted(game_specs()), help="default: every game")
    parser.add_argument("--players", type=int, nargs="+", help="default: every count the rules allow but 4")
    parser.add_argument("--steps", type=int, default=STEPS, help=f"PPO steps per run (default: {STEPS:,})")
    parser.add_argument("--games", type=int, default=500, help="games per line-up (default: 500)")
    parser.add_argument("--curve-games", type=int, default=200, help="games per learning-curve point")
    add_training_arguments(parser)
    add_evaluation_arguments(parser)
    args = parser.parse_args(argv)
    args.argv = argv if argv is not None else sys.argv[1:]
    args.imitation_steps = None  # the game's default
    if args.quick:
        args.steps, args.games, args.curve_games, args.imitation_steps = 2_048, 8, 8, 500
        args.envs, args.n_steps, args.batch_size = 4, 64, 128
    results = ROOT / "runs" / "bench-quick" if args.quick else ROOT / "docs" / "results"
    runs = ROOT / "runs" / ("bench-quick" if args.quick else "bench") / PLAYER_COUNTS
    out = results / PLAYER_COUNTS
    tables = []
    for game in args.game or list(game_specs()):
        allowed = player_counts(game)
        wrong = sorted(set(args.players or allowed) - set(allowed))
        if wrong:
            parser.error(
                f"{game} has no {PLAYERS}-player table here"
                if wrong == [PLAYERS]
                else f"{game} is played by {allowed[0]}..{allowed[-1]} players, not {wrong}"
            )
        tables += [(game, players) for players in args.players or allowed]
    out.mkdir(parents=True, exist_ok=True)
    for game, players in tables:
        name = result_name(game, players, args.steps)
        result = bench_table(game, players, name, args, runs)
        (out / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
        target = results.parent / "results.md" if not args.quick else results / "results.md"
        write_results(results, target)
        print(f"wrote {target}", flush=True)


if __name__ == "__main__":
    main()
