"""Search as a teacher by soft targets: a network's own moves valued in shared sampled worlds,
and the network fitted towards the moves that gain.

The argmax labels of a search (``--teacher search:...``, :mod:`.imitation`) tell a network only
which move won a noisy comparison; where two moves are close, the winner is the search's own
sampling noise, and the network learns the common answer, its own move (docs/search.md, "they
do not repeat"). Here every decision of the network, playing itself in every seat, is valued
instead: its ``width`` most probable moves are each played in the same ``worlds`` worlds sampled
from the seat's view (common random numbers: the hidden cards and the future draws are the same
for every move), then played out by rollout players on the compiled batched engine, so each move
gets an unbiased estimate of its advantage over the network's own (one-step policy improvement,
Tesauro & Galperin 1996). The network is then fitted to the soft target
``p'(a) ~ p(a) exp(beta * advantage(a))`` (the policy improvement of Gumbel MuZero's targets,
Danihelka et al. 2022): a close call moves the policy a little, and the noise of one position
averages out over many similar ones instead of flipping a label.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from card_envs.agents.search.rollouts import BatchedRollouts
from card_envs.agents.search.settings import SearchSettings
from card_envs.agents.specs import make_policy
from card_envs.core.game import CardGame
from card_envs.core.processes import worker_pool
from card_envs.core.table import Table

#: rows of the rollout engine (each world of each decision takes one row per move compared)
ROWS = 1024


@dataclass
class Valued:
    """Valued decisions: observation, mask, the moves compared (the network's own first, -1
    where fewer were legal), each move's advantage over the first with its standard error, and
    the game (its seed) each decision came from, so that a split can hold out whole games."""

    observations: np.ndarray  # float32 [n, obs]
    masks: np.ndarray  # int8 [n, actions]
    moves: np.ndarray  # int64 [n, width]
    advantages: np.ndarray  # float64 [n, width], 0 for the first move
    errors: np.ndarray  # float64 [n, width]
    games: np.ndarray  # int64 [n]

    @classmethod
    def concatenate(cls, parts: Sequence[Valued]) -> Valued:
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in cls.__dataclass_fields__))

    def __len__(self) -> int:
        return len(self.games)


def value_decisions(
    table: Table, network: str, seeds: Sequence[int], width: int, worlds: int, rollout: str
) -> Valued:
    """Every decision with a choice in the games ``seeds`` of ``network`` (a policy spec with move
    probabilities: ``pretrained``, ``greedy:RUN``) in every seat, its most probable move played,
    valued with ``rollout`` players (a spec) in every seat of the play-outs, cut at the game's
    search horizon at this table (``GameSpec.search_defaults``)."""
    spec = table.spec
    policy = make_policy(network, table)
    player = make_policy(rollout, table)
    horizon = SearchSettings.from_knobs({}, spec.search_defaults(table.num_players)).horizon
    rollouts = BatchedRollouts(spec, table.engine(), player, player, ROWS, horizon)
    rows: dict[str, list[Any]] = {f: [] for f in Valued.__dataclass_fields__}

    def value(pending: list[tuple[CardGame, list[int], int]], rng: np.random.Generator) -> None:
        sampled, moves = [], []
        for g, candidates, _ in pending:
            sample = g.world_sampler(g.current_player)
            for _ in range(worlds):
                sampled.append(sample(rng))
                moves.append(candidates)
        values = rollouts.values_after(sampled, moves, 0, rng)  # every seat has the same players
        for i, (g, candidates, seed) in enumerate(pending):
            seat = g.current_player
            own = np.stack([v[:, seat] for v in values[i * worlds : (i + 1) * worlds]])  # [worlds, moves]
            gain = own - own[:, :1]
            count = len(candidates)
            rows["observations"].append(g.observe(seat))
            rows["masks"].append(g.action_mask())
            rows["moves"].append(candidates + [-1] * (width - count))
            rows["advantages"].append(np.pad(gain.mean(axis=0), (0, width - count)))
            rows["errors"].append(np.pad(gain.std(axis=0, ddof=1) / math.sqrt(worlds), (0, width - count)))
            rows["games"].append(seed)

    for seed in seeds:  # a game's values draw from its own generator: the same however split
        rng = np.random.default_rng([seed, 2])
        g = table.engine()
        g.reset(seed=seed)
        pending: list[tuple[CardGame, list[int], int]] = []
        while not g.is_over:
            mask = g.action_mask()
            probabilities = policy.probabilities(g.observe(g.current_player), mask)  # type: ignore[attr-defined]
            legal = np.flatnonzero(mask)
            if legal.size > 1:
                order = legal[np.argsort(-probabilities[legal], kind="stable")][:width]
                pending.append((g.clone(), order.tolist(), seed))
                if len(pending) * worlds * width >= 4 * ROWS:
                    value(pending, rng)
                    pending = []
            g.step(int(np.argmax(probabilities)))
        if pending:
            value(pending, rng)
    return Valued(
        np.asarray(rows["observations"], np.float32).reshape(len(rows["games"]), -1),
        np.asarray(rows["masks"], np.int8).reshape(len(rows["games"]), -1),
        np.asarray(rows["moves"], np.int64).reshape(-1, width),
        np.asarray(rows["advantages"], np.float64).reshape(-1, width),
        np.asarray(rows["errors"], np.float64).reshape(-1, width),
        np.asarray(rows["games"], np.int64),
    )


def collect_valued(
    table: Table,
    network: str,
    games: int,
    width: int,
    worlds: int,
    rollout: str,
    seed: int = 0,
    workers: int = 1,
) -> Valued:
    """:func:`value_decisions` over ``games`` games (seeds ``seed``...), shared by ``workers`` processes."""
    parts = [p for p in np.array_split(np.arange(seed, seed + games), workers) if p.size]
    with worker_pool(min(workers, len(parts))) as pool:
        jobs = [
            pool.submit(value_decisions, table, network, p.tolist(), width, worlds, rollout) for p in parts
        ]
        return Valued.concatenate([job.result() for job in jobs])


def soft_targets(probabilities: np.ndarray, valued: Valued, rows: np.ndarray, beta: float) -> np.ndarray:
    """``p'(a) ~ p(a) exp(beta * advantage(a))`` for the decisions ``rows``, from the network's
    probabilities ``p`` there [len(rows), actions] (a move not compared keeps its share of p)."""
    bonus = np.zeros_like(probabilities, dtype=np.float64)
    moves, gains = valued.moves[rows], valued.advantages[rows]
    for k in range(moves.shape[1]):
        compared = np.flatnonzero(moves[:, k] >= 0)
        bonus[compared, moves[compared, k]] = beta * gains[compared, k]
    bonus -= bonus.max(axis=1, keepdims=True)
    improved = probabilities * np.exp(bonus)
    return improved / improved.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class FitResult:
    """How a fit to soft targets went (saved as improvement.json by a training run)."""

    decisions: int
    games: int
    #: on the decisions of held-out games: the share where the network's most probable move
    #: changed, and the mean advantage of its move there (0 where unchanged) with its standard error
    changed: float
    #: of the changed moves, the share outside the moves compared (their advantage unknown, 0)
    outside: float
    gain: float
    gain_error: float
    loss: float


def held_out_gain(picks: np.ndarray, valued: Valued, rows: np.ndarray) -> tuple[float, float, float, float]:
    """For the moves ``picks`` a fitted network plays at the decisions ``rows``: the share that
    differ from the network's own move, the share of those outside the moves compared (no
    estimate there), and the mean advantage of the picks (0 where unchanged) with its standard
    error: an offline estimate of the gain, unbiased on decisions the fit never saw."""
    moves, gains = valued.moves[rows], valued.advantages[rows]
    changed = picks != moves[:, 0]
    found = moves == picks[:, None]
    outside = changed & ~found.any(axis=1)
    gain = np.where(found, gains, 0.0).sum(axis=1)
    error = gain.std(ddof=1) / math.sqrt(gain.size) if gain.size > 1 else math.inf
    return (
        float(changed.mean()),
        float(outside.sum() / max(changed.sum(), 1)),
        float(gain.mean()),
        float(error),
    )


def fit_soft_targets(
    logits: Callable[[Any, Any], Any],
    parameters: Any,
    valued: Valued,
    beta: float,
    epochs: int,
    learning_rate: float,
    seed: int = 0,
    batch_size: int = 256,
) -> FitResult:
    """Fit a network to the soft targets of the decisions of 90% of the games (cross-entropy,
    Adam), in place, and measure it on the other 10%, held out whole (decisions of one game are
    near copies, and a split by decision would flatter the fit).

    ``logits(observations, masks)`` gives the network's action logits for torch tensors (float32
    observations, bool masks; illegal actions at a large negative value or -inf); ``parameters``
    are those the fit changes."""
    import torch

    torch.manual_seed(seed)
    played = np.unique(valued.games)
    cut = played[max(1, int(0.9 * played.size))] if played.size > 1 else played.max() + 1
    train, held = np.flatnonzero(valued.games < cut), np.flatnonzero(valued.games >= cut)
    observations = torch.as_tensor(valued.observations, dtype=torch.float32)
    masks = torch.as_tensor(valued.masks > 0)
    with torch.no_grad():
        start = torch.softmax(logits(observations, masks), dim=1).double().numpy()
    targets = torch.as_tensor(soft_targets(start, valued, np.arange(len(valued)), beta), dtype=torch.float32)
    optimizer = torch.optim.Adam(parameters, lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)
    index = torch.as_tensor(train)
    loss = torch.zeros(())
    for _ in range(epochs):
        for batch in index[torch.randperm(index.numel(), generator=generator)].split(batch_size):
            log_p = torch.log_softmax(logits(observations[batch], masks[batch]), dim=1)
            loss = -(targets[batch] * log_p.clamp_min(-1e9)).sum(dim=1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        picks = logits(observations[held], masks[held]).argmax(dim=1).numpy() if held.size else np.zeros(0)
    changed, outside, gain, error = held_out_gain(picks, valued, held) if held.size else (0, 0, 0, math.inf)
    return FitResult(len(train), int(played.size), changed, outside, gain, error, float(loss.item()))
