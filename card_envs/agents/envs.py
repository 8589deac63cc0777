"""The single-agent env with its opponents named by spec (the Gymnasium ids' entry point)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from card_envs.agents.specs import PolicyLike, make_policies
from card_envs.core.registry import GameRef, game_spec
from card_envs.core.table import Table
from card_envs.envs.single import CardGameEnv
from card_envs.envs.vector import BatchedCardGameEnv


def table_and_env_keywords(
    game: Table | GameRef, num_players: int | None, keywords: dict[str, Any]
) -> tuple[Table, dict[str, Any]]:
    """The table (the one look-up and check) with the game's rule keywords taken from an env's
    keywords, and the env's other keywords."""
    spec = game.spec if isinstance(game, Table) else game_spec(game)
    names = spec.engine_class().rule_names()
    rules = {k: v for k, v in keywords.items() if k in names}
    return Table.of(game, num_players, **rules), {k: v for k, v in keywords.items() if k not in names}


def make_env(
    game: Table | GameRef = "uno",
    num_players: int | None = None,
    opponents: PolicyLike | Sequence[PolicyLike] = "rule",
    opponent_knobs: dict[str, Any] | None = None,
    **kwargs: Any,
) -> CardGameEnv:
    """:class:`CardGameEnv` with opponents given as specs (``"rule"``, ``"random"``, ``"model:PATH"``).

    ``opponents`` is one spec for every other seat or a sequence with one per
    other seat (specs and Policy objects mixed); ``opponent_knobs`` go to the
    rule-based ones. Other keywords are those of :class:`CardGameEnv`.
    """
    table, kwargs = table_and_env_keywords(game, num_players, kwargs)
    policies = make_policies(opponents, table, **(opponent_knobs or {}))
    return CardGameEnv(table, opponents=policies, **kwargs)


def make_batched_env(
    game: Table | GameRef = "uno",
    num_envs: int = 64,
    num_players: int | None = None,
    opponents: PolicyLike | Sequence[PolicyLike] = "rule",
    opponent_knobs: dict[str, Any] | None = None,
    **kwargs: Any,
) -> BatchedCardGameEnv:
    """:class:`BatchedCardGameEnv` (``num_envs`` games on the batched engine) with opponents
    given as specs, as :func:`make_env` takes them."""
    table, kwargs = table_and_env_keywords(game, num_players, kwargs)
    policies = make_policies(opponents, table, **(opponent_knobs or {}))
    return BatchedCardGameEnv(table, num_envs, opponents=policies, **kwargs)
