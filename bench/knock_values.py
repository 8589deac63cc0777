"""What a false knock is worth in Tock, and whether a network can tell from the table where it pays.

    python bench/knock_values.py --minutes 20 --workers 2            # the table's observation
    python bench/knock_values.py --minutes 20 --workers 2 --order    # and the piles' and stacks' order
    python bench/knock_values.py --minutes 9 --workers 2 --horizon 200  # valued as the search values
    python bench/knock_values.py --quick                             # a smoke run

Four lapse-free rule-based players (the gauntlet's hardest Tock line-up, which a search beats
mostly by knocking falsely: docs/notes/search.md) play 4-player games on the compiled engine, seat 0
knocking at random in ``EXPLORE`` of its windows so that the positions after a knock are met
too. At every knock window of seat 0 the position is copied into two rows with the same
generator (common random numbers), KNOCK is played in one and PASS in the other, and both are
played to the end by the same players: ``d``, seat 0's rank reward after the knock minus after
the pass, is a noisy, unbiased sample of what knocking there is worth (with ``--horizon H``, of
what it is worth H actions later by the game's truncation ranks: what the search's rollouts
measure). A network (the shipped agents' 256-256 tanh body) is fitted to ``d`` from seat 0's
observation (with ``--order``, also the top ``DEPTH`` cards of every open pile and every
stack, in order: everything public that the observation gives as counts), on nine games in
ten; the tenth, held out by whole games (windows of one game look alike, so a split by window
flatters the fit), says whether the windows it picks as worth a knock are. Figures go to
docs/notes/search.md with this command.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from card_envs.agents import make_policy
from card_envs.agents.pretrained import load_pretrained
from card_envs.batched import BatchedGame, rank_rewards_batch
from card_envs.batched.policy import BatchedPolicy, batched_policy
from card_envs.core.processes import worker_pool
from card_envs.games.tock.cards import TOP_CARD
from card_envs.games.tock.encoding import KNOCK, PASS
from card_envs.games.tock.kernels import PILE_LEN, PILE_START, STACK_LEN, WRAP, TockArrays

PLAYERS = 4
LAPSE_FREE = "rule:vigilance=1.0:false_knock_rate=0.0:cheat_rate=0.0"
#: seat 0 knocks in this share of its windows (the others: the lapse-free player's pass)
EXPLORE = 0.02
#: cards of each pile and stack, from the top, that ``--order`` adds
DEPTH = 16
#: games played side by side in a worker's batch
GAMES_AT_ONCE = 256
#: predicted gains at which the held-out windows are read
THRESHOLDS = (0.0, 0.05, 0.1)


@dataclass
class Windows:
    """Knock windows of seat 0: features (uint8), the knock's sampled value ``d``, game ids."""

    features: np.ndarray
    d: np.ndarray
    games: np.ndarray
    played: int  # whole games finished

    @staticmethod
    def concatenate(parts: list[Windows]) -> Windows:
        offsets = np.cumsum([0] + [p.played + GAMES_AT_ONCE for p in parts[:-1]])
        return Windows(
            np.concatenate([p.features for p in parts]),
            np.concatenate([p.d for p in parts]),
            np.concatenate([p.games + o for p, o in zip(parts, offsets, strict=True)]),
            sum(p.played for p in parts),
        )


def order_features(state: TockArrays, rows: np.ndarray) -> np.ndarray:
    """Each seat's open pile and own stack from the top down, ``DEPTH`` cards each (0: none)."""
    depth = np.arange(DEPTH)
    out = []
    for seat in range(PLAYERS):
        start = state.seat[rows, seat, PILE_START][:, None]
        size = state.seat[rows, seat, PILE_LEN][:, None]
        pile = np.take_along_axis(state.piles[rows, seat], (start + size - 1 - depth) & WRAP, axis=1)
        out.append(np.where(depth < size, pile, 0))
        size = state.seat[rows, seat, STACK_LEN][:, None]
        at = np.clip(size - 1 - depth, 0, state.stacks.shape[2] - 1)
        out.append(np.where(depth < size, np.take_along_axis(state.stacks[rows, seat], at, axis=1), 0))
    return np.concatenate(out, axis=1).astype(np.uint8)


def knock_values(
    batch: BatchedGame, windows: np.ndarray, scratch: np.ndarray, twin: BatchedPolicy, horizon: int | None
) -> np.ndarray:
    """``d`` at each of ``windows`` (rows of ``batch``), played out in two ``scratch`` rows each, to
    the end or for ``horizon`` actions (then ranked by the game's truncation ranks, as the search's
    rollouts are). The search's ``BatchedRollouts`` starts from engines; these positions are rows
    already, so they are copied in the batch, not made into engines and loaded back."""
    for i, row in enumerate(windows.tolist()):
        batch.copy_row(row, scratch[2 * i : 2 * i + 2])
    rows = scratch[: 2 * windows.size]
    if horizon is not None:  # the batch cuts a game at max_steps: bring the cut ``horizon`` near
        batch.steps[rows] = np.maximum(batch.steps[rows], batch.max_steps - horizon)
    moves = np.tile(np.array([KNOCK, PASS], np.int64), windows.size)
    ranks = batch.step(moves, rows, reset_ended=False).ranks
    live = rows[batch.masks[rows].any(axis=1)]
    if live.size:
        twin.new_games(batch.generators, live)
        ranks[live - rows[0]] = batch.play_out(live, twin).ranks
    reward = rank_rewards_batch(ranks)[:, 0]
    return (reward[0::2] - reward[1::2]).astype(np.float32)


def collect(
    seed: int, seconds: float, order: bool, horizon: int | None = None, moves: int | None = None
) -> Windows:
    """Lapse-free games for about ``seconds`` (or exactly ``moves`` batched moves, the same on any
    machine), the value of a knock at each of seat 0's windows."""
    games = GAMES_AT_ONCE
    batch = BatchedGame("tock", games * 3, PLAYERS)
    batch.reset(seed)
    twin = batched_policy(make_policy(LAPSE_FREE, "tock", PLAYERS))
    rng = np.random.default_rng([seed, 1])
    main, scratch = np.arange(games, dtype=np.int64), np.arange(games, games * 3, dtype=np.int64)
    game_of = main.copy()
    features, values, ids, played = [], [], [], 0
    start, moved = time.perf_counter(), 0
    while (moved < moves) if moves is not None else (time.perf_counter() - start < seconds):
        moved += 1
        masks = batch.masks[main]
        windows = main[(batch.current_players[main] == 0) & (masks[:, KNOCK] > 0) & (masks[:, PASS] > 0)]
        if windows.size:
            seen = batch.observations[windows].astype(np.uint8)
            if order:
                seen = np.concatenate([seen, order_features(batch.kernels.state, windows)], axis=1)
            features.append(seen)
            values.append(knock_values(batch, windows, scratch, twin, horizon))
            ids.append(game_of[windows])
        actions = twin.act(batch.observations[main], batch.masks[main], batch.generators, main)
        actions[np.isin(main, windows) & (rng.random(games) < EXPLORE)] = KNOCK
        ended = batch.step(actions, main).ended  # an ended game is dealt again in its row
        game_of[ended] = games + played + np.arange(int(ended.sum()))
        played += int(ended.sum())
    width = batch.reference.observation_size + (PLAYERS * 2 * DEPTH if order else 0)
    if not features:
        return Windows(np.zeros((0, width), np.uint8), np.zeros(0, np.float32), np.zeros(0, np.int64), played)
    return Windows(np.concatenate(features), np.concatenate(values), np.concatenate(ids), played)


def fit(windows: Windows, epochs: int, seed: int, save: Path | None = None) -> list[dict[str, float]]:
    """Fit ``d`` on nine games in ten; per epoch, the held-out games' verdict. ``save``: where the
    fitted network's weights go (a torch state dict), for a play test."""
    import torch

    torch.manual_seed(seed)
    scale = load_pretrained("tock", PLAYERS).scale.astype(np.float32)
    scale = np.concatenate([scale, np.full(windows.features.shape[1] - scale.size, 1 / TOP_CARD, np.float32)])
    x = torch.tensor(windows.features.astype(np.float32) * scale)
    y = torch.tensor(windows.d)
    held = np.flatnonzero(windows.games % 10 == 0)
    train = np.flatnonzero(windows.games % 10 != 0)
    net = torch.nn.Sequential(
        torch.nn.Linear(x.shape[1], 256), torch.nn.Tanh(), torch.nn.Linear(256, 256), torch.nn.Tanh(),
        torch.nn.Linear(256, 1),
    )  # fmt: skip
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed)
    verdicts = []
    for epoch in range(1, epochs + 1):
        shuffled = rng.permutation(train)
        for i in range(0, shuffled.size, 2048):
            batch = torch.as_tensor(shuffled[i : i + 2048])
            optimizer.zero_grad()
            loss = ((net(x[batch])[:, 0] - y[batch]) ** 2).mean()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            predicted = net(x[held])[:, 0].numpy()
        verdicts.append(held_out(epoch, predicted, windows.d[held]))
    if save is not None:
        torch.save(net.state_dict(), save)
    return verdicts


def held_out(epoch: int, predicted: np.ndarray, d: np.ndarray) -> dict[str, float]:
    """How the held-out windows' sampled values follow the prediction."""
    row: dict[str, float] = {"epoch": epoch, "corr": float(np.corrcoef(predicted, d)[0, 1])}
    for threshold in THRESHOLDS:
        picked = d[predicted > threshold]
        row[f"share>{threshold:g}"] = picked.size / d.size
        row[f"d>{threshold:g}"] = float(picked.mean()) if picked.size else float("nan")
        half = 1.96 * float(picked.std() / np.sqrt(picked.size)) if picked.size > 1 else float("nan")
        row[f"half>{threshold:g}"] = half
    return row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=20.0, help="collection time per worker")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--order", action="store_true", help="add the piles' and stacks' order")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--quick", action="store_true", help="a few seconds of games, one epoch")
    parser.add_argument("--save", type=Path, help="write the fitted network's weights here")
    parser.add_argument(
        "--horizon", type=int, help="play each copy this many actions (the search's 200), not to the end"
    )
    args = parser.parse_args(argv)
    if (
        args.minutes <= 0
        or args.workers < 1
        or args.epochs < 1
        or (args.horizon is not None and args.horizon < 1)
    ):
        parser.error("--minutes must be above 0, --workers, --epochs and --horizon at least 1")
    seconds, epochs = (5.0, 1) if args.quick else (args.minutes * 60, args.epochs)
    with worker_pool(args.workers) as pool:
        jobs = [
            pool.submit(collect, args.seed + i, seconds, args.order, args.horizon)
            for i in range(args.workers)
        ]
        windows = Windows.concatenate([job.result() for job in jobs])
    features = "observation and order" if args.order else "observation"
    print(f"{windows.played:,} games, {windows.d.size:,} knock windows of seat 0;", end=" ")
    print(f"mean d {windows.d.mean():+.3f}")
    print(f"\n`python bench/knock_values.py {' '.join(sys.argv[1:] if argv is None else argv)}`\n")
    picked = [f"windows predicted above {t:g}: share, their d (95% interval)" for t in THRESHOLDS]
    print("| features | epoch | held-out correlation | " + " | ".join(picked) + " |")
    print("|---|---|---|" + "---|" * len(THRESHOLDS))
    for row in fit(windows, epochs, args.seed, args.save):
        cells = [
            f"{row[f'share>{t:g}']:.2%}, {row[f'd>{t:g}']:+.3f} (±{row[f'half>{t:g}']:.3f})"
            for t in THRESHOLDS
        ]
        print(f"| {features} | {row['epoch']} | {row['corr']:.3f} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
