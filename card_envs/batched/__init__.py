"""The batch front: B games of one kind stepped together by the games' compiled kernels.

:class:`BatchedGame` (:mod:`.game`) steps them; :mod:`.policy` holds the policies that act
in many games at once; :mod:`.sampling` the compiled random legal draws.
"""

from card_envs.batched.game import BatchedGame, BatchStep, PlayOut, batched_games, rank_rewards_batch
from card_envs.batched.sampling import random_actions, random_legal

__all__ = [
    "BatchStep",
    "BatchedGame",
    "PlayOut",
    "batched_games",
    "random_actions",
    "random_legal",
    "rank_rewards_batch",
]
