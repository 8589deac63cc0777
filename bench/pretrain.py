"""Rebuild the agents shipped in card_envs/agents/pretrained, and docs/pretrained.md from their cards.

    python bench/pretrain.py                          # every table of TABLES (hours on 2 cores)
    python bench/pretrain.py --tables tock-4p,tock-3p # some of them
    python bench/pretrain.py --quick                  # a smoke run into a temporary folder
    python bench/pretrain.py --rejudge --tables chipit-4p  # judge a shipped agent again

Per table: train with the game's recipe (``--recipe full`` at 4 players, the benchmark's; at
other tables ``quick``, or ``full`` for a game or table of FULL_RECIPE, with at most --minutes of
wall time, imitation included); a table of FOLLOW_STAGES then trains on from that run in further
stages against the players it loses to (Chip It at 4 players: a league, then heuristic players,
then a fit to its own valued moves; UNO at 4: heuristic players; Chip It at 2: heuristic
players, then the fit; Chip It at 3, 5 and 6: the fit; into ``GAME-Np-NAME``); then judge the agent
playing its most probable move: --games games against N-1 rule-based players at their default
knobs, seats rotated (duplicate deals where they narrow the interval), beside a rule-based
player in the same seats and deals; at 4 players also the gauntlet
(card_envs.evaluation.gauntlet, --gauntlet-games per line-up, on duplicate deals likewise; both
times EVALUATION_SCALE), elsewhere after further stages against heuristic players, N-1 of them. A
4-player agent always ships (the strongest the recipe gives); at another table it ships only if
its interval against the rule-based players lies above 0. Shipping writes GAME-Np.npz and
GAME-Np.json into the package (card_envs.training.export), and docs/pretrained.md is rewritten
from every card there. With --reuse, a stage whose run directory holds a finished run of the
same train.py command (``pretrain_stage.json``) is kept, so a later stage can be rebuilt
without the ones before it. With --rejudge, the package's agents of --tables are judged again
as they are, without training (for a card judged before the evaluation changed, its runs gone):
their cards keep how they were trained and get the new results.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from card_envs.agents.pretrained import DATA, PRETRAINED, file_stem
from card_envs.agents.runs import is_finished
from card_envs.core.registry import game_spec
from card_envs.evaluation.gauntlet import gauntlet
from card_envs.evaluation.tournament import TournamentResult, tournament
from card_envs.training.export import export_pretrained
from card_envs.training.run import train
from card_envs.training.settings import TrainSettings

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "pretrained.md"
#: the tables rebuilt by default: every game at 4 players, and the others where a short run
#: beat the rule-based players (docs/pretrained.md)
TABLES = (
    "tock-4p", "chipit-4p", "uno-4p", "tock-2p", "tock-3p", "tock-5p", "tock-6p",
    "chipit-2p", "chipit-3p", "chipit-5p", "chipit-6p", "uno-2p", "uno-3p", "uno-5p", "uno-6p",
    "uno-7p", "uno-8p", "uno-9p", "uno-10p",
)  # fmt: skip
#: games whose evaluations play duplicate deals (they narrow the interval there: docs/evaluation.md)
DUPLICATE = ("uno", "chipit")
#: games whose evaluations play this many times --games and --gauntlet-games: UNO's games are
#: cheap (20,000 in about 30 s on two workers) and its 4-player agent's edges over the hard
#: line-ups small (+0.015 over three heuristic players in 100,000 games), which 400 or 1,000
#: games cannot place; 20,000 on duplicate deals place +0.015 nine times in ten (docs/learning.md,
#: "The close line-ups over 20,000 games")
EVALUATION_SCALE = {"uno": 50}
#: the table at which a recipe's full scale is used and an agent always ships
MAIN_PLAYERS = 4
#: games (at every table) or single tables (GAME-Np) trained with their full recipe away from
#: MAIN_PLAYERS too, still capped by --minutes: Tock's quick recipe, on the rank reward with the
#: corrected shaping, got ahead of the rule-based players too late at 3, 5 and 6 players
#: (docs/learning.md, "The shaping paid for cards, not ranks"); Chip It's quick recipe at 2
#: players stayed level with the rule-based player, its full one in 15 minutes beats it
#: (docs/learning.md, "Chip It at 2 players on its full recipe")
FULL_RECIPE = ("tock", "chipit-2p")
#: tables whose agent trains on from the recipe's run in further stages, each from the run before
#: it (into GAME-Np-NAME; ``seed_offset`` is added to --seed). Chip It at 4 players: a league with
#: the heuristic player in its pool, the hardest entries drawn most (docs/learning.md, "A steeper
#: league": it beat the recipe's agent head to head), then 7.5M steps against three heuristic
#: players, in three runs as they were found ("Against the heuristic player at full speed": the
#: gauntlet's every line-up beaten, the league's agent beaten head to head), then no PPO: its own
#: moves valued in 600 games against itself and the network fitted towards those that gain,
#: twice (search.md, "Search as a teacher by soft targets": each beats the agent before it head
#: to head; ``improve_games`` sets ``--improve-games``). UNO at 4 players:
#: 7.5M steps against three heuristic players, in three runs ("Every game against its heuristic
#: players": the heuristic players beaten on duplicate deals). Chip It at 2 players: 5M steps
#: against the heuristic player, far ahead of the recipe's agent, in two runs ("Chip It at 2
#: players on its full recipe": the gap to it cut by two thirds), then fitted to its own valued
#: moves in 800 games (the gap halved again: search.md, "Search as a teacher by soft targets").
#: Chip It at 3, 5 and 6 players: the quick recipe's agent fitted to its own valued moves (800,
#: 600 and 500 games; each beats the recipe's agent head to head, the same section)
FOLLOW_STAGES: dict[str, tuple[dict[str, Any], ...]] = {
    "chipit-4p": (
        {"name": "league", "opponents": ["league"], "league_others": ("heuristic",),
         "league_exponent": 6.0, "league_floor": 0.001, "timesteps": 860_160, "seed_offset": 0},
        {"name": "heuristic", "opponents": ["heuristic"], "timesteps": 2_500_000, "seed_offset": 3},
        {"name": "heuristic2", "opponents": ["heuristic"], "timesteps": 2_500_000, "seed_offset": 4},
        {"name": "heuristic3", "opponents": ["heuristic"], "timesteps": 2_500_000, "seed_offset": 5},
        {"name": "improved", "improve_games": 600, "timesteps": 0, "seed_offset": 6},
        {"name": "improved2", "improve_games": 600, "timesteps": 0, "seed_offset": 7},
    ),
    "uno-4p": (
        {"name": "heuristic", "opponents": ["heuristic"], "timesteps": 2_500_000, "seed_offset": 1},
        {"name": "heuristic2", "opponents": ["heuristic"], "timesteps": 2_500_000, "seed_offset": 2},
        {"name": "heuristic3", "opponents": ["heuristic"], "timesteps": 2_500_000, "seed_offset": 3},
    ),
    "chipit-2p": (
        {"name": "heuristic", "opponents": ["heuristic"], "timesteps": 2_500_000, "seed_offset": 1},
        {"name": "heuristic2", "opponents": ["heuristic"], "timesteps": 2_500_000, "seed_offset": 2},
        {"name": "improved", "improve_games": 800, "timesteps": 0, "seed_offset": 6},
    ),
    "chipit-3p": ({"name": "improved", "improve_games": 800, "timesteps": 0, "seed_offset": 6},),
    "chipit-5p": ({"name": "improved", "improve_games": 600, "timesteps": 0, "seed_offset": 6},),
    "chipit-6p": ({"name": "improved", "improve_games": 500, "timesteps": 0, "seed_offset": 6},),
}  # fmt: skip
#: the train.py option of each stage setting (lists comma-separated; --timesteps after --init-from)
STAGE_FLAGS = {
    "opponents": "--opponents",
    "league_others": "--league-others",
    "league_exponent": "--league-exponent",
    "league_floor": "--league-floor",
    "timesteps": "--timesteps",
    "improve_games": "--improve-games",
}
#: what --reuse reads in a run directory: the train.py command that trained it, and its time
STAGE_FILE = "pretrain_stage.json"


HEAD = """# Pretrained agents

Agents that ship with the package, one for every table of every game (Tock and Chip It at 2 to
6 players, UNO at 2 to 10): play against one, or use it as an opponent, without training first.
The spec `pretrained` (or `pretrained:GAME`) names the agent of the table at hand, wherever a
spec goes:

```bash
python evaluate.py --game tock --agents pretrained,rule,rule,rule --games 400
python train.py --game chipit --opponents pretrained            # train against it
python -m card_envs.cli.play --game uno --opponents pretrained
python -m card_envs.cli.watch --game tock --agents pretrained,pretrained,rule,rule
```

Each agent is the actor of a MaskablePPO run, stored as plain arrays (`GAME-Np.npz`, under
1 MB) beside its card (`GAME-Np.json`) in `card_envs/agents/pretrained/`. It loads with numpy
alone, so the core install plays it (no torch, no SB3, nothing unpickled), and it plays its
most probable legal move (it draws no random numbers). In an installation without some of
these files, a table without a shipped agent is refused in one sentence that names the tables
that have one.

Every card below was written by `python bench/pretrain.py` (one table: `--tables tock-4p`): it
trains with the game's recipe (`--recipe full` at 4 players and, in Tock, at every table, in
Chip It at 2 players too; elsewhere `quick`; at most 15 minutes of wall time away from 4
players, where the agent ships only if it beats the rule-based players with its interval above
0). Chip It's 4-player agent then trains on from that run in a league whose pool holds the
heuristic player and draws the entries it does worst against most often
([learning.md](learning.md), "A steeper league"), then against three heuristic players
("Against the heuristic player at full speed"); UNO's 4-player agent trains on from the
recipe's run against three heuristic players ("Every game against its heuristic players"), and
Chip It's 2-player agent against the heuristic player ("Chip It at 2 players on its full
recipe"; its card adds how it does against that player). Chip It's agents at every table
were then fitted to their own valued moves (below; at 3, 5 and 6 players straight after the
recipe's run, which the 15 minutes bound, and their cards add how they do against heuristic
players).
Their cards add the head to head against the recipe's agent they started from. Each agent is
judged against rule-based players at their default knobs in every other seat, beside a
rule-based player in the same seats, and at 4 players against the gauntlet
([gauntlet.md](gauntlet.md); in UNO and Chip It on duplicate deals). Mean rank reward (rank r
of N gets 1 - 2(r-1)/(N-1); 0 is the equal share) with 95% intervals.

Chip It's 4-player agent was fitted to its own valued moves, without PPO (2026-12-06;
[search.md](search.md), "Search as a teacher by soft targets"): its last command started from
the agent shipped before it (the runs of its earlier stages are gone; a rebuild starts that
stage from the run before it), and head to head it beats that agent, +0.023 (+0.016..+0.030)
over 10,000 games on duplicate deals (`python evaluate.py --game chipit --agents
greedy:RUN,pretrained,greedy:RUN,pretrained --pool-copies --duplicate --games 10000 --seed 7`,
before it shipped); against three heuristic players it scores +0.051 (+0.042..+0.061) over
20,000 games on duplicate deals, where that agent scored +0.021 (+0.013..+0.030) on the same
deals (seed 21). A second fit from it, on 600 new games (its last command), beats it head to
head in turn, +0.019 (+0.012..+0.026) over 10,000 games (seed 8), scores +0.067
(+0.057..+0.075) against three heuristic players on those 20,000 deals, and ships. Its card was
judged with `--rejudge`, so it has no head to head against the recipe's agent, whose run is
gone. The 2-player agent was fitted the same way (800 games, from
the agent shipped before it): head to head against that agent +0.027 (+0.006..+0.048), and
against the heuristic player -0.035 (-0.059..-0.012) where that agent scored -0.073
(-0.097..-0.051), 4,000 games on duplicate deals each (seed 7).

The reward shaping of Tock's and Chip It's recipes was corrected on 2026-12-05 (its potential
now returns to 0 at the end; [learning.md](learning.md), "The shaping paid for cards, not
ranks"). Every agent below was trained after the fix but the first two stages of 4-player Chip
It (the recipe's run and the league), whose commands now train somewhat different agents (UNO's
recipe has no shaping). Tock trains with its full recipe (2M steps) at every table: on the
true objective its quick recipe's 350k steps got ahead of the rule-based players too late at
3, 5 and 6 players (against rule-based players, 1,000 games: +0.238, +0.438, +0.100, where the
full recipe's cards below have +0.269, +0.489, +0.527). UNO's evaluations play 50 times the
games of the others' (its games are cheap, and its agent's edges over the hard line-ups small).
Chip It's quick recipe at 2 players stayed level with the rule-based player (+0.003,
-0.012..+0.018 over 10,000 games on duplicate deals); its full recipe, stopped at 15 minutes,
beats it ([learning.md](learning.md), "Chip It at 2 players on its full recipe").

"""


def parse_table(text: str) -> tuple[str, int]:
    """``tock-4p`` -> (``tock``, 4), checked against the game's table sizes."""
    game, _, players = text.rpartition("-")
    if not game or not players.endswith("p") or not players[:-1].isdigit():
        raise argparse.ArgumentTypeError(f"a table looks like tock-4p, got {text!r}")
    n = int(players[:-1])
    try:
        cls = game_spec(game).engine_class()
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if not cls.min_players <= n <= cls.max_players:
        raise argparse.ArgumentTypeError(
            f"{game} is played by {cls.min_players}..{cls.max_players} players, not {n}"
        )
    return game, n


def training_settings(game: str, n: int, args: argparse.Namespace) -> tuple[TrainSettings, str]:
    """The run's settings and the train.py line that trains the same."""
    full = n == MAIN_PLAYERS or game in FULL_RECIPE or file_stem(game, n) in FULL_RECIPE
    recipe = "full" if full else "quick"
    options: dict[str, Any] = {"game": game, "num_players": n, "recipe": recipe, "seed": args.seed}
    command = f"python train.py --game {game} --players {n} --recipe {recipe} --seed {args.seed}"
    if n != MAIN_PLAYERS:
        options["max_minutes"] = args.minutes
        command += f" --max-minutes {args.minutes:g}"
    if args.quick:
        options.update(timesteps=2048, imitation_steps=1000, imitation_epochs=1, envs=4, ppo={"n_steps": 256})
        command += " (--quick: shortened)"
    return TrainSettings.from_options(**options), command


def stage_settings(
    game: str, n: int, stage: dict[str, Any], before: Path, args: argparse.Namespace
) -> tuple[TrainSettings, str]:
    """A further stage's settings at an ``n``-player table, continuing the run ``before``, and
    its train.py line."""
    given = {key: value for key, value in stage.items() if key in STAGE_FLAGS}
    seed = args.seed + stage["seed_offset"]
    options: dict[str, Any] = {
        "game": game, "num_players": n, "recipe": "full", "seed": seed, "init_from": str(before), **given,
    }  # fmt: skip
    flags = " ".join(
        f"{STAGE_FLAGS[key]} {flag_value(value)}" for key, value in given.items() if key != "timesteps"
    )
    command = (
        f"python train.py --game {game} --players {n} {flags}"
        f" --init-from {display(before)} --timesteps {stage['timesteps']} --seed {seed}"
    )
    if args.quick:
        options.update(timesteps=2048, envs=4, ppo={"n_steps": 256}, league_rule_players=1)
        if "improve_games" in given:
            options.update(timesteps=0, improve_games=2, improve_worlds=2, improve_epochs=1)
        command += " (--quick: shortened)"
    return TrainSettings.from_options(**options), command


def flag_value(value: Any) -> str:
    """A setting as train.py takes it: lists comma-separated, floats short."""
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def display(path: Path) -> str:
    """``path`` relative to the repository where it lies inside it (a card names no home folder)."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def train_stage(settings: TrainSettings, command: str, run: Path, reuse: bool) -> float:
    """Train ``run`` (or, with ``reuse``, keep it if the same command trained it); its seconds."""
    stage_file = run / STAGE_FILE
    if reuse and is_finished(run) and stage_file.exists():
        saved = json.loads(stage_file.read_text())
        if saved.get("command") == command:
            print(f"  reusing {display(run)} ({command})", flush=True)
            return float(saved["seconds"])
    start = time.perf_counter()
    train(settings, run, force=True, progress=False)
    seconds = time.perf_counter() - start
    stage_file.write_text(json.dumps({"command": command, "seconds": round(seconds)}) + "\n")
    return seconds


def estimate(result: TournamentResult, entry: int = 0) -> dict[str, Any]:
    agent = result.agents[entry]
    reward, win = agent.mean_reward, agent.win_rate
    return {
        "games": result.games,
        "mean_reward": round(reward.value, 4),
        "low": round(reward.low, 4),
        "high": round(reward.high, 4),
        "win_rate": round(win.value, 4),
        "duplicate": result.duplicate,
    }


def scaled(game: str, games: int) -> int:
    """The games an evaluation of ``game`` plays for a --games or --gauntlet-games of ``games``."""
    return games * EVALUATION_SCALE.get(game, 1)


def judge(game: str, n: int, agent: str, args: argparse.Namespace) -> dict[str, Any]:
    """The agent (a policy spec) and a rule-based player in its seats against N-1 rule-based
    players; the gauntlet at 4; elsewhere, where further stages trained on (against heuristic
    players, or fitted to moves valued by their play-outs), the agent against N-1 of those."""
    duplicate = game in DUPLICATE
    results: dict[str, Any] = {}
    matches = [("agent", agent, "rule"), ("rule_baseline", "rule", "rule")]
    if n != MAIN_PLAYERS and file_stem(game, n) in FOLLOW_STAGES:
        matches.append(("against_heuristic", agent, "heuristic"))
    for name, spec, others in matches:
        played = tournament(
            game, [spec, *[others] * (n - 1)], scaled(game, args.games), seed=args.seed + 1,
            workers=args.workers, duplicate=duplicate,
        )  # fmt: skip
        results[name] = estimate(played)
        print(f"  {name}: {results[name]}", flush=True)
    if n == MAIN_PLAYERS:
        rows = []
        played = gauntlet(
            game, agent, n, scaled(game, args.gauntlet_games), seed=args.seed + 2, workers=args.workers,
            duplicate=duplicate,
        )  # fmt: skip
        for line in played.results:
            row = {"lineup": line.lineup.name, **estimate(line.result)}
            rows.append(row)
            print(f"  gauntlet {row}", flush=True)
        results["gauntlet"] = rows
    return results


def head_to_head(game: str, n: int, agent: str, first_run: Path, args: argparse.Namespace) -> dict[str, Any]:
    """``agent`` (a policy spec) against ``first_run``'s at ``n`` players in alternate seats, each
    judged over its seats per game (``pool_copies``): issue 25's measure of what the further
    stages added."""
    before = f"greedy:{first_run}"
    played = tournament(
        game, [(agent, before)[seat % 2] for seat in range(n)], scaled(game, args.games), seed=args.seed + 3,
        workers=args.workers, duplicate=game in DUPLICATE, pool_copies=True,
    )  # fmt: skip
    result = {"agent": estimate(played, 0), "recipe_agent": estimate(played, 1)}
    print(f"  head to head: {result}", flush=True)
    return result


def rebuild(game: str, n: int, args: argparse.Namespace) -> None:
    settings, command = training_settings(game, n, args)
    run = args.runs / file_stem(game, n)
    print(f"{file_stem(game, n)}: {command}", flush=True)
    seconds = train_stage(settings, command, run, args.reuse)
    commands, steps = [command], settings.run.timesteps
    for stage in FOLLOW_STAGES.get(file_stem(game, n), ()):
        settings, command = stage_settings(game, n, stage, run, args)
        run = args.runs / f"{file_stem(game, n)}-{stage['name']}"
        print(f"  then: {command}", flush=True)
        seconds += train_stage(settings, command, run, args.reuse)
        commands.append(command)
        steps += settings.run.timesteps
    results = judge(game, n, f"greedy:{run}", args)
    if len(commands) > 1:  # the last stage's agent against the recipe's, in alternate seats
        results["head_to_head"] = head_to_head(game, n, f"greedy:{run}", args.runs / file_stem(game, n), args)
    beats = results["agent"]["low"] > 0
    if n != MAIN_PLAYERS and not beats:
        print("  not shipped: its interval against the rule-based players reaches 0 or below", flush=True)
        return
    card = {
        "training": {
            "commands": commands,
            "rebuild": f"python bench/pretrain.py --tables {file_stem(game, n)}",
            "seconds": round(seconds),
            "max_timesteps": steps,
            "date": date.today().isoformat(),
            "machine": "a smoke run"
            if args.quick
            else f"2 {platform.machine()} cores shared with other runs",
        },
        "results": results,
        "beats_rule_players": beats,
    }
    export_pretrained(run, args.out, card)


def rejudge(game: str, n: int, args: argparse.Namespace) -> None:
    """Judge the agent shipped for a table again, untrained (its runs may be gone), with today's
    evaluation: its card's training stays, its results are replaced. The head to head against
    the recipe's agent needs that run in --runs; without it the card's earlier one stays."""
    path = args.out / f"{file_stem(game, n)}.json"
    card = json.loads(path.read_text())
    print(f"{file_stem(game, n)}: judged again", flush=True)
    results = judge(game, n, PRETRAINED, args)
    first = args.runs / file_stem(game, n)
    if len(card["training"]["commands"]) > 1:
        if is_finished(first):
            results["head_to_head"] = head_to_head(game, n, PRETRAINED, first, args)
        elif card["results"].get("head_to_head"):
            print(f"  head to head kept from the card: no finished run in {display(first)}", flush=True)
            kept = card["results"]["head_to_head"]
            results["head_to_head"] = {"judged": card["training"]["date"], **kept}  # its own date kept
    card["results"] = {**results, "judged": date.today().isoformat()}
    card["beats_rule_players"] = results["agent"]["low"] > 0
    path.write_text(json.dumps(card, indent=2) + "\n")


def interval(row: dict[str, Any]) -> str:
    return f"{row['mean_reward']:+.3f} ({row['low']:+.3f}..{row['high']:+.3f})"


def card_section(card: dict[str, Any]) -> list[str]:
    game, n = card["game"], card["num_players"]
    training, results = card["training"], card["results"]
    agent, baseline = results["agent"], results["rule_baseline"]
    deals = " on duplicate deals" if agent["duplicate"] else ", seats rotated"
    trained_by = ", then ".join(f"`{command}`" for command in training["commands"])
    lines = [
        f"## {n}-player {game}: `pretrained` (`{file_stem(game, n)}`)",
        "",
        f"- **Trained by** {trained_by} ({training['max_timesteps']:,} PPO steps at most),"
        f" {training['seconds'] / 60:.1f} minutes of wall time on {training['machine']}, {training['date']}.",
        f"- **Rebuilt by** `{training['rebuild']}`.",
        *(
            [
                f"- **Judged again** on {results['judged']}, untrained, with the evaluation of that day:"
                f" `python bench/pretrain.py --rejudge --tables {file_stem(game, n)}`."
            ]
            if results.get("judged")
            else []
        ),
        f"- **Network**: {' -> '.join(str(s) for s in card['network']['sizes'])}"
        f" ({card['network']['activation']}), greedy.",
        f"- **Against {n - 1} rule-based player{'s' if n > 2 else ''}** at the default knobs,"
        f" {agent['games']:,} games{deals}:"
        f" mean reward **{interval(agent)}**, win rate {agent['win_rate']:.1%}; a rule-based player in the"
        f" same seats: {interval(baseline)}.",
    ]
    if results.get("against_heuristic"):
        rival = results["against_heuristic"]
        lines.append(
            f"- **Against {n - 1} heuristic player{'s' if n > 2 else ''}**, {rival['games']:,} games{deals}:"
            f" **{interval(rival)}**, win rate {rival['win_rate']:.1%}."
        )
    if results.get("head_to_head"):
        duel = results["head_to_head"]
        lines.append(
            f"- **Head to head** against the agent of the first command alone, in alternate seats,"
            f" {duel['agent']['games']:,} games{' on duplicate deals' if duel['agent']['duplicate'] else ''}:"
            f" **{interval(duel['agent'])}** against {interval(duel['recipe_agent'])}"
            + (f" (judged on {duel['judged']})." if duel.get("judged") else ".")
        )
    if results.get("gauntlet"):
        lines += [
            "",
            "| gauntlet line-up | games | mean reward (95% interval) | win rate |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {row['lineup']} | {row['games']:,}{' on duplicate deals' if row.get('duplicate') else ''}"
            f" | {interval(row)} | {row['win_rate']:.1%} |"
            for row in results["gauntlet"]
        ]
    return [*lines, ""]


def write_doc(folder: Path, doc: Path) -> None:
    cards = [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
    order = {name: i for i, name in enumerate(("tock", "chipit", "uno"))}
    cards.sort(key=lambda c: (order.get(c["game"], 9), c["num_players"] != MAIN_PLAYERS, c["num_players"]))
    body = [line for card in cards for line in card_section(card)]
    doc.write_text(HEAD + "\n".join(body))
    print(f"wrote {doc}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--tables", default=",".join(TABLES), help="tables as GAME-Np, comma-separated (default: TABLES)"
    )
    parser.add_argument(
        "--games",
        type=int,
        default=1000,
        help="games against the rule-based players, times EVALUATION_SCALE (default: 1000)",
    )
    parser.add_argument(
        "--gauntlet-games",
        type=int,
        default=400,
        help="games per gauntlet line-up, times EVALUATION_SCALE (default: 400)",
    )
    parser.add_argument(
        "--minutes", type=float, default=15.0, help="wall-time cap of a run at a table other than 4 players"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--workers", type=int, default=None, help="worker processes of the evaluations (default: the CPUs)"
    )
    parser.add_argument(
        "--runs", type=Path, default=ROOT / "runs" / "pretrain", help="where the runs are trained"
    )
    parser.add_argument(
        "--out", type=Path, default=DATA, help="where shipped agents are written (default: the package)"
    )
    parser.add_argument("--doc", type=Path, default=DOC, help=f"the page to rewrite (default: {DOC})")
    parser.add_argument(
        "--quick", action="store_true", help="tiny runs and evaluations into a temporary folder"
    )
    parser.add_argument(
        "--rejudge",
        action="store_true",
        help="judge the package's agents of --tables again without training, rewriting their cards",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help=f"keep a stage's run that the same train.py command trained ({STAGE_FILE})",
    )
    args = parser.parse_args(argv)
    try:
        tables = [parse_table(t) for t in args.tables.split(",")]
    except argparse.ArgumentTypeError as error:
        parser.error(str(error))
    if min(args.games, args.gauntlet_games) < 1 or args.minutes <= 0:
        parser.error("--games and --gauntlet-games must be >= 1 and --minutes above 0")
    if args.rejudge:
        missing = [file_stem(*t) for t in tables if not (DATA / f"{file_stem(*t)}.json").is_file()]
        if missing:
            parser.error(f"--rejudge: no shipped agent for {', '.join(missing)}")
        if args.out != DATA and not args.quick:
            parser.error("--rejudge judges the package's agents and rewrites their cards there; drop --out")
    if args.quick:
        scratch = Path(tempfile.mkdtemp(prefix="pretrain-"))
        args.runs, args.out, args.doc = scratch / "runs", scratch / "agents", scratch / "pretrained.md"
        args.games, args.gauntlet_games = 8, 4
        if args.rejudge:  # the package's agents, their cards rewritten in the scratch folder
            args.out.mkdir(parents=True)
            for game, n in tables:
                for suffix in (".json", ".npz"):
                    shutil.copy(DATA / f"{file_stem(game, n)}{suffix}", args.out)
    for game, n in tables:
        if args.rejudge:
            rejudge(game, n, args)
        else:
            rebuild(game, n, args)
    write_doc(args.out, args.doc)


if __name__ == "__main__":
    sys.exit(main())
