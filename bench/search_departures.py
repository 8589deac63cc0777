"""Where a search leaves its default move, and whether it leaves it again when the same position
is searched once more with other random numbers: what a network imitating the search is taught.

    python bench/search_departures.py                      # Tock, 10 and 40 simulations
    python bench/search_departures.py --game chipit \
        --specs search:sims=100:prior=net:net=pretrained:default=net:z=3
    python bench/search_departures.py --quick              # tiny counts: a smoke run

The search plays seat 0 against rule-based players at their default knobs (``--games`` games,
``PLAYERS`` players). At each decision with a choice, a move other than the search's default
(the move ``halving`` keeps unless another beats it) is a departure; each departure, and a
random share (``--sample``) of the other decisions, is searched ``--reruns`` more times with
fresh random numbers. A departure the reruns repeat is a label a network can learn; one they
seldom repeat is the search's sampling noise, which a network fitting one label per position
averages away (its most probable move stays the default). Figures go to docs/search.md with
this command.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field

import numpy as np

from card_envs.agents import make_policy
from card_envs.agents.search import SearchPlayer
from card_envs.core.game import CardGame
from card_envs.core.play import decide
from card_envs.core.registry import game_spec

PLAYERS = 4
SPECS = {"tock": ("search:sims=10:horizon=200", "search:sims=40:horizon=200")}


@dataclass
class Departures:
    """What one search spec did over the games: counts, then the reruns' verdicts."""

    games: int = 0
    choices: int = 0
    repeated: list[int] = field(default_factory=list)  # per departure: reruns playing the same move
    departed: list[int] = field(default_factory=list)  # per departure: reruns leaving the default
    elsewhere: list[int] = field(default_factory=list)  # per sampled other choice: reruns departing


def rerun(player: SearchPlayer, game: CardGame, reruns: int, seed: int) -> list[int]:
    return [player.search(game.clone(), np.random.default_rng([seed, k])) for k in range(reruns)]


def measure(game_name: str, player: SearchPlayer, args: argparse.Namespace) -> Departures:
    rules = [make_policy("rule", game_name, PLAYERS) for _ in range(PLAYERS)]
    rng = np.random.default_rng(args.seed)
    found = Departures()
    game = game_spec(game_name).engine_class()(PLAYERS)
    for index in range(args.games):
        game.reset(seed=args.seed * 100_003 + index)
        while not game.is_over:
            seat = game.current_player
            legal = game.legal_actions()
            if seat != 0 or len(legal) == 1:
                game.step(decide(rules[seat], game, game.observe(seat), game.action_mask(), rng))
                continue
            found.choices += 1
            default = player.default_move(game, np.random.default_rng(0))
            move = player.search(game, np.random.default_rng(int(rng.integers(2**31))))
            if move != default:
                again = rerun(player, game, args.reruns, found.choices)
                found.repeated.append(sum(m == move for m in again))
                found.departed.append(sum(m != default for m in again))
            elif rng.random() < args.sample:
                again = rerun(player, game, args.reruns, found.choices)
                found.elsewhere.append(sum(m != default for m in again))
            game.step(move)
        found.games += 1
    return found


def row(game: str, spec: str, found: Departures, reruns: int) -> str:
    count = len(found.repeated)

    def share(values: list[int]) -> float:
        return float(np.mean(values)) / reruns if values else float("nan")

    most = float(np.mean([r * 3 >= reruns * 2 for r in found.repeated])) if count else float("nan")
    return (
        f"| {game} | `{spec}` | {found.games:,} | {found.choices / found.games:.1f} |"
        f" {count / found.games:.2f} ({count / max(found.choices, 1):.1%}) | {share(found.repeated):.0%} |"
        f" {share(found.departed):.0%} | {most:.0%} | {share(found.elsewhere):.1%} ({len(found.elsewhere)}) |"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="tock", choices=("tock", "uno", "chipit"))
    parser.add_argument("--specs", help="search specs, comma-separated (default: the game's in SPECS)")
    parser.add_argument("--games", type=int, default=200, help="games per spec (default: 200)")
    parser.add_argument("--reruns", type=int, default=6, help="searches again per position (default: 6)")
    parser.add_argument("--sample", type=float, default=0.02, help="share of other choices rerun (0.02)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="1 game, 4 simulations, 2 reruns")
    args = parser.parse_args(argv)
    if args.games < 1 or args.reruns < 1 or not 0 <= args.sample <= 1:
        parser.error("--games and --reruns must be at least 1, --sample within 0..1")
    specs = args.specs.split(",") if args.specs else list(SPECS.get(args.game, ("search:sims=50",)))
    if args.quick:
        args.games, args.reruns = 1, 2
        specs = list(dict.fromkeys(re.sub(r"sims=\d+", "sims=4", spec) for spec in specs))
    players: dict[str, SearchPlayer] = {}
    for spec in specs:
        try:
            player = make_policy(spec, args.game, PLAYERS)
        except ValueError as error:
            parser.error(str(error))
        if not isinstance(player, SearchPlayer):
            parser.error(f"{spec!r} is not a search player")
        players[spec] = player
    command = " ".join(["python bench/search_departures.py", *(sys.argv[1:] if argv is None else argv)])
    print(f"`{command}`\n")
    print(
        "| game | search (seat 0, against rule-based players) | games | choices a game |"
        " departures a game (of choices) | reruns repeating the move | reruns leaving the default |"
        " departures repeated by 2/3 of reruns | reruns leaving it elsewhere (positions) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for spec, player in players.items():
        print(row(args.game, spec, measure(args.game, player, args), args.reruns), flush=True)


if __name__ == "__main__":
    main()
