"""A gauntlet: one agent against a fixed set of line-ups it never trained against.

An agent trained against the rule-based players can learn their habits rather than the
game (issue 24: a Tock agent at +0.28..+0.40 against three rule players scored +0.007
against three heuristic players written independently from the rules). The gauntlet
seats the agent against, in this order:

1. three rule players at each knob setting of the rule agent's ``knob_mix``
   (:func:`card_envs.agents.registry.rule_agent_spec`), not at the default knobs it
   trains against;
2. three random players;
3. three heuristic players (``"heuristic"``, :mod:`card_envs.agents.<game>.heuristic`);
4. a mix: rule, heuristic, random (cycled over the other seats);
5. the search players of :data:`SEARCH_PLAYERS` (none by default: they are slow);
6. any earlier agents given (``extra``, e.g. ``greedy:runs/x``).

("Three" is the number of other seats: N - 1 at an N-player table.) Each line-up is a
:func:`card_envs.evaluation.tournament.tournament` with seats rotated, so its result
has the usual tables. The verdict reads the agent's mean reward and its 95% interval in
each: above 0 beats the line-up, below 0 loses to it, else level with it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from card_envs.agents.policy_spec import rule_spec
from card_envs.agents.registry import heuristic_class, rule_agent_spec
from card_envs.agents.specs import PolicyLike, check_spec, spec_label
from card_envs.core.policy import Policy
from card_envs.core.registry import GameRef
from card_envs.core.table import Table
from card_envs.evaluation.tournament import TournamentResult, tournament

#: Search line-ups of the default gauntlet: one line-up of N - 1 copies per spec, e.g.
#: ``("search:sims=16",)``. None by default: three search players make a Tock gauntlet take
#: hours (docs/gauntlet.md); ``extra`` (``--opponents search:sims=16``) adds one when wanted.
SEARCH_PLAYERS: tuple[str, ...] = ()

#: the seats of the mixed line-up, cycled over the other seats (without "heuristic" for a
#: game that has no heuristic player)
MIX = ("rule", "heuristic", "random")

Opponents = PolicyLike | Sequence[PolicyLike]


@dataclass(frozen=True)
class Lineup:
    """The other seats of one gauntlet table, and how the verdict names them."""

    name: str
    opponents: tuple[PolicyLike, ...]


def lineup_name(opponents: Sequence[PolicyLike]) -> str:
    """``rule:target=nearest x3`` for copies of one spec, else the specs in seat order."""
    labels = [spec_label(spec) for spec in opponents]
    if len(set(labels)) == 1:
        return f"{labels[0]} x{len(labels)}"
    return ", ".join(labels)


def _has_heuristic(game: GameRef) -> bool:
    try:
        heuristic_class(game)
    except ValueError:
        return False
    return True


def lineups(table: Table, extra: Sequence[Opponents] = ()) -> list[Lineup]:
    """The gauntlet's line-ups at ``table``, in the order of the module docstring. An
    ``extra`` entry is one spec for every other seat, or one per other seat."""
    others = table.num_players - 1
    if others < 1:
        raise ValueError(f"num_players must be at least 2 for a gauntlet, got {table.num_players}")

    def copies(spec: PolicyLike) -> tuple[PolicyLike, ...]:
        return (spec,) * others

    heuristic = _has_heuristic(table.spec)
    tables = [copies(rule_spec(dict(knobs))) for knobs in rule_agent_spec(table.spec).knob_mix]
    tables.append(copies("random"))
    if heuristic:
        tables.append(copies("heuristic"))
    if others > 1:
        mix = [spec for spec in MIX if heuristic or spec != "heuristic"]
        tables.append(tuple(itertools.islice(itertools.cycle(mix), others)))
    tables += [copies(spec) for spec in SEARCH_PLAYERS]
    for entry in extra:
        if isinstance(entry, (str, Policy)):
            tables.append(copies(entry))
        elif len(entry) == others:
            tables.append(tuple(entry))
        else:
            raise ValueError(f"extra line-up {list(entry)} needs 1 spec or {others} (one per other seat)")
    return [Lineup(lineup_name(t), t) for t in tables]


@dataclass(frozen=True)
class LineupResult:
    """The agent's tournament against one line-up (the agent is ``result.agents[0]``)."""

    lineup: Lineup
    result: TournamentResult

    @property
    def outcome(self) -> str:
        """``beats``, ``loses to`` or ``level with``, from the agent's mean-reward interval."""
        reward = self.result.agents[0].mean_reward
        if reward.low > 0:
            return "beats"
        if reward.high < 0:
            return "loses to"
        return "level with"


@dataclass(frozen=True)
class GauntletResult:
    agent: str
    results: list[LineupResult]

    def names(self, outcome: str) -> list[str]:
        """The line-ups of one outcome (``beats``, ``loses to``, ``level with``)."""
        return [r.lineup.name for r in self.results if r.outcome == outcome]

    @property
    def verdict(self) -> str:
        """One line: ``AGENT beats all N line-ups``, or which it loses to and is level with."""
        total = len(self.results)
        beaten = self.names("beats")
        if len(beaten) == total:
            return f"{self.agent} beats all {total} line-ups"
        parts = [
            f"{label}: {'; '.join(names)}"
            for label in ("loses to", "level with")
            if (names := self.names(label))
        ]
        return f"{self.agent} beats {len(beaten)} of {total} line-ups; " + "; ".join(parts)

    def tournaments(self) -> list[TournamentResult]:
        return [r.result for r in self.results]

    def as_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "verdict": self.verdict,
            "lineups": [
                {
                    "name": r.lineup.name,
                    "outcome": r.outcome,
                    "mean_reward": r.result.agents[0].mean_reward.as_json(),
                }
                for r in self.results
            ],
        }


def gauntlet(
    game: Table | GameRef,
    agent_spec: PolicyLike,
    num_players: int | None = None,
    games: int = 500,
    seed: int = 0,
    workers: int | None = None,
    extra: Sequence[Opponents] = (),
    rules: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    record_dir: str | Path | None = None,
    on_result: Callable[[LineupResult], None] | None = None,
    duplicate: bool = False,
) -> GauntletResult:
    """Play ``agent_spec`` in one seat (rotated) against every line-up of :func:`lineups`,
    ``games`` games each (``duplicate``: on duplicate deals, each line-up's own, which narrow
    the intervals where the deal decides much: docs/evaluation.md); ``on_result`` is told of
    each line-up's result as it is done.

    ``record_dir``: each line-up's games are recorded in ``record_dir/lineup-K`` (K from 1).
    The table, the rules and every spec of every line-up are checked before any game is
    played (a model without loading it), so a bad extra fails at once, not an hour in.
    """
    table = Table.of(game, num_players, **(rules or {}))
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    lineups_played = lineups(table, extra)
    for spec in {s for t in lineups_played for s in (agent_spec, *t.opponents) if isinstance(s, str)}:
        check_spec(spec, table)
    results = []
    for number, lineup in enumerate(lineups_played, start=1):
        result = tournament(
            table,
            [agent_spec, *lineup.opponents],
            games,
            seed=seed,
            workers=workers,
            progress=progress,
            record_dir=Path(record_dir) / f"lineup-{number}" if record_dir is not None else None,
            duplicate=duplicate,
        )
        done = LineupResult(lineup, result)
        if on_result is not None:
            on_result(done)
        results.append(done)
    return GauntletResult(spec_label(agent_spec), results)
