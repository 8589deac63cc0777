"""GameSpec: the one place that names a game and everything derived from it.

A game's package declares one spec (at the bottom of its ``__init__.py``,
as OpenSpiel games register themselves); the registry, the PettingZoo module
``card_envs.<name>_v<version>``, the Gymnasium id, the shared tests and the
benchmarks are all derived from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from card_envs.core.game import CardGame


def resolve(target: str | Any) -> Any:
    """``"package.module:Name"`` -> the object (imported on first use); anything else unchanged."""
    if not isinstance(target, str):
        return target
    module, sep, name = target.partition(":")
    if not sep:
        raise ValueError(f"expected 'module:Name', got {target!r}")
    return getattr(import_module(module), name)


@dataclass(frozen=True)
class GameSpec:
    """The facts of one game that the layers above the engine need.

    Args:
        name: short name (``"uno"``), used in registries and ``state_dict()["game"]``.
        title: the name in the Gymnasium id, ``card_envs/<title>-v<version>``.
        engine: the :class:`CardGame` subclass, or ``"module:Class"`` to import it on first use.
        rule_mixes: variant settings (besides the defaults) that shared tests and
            benchmarks cover, e.g. ``({"stacking": False},)``.
        early_finish_rules: variant settings under which players can finish
            before the game ends (None if they never do).
        version: the env version in the PettingZoo and Gymnasium names.
        batched: the compiled batched rules (:mod:`card_envs.batched.game`), a class taking the
            reference engine and a batch size, or ``"module:Class"``; None if the game has none.
        recipe: the training recipe measured best for the game (docs/learning.md), in the
            names of ``TrainSettings.from_options`` (``teacher``, ``vectorized``, ``envs``,
            ``ppo``, ``reward_shaping``...), ``timesteps`` one count per scale
            (``{"quick": N, "full": M}``); what ``train.py --game G`` does with no other
            options. Empty: the training layer's general defaults.
        search: the search knobs measured best for the game (docs/search.md), in the names of
            ``SearchSettings`` (``horizon``, ``default``, ``z``...): what a ``search`` spec
            means at this game before its own knobs (``search:sims=25`` in Tock cuts its
            rollouts at the spec's horizon; ``search:horizon=none`` plays them to the end).
            Only knobs that need nothing beyond the base install (no network). Empty: the
            search's general defaults.
        search_by_players: knobs over ``search`` at one table size, where it was measured to
            want others (Tock at 2 players: longer rollouts); see :meth:`search_defaults`.
        strong: the policy spec that ``strong`` means at this game: the strongest player
            measured at at most 50 ms a decision on one core (docs/strong.md); it may use the
            shipped network (``pretrained``, numpy alone). Default: the game's ``search``.
    """

    name: str
    title: str
    engine: str | type[CardGame]
    rule_mixes: tuple[Mapping[str, Any], ...] = ()
    early_finish_rules: Mapping[str, Any] | None = None
    version: int = 0
    batched: str | Callable[..., Any] | None = None
    recipe: Mapping[str, Any] = field(default_factory=dict)
    search: Mapping[str, Any] = field(default_factory=dict)
    search_by_players: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    strong: str = "search"

    @property
    def aec_name(self) -> str:
        """The PettingZoo module name, ``card_envs.<aec_name>``."""
        return f"{self.name}_v{self.version}"

    @property
    def gym_id(self) -> str:
        return f"card_envs/{self.title}-v{self.version}"

    def search_defaults(self, num_players: int) -> dict[str, Any]:
        """What a ``search`` spec means at a table of ``num_players`` before its own knobs."""
        return {**self.search, **self.search_by_players.get(num_players, {})}

    def engine_class(self) -> type[CardGame]:
        cls: type[CardGame] = resolve(self.engine)
        return cls

    def player_counts(self) -> list[int]:
        """The table sizes shared tests cover: the smallest, the default and the largest."""
        cls = self.engine_class()
        return sorted({cls.min_players, cls.default_players, cls.max_players})
