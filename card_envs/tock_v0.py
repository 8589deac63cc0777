"""PettingZoo AEC env of the tock game: `env()` is wrapped, `raw_env` is not."""

from card_envs.core.aec import aec_env_class, wrapped_env_factory
from card_envs.games.tock.engine import TockGame

raw_env = aec_env_class(TockGame, "tock_v0")
env = wrapped_env_factory(raw_env)
