"""Learning benchmark: train agents per game with a fixed seed, evaluate honestly, write docs/results.md.

    python bench/learning.py                      # every game, the full budget (hours on 2 cores)
    python bench/learning.py --game tock --steps 600000 --eval-games 2000
    python bench/learning.py --quick              # a smoke run of the whole pipeline (minutes)

Per game: a MaskablePPO agent trained against three rule-based players at their default
knobs, and a self-play agent (one self-play seat, two rule-based ones); each trained for
--steps (chosen to fit 30 minutes on 2 cores). Then, in 4-player games with seats rotated, the
rule-trained agent against three rule-based players, three random players and rule-based
players with other knobs (the game spec's knob_mix), each next to a rule-based player in
the same seats as the baseline; and a head-to-head league of both agents with two
rule-based players. Every figure is the true rank reward with 95% intervals.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from agents.specs import rule_spec
from card_envs.registry import game_spec, game_specs
from card_envs.report import plot_learning_curve, plot_win_rates
from card_envs.tournament import TournamentResult, tournament
from card_envs.training import TrainSettings, train

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = 4


def lineups(game: str, agent: str) -> dict[str, list[str]]:
    mix = [rule_spec(dict(knobs)) for knobs in game_spec(game).knob_mix] or ["rule"] * (PLAYERS - 1)
    return {
        "rule": [agent, *["rule"] * (PLAYERS - 1)],
        "random": [agent, *["random"] * (PLAYERS - 1)],
        "other knobs": [agent, *mix[: PLAYERS - 1]],
    }


def train_run(settings: TrainSettings, out: Path) -> dict[str, Any]:
    start = time.perf_counter()
    model = train(settings, out, force=True, progress=False)
    seconds = time.perf_counter() - start
    return {"steps": model.num_timesteps, "seconds": seconds, "steps_per_s": model.num_timesteps / seconds}


def bench_game(game: str, args: argparse.Namespace, runs: Path) -> dict[str, Any]:
    base = TrainSettings(
        game=game,
        num_players=PLAYERS,
        timesteps=args.steps,
        seed=args.seed,
        eval_every=max(1, args.steps // 8),
        eval_games=args.curve_games,
    )
    plain = base
    selfplay = replace(base, opponents=["self", "rule", "rule"])
    out: dict[str, Any] = {"game": game, "settings": plain.as_json()}
    print(f"== {game}: training against rule-based players ({args.steps:,} steps)", flush=True)
    out["train_rule"] = train_run(plain, runs / f"{game}-rule")
    print(f"== {game}: training with self-play ({args.steps:,} steps)", flush=True)
    out["train_self"] = train_run(selfplay, runs / f"{game}-self")
    agent = f"greedy:{runs / f'{game}-rule'}"
    results: dict[str, TournamentResult] = {}
    for name, entries in lineups(game, agent).items():
        for who, first in (("agent", agent), ("baseline", "rule")):
            print(f"== {game}: {who} vs {name} ({args.eval_games} games)", flush=True)
            results[f"{who} vs {name}"] = tournament(
                game, [first, *entries[1:]], args.eval_games, seed=args.seed + 1
            )
    league = [agent, f"greedy:{runs / f'{game}-self'}", "rule", "rule"]
    print(f"== {game}: league ({args.eval_games} games)", flush=True)
    results["league"] = tournament(game, league, args.eval_games, seed=args.seed + 2)
    out["results"] = {k: r.as_json() for k, r in results.items()}
    plot_win_rates(
        [results["agent vs rule"], results["agent vs other knobs"], results["league"]],
        runs / f"{game}-win_rates.png",
    )
    plot_learning_curve(runs / f"{game}-rule" / "evaluations.csv", runs / f"{game}-curve.png")
    return out


def row(result: dict[str, Any]) -> str:
    a = result["agents"][0]
    fmt = lambda e, s: f"{e['value']:{s}} ({e['low']:{s}}..{e['high']:{s}})"  # noqa: E731
    return f"{fmt(a['win_rate'], '.1%')} | {fmt(a['mean_reward'], '+.3f')} | {fmt(a['mean_rank'], '.2f')}"


def write_results(all_results: list[dict[str, Any]], args: argparse.Namespace, path: Path) -> None:
    lines = [
        "# Learning results",
        "",
        "Produced by `python bench/learning.py "
        + " ".join(args.argv)
        + "` on 2 CPU cores; every figure is the true rank reward"
        " (1 for the winner, -1 for the last) with its 95% interval, in 4-player games with"
        " seats rotated, against the rule-based players at their default knobs unless said.",
        "",
    ]
    for game in all_results:
        name = game["game"]
        lines += [f"## {name}", "", "| training | steps | minutes | steps/s |", "|---|---|---|---|"]
        for key in ("train_rule", "train_self"):
            t = game[key]
            minutes = t["seconds"] / 60
            lines.append(
                f"| {key.removeprefix('train_')} | {t['steps']:,} | {minutes:.1f} | {t['steps_per_s']:,.0f} |"
            )
        lines += ["", "| line-up | who | win rate | mean reward | mean rank |", "|---|---|---|---|---|"]
        for key, result in game["results"].items():
            if key != "league":
                who, _, opponents = key.partition(" vs ")
                lines.append(f"| vs 3 {opponents} | {who} | {row(result)} |")
        lines += [
            "",
            "League (rule-trained agent, self-play agent, two rule-based players):",
            "",
            "| agent | win rate | mean reward | rating |",
            "|---|---|---|---|",
        ]
        for a in game["results"]["league"]["agents"]:
            lines.append(
                f"| `{a['name']}` | {a['win_rate']['value']:.1%} | {a['mean_reward']['value']:+.3f}"
                f" ({a['mean_reward']['low']:+.3f}..{a['mean_reward']['high']:+.3f}) | {a['rating']:.2f} |"
            )
        lines += ["", f"![win rates]({name}-win_rates.png) ![learning curve]({name}-curve.png)", ""]
    path.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--game", action="append", choices=sorted(game_specs()), help="default: the built-in games"
    )
    parser.add_argument(
        "--steps", type=int, default=600_000, help="training steps per agent (default: 600000)"
    )
    parser.add_argument("--eval-games", type=int, default=2000)
    parser.add_argument("--curve-games", type=int, default=100, help="games per point of the learning curve")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "results")
    parser.add_argument(
        "--quick", action="store_true", help="tiny budgets: checks the pipeline, not learning"
    )
    args = parser.parse_args(argv)
    args.argv = argv if argv is not None else __import__("sys").argv[1:]
    if args.quick:
        args.steps, args.eval_games, args.curve_games = 2_048, 8, 4
    games = args.game or ["uno", "tock", "chipit"]
    args.out.mkdir(parents=True, exist_ok=True)
    results = [bench_game(game, args, args.out) for game in games]
    (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    target = args.out.parent / "results.md" if not args.quick else args.out / "results.md"
    write_results(results, args, target)
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
