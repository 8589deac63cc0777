"""PettingZoo AEC env of the uno game: `env()` is wrapped, `raw_env` is not."""

from card_envs.core.aec import aec_env_class, wrapped_env_factory
from card_envs.games.uno.engine import UnoGame

raw_env = aec_env_class(UnoGame, "uno_v0")
env = wrapped_env_factory(raw_env)
