"""Multi-agent RL environments for three card games: UNO-style, Tock and Chip It.

PettingZoo AEC envs::

    from card_envs import uno_v0
    env = uno_v0.env(num_players=4)

Single-agent Gymnasium envs (one learner seat, the rest played by policies)::

    import gymnasium, card_envs
    env = gymnasium.make("card_envs/Uno-v0", num_players=4, opponents="rule")

Game records (``record_dir=`` of either env, ``evaluate.py --record DIR``)
play again exactly, every state checked: ``card_envs.replay("game.jsonl")``.

Importing this package (or any engine in it) does not import gymnasium or
pettingzoo. The Gymnasium ids are registered when gymnasium is imported, in
whichever order the two are imported: Gymnasium 1.x has no plugin entry-point
group any more, and registering at import would load gymnasium with every
engine (docs/architecture.md). ``card_envs/<game>_v<version>.py`` are plain modules.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import Any

import wrapt

from card_envs.core.game import CardGame, IllegalActionError
from card_envs.core.policy import Policy, RandomAgent
from card_envs.core.registry import game_class, game_spec, game_specs, on_register, register
from card_envs.core.spec import GameSpec
from card_envs.core.version import __version__


def _register_gym_ids(_gymnasium: ModuleType) -> None:
    from card_envs.agents.gym_ids import register_gym_ids

    register_gym_ids()


def _register_gym_id(spec: GameSpec) -> None:
    if "gymnasium" in sys.modules:  # else the import hook below registers it with the others
        from card_envs.agents.gym_ids import register_gym_id

        register_gym_id(spec)


wrapt.register_post_import_hook(_register_gym_ids, "gymnasium")
on_register(_register_gym_id)


def __getattr__(name: str) -> Any:
    """``card_envs.CardGameEnv``, ``card_envs.replay`` and ``card_envs.uno_v0`` etc., imported on
    first use (they need gymnasium and pettingzoo)."""
    if name == "CardGameEnv":
        from card_envs.envs.single import CardGameEnv

        return CardGameEnv
    if name == "replay":
        from card_envs.records import replay

        return replay
    specs = game_specs().values()
    if any(spec.aec_name == name for spec in specs):
        return import_module(f"{__name__}.{name}")  # card_envs.uno_v0 without importing it first
    # an older version of a game's env: say which one replaced it, as an ImportError so that
    # `from card_envs import tock_v0` shows it (after an AttributeError, Python's from-import
    # fallback would replace the message with "cannot import name")
    game, _, version = name.rpartition("_v")
    for spec in specs:
        if game == spec.name and version.isdigit() and int(version) < spec.version:
            raise ImportError(
                f"card_envs.{name} was replaced by card_envs.{spec.aec_name} "
                f"(its version history says what changed)"
            )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CardGame",
    "CardGameEnv",
    "GameSpec",
    "IllegalActionError",
    "Policy",
    "RandomAgent",
    "__version__",
    "game_class",
    "game_spec",
    "game_specs",
    "register",
    "replay",
]
