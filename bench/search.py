"""Search players, measured: speed, memory, and strength against the rule-based players.

    python bench/search.py                       # the whole bench (about an hour on 2 cores)
    python bench/search.py --part strength --game uno --games 500 --budgets 50,200
    python bench/search.py --quick               # a smoke run of every part (a few minutes), no doc

Parts (--part, repeatable; default all):

* ``speed``: per game at 4 players, decisions taken from seeded rule-based games (those with
  more than one legal move); at each budget our search's simulations per second, seconds per
  decision, the tree's nodes and the peak memory of one decision (tracemalloc); and, where
  OpenSpiel is installed (extra ``openspiel``), OpenSpiel's ``ISMCTSBot`` on the same positions of
  the same game wrapped for OpenSpiel (:mod:`card_envs.integrations.openspiel`), random rollouts
  for both, so the ratio compares the searches and not the rollout players;
* ``duel``: our search against OpenSpiel's ISMCTSBot head to head (2 seats each, 4 players,
  seats rotated), at equal simulations and at equal time per move;
* ``strength``: ``search:sims=B`` against three rule-based players at their default knobs, at each
  budget B, --games games (duplicate deals for UNO and Chip It, where they narrow the interval:
  docs/evaluation.md), and the same search seeing every hand (``perfect=true``) at the first
  budget: an upper bound on what seeing more would give.

The search plays only decisions with more than one legal move (a forced move is played at once).
Results and the command go to the marked section of docs/search.md (--doc; --quick writes none).
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
from soak import write_section

from card_envs.agents.search import SearchPlayer, SearchSettings
from card_envs.agents.specs import make_policy
from card_envs.core.game import CardGame
from card_envs.core.play import play_game
from card_envs.core.processes import exit_on_sigterm
from card_envs.core.registry import game_spec, game_specs
from card_envs.evaluation.tournament import TournamentResult, tournament

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "search.md"
PLAYERS = 4
PARTS = ("speed", "duel", "strength")
#: where duplicate deals narrow the interval of a line-up with rule players (docs/evaluation.md)
DUPLICATE = {"uno": True, "chipit": True, "tock": False}
BEGIN, END = "<!-- bench/search.py: begin -->", "<!-- bench/search.py: end -->"


def positions(game: str, count: int, seed: int = 0) -> list[CardGame]:
    """``count`` decisions with more than one legal move, from seeded games of rule players."""
    cls = game_spec(game).engine_class()
    rule = [make_policy("rule", game, PLAYERS) for _ in range(PLAYERS)]
    found: list[CardGame] = []
    rng = np.random.default_rng(seed)

    def keep(g: CardGame) -> None:
        if len(found) < count and len(g.legal_actions()) > 1 and rng.random() < 0.1:
            copy = cls.from_rules(g.num_players, **g.rules)
            copy.load_state_dict(g.state_dict(), dealt_holding=g.dealt_holding)
            found.append(copy)

    while len(found) < count:
        play_game(cls(PLAYERS), rule, rng, before_decision=keep)
    return found


def measure(decide: Callable[[CardGame], None], tables: list[CardGame]) -> tuple[float, float]:
    """Seconds per decision and the peak memory (MiB) of one decision, over ``tables``."""
    decide(tables[0])  # compile and build the rollout engine first
    start = time.perf_counter()
    for g in tables:
        decide(g)
    seconds = (time.perf_counter() - start) / len(tables)
    tracemalloc.start()
    decide(tables[-1])
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return seconds, peak


def speed_rows(games: list[str], budgets: list[int], count: int) -> list[str]:
    lines = [
        "| game | player | sims a decision | decisions/s | sims/s | tree nodes | peak MiB a decision |",
        "|---|---|---|---|---|---|---|",
    ]
    for game in games:
        tables = positions(game, count)
        for budget in budgets:
            for rollout in ("rule", "random"):
                player = SearchPlayer(game, PLAYERS, SearchSettings(sims=budget, rollout=rollout))
                nodes: list[int] = []

                def ours(g: CardGame, player: SearchPlayer = player, nodes: list[int] = nodes) -> None:
                    player.search(g, np.random.default_rng(0))
                    nodes.append(player.last.nodes if player.last else 0)

                seconds, peak = measure(ours, tables)
                rate = f"{1 / seconds:.1f} | {budget / seconds:,.0f} | {np.mean(nodes):.0f}"
                lines.append(f"| {game} | ours, rollout={rollout} | {budget} | {rate} | {peak:.1f} |")
            openspiel = openspiel_speed(game, budget, tables[: max(2, count // 4)])
            if openspiel is not None:
                seconds, peak = openspiel
                lines.append(
                    f"| {game} | OpenSpiel ISMCTSBot, random rollouts | {budget} | {1 / seconds:.2f}"
                    f" | {budget / seconds:,.0f} | | {peak:.1f} |"
                )
            print("\n".join(lines[-3 if openspiel else -2 :]), flush=True)
    return lines


def openspiel_speed(game: str, budget: int, tables: list[CardGame]) -> tuple[float, float] | None:
    """OpenSpiel's ISMCTSBot on the same positions, or None where OpenSpiel is not installed."""
    try:
        from card_envs.integrations import openspiel as ours_in_openspiel
    except ImportError:
        return None
    bot, state_of = ours_in_openspiel.ismcts_bot(game, PLAYERS, budget, seed=0), ours_in_openspiel.state_of
    return measure(lambda g: bot.step(state_of(g)), tables)


def strength(game: str, spec: str, games: int, seed: int, workers: int | None) -> TournamentResult:
    return tournament(
        game, [spec, "rule", "rule", "rule"], games, seed=seed, workers=workers, duplicate=DUPLICATE[game]
    )


def strength_rows(games: list[str], budgets: list[int], n_games: int, workers: int | None) -> list[str]:
    lines = [
        "| game | player | games | mean reward (95% interval) | win rate"
        " | a rule player in the same seats | seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    for game in games:
        baseline = strength(game, "rule", n_games, 1, workers).agents[0].mean_reward
        specs = [f"search:sims={b}" for b in budgets] + [f"search:sims={budgets[0]}:perfect=true"]
        for spec in specs:
            result = strength(game, spec, n_games, 1, workers)
            agent = result.agents[0]
            r, w = agent.mean_reward, agent.win_rate
            mode = f"{result.deals:,} deals x4" if result.duplicate else f"{result.games:,}, seats rotated"
            lines.append(
                f"| {game} | `{spec}` | {mode} | **{r.value:+.3f}** ({r.low:+.3f}..{r.high:+.3f})"
                f" | {w.value:.1%} | {baseline.value:+.3f} ({baseline.low:+.3f}..{baseline.high:+.3f})"
                f" | {result.seconds:.0f} |"
            )
            print(lines[-1], flush=True)
    return lines


def duel_rows(games: list[str], budget: int, n_games: int) -> list[str]:
    try:
        from card_envs.integrations import openspiel as ours_in_openspiel
    except ImportError:
        return ["(OpenSpiel is not installed: `pip install -e .[openspiel]`; no duel)"]
    lines = [
        "| game | budget | games | our mean reward (95% interval) | OpenSpiel ISMCTSBot's |",
        "|---|---|---|---|---|",
    ]
    for game in games:
        for label, kind in ((f"{budget} sims each", "sims"), ("equal time a move", "time")):
            ours, theirs = ours_in_openspiel.duel(game, PLAYERS, budget, n_games, equal=kind, seed=3)
            lines.append(
                f"| {game} | {label} | {n_games} | {ours.value:+.3f} ({ours.low:+.3f}..{ours.high:+.3f})"
                f" | {theirs.value:+.3f} |"
            )
            print(lines[-1], flush=True)
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", action="append", choices=PARTS, help="default: every part")
    parser.add_argument(
        "--game", action="append", choices=sorted(game_specs()), help="default: the three games"
    )
    parser.add_argument("--budgets", default="50,200", help="simulations a decision (default: 50,200)")
    parser.add_argument("--games", type=int, default=500, help="games per strength line (default: 500)")
    parser.add_argument("--positions", type=int, default=40, help="decisions timed per game (default: 40)")
    parser.add_argument("--duel-games", type=int, default=40, help="games per duel (default: 40)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: the CPUs)")
    parser.add_argument("--doc", type=Path, default=None, help=f"the page to write into (default: {DOC})")
    parser.add_argument("--quick", action="store_true", help="a smoke run of every part")
    args = parser.parse_args(argv)
    try:
        budgets = [int(b) for b in args.budgets.split(",")]
    except ValueError:
        parser.error(f"--budgets must be comma-separated ints, got {args.budgets!r}")
    if min(budgets) < 1 or args.games < 1 or args.positions < 2 or args.duel_games < 1:
        parser.error("--budgets, --games and --duel-games must be >= 1, --positions >= 2")
    exit_on_sigterm()
    if args.quick:
        budgets, args.games, args.positions, args.duel_games = [8], 8, 4, 2
    games = args.game or ["uno", "tock", "chipit"]
    parts = args.part or list(PARTS)
    doc = args.doc or (None if args.quick else DOC)
    start = time.perf_counter()
    sections: list[str] = []
    if "speed" in parts:
        sections += ["### Speed and memory", "", *speed_rows(games, budgets, args.positions), ""]
    if "duel" in parts:
        sections += ["### Against OpenSpiel's ISMCTS", "", *duel_rows(games, budgets[0], args.duel_games), ""]
    if "strength" in parts:
        sections += [
            "### Against three rule-based players",
            "",
            *strength_rows(games, budgets, args.games, args.workers),
            "",
        ]
    print(f"\nbench/search.py took {time.perf_counter() - start:.0f} s", flush=True)
    if doc is not None:
        command = " ".join(["python bench/search.py", *(argv if argv is not None else sys.argv[1:])])
        write_section(doc, "\n".join(["", f"`{command}`", "", *sections]), (BEGIN, END))
        print(f"wrote {doc}")


if __name__ == "__main__":
    main()
