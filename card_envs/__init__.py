"""Multi-agent RL environments for three card games: UNO-style, Tock and Chip It.

PettingZoo AEC envs::

    from card_envs import uno_v0
    env = uno_v0.env(num_players=4)

Single-agent Gymnasium envs (one learner seat, the rest played by policies)::

    import gymnasium, card_envs
    env = gymnasium.make("card_envs/Uno-v0", num_players=4, opponents="rule")
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

import gymnasium

from card_envs.core.game import CardGame, IllegalActionError
from card_envs.core.single import CardGameEnv

__version__ = "0.1.0"

#: Gymnasium id -> engine name of the single-agent envs
GYM_IDS = {
    "card_envs/Uno-v0": "uno",
    "card_envs/Tock-v0": "tock",
    "card_envs/ChipIt-v0": "chipit",
}

for _env_id, _game in GYM_IDS.items():
    if _env_id not in gymnasium.registry:
        gymnasium.register(_env_id, entry_point="card_envs.core.single:CardGameEnv", kwargs={"game": _game})

_AEC_MODULES = ("uno_v0", "tock_v0", "chipit_v0")


def __getattr__(name: str) -> ModuleType:
    """Import ``uno_v0`` etc. on first use, so ``from card_envs import uno_v0`` works."""
    if name in _AEC_MODULES:
        return import_module(f"card_envs.{name}")
    raise AttributeError(f"module 'card_envs' has no attribute {name!r}")


__all__ = ["CardGame", "CardGameEnv", "GYM_IDS", "IllegalActionError", "__version__", *_AEC_MODULES]
