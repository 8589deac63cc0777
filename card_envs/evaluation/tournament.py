"""Tournaments: any line-up of agents at one table, seats rotated, games spread over processes.

Every agent of the line-up sits in every seat equally often, so no agent profits from
playing first, and next to every other agent in every order, so no agent profits from
whom it follows (in Tock, the player after a strong one sees its piles first). Games
come in blocks of N: each block draws an order of the entries and rotates it through
the N seats (:func:`seating`). Game ``i`` is dealt and played with the generator
``default_rng([seed, i])``: the result depends on the seed alone, not on the number of
worker processes.

Duplicate deals (``duplicate=True``): a block of N games is one deal, replayed once per
rotation. Its N games share the engine's deal seed (:func:`deal_seed`; the deal, and every
card the game draws, depends on that seed alone), while the players keep drawing from
``default_rng([seed, i])``; so every entry holds every seat's cards once, and the luck of
the deal falls on every entry alike. The N cyclic rotations are the balanced set at every
table size (up to UNO's 10 players): each entry sits in each seat once per deal. Each
entry's figures are then averaged per deal, and the intervals are over deals
(:func:`summarise`).
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents.specs import PolicyLike, make_policy, spec_label
from card_envs.core.game import SEED_BOUND
from card_envs.core.play import play_game
from card_envs.core.processes import worker_pool
from card_envs.core.ranking import rank_rewards
from card_envs.core.registry import GameRef, register
from card_envs.core.table import Table
from card_envs.evaluation import tables
from card_envs.evaluation.stats import (
    SMALL_SAMPLE,
    Estimate,
    League,
    bounded_mean_interval,
    unit_means,
    wilson_interval,
)
from card_envs.records.record import GameRecorder


@dataclass(frozen=True)
class GameRecord:
    """One game: which line-up entry sat in each seat, and how each seat ended."""

    entries: list[int]
    ranks: list[int]
    rewards: list[float]
    infos: list[dict[str, float]]
    steps: int
    truncated: bool
    #: the duplicate deal this game replays (its games are paired), None: a deal of its own
    deal: int | None = None


@dataclass(frozen=True)
class AgentStats:
    """One line-up entry over the whole tournament; wins count as
    :data:`card_envs.evaluation.tables.WIN_DEFINITION` says."""

    name: str
    games: int
    #: first places, shared ones counted for each player sharing them
    win_rate: Estimate
    #: first places held alone
    outright_win_rate: Estimate
    mean_rank: Estimate
    mean_reward: Estimate
    rating: float
    rating_sigma: float
    #: games played in each seat (equal, up to one, by the seat rotation)
    seat_games: list[int] = field(default_factory=list)
    #: game-specific figures from the engine's player_info, averaged over the games
    figures: dict[str, float] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "games": self.games}
        for key in ("win_rate", "outright_win_rate", "mean_rank", "mean_reward"):
            out[key] = getattr(self, key).as_json()
        out |= {"rating": self.rating, "rating_sigma": self.rating_sigma, "seat_games": self.seat_games}
        out["figures"] = self.figures
        return out


@dataclass(frozen=True)
class TournamentResult:
    game: str
    num_players: int
    rules: dict[str, Any]
    seed: int
    games: int
    agents: list[AgentStats]
    truncated: int
    steps: int
    seconds: float
    #: games paired on duplicate deals (:mod:`card_envs.evaluation.tournament`), and how many deals
    duplicate: bool = False
    deals: int | None = None
    #: stopped before its end (Ctrl-C, SIGTERM): the games finished, of ``planned_games``
    partial: bool = False
    planned_games: int | None = None

    @property
    def title(self) -> str:
        """The game, its table and the line-up: ``4-player tock, 40 games: rule, random, ...``."""
        return tables.title(self)

    def table(self) -> str:
        """The terminal tables: titled with the line-up, 95% intervals in brackets, the game
        figures per agent, and notes saying how wins count and how the intervals are found."""
        return tables.text(self)

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "num_players": self.num_players,
            "rules": self.rules,
            "seed": self.seed,
            "games": self.games,
            "truncated": self.truncated,
            "steps": self.steps,
            "seconds": self.seconds,
            "duplicate": self.duplicate,
            "deals": self.deals,
            "partial": self.partial,
            "planned_games": self.games if self.planned_games is None else self.planned_games,
            "title": self.title,
            "win_definition": tables.win_definition(self),
            "small_sample_below": SMALL_SAMPLE,
            "agents": [a.as_json() for a in self.agents],
        }


@dataclass(frozen=True)
class _Chunk:
    table: Table  # its spec travels, so a worker knows games registered outside card_envs
    lineup: list[PolicyLike]
    seed: int
    first: int
    count: int
    max_steps: int
    names: list[str]
    record_dir: Path | None
    duplicate: bool


def seating(i: int, n: int, seed: int) -> list[int]:
    """The line-up entry in each seat of game ``i``: block ``i // n`` draws an order of the
    ``n`` entries (from ``seed`` and the block alone), game ``i`` rotates it by ``i % n``."""
    order = np.random.default_rng([seed, i // n, 1]).permutation(n)
    return [int(order[(seat + i) % n]) for seat in range(n)]


def deal_seed(seed: int, deal: int) -> int:
    """The engine's deal seed of duplicate deal ``deal`` (games ``deal * N`` to
    ``deal * N + N - 1``), from ``seed`` and the deal alone."""
    return int(np.random.default_rng([seed, deal, 2]).integers(SEED_BOUND))


def _play_chunk(chunk: _Chunk) -> list[GameRecord]:
    """A worker's share: its games' records, in order."""
    return _play_games(chunk, [])


def _play_games(chunk: _Chunk, into: list[GameRecord]) -> list[GameRecord]:
    """Play the chunk's games, appending each record to ``into`` as soon as the game ends (so
    a tournament stopped in its own process keeps the games it finished)."""
    register(chunk.table.spec)
    game = chunk.table.engine()
    n = game.num_players
    agents = [make_policy(spec, chunk.table) for spec in chunk.lineup]
    if "torch" in sys.modules:  # a model policy: one thread per process, they run small networks
        sys.modules["torch"].set_num_threads(1)  # (a rule-only line-up never imports torch)
    recorder = game.recorder = GameRecorder(chunk.record_dir) if chunk.record_dir else None
    for i in range(chunk.first, chunk.first + chunk.count):
        entries = seating(i, n, chunk.seed)
        rng = np.random.default_rng([chunk.seed, i])
        deal = i // n if chunk.duplicate else None
        if recorder is not None:
            recorder.name_next(f"game-{i + 1:06d}", [chunk.names[e] for e in entries])
        policies = [agents[e] for e in entries]
        seed = None if deal is None else deal_seed(chunk.seed, deal)  # None: the deal drawn from rng
        outcome = play_game(game, policies, rng, chunk.max_steps, deal=seed)
        if recorder is not None:
            recorder.save()  # a truncated game is not saved by the engine
        infos = [game.player_info(seat) for seat in range(n)]
        ranks, steps, truncated = outcome.ranks, outcome.steps, outcome.truncated
        into.append(GameRecord(entries, ranks, rank_rewards(ranks), infos, steps, truncated, deal))
    return into


def _names(lineup: Sequence[PolicyLike]) -> list[str]:
    """A unique name per entry: ``rule``, ``rule (2)`` for a repeated one."""
    names: list[str] = []
    for spec in lineup:
        label = spec_label(spec)
        count = sum(1 for n in names if n == label or n.startswith(f"{label} ("))
        names.append(label if count == 0 else f"{label} ({count + 1})")
    return names


def tournament(
    game: Table | GameRef,
    lineup: Sequence[PolicyLike],
    games: int = 1000,
    rules: dict[str, Any] | None = None,
    seed: int = 0,
    workers: int | None = None,
    max_steps: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    record_dir: str | Path | None = None,
    pool_copies: bool = False,
    duplicate: bool = False,
    on_interrupt: Callable[[TournamentResult], None] | None = None,
) -> TournamentResult:
    """Play ``games`` games with one line-up entry per seat and summarise each entry.

    ``lineup`` holds one spec per seat (``"rule"``, ``"rule:vigilance=0.5"``,
    ``"random"``, ``"model:PATH"`` or a Policy object); its length is the
    player count. ``workers`` processes share the games (default: the CPUs).
    ``progress(done, games)`` is called as batches of games finish.
    ``record_dir``: write every game there as a record (``game-000001.jsonl``
    and up, :mod:`card_envs.records.record`) that :func:`card_envs.records.record.replay` plays again.
    ``pool_copies``: entries with the same spec are one agent (a head-to-head of two
    agents with two seats each, say), judged per game over all its seats (:func:`summarise`).
    ``duplicate``: each deal is played once per rotation of the line-up through the N seats
    (the module's docstring); ``games`` is rounded up to whole deals (a multiple of N) and
    the intervals are over deals.
    ``on_interrupt(result)``: when Ctrl-C (KeyboardInterrupt) or SIGTERM (SystemExit, see
    :func:`card_envs.core.processes.exit_on_sigterm`) stops the tournament after at least
    one game, it is called with the games finished so far (``result.partial``; with
    ``duplicate``, the whole deals finished) before the exception goes on.
    """
    n = len(lineup)
    table = Table.of(game, n, **(rules or {}))  # the one look-up and check: it goes down, to the workers too
    engine = table.engine()
    for spec in lineup:
        make_policy(spec, table)  # every agent spec is checked before any work starts
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if duplicate:
        games = -(-games // n) * n  # whole deals
    cap = max_steps or engine.default_max_steps
    workers = max(1, min(workers or os.cpu_count() or 1, games))
    size = -(-games // (workers * 4)) if workers > 1 else games
    names = _names(lineup)
    record_path = Path(record_dir) if record_dir is not None else None
    chunks = [
        _Chunk(
            table,
            list(lineup),
            seed,
            first,
            min(size, games - first),
            cap,
            names,
            record_path,
            duplicate,
        )
        for first in range(0, games, size)
    ]
    agents, agent_of = names, None
    if pool_copies:
        labels = [spec_label(spec) for spec in lineup]
        agents = list(dict.fromkeys(labels))
        agent_of = [agents.index(x) for x in labels]
    summary = functools.partial(summarise, table, seed, agents, agent_of=agent_of, duplicate=duplicate)
    start = time.perf_counter()
    finished: dict[int, list[GameRecord]] = {}  # a chunk's first game -> its games finished
    try:
        _play(chunks, workers, finished, progress, games)
    except (KeyboardInterrupt, SystemExit):
        records = _finished_games(finished, n if duplicate else 1)
        if on_interrupt is not None and records:
            on_interrupt(summary(records, time.perf_counter() - start, planned_games=games))
        raise
    return summary(_finished_games(finished, 1), time.perf_counter() - start)


def _play(
    chunks: Sequence[_Chunk],
    workers: int,
    finished: dict[int, list[GameRecord]],
    progress: Callable[[int, int], None] | None,
    games: int,
) -> None:
    """Play every chunk, in this process or over ``workers`` processes, keeping each chunk's
    games in ``finished`` under its first game as they come back."""
    if workers == 1:
        for chunk in chunks:
            _play_games(chunk, finished.setdefault(chunk.first, []))
            if progress is not None:
                progress(sum(map(len, finished.values())), games)
        return
    with worker_pool(workers) as pool:
        futures = {pool.submit(_play_chunk, chunk): chunk.first for chunk in chunks}
        for future in as_completed(futures):
            finished[futures[future]] = future.result()
            if progress is not None:
                progress(sum(map(len, finished.values())), games)


def _finished_games(finished: dict[int, list[GameRecord]], deal_size: int) -> list[GameRecord]:
    """The games finished, in the order they were dealt (ratings follow that order), and of
    duplicate deals (``deal_size`` games each) only the deals finished whole."""
    records = [record for first in sorted(finished) for record in finished[first]]
    if deal_size == 1:
        return records
    games_of = Counter(record.deal for record in records)
    return [record for record in records if games_of[record.deal] == deal_size]


def summarise(
    table: Table,
    seed: int,
    names: list[str],
    records: list[GameRecord],
    seconds: float,
    agent_of: Sequence[int] | None = None,
    *,
    duplicate: bool = False,
    planned_games: int | None = None,
) -> TournamentResult:
    """One AgentStats per name in ``names``; ``agent_of[e]`` is the agent line-up entry ``e``
    plays for (default: entry ``e`` is agent ``e``). An agent with several seats in a game
    counts that game once: its rank, reward and game figures are the means over its seats,
    and it won if one of its seats did (:func:`card_envs.evaluation.tables.win_definition`).

    The intervals take one value per independent unit (:func:`bounded_mean_interval`): mean
    rewards in [-1, 1], mean ranks in [1, N]. A unit is a game, or with ``duplicate`` a deal
    (``record.deal``): each agent's figures are first averaged over the deal's games, since
    games on one deal share its luck. Win rates are then the per-deal win shares in [0, 1]
    with the same bounded interval, not Wilson's, which assumes independent games.
    ``planned_games``: the result is partial, these many games were to be played."""
    if duplicate and any(record.deal is None for record in records):
        raise ValueError("summarise(duplicate=True) needs every record's deal, got a record with deal=None")
    agent_of = list(agent_of) if agent_of is not None else list(range(len(names)))
    league = League()
    per_agent: list[dict[str, list[Any]]] = [
        {
            "ranks": [],
            "rewards": [],
            "wins": [],
            "outright": [],
            "infos": [],
            "units": [],
            "seats": [0] * table.num_players,
        }
        for _ in names
    ]
    for index, record in enumerate(records):
        seats_of: dict[int, list[int]] = {}
        for seat, entry in enumerate(record.entries):
            seats_of.setdefault(agent_of[entry], []).append(seat)
            per_agent[agent_of[entry]]["seats"][seat] += 1
        winners = {agent for agent, seats in seats_of.items() if min(record.ranks[s] for s in seats) == 1}
        for agent, seats in seats_of.items():
            data = per_agent[agent]
            data["ranks"].append(float(np.mean([record.ranks[s] for s in seats])))
            data["rewards"].append(float(np.mean([record.rewards[s] for s in seats])))
            data["wins"].append(agent in winners)
            data["outright"].append(winners == {agent})
            data["units"].append(record.deal if duplicate else index)
            figures = {k for s in seats for k in record.infos[s]}
            data["infos"].append({k: np.mean([record.infos[s].get(k, 0.0) for s in seats]) for k in figures})
        league.record([names[a] for a in seats_of], [per_agent[a]["ranks"][-1] for a in seats_of])
    stats = []
    for name, data in zip(names, per_agent, strict=True):
        keys = sorted({k for info in data["infos"] for k in info})
        stats.append(
            AgentStats(
                name=name,
                games=len(data["ranks"]),
                **_estimates(data, table.num_players, duplicate),
                rating=league.ordinal(name),
                rating_sigma=league.sigma(name),
                seat_games=data["seats"],
                figures={k: float(np.mean([info.get(k, 0.0) for info in data["infos"]])) for k in keys},
            )
        )
    return TournamentResult(
        game=table.name,
        num_players=table.num_players,
        rules=dict(table.rules),
        seed=seed,
        games=len(records),
        agents=stats,
        truncated=sum(r.truncated for r in records),
        steps=sum(r.steps for r in records),
        seconds=seconds,
        duplicate=duplicate,
        deals=len({r.deal for r in records}) if duplicate else None,
        partial=planned_games is not None,
        planned_games=planned_games,
    )


def _estimates(data: dict[str, list[Any]], num_players: int, duplicate: bool) -> dict[str, Estimate]:
    """An agent's rates and means with their intervals: over its games, or over its deals."""
    if not duplicate:
        played = len(data["ranks"])
        return {
            "win_rate": wilson_interval(sum(data["wins"]), played),
            "outright_win_rate": wilson_interval(sum(data["outright"]), played),
            "mean_rank": bounded_mean_interval(data["ranks"], 1.0, float(num_players)),
            "mean_reward": bounded_mean_interval(data["rewards"], -1.0, 1.0),
        }
    units = data["units"]
    return {
        "win_rate": bounded_mean_interval(unit_means(data["wins"], units), 0.0, 1.0),
        "outright_win_rate": bounded_mean_interval(unit_means(data["outright"], units), 0.0, 1.0),
        "mean_rank": bounded_mean_interval(unit_means(data["ranks"], units), 1.0, float(num_players)),
        "mean_reward": bounded_mean_interval(unit_means(data["rewards"], units), -1.0, 1.0),
    }
