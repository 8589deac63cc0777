"""A game record (``evaluate.py --record``) as frames the page steps through, both ways.

The record is played again with :func:`card_envs.records.record.replay`, which checks every
state against it; each move becomes a frame with the full table drawn after it (the deal
first), so stepping backwards is only showing an earlier frame.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from card_envs.core.game import CardGame
from card_envs.core.registry import game_class
from card_envs.records.record import Move, RecordError, read_record, replay
from card_envs.web.tables import frame_json, result_json

#: the largest record the server replays, in bytes
MAX_RECORD_BYTES = 20_000_000


def record_frames(path: Path) -> dict[str, Any]:
    """The header of the record at ``path`` and a frame per move (RecordError if it does not replay)."""
    if path.suffix != ".jsonl" or not path.is_file():
        raise RecordError(f"{path.name}: not a game record (a .jsonl file from evaluate.py --record)")
    if path.stat().st_size > MAX_RECORD_BYTES:
        raise RecordError(f"{path.name}: larger than {MAX_RECORD_BYTES} bytes, too large to replay here")
    header, _ = read_record(path)
    try:
        dealt = game_class(header["game"]).from_rules(header["num_players"], **header["rules"])
        dealt.reset(header["seed"])
    except (KeyError, TypeError, ValueError) as error:
        raise RecordError(f"{path.name}: a header this server cannot deal ({error})") from None
    frames = [frame_json(dealt, None, 0, None)]

    def keep(game: CardGame, move: Move) -> None:
        frames.append(frame_json(game, None, move.step, move.player))

    game = replay(path, on_move=keep, check_version=False)
    players = list(header.get("players") or [])
    names = [players[s] if s < len(players) else "?" for s in range(game.num_players)]
    return {
        "game": header.get("game"),
        "players": header.get("num_players"),
        "rules": header.get("rules"),
        "seed": header.get("seed"),
        "version": header.get("version"),
        "names": names,
        "frames": frames,
        "result": result_json(game, names, truncated=not game.is_over),
        "legend": game.legend(),
    }
