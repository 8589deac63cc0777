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
pettingzoo: the Gymnasium ids are registered when gymnasium is imported, and
the modules ``card_envs.<game>_v0`` are built from each game's spec on first use.
"""

from __future__ import annotations

import importlib.util
import sys
from importlib import import_module
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

import wrapt

from card_envs.core.game import CardGame, IllegalActionError
from card_envs.core.policy import Policy, RandomAgent
from card_envs.core.spec import GameSpec
from card_envs.core.version import __version__
from card_envs.registry import game_class, game_spec, game_specs, on_register, register, spec_by_aec_name


def _register_gym_ids(_gymnasium: ModuleType) -> None:
    from card_envs.envs.registration import register_gym_ids

    register_gym_ids()


def _register_gym_id(spec: GameSpec) -> None:
    if "gymnasium" in sys.modules:  # else the import hook below registers it with the others
        from card_envs.envs.registration import register_gym_id

        register_gym_id(spec)


wrapt.register_post_import_hook(_register_gym_ids, "gymnasium")
on_register(_register_gym_id)


class _AECModules(MetaPathFinder, Loader):
    """Imports ``card_envs.<game>_v<version>`` for every registered game, built from its spec."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        package, _, name = fullname.partition(".")
        if package != __name__ or "." in name or spec_by_aec_name(name) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # the default module object

    def exec_module(self, module: ModuleType) -> None:
        from card_envs.envs.aec import fill_aec_module

        spec = spec_by_aec_name(module.__name__.rpartition(".")[2])
        assert spec is not None
        fill_aec_module(module, spec)


if not any(isinstance(finder, _AECModules) for finder in sys.meta_path):
    sys.meta_path.append(_AECModules())  # after the normal finders: real files always win


def __getattr__(name: str) -> Any:
    """``from card_envs import uno_v0`` and ``card_envs.CardGameEnv``, imported on first use."""
    if name == "CardGameEnv":
        from card_envs.envs.single import CardGameEnv

        return CardGameEnv
    if name == "replay":
        from card_envs.records import replay

        return replay
    if spec_by_aec_name(name) is not None:
        return import_module(f"{__name__}.{name}")
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
