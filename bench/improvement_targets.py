"""Search as a teacher by soft targets (:mod:`card_envs.training.improvement`), measured on a
shipped agent: its own moves valued in shared sampled worlds, the network fitted towards the
moves that gain, and the fitted network against the one it came from.

    python bench/improvement_targets.py --game chipit --workers 2
    python bench/improvement_targets.py --quick          # a smoke run (under a minute), no doc

The shipped agent of the table plays itself in every seat; at each of its decisions with a
choice, its --width most probable moves are each played in the same --worlds sampled worlds
and played out by --rollout players in every seat (cut at the game's search horizon). The
network is fitted, at each --betas, to ``p'(a) ~ p(a) exp(beta * advantage(a))`` on 90% of the
games, and judged: on the other 10% (whole games never fitted), the advantage of its moves where
they changed (an offline estimate of the gain); head to head against the shipped agent (two seats
each, duplicate deals, seats rotated); and against N-1 rule-based and N-1 heuristic players,
beside the shipped agent on the same deals, so a gain over its ancestor that it pays for
against other players shows. The rows go to docs/notes/search.md (--doc).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from soak import write_section

from card_envs.agents.pretrained import PretrainedNetwork, PretrainedPolicy, load_pretrained
from card_envs.core.processes import exit_on_sigterm
from card_envs.core.registry import game_specs
from card_envs.core.table import Table
from card_envs.evaluation.tournament import tournament
from card_envs.training.improvement import FitResult, Valued, collect_valued, fit_soft_targets

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "notes" / "search.md"


def markers(game: str) -> tuple[str, str]:
    """Each game's rows have a section of their own in the doc."""
    return (
        f"<!-- bench/improvement_targets.py {game}: begin -->",
        f"<!-- bench/improvement_targets.py {game}: end -->",
    )


class ShippedAgain(PretrainedPolicy):
    """A shipped network under another name, so a head to head tells the two apart."""

    def __init__(self, network: PretrainedNetwork, name: str) -> None:
        super().__init__(network)
        self.name = name

    def __repr__(self) -> str:
        return self.name


def fit(
    net: PretrainedNetwork, valued: Valued, beta: float, epochs: int, lr: float, seed: int
) -> tuple[PretrainedNetwork, FitResult]:
    """A copy of ``net`` fitted to the soft targets (torch is imported here only)."""
    import torch

    torch.set_num_threads(1)
    layers: list[torch.nn.Module] = []
    for i, (weights, bias) in enumerate(net.layers):
        linear = torch.nn.Linear(weights.shape[1], weights.shape[0])
        with torch.no_grad():
            linear.weight.copy_(torch.as_tensor(weights))
            linear.bias.copy_(torch.as_tensor(bias))
        layers.append(linear)
        if i < len(net.layers) - 1:
            layers.append(torch.nn.Tanh() if net.activation == "tanh" else torch.nn.ReLU())
    module = torch.nn.Sequential(*layers)
    scale = torch.as_tensor(net.scale)

    def logits(observations: Any, masks: Any) -> Any:
        x = torch.cat([observations, masks.float()], dim=1) if net.mask_in_observation else observations
        return module(x * scale).masked_fill(~masks, -1e9)

    result = fit_soft_targets(logits, module.parameters(), valued, beta, epochs, lr, seed)
    linears = [m for m in module if isinstance(m, torch.nn.Linear)]
    fitted = tuple((m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()) for m in linears)
    return replace(net, layers=fitted), result


def mean_reward(
    game: str, lineup: list[Any], name: str, games: int, seed: int, workers: int
) -> tuple[float, float, float]:
    """The mean reward (95% interval) of the entry ``name`` over its seats, duplicate deals."""
    result = tournament(game, lineup, games, seed=seed, workers=workers, duplicate=True, pool_copies=True)
    r = next(a for a in result.agents if a.name == name).mean_reward
    return r.value, r.low, r.high


def head_to_head(
    game: str, players: int, fitted: PretrainedNetwork, shipped: PretrainedNetwork, games: int, workers: int
) -> tuple[float, float, float]:
    """The fitted network against the shipped one, in alternate seats."""
    new, old = ShippedAgain(fitted, "fitted"), ShippedAgain(shipped, "shipped")
    return mean_reward(
        game, [new if s % 2 == 0 else old for s in range(players)], "fitted", games, 7, workers
    )


def against(
    game: str, players: int, network: PretrainedNetwork, others: str, games: int, workers: int
) -> tuple[float, float, float]:
    """A network against ``players - 1`` players of one spec (the same deals for every network)."""
    lineup = [ShippedAgain(network, "network"), *[others] * (players - 1)]
    return mean_reward(game, lineup, "network", games, 5, workers)


def interval(estimate: tuple[float, float, float], digits: int = 3) -> str:
    value, low, high = estimate
    return f"{value:+.{digits}f} ({low:+.{digits}f}..{high:+.{digits}f})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="chipit", choices=sorted(game_specs()))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument(
        "--games", type=int, default=600, help="games of the shipped agent valued (default: 600)"
    )
    parser.add_argument(
        "--width", type=int, default=4, help="the network's most probable moves compared (default: 4)"
    )
    parser.add_argument(
        "--worlds", type=int, default=16, help="sampled worlds each move is played in (default: 16)"
    )
    parser.add_argument(
        "--rollout",
        default="heuristic",
        help="who plays every seat of the play-outs, a spec (default: heuristic;"
        " pretrained, the network itself, is about 30x slower)",
    )
    parser.add_argument(
        "--betas", default="10", help="soft targets' strengths, comma-separated (default: 10)"
    )
    parser.add_argument(
        "--epochs", type=int, default=30, help="passes over the fitted decisions (default: 30)"
    )
    parser.add_argument("--lr", type=float, default=3e-4, help="Adam's step size (default: 3e-4)")
    parser.add_argument(
        "--h2h-games",
        type=int,
        default=10000,
        help="games of each head to head (default: 10000)",
    )
    parser.add_argument(
        "--strangers-games",
        type=int,
        default=2000,
        help="games against each line-up of rule-based and of heuristic players (default: 2000)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--samples",
        type=Path,
        default=None,
        help="keep the valued decisions in this .npz, or fit those kept there",
    )
    parser.add_argument("--doc", type=Path, default=None, help=f"write the rows into this page (e.g. {DOC})")
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run: 8 games, 4 worlds, 2 passes, 16 games a line-up"
    )
    args = parser.parse_args(argv)
    try:
        betas = [float(b) for b in args.betas.split(",")]
    except ValueError:
        parser.error(f"--betas must be comma-separated numbers, got {args.betas!r}")
    counts = (args.games, args.epochs, args.h2h_games, args.strangers_games, args.workers)
    if min(*counts, args.width - 1, args.worlds - 1) < 1:
        parser.error(
            "--games, --epochs, --h2h-games, --strangers-games and --workers must be >= 1,"
            " --width and --worlds >= 2"
        )
    try:
        shipped = load_pretrained(args.game, args.players)
    except ValueError as error:  # a table without a shipped agent
        parser.error(str(error))
    exit_on_sigterm()
    if args.quick:
        args.games, args.worlds, args.h2h_games, args.strangers_games, args.epochs = 8, 4, 16, 16, 2
    start = time.perf_counter()
    if args.samples is not None and args.samples.exists():
        with np.load(args.samples) as saved:
            valued = Valued(*(saved[f] for f in Valued.__dataclass_fields__))
        timing = f"by an earlier run (kept in {args.samples.name})"
    else:
        valued = collect_valued(
            Table.of(args.game, args.players), "pretrained", args.games, args.width, args.worlds,
            args.rollout, args.seed, args.workers,
        )  # fmt: skip
        timing = f"in {(time.perf_counter() - start) / 60:.1f} minutes"
        if args.samples is not None:
            np.savez_compressed(args.samples, **{f: getattr(valued, f) for f in Valued.__dataclass_fields__})
    best = valued.advantages.max(axis=1)
    sure = (best > 2 * valued.errors.max(axis=1)).mean()
    command = " ".join(["python bench/improvement_targets.py", *(argv if argv is not None else sys.argv[1:])])
    others = args.players - 1
    lines = [
        f"`{command}`",
        "",
        f"{np.unique(valued.games).size:,} games of the shipped {args.players}-player {args.game} agent"
        f" against itself, {len(valued):,} decisions with a choice valued {timing}; the best of the"
        f" {args.width} moves beats the network's own by {best.mean():+.3f} on average (noise included),"
        f" by 2 standard errors in {sure:.1%} of decisions",
        "",
        "| network | held-out decisions changed | of those, outside the moves compared"
        " | held-out gain a decision (95% interval)"
        " | head to head against the shipped agent (95% interval)"
        f" | against {others} rule-based players | against {others} heuristic players |",
        "|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    lineups = ("rule", "heuristic")
    h2h, others_games = args.h2h_games, args.strangers_games
    strangers = [
        interval(against(args.game, args.players, shipped, o, others_games, args.workers)) for o in lineups
    ]
    lines.append(f"| shipped | | | | | {' | '.join(strangers)} |")
    print(lines[-1], flush=True)
    for beta in betas:
        fitted, result = fit(shipped, valued, beta, args.epochs, args.lr, args.seed)
        duel = head_to_head(args.game, args.players, fitted, shipped, h2h, args.workers)
        strangers = [
            interval(against(args.game, args.players, fitted, o, others_games, args.workers)) for o in lineups
        ]
        gain = (result.gain, result.gain - 1.96 * result.gain_error, result.gain + 1.96 * result.gain_error)
        lines.append(
            f"| fitted, beta {beta:g} | {result.changed:.2%} | {result.outside:.0%} | {interval(gain, 4)}"
            f" | {interval(duel)} | {' | '.join(strangers)} |"
        )
        print(lines[-1], flush=True)
    if args.doc is not None:
        write_section(args.doc, "\n".join(lines), markers(args.game))
        print(f"wrote {args.doc}")
    print(f"\nbench/improvement_targets.py took {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
