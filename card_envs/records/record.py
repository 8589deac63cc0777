"""Game records: every game an engine plays, as JSON Lines that replay it exactly.

A record is one file per game. The first line is the header: the package
version, the game, player count, rules, the deal seed (the engine draws from
its own generator, so seed and actions are the whole game), the players'
names when known, and a digest of the dealt state. Each further line is one
action: the step number, the seat that acted, the action, its description
and the digest of the state after it. A last line gives the ranks when the
game ended by its rules (a game stopped at a step cap has none).

:func:`replay` rebuilds the game from the header and steps through the
actions, comparing every state with its digest: a record from another
version, or one with a changed line, fails with a :class:`RecordError` that
names the file and line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from card_envs.core.game import CardGame, IllegalActionError
from card_envs.core.version import __version__

#: the record layout; bumped when the lines change meaning
FORMAT = 1


class RecordError(ValueError):
    """A record that cannot be replayed: the message names the file and line."""


def state_digest(game: CardGame) -> str:
    """A short fingerprint of the full state: equal states give equal digests."""
    text = json.dumps(game.state_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class GameRecorder:
    """Keeps each game its engine plays and writes it to ``directory`` as ``<stem>.jsonl``.

    Attach it with ``game.recorder = GameRecorder(directory)`` (the envs do
    this for ``record_dir=``). The engine calls :meth:`dealt` and
    :meth:`stepped`; a game is written when it ends by its rules, when the
    next one is dealt, or on :meth:`save`. Files are named ``<game>-000001``
    and up unless :meth:`name_next` names the next game.
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.saved: list[Path] = []
        self._lines: list[dict[str, Any]] = []
        self._stem: str | None = None
        self._game_saved = False  # the game dealt last is already written
        self._players: list[str] | None = None
        self._next_stem: str | None = None
        self._next_players: list[str] | None = None
        self._next_fields: dict[str, Any] = {}

    def mark_next(self, **fields: Any) -> None:
        """Extra fields for the next step's line (the web page marks a move its stand-in made
        for a person away with ``by="stand-in"``); replay reads past them."""
        self._next_fields = fields

    def name_next(self, stem: str | None = None, players: Sequence[str] | None = None) -> None:
        """File stem and player names (one per seat) of the next game dealt."""
        self._next_stem = stem
        self._next_players = list(players) if players is not None else None

    # ------------------------------------------------------- engine hooks
    def dealt(self, game: CardGame) -> None:
        self.save()
        self._stem = self._next_stem or f"{game.name}-{len(self.saved) + 1:06d}"
        self._players, self._next_stem, self._next_players = self._next_players, None, None
        self._game_saved = False
        header: dict[str, Any] = {
            "record": "card_envs",
            "format": FORMAT,
            "version": __version__,
            "game": game.name,
            "num_players": game.num_players,
            "rules": game.rules,
            "seed": game.seed,
        }
        if self._players is not None:
            header["players"] = self._players
        header["state"] = state_digest(game)
        self._lines = [header]

    def stepped(self, game: CardGame, player: int, action: int, move: str) -> None:
        """``move``: the action's description as the player saw it, before it changed the state."""
        line = {"step": len(self._lines), "player": player, "action": action, "move": move}
        self._lines.append(line | self._next_fields | {"state": state_digest(game)})
        self._next_fields = {}
        if game.is_over:
            self._lines.append({"ranks": game.final_ranks()})
            self.save()

    def discard(self) -> None:
        """Forget the game dealt last, written or not (the single-agent env redeals a game
        the learner had no part in)."""
        if self._game_saved:
            self.saved.pop().unlink()
            self._game_saved = False
        self._lines = []

    def save(self) -> Path | None:
        """Write the game being kept (if any); returns its path."""
        if not self._lines:
            return None
        path = self.directory / f"{self._stem}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in self._lines))
        self._lines = []
        self.saved.append(path)
        self._game_saved = True
        return path


@dataclass(frozen=True)
class Move:
    """One replayed action, as :func:`replay` hands it to ``on_move``."""

    step: int
    player: int
    action: int
    description: str


def read_record(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the other lines of a record, each checked to be a JSON object."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise RecordError(f"{path}: cannot read the record ({error})") from error
    lines = []
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise RecordError(f"{path} line {number}: not JSON ({error.msg})") from error
        if not isinstance(data, dict):
            raise RecordError(f"{path} line {number}: expected a JSON object, got {line[:60]!r}")
        lines.append(data)
    if not lines:
        raise RecordError(f"{path}: the record is empty")
    return lines[0], lines[1:]


def _field(data: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RecordError(f"{where}: field {key!r} must be {kind.__name__}, got {value!r}")
    return value


def _game_of(header: dict[str, Any], where: str, check_version: bool) -> CardGame:
    """The dealt game a header describes."""
    from card_envs.core.registry import game_class

    if header.get("record") != "card_envs" or header.get("format") != FORMAT:
        raise RecordError(f"{where}: not a card_envs game record of format {FORMAT}")
    version = header.get("version")
    if check_version and version != __version__:
        raise RecordError(
            f"{where}: recorded with card_envs {version}, this is {__version__};"
            " the rules or encodings may differ (replay(..., check_version=False) tries anyway)"
        )
    try:
        game = game_class(_field(header, "game", str, where)).from_rules(
            _field(header, "num_players", int, where), **_field(header, "rules", dict, where)
        )
        game.reset(_field(header, "seed", int, where))
    except ValueError as error:
        raise RecordError(f"{where}: {error}") from error
    if state_digest(game) != header.get("state"):
        raise RecordError(f"{where}: the dealt state differs from the record's")
    return game


def replay(
    path: str | Path,
    on_move: Callable[[CardGame, Move], None] | None = None,
    check_version: bool = True,
) -> CardGame:
    """Play a record again, checking every state against it; returns the game at its end.

    ``on_move(game, move)`` is called after each action (to print or render
    it). Any difference (another version, an action that is not legal, a
    changed description, a state that differs, wrong ranks) raises
    :class:`RecordError` naming the line.
    """
    path = Path(path)
    header, lines = read_record(path)
    game = _game_of(header, f"{path} line 1", check_version)
    for number, line in enumerate(lines, start=2):
        where = f"{path} line {number}"
        if "ranks" in line and len(line) == 1:
            if not game.is_over or line["ranks"] != game.final_ranks():
                raise RecordError(f"{where}: the record says ranks {line['ranks']}, the game {game.ranks}")
            continue
        if line.get("step") != number - 1:
            raise RecordError(f"{where}: expected step {number - 1}, got {line.get('step')!r}")
        if line.get("player") != game.current_player:
            raise RecordError(
                f"{where}: the record says player {line.get('player')!r} acts, the game asks"
                f" player {game.current_player}"
            )
        action = _field(line, "action", int, where)
        try:
            game.check_action(action)
        except IllegalActionError as error:
            raise RecordError(f"{where}: {error}") from error
        description = game.describe_action(action)
        if line.get("move") != description:
            raise RecordError(
                f"{where}: the record describes action {action} as {line.get('move')!r},"
                f" the game as {description!r}"
            )
        game.step(action)
        if line.get("state") != state_digest(game):
            raise RecordError(
                f"{where}: the state after action {action} ({description}) differs from the record's"
            )
        if on_move is not None:
            on_move(game, Move(number - 1, line["player"], action, description))
    return game
