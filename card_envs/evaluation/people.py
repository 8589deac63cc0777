"""How people did against the agents, from the records of the games they played on the web
page: per table and line-up of opponents, the people's rank reward (95% interval inside
-1..1) and win rate (Wilson), over their finished games.

A game closed before its end counts as unfinished and is left out (a person who left a
losing game would otherwise look better); a seat partly played by its stand-in counts, and
the table says how many of its moves the stand-ins made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from card_envs.core.ranking import rank_rewards
from card_envs.evaluation.stats import Estimate, bounded_mean_interval, wilson_interval
from card_envs.records.people import PeopleGame


@dataclass(frozen=True)
class PeopleResult:
    """People in one seat kind of one table against one line-up of agents."""

    game: str
    num_players: int
    opponents: str
    seats: int  # person-seats of finished games
    unfinished: int  # games closed before their end (left out)
    stand_in_moves: int
    reward: Estimate
    win_rate: Estimate


def people_results(games: Sequence[PeopleGame]) -> list[PeopleResult]:
    """One row per (game, players, opponents): every person's seat of every finished game."""
    rewards: dict[tuple[str, int, str], list[float]] = {}
    wins: dict[tuple[str, int, str], int] = {}
    unfinished: dict[tuple[str, int, str], int] = {}
    stand_ins: dict[tuple[str, int, str], int] = {}
    for played in games:
        for seat in played.people:
            key = (played.game, played.num_players, played.opponents(seat))
            rewards.setdefault(key, [])
            stand_ins[key] = stand_ins.get(key, 0) + played.stand_in_moves.get(seat, 0)
            if played.ranks is None:
                unfinished[key] = unfinished.get(key, 0) + 1
                continue
            rewards[key].append(rank_rewards(played.ranks)[seat])
            wins[key] = wins.get(key, 0) + (played.ranks[seat] == 1)
    return [
        PeopleResult(
            game,
            players,
            opponents,
            len(values),
            unfinished.get((game, players, opponents), 0),
            stand_ins[(game, players, opponents)],
            bounded_mean_interval(values, -1.0, 1.0),
            wilson_interval(wins.get((game, players, opponents), 0), len(values)),
        )
        for (game, players, opponents), values in sorted(rewards.items())
    ]


def people_table(results: Sequence[PeopleResult]) -> str:
    """The results as a Markdown table."""
    lines = [
        "| game | players | opponents | person-seats | rank reward (95%) | win rate (95%)"
        " | unfinished | stand-in moves |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in results:
        lines.append(
            f"| {row.game} | {row.num_players} | {row.opponents} | {row.seats} | {row.reward:+.3f}"
            f" | {row.win_rate:.3f} | {row.unfinished} | {row.stand_in_moves} |"
        )
    return "\n".join(lines)
