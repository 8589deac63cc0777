"""Games whose searching seats choose by Gumbel search with the run's current network, and the
samples they leave: at each searched decision with a choice, the observation, the mask, the
search's improved policy and, once the game is over, the seat's rank reward.

A game draws everything from generators seeded by its own number (the deal, the search, the
opponents), so the samples are the same however the games are spread over worker processes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents.search import SearchPlayer
from card_envs.agents.search.settings import SearchSettings
from card_envs.agents.specs import make_policy
from card_envs.core.game import CardGame
from card_envs.core.play import play_game
from card_envs.core.policy import Policy
from card_envs.core.processes import worker_pool
from card_envs.core.ranking import rank_rewards
from card_envs.core.table import Table


@dataclass
class Samples:
    """Searched decisions: what the seat saw, what it could do, the improved policy the search
    found, the seat's rank reward at the game's end, and the game (its seed) they came from."""

    observations: np.ndarray  # float32 [n, obs]
    masks: np.ndarray  # int8 [n, actions]
    policies: np.ndarray  # float32 [n, actions]
    values: np.ndarray  # float32 [n]
    games: np.ndarray  # int64 [n]

    @classmethod
    def concatenate(cls, parts: Sequence[Samples]) -> Samples:
        return cls(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)))

    def __len__(self) -> int:
        return len(self.games)

    def save(self, path: Path) -> None:
        partial = path.with_name(path.name + ".partial.npz")
        np.savez_compressed(partial, **{f.name: getattr(self, f.name) for f in fields(self)})
        partial.replace(path)

    @classmethod
    def load(cls, path: Path) -> Samples:
        with np.load(path, allow_pickle=False) as data:
            return cls(*(data[f.name] for f in fields(cls)))


def searched_seats(num_players: int, lineup: Sequence[str] | None, number: int) -> list[int]:
    """Every seat in self-play, else the one seat that game ``number`` gives the searcher (rotated)."""
    return list(range(num_players)) if lineup is None else [number % num_players]


def searched_decision(
    searcher: SearchPlayer,
    seats: list[int],
    rows: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]],
    seat: int,
    observation: np.ndarray,
    mask: np.ndarray,
    action: int,
) -> None:
    """The play loop's ``on_decision``: a searched seat's decision with a choice joins ``rows``
    with the improved policy its search just left."""
    if seat in seats and int(mask.sum()) > 1:
        assert searcher.last is not None and searcher.last.policy is not None
        rows.append((seat, observation.copy(), mask.copy(), searcher.last.policy.astype(np.float32)))


def every_seats_view(rows: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]], game: CardGame) -> None:
    """The play loop's ``before_decision`` for ``views="every"``: every seat's view joins
    ``rows``, with no policy target (a fit counts it for the value alone)."""
    every, no_target = np.ones(game.num_actions, np.int8), np.zeros(game.num_actions, np.float32)
    rows.extend((seat, game.observe(seat), every, no_target) for seat in range(game.num_players))


def play_games(
    table: Table,
    run_dir: str,
    knobs: dict[str, Any],
    lineup: Sequence[str] | None,
    views: str,
    seeds: Sequence[int],
) -> Samples:
    """The games ``seeds`` of the network of ``run_dir`` searching with ``knobs`` (a ``search``
    spec's knobs) in its seats, ``lineup`` (one spec per other seat) in the others. ``views``
    ``every``: besides the searched decisions, every seat's view at every decision joins with
    no policy target (the value head then learns the views the leaves are valued from: a seat's
    own, after its move, when another is to move), as in :func:`value_positions`."""
    num_players = table.num_players
    settings = SearchSettings.from_knobs({**knobs, "net": run_dir})
    searcher = SearchPlayer(table, settings=settings, make_policy=make_policy)
    others = [make_policy(s, table) for s in lineup] if lineup is not None else []
    columns: dict[str, list[Any]] = {f.name: [] for f in fields(Samples)}
    for seed in seeds:
        seats = searched_seats(num_players, lineup, seed)
        players: list[Policy] = []
        for seat in range(num_players):
            players.append(searcher if seat in seats else others[(seat - seats[0] - 1) % num_players])
        rows: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []
        game = table.engine()
        record = functools.partial(searched_decision, searcher, seats, rows)
        every_view = functools.partial(every_seats_view, rows)
        outcome = play_game(
            game,
            players,
            np.random.default_rng([seed, 3]),
            deal=seed,
            on_decision=record,
            before_decision=every_view if views == "every" else None,
        )
        rewards = rank_rewards(outcome.ranks)
        for seat, observation, mask, policy in rows:
            columns["observations"].append(observation)
            columns["masks"].append(mask)
            columns["policies"].append(policy)
            columns["values"].append(rewards[seat])
            columns["games"].append(seed)
    engine = table.engine()
    n = len(columns["games"])
    return Samples(
        np.asarray(columns["observations"], np.float32).reshape(n, engine.observation_size),
        np.asarray(columns["masks"], np.int8).reshape(n, engine.num_actions),
        np.asarray(columns["policies"], np.float32).reshape(n, engine.num_actions),
        np.asarray(columns["values"], np.float32),
        np.asarray(columns["games"], np.int64),
    )


def value_positions(table: Table, run_dir: str, seeds: Sequence[int]) -> Samples:
    """The games ``seeds`` of the network of ``run_dir`` alone (greedy) in every seat, and at
    each decision every seat's observation with that seat's rank reward at the end: the value
    head's warm-up (the search values leaves from every seat's view, not only the decider's).
    The policies are zeros, so a fit to them moves the value head alone."""
    player = make_policy(f"greedy:{run_dir}", table)
    n = table.num_players
    observations: list[np.ndarray] = []
    seats: list[int] = []
    games: list[int] = []
    values: list[float] = []
    for seed in seeds:
        first = len(seats)

        def every_view(game: Any, seed: int = seed) -> None:
            observations.extend(game.observe(s) for s in range(n))
            seats.extend(range(n))
            games.extend([seed] * n)

        outcome = play_game(
            table.engine(),
            [player] * n,
            np.random.default_rng([seed, 3]),
            deal=seed,
            before_decision=every_view,
        )
        rewards = rank_rewards(outcome.ranks)
        values += [float(rewards[s]) for s in seats[first:]]
    engine = table.engine()
    size = len(seats)
    return Samples(
        np.asarray(observations, np.float32).reshape(size, engine.observation_size),
        np.ones((size, engine.num_actions), np.int8),
        np.zeros((size, engine.num_actions), np.float32),
        np.asarray(values, np.float32),
        np.asarray(games, np.int64),
    )


def shared(job: Callable[..., Samples], args: tuple[Any, ...], seeds: Sequence[int], workers: int) -> Samples:
    """``job(*args, part)`` over parts of ``seeds``, shared by ``workers`` processes (in this
    one for 1), the samples concatenated in the order of ``seeds``."""
    parts = [p.tolist() for p in np.array_split(np.asarray(seeds), min(workers, len(seeds))) if p.size]
    if workers == 1:
        return Samples.concatenate([job(*args, part) for part in parts])
    with worker_pool(len(parts)) as pool:
        jobs = [pool.submit(job, *args, part) for part in parts]
        return Samples.concatenate([j.result() for j in jobs])


def collect(
    table: Table,
    run_dir: Path,
    knobs: dict[str, Any],
    lineup: Sequence[str] | None,
    seeds: Sequence[int],
    workers: int,
    views: str = "decider",
) -> Samples:
    """:func:`play_games` over ``seeds``, shared by ``workers`` processes (in this one for 1)."""
    return shared(play_games, (table, str(run_dir), knobs, lineup, views), seeds, workers)
