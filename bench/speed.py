"""Speed of random play: steps per second through the bare engine and the PettingZoo AEC loop.

    python bench/speed.py                          # every game, default player counts
    python bench/speed.py --game uno --players 4 --games 200

Prints, per game and player count: games played, mean game length in steps, share of
games truncated at the default ``max_steps``, and steps per second (engine alone, and
the full AEC loop with observations, masks and ``last()``).
"""

from __future__ import annotations

import argparse
import importlib
import time

import numpy as np

from card_envs.registry import game_class, game_spec, game_specs


def engine_speed(game: str, players: int, games: int, seed: int) -> dict[str, float]:
    engine = game_class(game)(players)
    rng = np.random.default_rng(seed)
    steps = truncated = 0
    start = time.perf_counter()
    for _ in range(games):
        engine.reset(rng)
        n = 0
        while not engine.is_over and n < engine.default_max_steps:
            legal = np.flatnonzero(engine.action_mask())
            engine.step(int(legal[rng.integers(legal.size)]))
            n += 1
        steps += n
        truncated += not engine.is_over
    seconds = time.perf_counter() - start
    return {"mean_steps": steps / games, "truncated": truncated / games, "steps_per_s": steps / seconds}


def aec_speed(game: str, players: int, games: int, seed: int) -> float:
    env = importlib.import_module(f"card_envs.{game_spec(game).aec_name}").env(num_players=players)
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    for i in range(games):
        env.reset(seed=seed + i)
        for _agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", choices=sorted(game_specs()), action="append", help="default: all")
    parser.add_argument(
        "--players",
        type=int,
        action="append",
        help="default: each game's smallest, default and largest table",
    )
    parser.add_argument("--games", type=int, default=100, help="games per measurement (default: 100)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    header = ("game", "N", "games", "mean steps", "truncated", "engine st/s", "AEC st/s")
    print("{:<7} {:>2} {:>6} {:>10} {:>9} {:>11} {:>9}".format(*header))
    for game in args.game or sorted(game_specs()):
        for players in args.players or game_spec(game).player_counts():
            e = engine_speed(game, players, args.games, args.seed)
            aec = aec_speed(game, players, max(1, args.games // 4), args.seed)
            print(
                f"{game:<7} {players:>2} {args.games:>6} {e['mean_steps']:>10.0f} {e['truncated']:>9.1%}"
                f" {e['steps_per_s']:>11,.0f} {aec:>9,.0f}"
            )


if __name__ == "__main__":
    main()
