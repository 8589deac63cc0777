"""Game records: every deal and action of a game as JSON Lines, with a state digest per step.

:class:`GameRecorder` writes them (the envs' ``record_dir``), :func:`replay` plays one
again and checks every state against it (``card_envs.replay(path)``).
"""

from card_envs.records.record import GameRecorder, Move, RecordError, read_record, replay, state_digest

__all__ = ["GameRecorder", "Move", "RecordError", "read_record", "replay", "state_digest"]
