"""Games people played, from their records: who sat where, how each ended, and each person's
own decisions (for evaluation against people and for imitating them).

The web page (``python -m card_envs.web --record DIR``) records every game it hosts: the
header's ``players`` names ``"human"`` for a person's seat and the agent's spec for the
others, and a move that a person's stand-in made while they were away carries ``"by":
"stand-in"``. Every record read here is first replayed (:func:`replay`: each state checked),
so a changed or foreign file fails with the file and line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from card_envs.core.game import CardGame
from card_envs.core.registry import game_class
from card_envs.records.record import RecordError, read_record, replay

#: a person's seat in a record's ``players``
HUMAN = "human"
#: what ``by`` says of a move a person's stand-in made
STAND_IN = "stand-in"


@dataclass(frozen=True)
class PeopleGame:
    """One recorded game with at least one person in it."""

    path: Path
    game: str
    num_players: int
    rules: dict[str, Any]
    players: list[str]
    #: each seat's final rank (None: the game was closed or dropped before its end)
    ranks: list[int] | None
    #: per person's seat, the moves their stand-in made for them
    stand_in_moves: dict[int, int]

    @property
    def people(self) -> list[int]:
        return [seat for seat, who in enumerate(self.players) if who == HUMAN]

    @property
    def finished(self) -> bool:
        return self.ranks is not None

    def opponents(self, seat: int) -> str:
        """The other seats' players, in seat order after ``seat`` (a line-up's name)."""
        n = self.num_players
        return ", ".join(self.players[(seat + k) % n] for k in range(1, n))


def record_paths(sources: Iterable[str | Path]) -> list[Path]:
    """The ``.jsonl`` records of each file or folder (folders searched all the way down)."""
    found: list[Path] = []
    for source in map(Path, sources):
        if source.is_dir():
            found += sorted(source.rglob("*.jsonl"))
        elif source.is_file():
            found.append(source)
        else:
            raise RecordError(f"{source}: no such record or folder")
    return found


def people_game(path: Path) -> PeopleGame | None:
    """The game of one record, replayed and checked; None if nobody in it was a person."""
    header, lines = read_record(path)
    players = header.get("players")
    if not isinstance(players, list) or HUMAN not in players:
        return None
    replay(path, check_version=False)
    ranks = next((line["ranks"] for line in lines if "ranks" in line and len(line) == 1), None)
    stand_ins: dict[int, int] = {}
    for line in lines:
        if line.get("by") == STAND_IN:
            stand_ins[line["player"]] = stand_ins.get(line["player"], 0) + 1
    return PeopleGame(path, header["game"], header["num_players"], header["rules"], players, ranks, stand_ins)


def people_games(sources: Iterable[str | Path]) -> list[PeopleGame]:
    """Every game with a person in it among the records of ``sources``."""
    games = [people_game(path) for path in record_paths(sources)]
    return [game for game in games if game is not None]


def dealt(played: PeopleGame) -> CardGame:
    header, _ = read_record(played.path)
    game = game_class(played.game).from_rules(played.num_players, **played.rules)
    game.reset(header["seed"])
    return game


def human_decisions(played: PeopleGame) -> Iterator[tuple[CardGame, int, int]]:
    """``(game, seat, action)`` before each move a person made themselves (not their stand-in),
    the game as it stood when they chose (read it before the next item: it moves on)."""
    _, lines = read_record(played.path)
    game = dealt(played)
    people = set(played.people)
    for line in lines:
        if "action" not in line:
            continue
        seat, action = line["player"], line["action"]
        if seat in people and line.get("by") != STAND_IN:
            yield game, seat, action
        game.step(action)
