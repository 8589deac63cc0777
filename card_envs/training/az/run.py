"""Search in the loop (``train.py --algo az``): self-play with Gumbel search, then a fit of the
network to what the search found, iteration after iteration (Danihelka et al. 2022's Gumbel
AlphaZero, on sampled worlds for hidden cards).

Each iteration:

1. the searching seats play ``games`` games (:mod:`.selfplay`), every move with a choice chosen
   by ``search:algo=gumbel`` with the current network's policy as prior and its value head
   judging each leaf, in worlds sampled from the seat's own view;
2. the network is fitted (Adam) to the window of the newest samples: cross-entropy to the
   search's improved policy, and the squared error of its value to the seat's rank reward;
3. the network is written as the run's ``network.npz``/``network.json`` (the shipped agents'
   format: ``greedy:RUN``, ``search:net=RUN:value=net`` and ``bench/pretrain.py`` read it), the
   torch state as ``checkpoint.pt`` (``--resume`` goes on from it), a row of ``progress.csv``;
4. the network alone plays ``eval_games`` games against three heuristic and three lapse-free
   rule-based players (the same deals every iteration), written to the same row.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from card_envs.agents.policy_spec import rule_spec
from card_envs.agents.pretrained import load_pretrained
from card_envs.agents.registry import heuristic_class, rule_agent_spec
from card_envs.agents.runs import NETWORK_STEM, SETTINGS_FILE
from card_envs.core.table import Table
from card_envs.evaluation.tournament import tournament
from card_envs.training.az.network import PolicyValueNet, write_network
from card_envs.training.az.selfplay import Samples, collect, shared, value_positions
from card_envs.training.az.settings import AZSettings

CHECKPOINT = "checkpoint.pt"
PROGRESS = "progress.csv"
SAMPLES = "samples"
#: the value warm-up's positions, in SAMPLES (not an iteration's: the window never reads them)
WARMUP = "warmup.npz"
#: games of an iteration are numbered from seed * SEED_STRIDE + iteration * games
SEED_STRIDE = 10**9


@dataclass(frozen=True)
class FitLosses:
    policy: float
    value: float


def fit(
    net: PolicyValueNet,
    optimizer: torch.optim.Optimizer,
    samples: Samples,
    settings: AZSettings,
    generator: torch.Generator,
) -> FitLosses:
    """``settings.epochs`` passes of Adam over ``samples``; the mean losses of the last pass."""
    observations = torch.as_tensor(samples.observations)
    masks = torch.as_tensor(samples.masks > 0)
    targets = torch.as_tensor(samples.policies)
    values = torch.as_tensor(samples.values)
    policy_losses: list[float] = []
    value_losses: list[float] = []
    for _ in range(settings.epochs):
        policy_losses, value_losses = [], []
        for batch in torch.randperm(len(samples), generator=generator).split(settings.batch_size):
            logits, predicted = net(observations[batch], masks[batch])
            # rows with no policy target (value views, the warm-up) count for the value alone
            aimed = targets[batch].sum(dim=1) > 0
            cross = -(targets[batch] * torch.log_softmax(logits, dim=1)).sum(dim=1)
            policy_loss = cross.sum() / aimed.sum().clamp(min=1)
            value_loss = ((predicted - values[batch]) ** 2).mean()
            optimizer.zero_grad()
            (policy_loss + settings.value_weight * value_loss).backward()
            optimizer.step()
            policy_losses.append(float(policy_loss.detach()))
            value_losses.append(float(value_loss.detach()))
    return FitLosses(float(np.mean(policy_losses)), float(np.mean(value_losses)))


def gauntlet_lineups(table: Table) -> dict[str, str]:
    """The line-ups the network alone is judged against: heuristic (where the game has one)
    and lapse-free rule-based players, in every other seat."""
    lineups = {"rule_sound": rule_spec(dict(rule_agent_spec(table.spec).sound_knobs))}
    try:
        heuristic_class(table.spec)
        lineups = {"heuristic": "heuristic", **lineups}
    except ValueError:
        pass
    return lineups


def judge(out: Path, table: Table, settings: AZSettings) -> dict[str, float]:
    """The network alone (greedy) against each line-up: mean rank reward and its 95% interval."""
    figures: dict[str, float] = {}
    for name, spec in gauntlet_lineups(table).items():
        lineup = [f"greedy:{out}"] + [spec] * (table.num_players - 1)
        result = tournament(
            table, lineup, settings.eval_games, seed=settings.seed + 17,
            workers=settings.workers,
        )  # fmt: skip
        reward = result.agents[0].mean_reward
        figures[name] = reward.value
        figures[f"{name}_low"], figures[f"{name}_high"] = reward.low, reward.high
    return figures


def initial_network(table: Table, settings: AZSettings) -> PolicyValueNet:
    if settings.init_from == "none":
        return PolicyValueNet.fresh(table.engine(), list(settings.hidden))
    return PolicyValueNet.from_pretrained(
        load_pretrained(table.spec.name, table.num_players), list(settings.hidden)
    )


def train_az(
    table: Table,
    settings: AZSettings,
    out: Path,
    resume: bool = False,
    progress: Callable[[str], None] = print,
) -> PolicyValueNet:
    """Run (or, with ``resume``, go on with) a search-in-the-loop training into ``out``."""
    torch.set_num_threads(1)
    engine = table.engine()
    out.mkdir(parents=True, exist_ok=True)
    (out / SAMPLES).mkdir(exist_ok=True)
    meta = {
        "backend": "az",
        "game": table.spec.name,
        "num_players": table.num_players,
        "rules": dict(table.rules),
        "az": settings.to_json(),
    }
    torch.manual_seed(settings.seed)  # the new value head's weights: a run replays from its seed
    net = initial_network(table, settings)
    optimizer = torch.optim.Adam(net.parameters(), lr=settings.learning_rate)
    generator = torch.Generator().manual_seed(settings.seed)
    first, elapsed = 0, 0.0
    if resume:
        state = torch.load(out / CHECKPOINT, weights_only=False)
        net.load_state_dict(state["net"])
        optimizer.load_state_dict(state["optimizer"])
        generator.set_state(state["generator"])
        first, elapsed = int(state["iteration"]) + 1, float(state["seconds"])
        progress(f"resuming {out} after iteration {first - 1} ({elapsed / 60:.1f} min so far)")
    (out / SETTINGS_FILE).write_text(json.dumps(meta, indent=2) + "\n")
    stem = out / NETWORK_STEM
    card = {"training": {"command": "train.py --algo az", "az": settings.to_json()}}
    write_network(net, stem, engine, card)
    start_row: dict[str, Any] = {"iteration": 0, "minutes": 0.0}
    if not resume and settings.value_warmup:
        start_row.update(warm_up_value(net, optimizer, table, settings, out, generator))
        write_network(net, stem, engine, card)
    if not resume and settings.eval_games:
        start_row.update(judge(out, table, settings))
    if not resume and len(start_row) > 2:
        log_row(out, start_row, progress)
    start = time.perf_counter() - elapsed
    for iteration in range(first, settings.iterations):
        began = time.perf_counter()
        base = settings.seed * SEED_STRIDE + iteration * settings.games
        samples = collect(
            table, out, settings.search_knobs(),
            settings.lineup(table.num_players), list(range(base, base + settings.games)), settings.workers,
            settings.value_views,
        )  # fmt: skip
        samples.save(out / SAMPLES / f"iteration-{iteration + 1:04d}.npz")
        played = time.perf_counter() - began
        losses = fit(net, optimizer, window(out, settings.window), settings, generator)
        seconds = time.perf_counter() - start
        write_network(net, stem, engine, {**card, "iterations": iteration + 1, "minutes": seconds / 60})
        torch.save(
            {
                "net": net.state_dict(),
                "optimizer": optimizer.state_dict(),
                "generator": generator.get_state(),
                "iteration": iteration,
                "seconds": seconds,
            },
            out / CHECKPOINT,
        )
        row: dict[str, Any] = {
            "iteration": iteration + 1,
            "minutes": seconds / 60,
            "decisions": len(samples),
            "ms_per_decision": 1000 * played * settings.workers / max(len(samples), 1),
            "policy_loss": losses.policy,
            "value_loss": losses.value,
        }
        if settings.eval_games:
            row.update(judge(out, table, settings))
        log_row(out, row, progress)
        if settings.max_minutes is not None and time.perf_counter() - start >= settings.max_minutes * 60:
            progress(
                f"stopping after iteration {iteration + 1}: --max-minutes {settings.max_minutes:g} reached"
            )
            break
    return net


def warm_up_value(
    net: PolicyValueNet,
    optimizer: torch.optim.Optimizer,
    table: Table,
    settings: AZSettings,
    out: Path,
    generator: torch.Generator,
) -> dict[str, float]:
    """Fit the value head alone to ``settings.value_warmup`` games of the starting network
    (:func:`value_positions`), so that the first searches' leaves are valued by what it learnt
    rather than by new weights; its positions are kept in ``samples/warmup.npz``."""
    seeds = np.random.default_rng([settings.seed, 4]).integers(2**62, size=settings.value_warmup)
    samples = shared(value_positions, (table, str(out)), seeds.tolist(), settings.workers)
    samples.save(out / SAMPLES / WARMUP)
    losses = fit(net, optimizer, samples, replace(settings, epochs=settings.warmup_epochs), generator)
    return {"warmup_positions": len(samples), "warmup_value_loss": losses.value}


def window(out: Path, iterations: int) -> Samples:
    """The samples of the newest ``iterations`` iterations."""
    files = sorted((out / SAMPLES).glob("iteration-*.npz"))[-iterations:]
    return Samples.concatenate([Samples.load(f) for f in files])


def log_row(out: Path, row: dict[str, Any], progress: Callable[[str], None]) -> None:
    """A row of progress.csv (its header: every column of any row, in order of first use) and a line."""
    path = out / PROGRESS
    rows = list(csv.DictReader(path.open())) if path.is_file() else []
    rows.append({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in row.items()})
    header = list(dict.fromkeys(name for r in rows for name in r))  # every row's columns, in order
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, header, restval="")
        writer.writeheader()
        writer.writerows(rows)
    shown = ", ".join(
        f"{k} {v:+.3f}" if isinstance(v, float) and not k.endswith(("low", "high")) else f"{k} {v}"
        for k, v in row.items()
        if not k.endswith(("_low", "_high"))
    )
    progress(f"[az] {shown}")
