"""Learning benchmark: train agents per game with a fixed seed, evaluate honestly, write docs/results.md.

    python bench/learning.py                      # every game, the full budget (hours on 2 cores)
    python bench/learning.py --game chipit --minutes 25 --baseline-games 1000
    python bench/learning.py --quick              # a smoke run of the whole pipeline (minutes)

Per game (4 players, or --players): a start run with the game's defaults
(its recipe's teacher imitated first, if it names one, then PPO against rule-based
players at their default knobs) for half of --minutes (imitation included) or --steps,
whichever ends first. From it, for as many PPO steps as it made (or --go-on-steps), the
rule-trained agent goes on against rule-based players and the self-play agent against its
own snapshots in every other seat (or in --self-seats of them, rule-based players in the
rest). Then, with seats rotated, the rule-trained agent (playing its most probable legal
action) against rule-based players, random players and rule-based players with other knobs
(the game spec's knob_mix), each next to a rule-based player in the same seats as the
baseline; a league of both agents with rule-based players; and a head-to-head of the two
agents alone, in alternate seats. Every figure is the true rank reward with 95% intervals.
The runs step their games on the game's batched engine (--envs games per run; --processes
for one env per worker process instead).

The tournaments play on duplicate deals in the games where they narrow the intervals
(DUPLICATE_HELPS; --duplicate or --no-duplicate for every game).

Each table's numbers go to docs/results/<game>[-<N>p].json as soon as it is done, and
docs/results.md is rewritten from every file there, so games can be run one at a time (a
table run again replaces its own numbers only). With --reuse, a run an earlier bench trained
with the same train.py command is kept, so a changed bench trains only the runs it changed.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from card_envs.agents.policy_spec import rule_spec
from card_envs.agents.registry import rule_agent_spec
from card_envs.batched.game import batched_games
from card_envs.core.registry import game_specs
from card_envs.evaluation.report import plot_learning_curve, plot_win_rates
from card_envs.evaluation.tournament import TournamentResult, tournament
from card_envs.training.run import train
from card_envs.training.settings import TrainSettings

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = 4  # the default table; --players picks another
CURVE = "evaluations.csv"
PLAYER_COUNTS = "player-counts"  # bench/player_counts.py's tables, a folder of the results


def lineups(game: str, agent: str, players: int) -> dict[str, list[str]]:
    others = players - 1
    mix = [rule_spec(dict(knobs)) for knobs in rule_agent_spec(game).knob_mix] or ["rule"]
    return {
        "rule": [agent, *["rule"] * others],
        "random": [agent, *["random"] * others],
        "other knobs": [agent, *(mix * others)[:others]],
    }


def head_to_head(first: str, second: str, players: int) -> list[str]:
    """The two agents in alternate seats (each counted once per game over its seats), and a
    rule-based player in the last seat at an odd table, so both hold as many seats."""
    return [(first, second)[seat % 2] for seat in range(players - players % 2)] + ["rule"] * (players % 2)


def table_name(game: str, players: int) -> str:
    """The name of a benchmarked table in file and run names: the game, with the player
    count unless it is the default 4."""
    return game if players == PLAYERS else f"{game}-{players}p"


def train_run(settings: TrainSettings, out: Path, reuse: str = "never") -> dict[str, Any]:
    """Train into ``out`` and keep the run's figures in ``out/bench_train.json``.

    ``reuse``: ``"never"`` trains; ``"matching"`` reads the figures of a run an earlier bench
    trained with the same command (so a changed bench trains only the runs it changed), and
    trains otherwise; ``"always"`` reads them whatever the command (``--evaluate-only``).
    """
    figures = out / "bench_train.json"
    command = command_line(settings)
    saved: dict[str, Any] = json.loads(figures.read_text()) if figures.exists() else {}
    if reuse == "always" and not saved:
        raise SystemExit(f"--evaluate-only: {figures} is missing; train {out.name} first")
    if reuse == "always" or (reuse == "matching" and saved.get("command") == command):
        print(f"   reusing {out} ({saved['command']})", flush=True)
        return saved
    start = time.perf_counter()
    model = train(settings, out, force=True, progress=False)
    seconds = time.perf_counter() - start
    imitation = out / "imitation.json"
    result = {
        "steps": model.num_timesteps,
        "seconds": seconds,
        "steps_per_s": model.num_timesteps / seconds,
        "teacher": settings.teacher(),
        "imitation": json.loads(imitation.read_text()) if imitation.exists() else None,
        "command": command,
    }
    figures.write_text(json.dumps(result, indent=2) + "\n")
    return result


def training_speed(args: argparse.Namespace, game: str) -> dict[str, Any]:
    """How the runs step their games: ``--envs`` games of the batched engine in one process
    (4-5x the PPO steps per second, docs/performance.md), or one env per worker process."""
    if args.processes or game not in batched_games():
        return {}
    ppo = {"n_steps": args.n_steps, "batch_size": args.batch_size}
    if args.lr:
        ppo["learning_rate"] = args.lr
    return {"vectorized": True, "envs": args.envs, "ppo": ppo}


PPO_FLAGS = {"n_steps": "--n-steps", "batch_size": "--batch-size", "learning_rate": "--lr"}


def command_line(settings: TrainSettings) -> str:
    """The train.py command that repeats a run (the bench's own settings spelled out)."""
    run, teacher = settings.run, settings.imitation.teacher
    ppo = {k: v for k, v in asdict(settings.ppo).items() if v is not None}
    return (
        f"python train.py --game {settings.game} --players {settings.num_players}"
        f" --opponents {','.join(settings.opponents)} --timesteps {run.timesteps}"
        + (f" --max-minutes {run.max_minutes:g}" if run.max_minutes else "")
        + (f" --teacher {teacher or 'none'}" if teacher is not None else "")
        + f" --seed {run.seed}"
        + (f" --vectorized --envs {run.envs}" if run.vectorized else "")
        + "".join(f" {PPO_FLAGS[k]} {v:g}" for k, v in ppo.items())
        + f" --eval-every {run.eval_every} --eval-games {run.eval_games}"
        + (f" --init-from {Path(run.init_from).relative_to(ROOT)}" if run.init_from else "")
    )


def bench_game(game: str, args: argparse.Namespace, runs: Path, out_dir: Path) -> dict[str, Any]:
    """Train the agents of ``game`` into ``runs``, evaluate them; plots go to ``out_dir``.

    A curriculum with a control: a start run (the teacher imitated, then PPO against
    rule-based players) for half the budget; from it, the rule-trained agent goes on against
    rule-based players and the self-play agent against its own snapshots (in ``--self-seats``
    of the other seats, rule-based players in the rest), each for as many PPO steps as the
    start run made, or ``--go-on-steps``. Both agents get the same steps, so the head-to-head
    between them judges what self-play adds.
    """
    players, name = args.players, table_name(game, args.players)
    first = TrainSettings.from_options(
        game=game,
        num_players=players,
        timesteps=args.steps,
        max_minutes=args.minutes / 2,
        seed=args.seed,
        eval_every=args.eval_every,
        eval_games=args.curve_games,
        imitation_steps=args.imitation_steps,
        teacher=None if args.teacher is None else "" if args.teacher == "none" else args.teacher,
        **training_speed(args, game),
    )
    out: dict[str, Any] = {
        "game": game,
        "players": players,
        "bench": " ".join(args.argv),
        "settings": first.as_json(),
    }
    print(f"== {name}: start, against rule-based players ({args.minutes / 2:g} minutes)", flush=True)
    start_dir = runs / f"{name}-start"
    out["train_start"] = train_run(first, start_dir, args.reuse)
    go_on = replace(
        first,
        run=replace(
            first.run,
            timesteps=args.go_on_steps or out["train_start"]["steps"],
            max_minutes=None,
            init_from=str(start_dir),
        ),
        imitation=replace(first.imitation, teacher=None),
    )
    self_seats = players - 1 if args.self_seats is None else min(args.self_seats, players - 1)
    selfplay = ["self"] * self_seats + ["rule"] * (players - 1 - self_seats)
    for run, opponents in (("rule", ["rule"]), ("self", selfplay)):
        print(
            f"== {name}: {run}, {go_on.run.timesteps:,} more steps against {','.join(opponents)}", flush=True
        )
        settings = replace(go_on, opponents=tuple(opponents))
        out[f"train_{run}"] = train_run(settings, runs / f"{name}-{run}", args.reuse)
    agent = f"greedy:{runs / f'{name}-rule'}"
    results: dict[str, TournamentResult] = {}
    for opponents, entries in lineups(game, agent, players).items():
        seated = [("agent", agent, args.eval_games), ("baseline", "rule", args.baseline_games)]
        if opponents == "rule" and first.teacher() not in ("", "rule"):  # "rule" is the baseline already
            seated.append(("teacher", first.teacher(), args.baseline_games))
        for who, entry, games in seated:
            print(f"== {name}: {who} vs {opponents} ({games} games)", flush=True)
            lineup = [entry, *entries[1:]]
            results[f"{who} vs {opponents}"] = judge(game, lineup, games, args.seed + 1, args)
    selfplay_agent = f"greedy:{runs / f'{name}-self'}"
    league = [agent, selfplay_agent, *["rule"] * (players - 2)]
    print(f"== {name}: league ({args.eval_games} games)", flush=True)
    results["league"] = judge(game, league, args.eval_games, args.seed + 2, args)
    duel_games = args.duel_games or args.eval_games
    print(f"== {name}: head-to-head ({duel_games} games)", flush=True)
    duel = head_to_head(agent, selfplay_agent, players)
    results["head-to-head"] = judge(game, duel, duel_games, args.seed + 3, args, pool_copies=True)
    out["results"] = {k: r.as_json() for k, r in results.items()}
    plot_win_rates(
        [results[key] for key in ("agent vs rule", "agent vs other knobs", "league", "head-to-head")],
        out_dir / f"{name}-win_rates.png",
    )
    curves = {run: [start_dir / CURVE, runs / f"{name}-{run}" / CURVE] for run in ("rule", "self")}
    curve_title = (
        f"{players}-player {game}: the rule-trained and self-play runs vs {players - 1} rule-based players"
    )
    plot_learning_curve(curves, out_dir / f"{name}-curve.png", curve_title)
    return out


def time_to_win(game: str, args: argparse.Namespace, runs: Path) -> dict[str, Any]:
    """Train ``game`` with its full recipe until an evaluation (--ttw-games against three
    rule-based players, every --ttw-every steps) has its interval above 0, at most --ttw-minutes;
    then confirm the agent on --ttw-confirm new games (the first of many looks to cross 0 may
    be luck). Times are wall time of training and imitation, evaluations left out."""
    settings = TrainSettings.from_options(
        game=game, num_players=args.players, recipe="full", seed=args.seed, eval_every=args.ttw_every,
        eval_games=args.ttw_games, stop_when_ahead=True, max_minutes=args.ttw_minutes,
        **({"timesteps": 4096, "imitation_steps": 500, "envs": 4} if args.quick else {}),
    )  # fmt: skip
    run = runs / f"{table_name(game, args.players)}-time-to-win"
    print(f"== {game}: time to a winning agent (at most {args.ttw_minutes:g} minutes)", flush=True)
    train(settings, run, force=True, progress=False)
    with (run / CURVE).open() as file:
        rows = list(csv.DictReader(file))
    last = rows[-1]
    ahead = next((r for r in rows if float(r["reward_low"]) > 0), None)
    # the row at step 0: its seconds are the imitation's (or a fresh run's set-up); PPO's rate leaves them out
    first = rows[0] if int(rows[0]["steps"]) == 0 else {"steps": 0, "seconds": 0.0}
    ppo_seconds = float(last["seconds"]) - float(first["seconds"])
    out: dict[str, Any] = {
        "game": game,
        "players": args.players,
        "command": f"python train.py --game {game} --players {args.players} --recipe full --seed {args.seed}"
        f" --eval-every {args.ttw_every} --eval-games {args.ttw_games} --stop-when-ahead"
        f" --max-minutes {args.ttw_minutes:g}",
        "evaluations": len(rows),
        "imitation_seconds": float(first["seconds"]) if settings.teacher() else 0.0,
        "steps_per_second": round(int(last["steps"]) / max(ppo_seconds, 1e-9)),
        "ahead": None,
    }
    if ahead is not None:
        confirm = judge(game, [f"greedy:{run}", *["rule"] * (args.players - 1)], args.ttw_confirm, 7, args)
        reward = confirm.agents[0].mean_reward
        out["ahead"] = {
            "steps": int(ahead["steps"]),
            "seconds": float(ahead["seconds"]),
            "mean_reward": float(ahead["mean_reward"]),
            "low": float(ahead["reward_low"]),
            "high": float(ahead["reward_high"]),
            "confirm": {
                "games": confirm.games,
                "value": reward.value,
                "low": reward.low,
                "high": reward.high,
            },
        }
    print(f"   {json.dumps(out)}", flush=True)
    return out


def wall(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 60 else f"{seconds / 60:.1f} min"


def time_to_win_page(results: list[dict[str, Any]], argv: list[str], kept: str = "") -> str:
    """The page of ``results``, keeping the rows of the other games from the page ``kept``
    (a run of one game rewrites its own row only)."""
    order = list(game_specs())
    measured = {r["game"] for r in results}
    others = [line for line in kept.splitlines() if row_game(line) in set(order) - measured]
    head = [
        "# Time to a winning agent",
        "",
        "`python bench/learning.py --time-to-win --game G` (one `--game` for each game measured; here"
        f" last `python bench/learning.py {' '.join(argv)}`) on the project's 2-core machine: each game"
        " trained with its full recipe (`train.py --game G --recipe full`), evaluated against three"
        " rule-based players at their default knobs every few PPO steps, and stopped at the first"
        " evaluation whose mean-reward interval lies above 0 (`--stop-when-ahead`). Wall time counts"
        " imitation and PPO, not the evaluations. The agent is then confirmed on new deals.",
        "",
        "| game | wall time to ahead | of it, imitation | PPO steps | the evaluation that crossed"
        " | confirmed on new deals | PPO steps/s | command |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines = []
    for r in results:
        a, imitation = r["ahead"], wall(r["imitation_seconds"])
        if a is None:
            lines.append(
                f"| {r['game']} | not within the budget ({r['evaluations']} evaluations) |"
                f" {imitation} | | | | {r['steps_per_second']:,} | `{r['command']}` |"
            )
            continue
        c = a["confirm"]
        steps = f"{a['steps']:,}" if a["steps"] else "0: the imitation alone"
        rate = f"{r['steps_per_second']:,}" if r["steps_per_second"] else ""
        lines.append(
            f"| {r['game']} | **{wall(a['seconds'])}** | {imitation} | {steps} |"
            f" {a['mean_reward']:+.3f} ({a['low']:+.3f}..{a['high']:+.3f}) |"
            f" {c['value']:+.3f} ({c['low']:+.3f}..{c['high']:+.3f}), {c['games']:,} games |"
            f" {rate} | `{r['command']}` |"
        )
    rows = sorted(lines + others, key=lambda line: order.index(row_game(line)))
    return "\n".join(head + rows) + "\n"


def row_game(line: str) -> str:
    """The game a table row of the page is about ("" for any other line)."""
    return line.split(" | ")[0][2:] if line.startswith("| ") else ""


def judge(
    game: str, lineup: list[str], games: int, seed: int, args: argparse.Namespace, pool_copies: bool = False
) -> TournamentResult:
    """A tournament of the bench, on duplicate deals where they help (:func:`duplicate_deals`)."""
    duplicate = duplicate_deals(game, args)
    return tournament(game, lineup, games, seed=seed, pool_copies=pool_copies, duplicate=duplicate)


def duplicate_deals(game: str, args: argparse.Namespace) -> bool:
    """``--duplicate`` or ``--no-duplicate`` if given, else whether the game is one of
    :data:`DUPLICATE_HELPS`."""
    return game in DUPLICATE_HELPS if args.duplicate is None else bool(args.duplicate)


def interval(estimate: dict[str, Any], fmt: str) -> str:
    return f"{estimate['value']:{fmt}} ({estimate['low']:{fmt}}..{estimate['high']:{fmt}})"


def row(agent: dict[str, Any]) -> str:
    return " | ".join(
        [
            f"{agent['games']:,}",
            interval(agent["win_rate"], ".1%"),
            interval(agent["mean_reward"], "+.3f"),
            interval(agent["mean_rank"], ".2f"),
        ]
    )


def rated_table(result: dict[str, Any]) -> list[str]:
    """A tournament's agents with their ratings, as Markdown lines (a blank line first)."""
    head = ["| agent | games | win rate | mean reward | mean rank | rating |", "|---|---|---|---|---|---|"]
    return ["", *head] + [f"| `{a['name']}` | {row(a)} | {a['rating']:.2f} |" for a in result["agents"]]


def game_section(game: dict[str, Any], pictures: str = "") -> list[str]:
    players = game.get("players", PLAYERS)
    name = table_name(game["game"], players)
    lines = [
        f"## {game['game']}, {players} players",
        "",
        f"`python bench/learning.py {game['bench']}`".replace(" `", "`"),
        "",
        "| run | starts from | PPO steps | minutes | PPO steps/s over the run | command |",
        "|---|---|---|---|---|---|",
    ]
    for key in ("train_start", "train_rule", "train_self"):
        if key not in game:  # a game benchmarked before the start run existed
            continue
        t = game[key]
        imitation = t.get("imitation")
        if "--init-from" in t["command"]:
            begins = "the start run"
        elif imitation:
            begins = f"`{t['teacher']}` imitated ({imitation['accuracy']:.1%} held-out accuracy)"
        else:
            begins = "random play"
        lines.append(
            f"| {key.removeprefix('train_')} | {begins} | {t['steps']:,} | {t['seconds'] / 60:.1f}"
            f" | {t['steps_per_s']:,.0f} | `{t['command']}` |"
        )
    if "train_start" not in game:
        lines += ["", "(Benchmarked before the start run: both agents began from the teacher.)"]
    if any(result.get("duplicate") for result in game["results"].values()):
        lines += ["", DUPLICATE_NOTE]
    lines += [
        "",
        "| line-up | who | games | win rate | mean reward | mean rank |",
        "|---|---|---|---|---|---|",
    ]
    for key, result in game["results"].items():
        if key not in ("league", "head-to-head"):
            who, _, opponents = key.partition(" vs ")
            lines.append(f"| vs {players - 1} {opponents} | {who} | {row(result['agents'][0])} |")
    rest = {2: "", 3: ", a rule-based player"}.get(players, f", {players - 2} rule-based players")
    lines += [
        "",
        f"League (the rule-trained agent, the self-play agent{rest}):",
        *rated_table(game["results"]["league"]),
    ]
    if "head-to-head" in game["results"]:
        odd = ", and a rule-based player in the last seat" if players % 2 else ""
        lines += [
            "",
            f"Head-to-head (the two agents in alternate seats{odd}; per game, an agent's rank"
            " and reward are the means over its seats, and it wins if one of its seats does):",
            *rated_table(game["results"]["head-to-head"]),
        ]
    plots = f"![win rates]({pictures}{name}-win_rates.png) ![learning curve]({pictures}{name}-curve.png)"
    lines += ["", plots, ""]
    return lines


def write_results(results_dir: Path, path: Path) -> None:
    """``path`` from every game's JSON in ``results_dir``, in the registry's order."""
    files = (json.loads(f.read_text()) for f in sorted(results_dir.glob("*.json")))
    games = [g for g in files if "results" in g]  # other benches keep their numbers there too
    order = list(game_specs())
    rank = {name: i for i, name in enumerate(order)}
    games.sort(key=lambda g: (rank.get(g["game"], len(order)), g.get("players", PLAYERS)))
    lines = [
        "# Learning results",
        "",
        "Produced by `bench/learning.py` on 2 CPU cores (the command of each game is given with it).",
        "Every figure is the true rank reward (1 for the winner, -1 for the last; 0 is the equal",
        "share) or the win rate, with its 95% interval, with seats rotated (4 players unless said).",
        "Opponents are the rule-based players at their default knobs unless the line-up says",
        "otherwise. The trained agents play their most probable legal action (`greedy:RUN`).",
        "`baseline` is a rule-based player at its default knobs in the agent's seats, `teacher`",
        "the scripted player the agent imitated before PPO (docs/learning.md).",
        "",
    ]
    # the plots lie beside the JSON: their links are relative to the page
    pictures = "" if results_dir == path.parent else f"{os.path.relpath(results_dir, path.parent)}/"
    for game in games:
        lines += game_section(game, pictures)
    sweep = [json.loads(f.read_text()) for f in sorted((results_dir / PLAYER_COUNTS).glob("*.json"))]
    if sweep:
        sweep.sort(key=lambda g: (rank.get(g["game"], len(order)), g["players"], g["train"]["steps"]))
        lines += player_counts_section(sweep)
    path.write_text("\n".join(lines) + "\n")


def player_counts_section(tables: list[dict[str, Any]]) -> list[str]:
    """The short runs of bench/player_counts.py at the other table sizes, one row per line-up."""
    lines = [
        "## Other player counts",
        "",
        "One run per table with the game's defaults for a fixed number of PPO steps (imitation",
        "first), judged against N-1 rule-based or random players (`bench/player_counts.py`;",
        "each table's command is its run's `train.py` line). Minutes are wall time, other runs",
        "sharing the cores included: the budget is steps, not time.",
        "",
        "| game | players | PPO steps | minutes | line-up | who | games | win rate | mean reward"
        " | mean rank |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for table in tables:
        train = table["train"]
        game = table["game"] + ("*" if table.get("duplicate") else "")
        where = f"{game} | {table['players']} | {train['steps']:,} | {train['seconds'] / 60:.1f}"
        for key, agent in table["results"].items():
            who, _, opponents = key.partition(" vs ")
            lines.append(f"| {where} | vs {table['players'] - 1} {opponents} | {who} | {row(agent)} |")
    if any(table.get("duplicate") for table in tables):
        lines += ["", f"\\* {DUPLICATE_NOTE}"]
    commands = [f"- `{t['train']['command']}`" for t in tables]
    return [*lines, "", "The runs:", "", *commands, ""]


#: what the results say of tournaments on duplicate deals
DUPLICATE_NOTE = (
    "Judged on duplicate deals: each deal once per rotation of the line-up through the seats,"
    " the intervals over deals (docs/evaluation.md)."
)


#: the games whose tournaments the benches play on duplicate deals by default: where
#: bench/duplicate.py found them narrowing the intervals among rule-based players (UNO as
#: 3.2 times the games would, Chip It 1.2 times; Tock 1.1 and 0.8 times, docs/evaluation.md)
DUPLICATE_HELPS = ("uno", "chipit")


def add_evaluation_arguments(parser: argparse.ArgumentParser) -> None:
    """How every bench that trains judges its agents."""
    parser.add_argument(
        "--duplicate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="judge the agents on duplicate deals, or not (default: in "
        + " and ".join(DUPLICATE_HELPS)
        + ", where they narrow the intervals: docs/evaluation.md)",
    )


def add_training_arguments(parser: argparse.ArgumentParser) -> None:
    """The seed and how the runs step their games (:func:`training_speed`), for every bench
    that trains."""
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--envs", type=int, default=32, help="games stepped together per run (default: 32)")
    parser.add_argument("--n-steps", type=int, default=256, help="PPO rollout steps per game (default: 256)")
    parser.add_argument("--batch-size", type=int, default=1024, help="PPO minibatch (default: 1024)")
    parser.add_argument("--lr", type=float, default=None, help="PPO learning rate (default: the runs' own)")
    parser.add_argument(
        "--processes",
        action="store_true",
        help="train with one env per worker process (train.py's default) instead of the batched engine",
    )
    parser.add_argument(
        "--quick", action="store_true", help="tiny budgets: checks the pipeline, not learning"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--game", action="append", choices=sorted(game_specs()), help="default: the built-in games"
    )
    parser.add_argument("--players", type=int, default=PLAYERS, help="seats at the table (default: 4)")
    parser.add_argument("--minutes", type=float, default=30.0, help="wall time per agent (default: 30)")
    parser.add_argument("--steps", type=int, default=5_000_000, help="PPO steps per agent at most")
    parser.add_argument("--eval-games", type=int, default=2000, help="games per line-up of the agent")
    parser.add_argument("--baseline-games", type=int, default=2000, help="games per baseline line-up")
    parser.add_argument(
        "--duel-games",
        type=int,
        default=None,
        help="games of the head-to-head (default: --eval-games); in Chip It the two agents are about"
        " 0.02 apart, and 2,000 games measure that to only about ±0.018 (docs/learning.md)",
    )
    parser.add_argument("--eval-every", type=int, default=200_000, help="steps between learning-curve points")
    parser.add_argument("--curve-games", type=int, default=200, help="games per point of the learning curve")
    add_training_arguments(parser)
    add_evaluation_arguments(parser)
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="numbers and plots (default: docs/results; --quick: runs/bench-quick); models go to runs/bench",
    )
    parser.add_argument(
        "--teacher",
        default=None,
        help="the start run's teacher, 'none' for PPO from random play (default: the game's)",
    )
    parser.add_argument(
        "--go-on-steps",
        type=int,
        default=None,
        help="PPO steps of the rule-trained and the self-play runs each (default: as many as the start"
        " run made); in Chip It self-play won the head-to-head only after 2M (docs/learning.md)",
    )
    parser.add_argument(
        "--self-seats",
        type=int,
        default=None,
        help="the self-play agent's training: how many other seats its snapshots hold, the rest"
        " rule-based (default: all)",
    )
    parser.add_argument(
        "--reuse",
        action="store_const",
        const="matching",
        default="never",
        help="keep each run an earlier bench trained with the same command (train only what changed)",
    )
    parser.add_argument(
        "--evaluate-only",
        dest="reuse",
        action="store_const",
        const="always",
        help="evaluate the agents an earlier bench trained (runs/bench/<game>-rule, -self) again",
    )
    parser.add_argument(
        "--time-to-win",
        action="store_true",
        help="instead: per game, the wall time and PPO steps until the agent first beats three"
        " rule-based players with its interval above 0 (writes docs/time-to-win.md)",
    )
    parser.add_argument(
        "--ttw-every", type=int, default=25_000, help="--time-to-win: steps between evaluations"
    )
    parser.add_argument("--ttw-games", type=int, default=400, help="--time-to-win: games per evaluation")
    parser.add_argument(
        "--ttw-minutes", type=float, default=20.0, help="--time-to-win: wall-time cap per game"
    )
    parser.add_argument("--ttw-confirm", type=int, default=1000, help="--time-to-win: games on new deals")
    args = parser.parse_args(argv)
    for option in ("self_seats", "duel_games", "go_on_steps", "ttw_every", "ttw_games", "ttw_confirm"):
        value = getattr(args, option)
        if value is not None and value < 1:
            parser.error(f"--{option.replace('_', '-')} must be at least 1, got {value}")
    args.argv = argv if argv is not None else sys.argv[1:]
    args.imitation_steps = None  # the game's default
    if args.quick:
        args.minutes, args.steps, args.eval_every, args.imitation_steps = 5.0, 2_048, 1_024, 500
        args.eval_games = args.baseline_games = args.curve_games = args.duel_games = 8
        args.envs, args.n_steps, args.batch_size = 4, 64, 128
    out = args.out or (ROOT / "runs" / "bench-quick" if args.quick else ROOT / "docs" / "results")
    runs = ROOT / "runs" / ("bench-quick" if args.quick else "bench")  # models stay out of docs/
    out.mkdir(parents=True, exist_ok=True)
    if args.time_to_win:
        if args.quick:
            args.ttw_every, args.ttw_games, args.ttw_confirm, args.ttw_minutes = 1024, 8, 8, 2.0
        results = [time_to_win(game, args, runs) for game in args.game or list(game_specs())]
        page = out.parent / "time-to-win.md" if out == ROOT / "docs" / "results" else out / "time-to-win.md"
        kept = page.read_text() if page.exists() else ""
        page.write_text(time_to_win_page(results, args.argv, kept))
        print(f"wrote {page}", flush=True)
        return
    for game in args.game or list(game_specs()):
        result = bench_game(game, args, runs, out)
        (out / f"{table_name(game, args.players)}.json").write_text(json.dumps(result, indent=2) + "\n")
        target = out.parent / "results.md" if out == ROOT / "docs" / "results" else out / "results.md"
        write_results(out, target)
        print(f"wrote {target}", flush=True)


if __name__ == "__main__":
    main()
