"""What the heuristic players' compiled twins buy: decisions a second, and a search's speed with
heuristic rollouts, each beside the Python player in the same run.

    python bench/heuristic_twins.py            # every game with a heuristic player, 4 players
    python bench/heuristic_twins.py --quick    # tiny counts: a smoke run

Decisions: ``--states`` positions of random play, decided by the reference player one at a
time and by its twin in one batch. Search: ``search:sims=50`` (Tock ``:horizon=200``) with
``rollout=heuristic:own=heuristic``, ``--searches`` decisions with a choice from rule-based
games, once with the twin playing the rollouts and once with the Python player stepped row by
row (its ``compiled`` attribute cleared in this process), beside rule-based rollouts.
Figures go to docs/architecture.md and docs/search.md with this command.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
from numba import typed

from card_envs.agents import make_policy
from card_envs.agents.registry import heuristic_class
from card_envs.batched.policy import batched_policy
from card_envs.core.game import CardGame
from card_envs.core.policy import RandomAgent
from card_envs.core.registry import game_spec

GAMES = ("uno", "tock", "chipit")
PLAYERS = 4


def positions(game: str, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the deciding seat in ``count`` positions of random play."""
    engine = game_spec(game).engine_class()(PLAYERS)
    rng = np.random.default_rng(seed)
    engine.reset(seed)
    observations, masks = [], []
    while len(observations) < count:
        if engine.is_over:
            engine.reset(rng)
        observations.append(engine.observe(engine.current_player))
        masks.append(engine.action_mask().copy())
        engine.step(RandomAgent().act(observations[-1], masks[-1], rng))
    return np.array(observations), np.array(masks)


def rate(count: int, work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return count / (time.perf_counter() - start)


def decisions_per_second(game: str, count: int) -> tuple[float, float]:
    """(the Python player's, the twin's) decisions a second over the same positions."""
    observations, masks = positions(game, count, seed=1)
    player = heuristic_class(game)(num_players=PLAYERS)
    twin = batched_policy(player)
    rng = np.random.default_rng(0)
    rows = np.zeros(count, np.int64)  # the player draws nothing: one generator serves every row
    generators = typed.List([rng])
    twin.act(observations[:2], masks[:2], generators, rows[:2])  # compiled (or loaded) first
    python = rate(count, lambda: [player.act(o, m, rng) for o, m in zip(observations, masks, strict=True)])
    compiled = rate(count, lambda: twin.act(observations, masks, generators, rows))
    return python, compiled


@contextmanager
def python_heuristic(game: str) -> Iterator[None]:
    """The game's heuristic player without its twin (row by row) inside the block."""
    cls = heuristic_class(game)
    saved = cls.__dict__.get("compiled")
    cls.compiled = None  # type: ignore[attr-defined]
    try:
        yield
    finally:
        cls.compiled = saved  # type: ignore[attr-defined]


def searches_per_second(game: str, spec: str, count: int) -> float:
    """Decisions a second of ``spec`` over ``count`` positions with a choice of rule-based games."""
    search, rule = make_policy(spec, game, PLAYERS), make_policy("rule", game, PLAYERS)
    engine: CardGame = game_spec(game).engine_class()(PLAYERS)
    engine.reset(seed=3)
    rng = np.random.default_rng(0)
    decided, spent, deal = 0, 0.0, 10
    while decided < count:
        if engine.is_over:
            engine.reset(seed=deal)
            deal += 1
        observation, mask = engine.observe(engine.current_player), engine.action_mask()
        if mask.sum() > 1:
            start = time.perf_counter()
            search.act_in(engine, rng)
            spent += time.perf_counter() - start
            decided += 1
        engine.step(rule.act(observation, mask, rng))
    return decided / spent


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--states", type=int, default=20_000, help="positions timed per game")
    parser.add_argument("--searches", type=int, default=40, help="search decisions timed per line")
    parser.add_argument("--quick", action="store_true", help="tiny counts: a smoke run")
    args = parser.parse_args(argv)
    if min(args.states, args.searches) < 1:
        parser.error("--states and --searches must be >= 1")
    if args.quick:
        args.states, args.searches = 200, 2
    print(f"{PLAYERS} players; decisions over {args.states:,} positions of random play, one core\n")
    print("| game | Python player, decisions/s | compiled twin | search, heuristic rollouts, twin |"
          " the same, Python player | search, rule-based rollouts |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for game in GAMES:
        python, compiled = decisions_per_second(game, args.states)
        horizon = ":horizon=200" if game == "tock" else ""
        heuristic = f"search:sims=50:rollout=heuristic:own=heuristic{horizon}"
        searches_per_second(game, heuristic, 1)  # compile or load the play-out loops first
        twin = searches_per_second(game, heuristic, args.searches)
        with python_heuristic(game):
            stepped = searches_per_second(game, heuristic, args.searches)
        rule = searches_per_second(game, f"search:sims=50{horizon}", args.searches)
        print(
            f"| {game} | {python:,.0f} | {compiled:,.0f} | {twin:.1f} | {stepped:.1f} | {rule:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
