"""Search players, measured: speed, memory, and strength against the rule-based players.

    python bench/search.py                       # the whole bench (about an hour on 2 cores)
    python bench/search.py --part strength --game uno --games 500 --budgets 50,200
    python bench/search.py --quick               # a smoke run of every part (a few minutes), no doc

Parts (--part, repeatable; default all):

* ``speed``: per game at 4 players, decisions taken from seeded rule-based games (those with
  more than one legal move); at each budget our search's simulations per second, seconds per
  decision, the tree's nodes and the peak memory of one decision (tracemalloc); and, where
  OpenSpiel is installed (extra ``openspiel``), OpenSpiel's ``ISMCTSBot`` on the same positions of
  the same game wrapped for OpenSpiel (:mod:`card_envs.integrations.openspiel`), each with
  rule-based and with random rollouts;
* ``duel``: our search against OpenSpiel's ISMCTSBot head to head (2 seats each, 4 players,
  seats rotated), both rolling out with the rule-based players to the end of the game, at equal
  simulations and at equal time per move (ours given the mean time ISMCTSBot took a move),
  the games spread over --workers processes;
* ``horizon``: where a rollout stops: ``search:sims=B`` at the first budget with each horizon of
  --horizons (``none``: to the end of the game) against lapse-free rule-based players in every
  other seat (--strong-games games each, the same seeds for every horizon; --players at the
  table, 4 by default, the only part that takes another), the players a search is most easily
  fooled by: they break no rule and miss no knock;
* ``strength``: ``search:sims=B`` (the game's search defaults, and :data:`KNOBS`) against three
  rule-based players at their default knobs, at each budget B, --games games (duplicate deals
  for UNO and Chip It, where they narrow the interval: docs/evaluation.md), beside a rule-based
  player and the pretrained agent in the same seats; the same search seeing every hand (``perfect=true``) at
  the first budget: an upper bound on what seeing more would give; and at the first budget
  against players it never modelled: three lapse-free rule-based players, and three heuristic
  players (--strong-games games each).

The search plays only decisions with more than one legal move (a forced move is played at once).
Results and the command go to the marked section of docs/search.md (--doc; --quick writes none).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
from soak import write_section

from card_envs.agents.policy_spec import rule_spec
from card_envs.agents.registry import rule_agent_spec
from card_envs.agents.search import SearchPlayer, SearchSettings
from card_envs.agents.specs import make_policy
from card_envs.core.game import CardGame
from card_envs.core.play import play_game, play_out
from card_envs.core.processes import exit_on_sigterm, worker_pool
from card_envs.core.ranking import rank_rewards
from card_envs.core.registry import game_spec, game_specs
from card_envs.evaluation.stats import bounded_mean_interval
from card_envs.evaluation.tournament import TournamentResult, tournament

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "search.md"
PLAYERS = 4
PARTS = ("speed", "duel", "horizon", "strength")
#: where duplicate deals narrow the interval of a line-up with rule players (docs/evaluation.md)
DUPLICATE = {"uno": True, "chipit": True, "tock": False}
#: knobs added to every search spec of a game beyond its spec's own search defaults
#: (``GameSpec.search``: Tock's rollouts stop at 200 actions, UNO keeps the heuristic player's
#: move unless another beats it by 3 standard errors), those that need the shipped network: a
#: Chip It lead offers up to about 200 moves, and the shipped agent picks the 7 compared beside
#: the default move far better than chance (+0.458 against +0.227 at 50 simulations, 160
#: games), and keeping the agent's own move unless another beats it by 3 standard errors scored
#: more (+0.554 over 1,301 teacher games at 100 simulations) than keeping the rule-based
#: player's (docs/search.md)
KNOBS = {"chipit": ":prior=net:net=pretrained:default=net:z=3"}
#: the two budgets of each game (--budgets sets one pair for all), each game's strength part about
#: an hour on one core at 500 games a line; Tock's decisions are many (about 60 a game for the
#: searching seat, most of them knock windows) and its rollouts long: 100 simulations took 77
#: minutes for 500 games and scored as 25 did (docs/search.md)
BUDGETS = {"uno": [50, 200], "chipit": [50, 200], "tock": [10, 25]}


def markers(part: str, game: str, players: int = PLAYERS) -> tuple[str, str]:
    """Each part's table of each game (and table size) has a section of its own in the doc, so a
    run of one part or one game rewrites its own figures only (and each is written as soon as it
    is done)."""
    name = game if players == PLAYERS else f"{game} {players}p"
    return f"<!-- bench/search.py {part} {name}: begin -->", f"<!-- bench/search.py {part} {name}: end -->"


def positions(game: str, count: int, seed: int = 0) -> list[CardGame]:
    """``count`` decisions with more than one legal move, from seeded games of rule players."""
    cls = game_spec(game).engine_class()
    rule = [make_policy("rule", game, PLAYERS) for _ in range(PLAYERS)]
    found: list[CardGame] = []
    rng = np.random.default_rng(seed)

    def keep(g: CardGame) -> None:
        if len(found) < count and len(g.legal_actions()) > 1 and rng.random() < 0.1:
            found.append(g.clone())

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
            for algo, rollout in (("halving", "rule"), ("puct", "rule"), ("halving", "random")):
                settings = SearchSettings(sims=budget, rollout=rollout, algo=algo)
                player = SearchPlayer(game, PLAYERS, settings, make_policy=make_policy)
                nodes: list[int] = []

                def ours(g: CardGame, player: SearchPlayer = player, nodes: list[int] = nodes) -> None:
                    player.search(g, np.random.default_rng(0))
                    nodes.append(player.last.nodes if player.last else 0)

                seconds, peak = measure(ours, tables)
                rate = f"{1 / seconds:.1f} | {budget / seconds:,.0f} | {np.mean(nodes):.0f}"
                lines.append(f"| {game} | ours, {algo}, rollout={rollout} | {budget} | {rate} | {peak:.1f} |")
                print(lines[-1], flush=True)
            for rollout in ("rule", "random"):
                timed = openspiel_speed(game, budget, tables[: max(2, count // 4)], rollout)
                if timed is not None:
                    seconds, peak = timed
                    lines.append(
                        f"| {game} | OpenSpiel ISMCTSBot, rollout={rollout} | {budget} | {1 / seconds:.2f}"
                        f" | {budget / seconds:,.0f} | | {peak:.1f} |"
                    )
                    print(lines[-1], flush=True)
    return lines


def openspiel():
    """The OpenSpiel integration, or None where the extra is not installed."""
    try:
        from card_envs.integrations import openspiel as module
    except ImportError:
        return None
    return module


def ismcts_bot(wrapped: object, budget: int, seed: int, rollout: str = "random") -> object:
    """OpenSpiel's ISMCTSBot as its examples set it up (uct_c 2, returns in -1..1), rolling out
    with random moves (OpenSpiel's own evaluator) or with our rule-based players in Python."""
    from open_spiel.python.algorithms import ismcts, mcts

    if rollout == "random":
        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    else:
        evaluator = policy_rollouts(mcts.Evaluator, wrapped, rollout, seed)
    bot = ismcts.ISMCTSBot(wrapped, evaluator, 2.0, budget, random_state=np.random.RandomState(seed + 1))
    # its own resampling draws from pyspiel.UniformProbabilitySampler, seeded afresh each time:
    # a seeded sampler makes a duel replay
    draws = np.random.RandomState(seed + 2)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, draws.uniform))
    return bot


def policy_rollouts(base: type, wrapped: object, spec: str, seed: int) -> object:
    """An OpenSpiel evaluator that plays the position out with our ``spec`` players in every
    seat, on a copy of the state's engine (the same rollout player our search uses)."""
    engine_of = wrapped.state_at  # type: ignore[attr-defined]

    class PolicyRollouts(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            players = wrapped.num_players()  # type: ignore[attr-defined]
            self.policies = [make_policy(spec, wrapped.engine_class.name, players) for _ in range(players)]  # type: ignore[attr-defined]
            self.rng = np.random.default_rng(seed)

        def evaluate(self, state: object) -> np.ndarray:
            world = engine_of(state.engine).engine  # type: ignore[attr-defined]
            played = play_out(world, self.policies, self.rng, state.max_steps - state.steps)  # type: ignore[attr-defined]
            ranks = world.truncation_ranks() if played.truncated else world.final_ranks()
            return np.asarray(rank_rewards(ranks))

        def prior(self, state: object) -> list[tuple[int, float]]:
            legal = state.legal_actions(state.current_player())  # type: ignore[attr-defined]
            return [(action, 1.0 / len(legal)) for action in legal]

    return PolicyRollouts()


def openspiel_speed(
    game: str, budget: int, tables: list[CardGame], rollout: str = "random"
) -> tuple[float, float] | None:
    """OpenSpiel's ISMCTSBot on the same positions, or None where OpenSpiel is not installed."""
    module = openspiel()
    if module is None:
        return None
    wrapped = module.openspiel_game(game, PLAYERS)
    bot = ismcts_bot(wrapped, budget, seed=0, rollout=rollout)
    return measure(lambda g: bot.step(wrapped.state_at(g)), tables)  # type: ignore[attr-defined]


def duel(
    game: str, settings: SearchSettings, budget: int, games: int, seed: int, workers: int | None
) -> tuple[float, float, float]:
    """Our search (``settings``) in seats 0 and 2 (1 and 3 in every other game) against
    ISMCTSBot at ``budget``: our mean rank reward with its 95% interval (each game's two seats
    averaged; the evaluation's interval, inside -1..1 and never a point on few games), from
    OpenSpiel's own game loop, the games spread over ``workers`` processes (each game seeded
    by its number, so the result does not depend on how they are spread)."""
    count = max(1, min(workers or os.cpu_count() or 1, games))
    shares = [list(range(k, games, count)) for k in range(count)]
    if count == 1:
        played = duel_games(game, settings, budget, shares[0], seed)
    else:
        with worker_pool(count) as pool:
            parts = pool.map(
                duel_games, [game] * count, [settings] * count, [budget] * count, shares, [seed] * count
            )
            played = [pair for part in parts for pair in part]
    means = [mean for _, mean in sorted(played)]
    estimate = bounded_mean_interval(means, -1.0, 1.0)
    return estimate.value, estimate.low, estimate.high


def duel_games(
    game: str, settings: SearchSettings, budget: int, numbers: list[int], seed: int
) -> list[tuple[int, float]]:
    """The duel's games ``numbers``, each with its own ISMCTSBot and random numbers: (number,
    our two seats' mean return) each."""
    module = openspiel()
    assert module is not None
    wrapped = module.openspiel_game(game, PLAYERS)
    ours = SearchPlayer(game, PLAYERS, settings, make_policy=make_policy)
    played = []
    for i in numbers:
        bot = ismcts_bot(wrapped, budget, seed * 100_000 + i, rollout="rule")
        rng = np.random.default_rng([seed, i])
        state = wrapped.deal(seed * 100_000 + i)
        mine = {(i + k) % PLAYERS for k in (0, 2)}
        while not state.is_terminal():
            player = state.current_player()
            legal = state.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            elif player in mine:
                action = ours.act_in(state.engine, rng)
            else:
                action = bot.step(state)  # type: ignore[attr-defined]
            state.apply_action(action)
        returns = state.returns()
        played.append((i, float(np.mean([returns[p] for p in mine]))))
    return played


def strength(
    game: str,
    spec: str,
    games: int,
    seed: int,
    workers: int | None,
    others: str = "rule",
    players: int = PLAYERS,
) -> TournamentResult:
    return tournament(
        game, [spec] + [others] * (players - 1), games, seed=seed, workers=workers, duplicate=DUPLICATE[game]
    )


#: the head of every strength table (strength and horizon parts)
STRENGTH_HEADER = (
    "| game | player | against | games | mean reward (95% interval) | win rate | seconds |",
    "|---|---|---|---|---|---|---|",
)


def strength_row(game: str, spec: str, others: str, result: TournamentResult) -> str:
    agent = result.agents[0]
    r, w = agent.mean_reward, agent.win_rate
    seats = len(result.agents)
    mode = f"{result.deals:,} deals x{seats}" if result.duplicate else f"{result.games:,}, seats rotated"
    return (
        f"| {game} | `{spec}` | `{others}` x{seats - 1} | {mode}"
        f" | **{r.value:+.3f}** ({r.low:+.3f}..{r.high:+.3f}) | {w.value:.1%} | {result.seconds:.0f} |"
    )


def strength_rows(
    games: list[str], budgets: list[int], n_games: int, strong_games: int, workers: int | None
) -> list[str]:
    lines = list(STRENGTH_HEADER)
    for game in games:
        knobs = KNOBS.get(game, "")
        plays = [("rule", "rule", n_games), ("heuristic", "rule", n_games), ("pretrained", "rule", n_games)]
        plays += [(f"search:sims={b}{knobs}", "rule", n_games) for b in budgets]
        plays.append((f"search:sims={budgets[0]}{knobs}:perfect=true", "rule", n_games))
        for others in (rule_spec(dict(rule_agent_spec(game).sound_knobs)), "heuristic"):
            plays += [
                ("rule", others, strong_games),
                (f"search:sims={budgets[0]}{knobs}", others, strong_games),
            ]
        for spec, others, count in plays:
            try:
                result = strength(game, spec, count, 1, workers, others)
            except ValueError as error:  # a game without a shipped agent, say
                print(f"skipped {spec} in {game}: {error}", flush=True)
                continue
            lines.append(strength_row(game, spec, others, result))
            print(lines[-1], flush=True)
    return lines


def horizon_rows(
    games: list[str],
    budget: int,
    horizons: list[str],
    n_games: int,
    workers: int | None,
    players: int = PLAYERS,
) -> list[str]:
    lines = list(STRENGTH_HEADER)
    for game in games:
        lapse_free = rule_spec(dict(rule_agent_spec(game).sound_knobs))
        for horizon in horizons:
            spec = f"search:sims={budget}:horizon={horizon}"
            result = strength(game, spec, n_games, 1, workers, lapse_free, players)
            lines.append(strength_row(game, spec, lapse_free, result))
            print(lines[-1], flush=True)
    return lines


def duel_rows(
    games: list[str], budget: int, n_games: int, positions_each: int, workers: int | None
) -> list[str]:
    if openspiel() is None:
        return ["(OpenSpiel is not installed: `pip install -e .[openspiel]`; no duel)"]
    lines = [
        f"| game | our search | games | our mean reward (95% interval) against ISMCTSBot at {budget} sims"
        " (rule rollouts for both) |",
        "|---|---|---|---|",
    ]
    for game in games:
        tables = positions(game, positions_each, seed=1)
        timed = openspiel_speed(game, budget, tables, rollout="rule")
        assert timed is not None
        ms = 1000.0 * timed[0]
        for label, settings in (
            (f"{budget} sims", SearchSettings(sims=budget)),
            (f"{ms:.0f} ms a move (ISMCTSBot's time)", SearchSettings(sims=None, ms=ms)),
        ):
            value, low, high = duel(game, settings, budget, n_games, 3, workers)
            lines.append(f"| {game} | {label} | {n_games} | {value:+.3f} ({low:+.3f}..{high:+.3f}) |")
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
    parser.add_argument("--budgets", default=None, help="simulations a decision (default: BUDGETS, per game)")
    parser.add_argument("--games", type=int, default=500, help="games per strength line (default: 500)")
    parser.add_argument("--positions", type=int, default=40, help="decisions timed per game (default: 40)")
    parser.add_argument("--duel-games", type=int, default=40, help="games per duel (default: 40)")
    parser.add_argument(
        "--strong-games",
        type=int,
        default=200,
        help="games against lapse-free and heuristic players (default: 200)",
    )
    parser.add_argument(
        "--horizons",
        default="50,100,200,400,none",
        help="the horizon part's rollout horizons, comma-separated (none: to the end; default: %(default)s)",
    )
    parser.add_argument(
        "--players", type=int, default=PLAYERS, help="table size of the horizon part (default: %(default)s)"
    )
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: the CPUs)")
    parser.add_argument("--doc", type=Path, default=None, help=f"the page to write into (default: {DOC})")
    parser.add_argument("--quick", action="store_true", help="a smoke run of every part")
    args = parser.parse_args(argv)
    try:
        given = [int(b) for b in args.budgets.split(",")] if args.budgets else None
    except ValueError:
        parser.error(f"--budgets must be comma-separated ints, got {args.budgets!r}")
    horizons = [h.strip() for h in args.horizons.split(",")]
    if not all(h == "none" or (h.isdigit() and int(h) >= 1) for h in horizons):
        parser.error(f"--horizons must be comma-separated ints >= 1 or none, got {args.horizons!r}")
    if min(given or [1]) < 1 or args.games < 1 or args.positions < 2 or args.duel_games < 1:
        parser.error("--budgets, --games and --duel-games must be >= 1, --positions >= 2")
    games = args.game or ["uno", "tock", "chipit"]
    parts = args.part or list(PARTS)
    if args.players != PLAYERS and parts != ["horizon"]:
        parser.error(f"--players {args.players} goes with --part horizon alone (the rest play at {PLAYERS})")
    for game in games:
        cls = game_spec(game).engine_class()
        low, high = cls.min_players, cls.max_players
        if not low <= args.players <= high:
            parser.error(f"--players must be {low} to {high} for {game}, got {args.players}")
    exit_on_sigterm()
    if args.quick:
        given, args.games, args.positions, args.duel_games, args.strong_games = [8], 8, 4, 2, 4
        horizons = ["50", "none"]
    doc = args.doc or (None if args.quick else DOC)

    def budgets_of(game: str) -> list[int]:
        return given or BUDGETS.get(game, [50, 200])

    start = time.perf_counter()
    command = " ".join(["python bench/search.py", *(argv if argv is not None else sys.argv[1:])])
    tables: dict[str, Callable[[str], list[str]]] = {
        "speed": lambda game: speed_rows([game], budgets_of(game), args.positions),
        "duel": lambda game: duel_rows(
            [game], budgets_of(game)[0], args.duel_games, args.positions, args.workers
        ),
        "horizon": lambda game: horizon_rows(
            [game], budgets_of(game)[0], horizons, args.strong_games, args.workers, args.players
        ),
        "strength": lambda game: strength_rows(
            [game], budgets_of(game), args.games, args.strong_games, args.workers
        ),
    }
    for part in parts:
        for game in games:
            rows = tables[part](game)
            if doc is not None:
                write_section(doc, "\n".join([f"`{command}`", "", *rows]), markers(part, game, args.players))
                print(f"wrote the {part} figures of {game} into {doc}", flush=True)
    print(f"\nbench/search.py took {time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
