"""Search players: information-set Monte Carlo tree search over the generic engine interface.

A search player samples the worlds its seat cannot tell apart (``CardGame.sample_world``),
grows one tree over them, and values each leaf by playing it out on the compiled batched
engine. Nothing here knows a game's rules; every game and player count is served alike.
"""

from card_envs.agents.search.player import SearchPlayer, SearchStats
from card_envs.agents.search.settings import SearchSettings

__all__ = ["SearchPlayer", "SearchSettings", "SearchStats"]
