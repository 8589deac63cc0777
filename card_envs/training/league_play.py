"""The league in play: its entries drawn per game and seat on the batched engine, and the
results of finished games fed back to them (the design: :mod:`card_envs.training.league`)."""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from card_envs.agents.model import SelfPlayPool
from card_envs.agents.specs import make_policy
from card_envs.batched.policy import BatchedPolicy, batched_policy
from card_envs.core.table import Table
from card_envs.envs.vector import BatchedCardGameEnv
from card_envs.training.callbacks import SelfPlaySnapshots
from card_envs.training.league import LeagueSettings, league_pool
from card_envs.training.sb3_vec import BatchedVecEnv

if TYPE_CHECKING:
    from card_envs.training.settings import TrainSettings


@dataclass
class Entry:
    """One opponent of the pool, its batched player and the learner's results against it."""

    name: str
    player: BatchedPolicy
    games: int = 0
    wins: int = 0
    score_total: float = 0.0
    score: float = 0.5  # the windowed mean score that prioritizes it

    def record(self, score: float, won: bool, window: int) -> None:
        self.games += 1
        self.wins += int(won)
        self.score_total += score
        self.score += (score - self.score) / min(self.games, window)


@dataclass
class League:
    """The pool of a run: entries drawn per game and seat, prioritized by the learner's results."""

    settings: LeagueSettings
    entries: list[Entry] = field(default_factory=list)

    @classmethod
    def build(cls, table: Table, settings: LeagueSettings, seed: int) -> League:
        entries = [
            Entry(spec, batched_policy(make_policy(spec, table)))
            for spec in league_pool(table.name, settings, seed)
        ]
        return cls(settings, entries)

    def weights(self) -> np.ndarray:
        """Each entry's probability to be drawn: ``(1 - p)^exponent + floor``, normalized."""
        scores = np.array([entry.score for entry in self.entries])
        raw = (1.0 - scores) ** self.settings.exponent + self.settings.floor
        return np.asarray(raw / raw.sum())

    def draw(self, generator: np.random.Generator, weights: np.ndarray) -> int:
        """An entry's index, drawn with one uniform number of ``generator`` (a row's own)."""
        index = np.searchsorted(np.cumsum(weights), generator.random() * weights.sum(), side="right")
        return min(int(index), len(weights) - 1)  # a sum rounded below the last bound

    def add_snapshot(self, network: Any, steps: int) -> None:
        """The learner's network at ``steps`` joins the pool; the oldest snapshot beyond
        ``snapshots`` leaves it (its results with it)."""
        if not self.settings.snapshots:
            return
        pool = SelfPlayPool(size=1)
        pool.add_snapshot(network)
        self.entries.append(Entry(f"self@{steps}", pool.batched()))
        snapshots = [i for i, entry in enumerate(self.entries) if entry.name.startswith("self@")]
        for index in reversed(snapshots[: -self.settings.snapshots]):
            del self.entries[index]

    def seats(self, num_seats: int, num_envs: int) -> list[LeagueSeat]:
        return [LeagueSeat(self, num_envs) for _ in range(num_seats)]

    def summary(self) -> dict[str, Any]:
        """What settings.json records: the settings and, per entry, its weight and results."""
        weights = self.weights()
        pool = [
            {
                "name": entry.name,
                "weight": round(float(w), 4),
                "games": entry.games,
                "win_rate": round(entry.wins / entry.games, 4) if entry.games else None,
                "mean_score": round(entry.score_total / entry.games, 4) if entry.games else None,
                "recent_score": round(entry.score, 4),
            }
            for entry, w in zip(self.entries, weights, strict=True)
        ]
        return {**asdict(self.settings), "others": list(self.settings.others), "pool": pool}


class LeagueSeat(BatchedPolicy):
    """One opponent seat of the batch: each row's entry drawn at its deal, with that row's
    generator (so a seeded batch replays); each entry acts in the rows it was drawn for."""

    def __init__(self, league: League, num_envs: int) -> None:
        self.league = league
        self.assigned: list[Entry | None] = [None] * num_envs

    def __repr__(self) -> str:
        return f"LeagueSeat({len(self.league.entries)} entries)"

    def new_games(self, generators: Any, rows: np.ndarray) -> None:
        entries, weights = self.league.entries, self.league.weights()
        drawn: dict[int, list[int]] = {}
        for row in rows.tolist():
            index = self.league.draw(generators[row], weights)
            self.assigned[row] = entries[index]
            drawn.setdefault(index, []).append(row)
        for index, its_rows in drawn.items():
            entries[index].player.new_games(generators, np.array(its_rows, np.int64))

    def act(
        self, observations: np.ndarray, masks: np.ndarray, generators: Any, rows: np.ndarray
    ) -> np.ndarray:
        actions = np.empty(rows.size, np.int64)
        groups: dict[int, tuple[Entry, list[int]]] = {}
        for i, row in enumerate(rows.tolist()):
            entry = self.assigned[row]
            assert entry is not None, "a league seat acted in a game it was not dealt"
            groups.setdefault(id(entry), (entry, []))[1].append(i)
        for entry, picks in groups.values():
            actions[picks] = entry.player.act(observations[picks], masks[picks], generators, rows[picks])
        return actions


class LeagueVecEnv(BatchedVecEnv):
    """The batched env against league seats, feeding each finished game's result back to the
    entries that sat at its table (read before the step deals the row again)."""

    def __init__(self, env: BatchedCardGameEnv, league: League) -> None:
        super().__init__(env)
        self.league = league
        self.league_seats = [seat for seat in env.opponents if isinstance(seat, LeagueSeat)]

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        tables = [list(seat.assigned) for seat in self.league_seats]
        observations, rewards, dones, infos = super().step_wait()
        for b in np.flatnonzero(dones).tolist():
            score = (infos[b]["rank_reward"] + 1.0) / 2.0
            won = infos[b]["rank"] == 1
            met = {id(table[b]): table[b] for table in tables if table[b] is not None}
            for entry in met.values():
                entry.record(score, won, self.league.settings.window)
        return observations, rewards, dones, infos


def league_vec_env(settings: TrainSettings) -> LeagueVecEnv:
    """The run's batched games against a league built from ``settings`` (its opponents
    ``("league",)``), as an SB3 VecEnv seeded with the run's seed."""
    league = League.build(settings.table, settings.league, settings.run.seed)
    seats = league.seats(settings.num_players - 1, settings.run.envs)
    env = BatchedCardGameEnv(num_envs=settings.run.envs, opponents=seats, **settings.env_kwargs())
    vec_env = LeagueVecEnv(env, league)
    vec_env.seed(settings.run.seed)
    return vec_env


class LeagueSnapshots(SelfPlaySnapshots):
    """Adds a copy of the learner's network to the league at the start and every ``every``
    steps, named by the steps it had made."""

    def __init__(self, every: int, league: League) -> None:
        super().__init__(every, copy.deepcopy)
        self.league = league

    def send(self) -> None:
        self.league.add_snapshot(self.copy_network(self.model.policy), self.num_timesteps)
