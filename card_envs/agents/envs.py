"""The single-agent env with its opponents named by spec (the Gymnasium ids' entry point)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from card_envs.agents.specs import PolicyLike, make_policies
from card_envs.core.registry import GameRef, game_spec
from card_envs.envs.single import CardGameEnv
from card_envs.envs.vector import BatchedCardGameEnv


def make_env(
    game: GameRef = "uno",
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
    spec = game_spec(game)  # the one look-up: the spec goes down
    table = spec.engine_class()(num_players)  # checks the player count first
    policies = make_policies(opponents, spec, table.num_players, **(opponent_knobs or {}))
    return CardGameEnv(spec, num_players, opponents=policies, **kwargs)


def make_batched_env(
    game: GameRef = "uno",
    num_envs: int = 64,
    num_players: int | None = None,
    opponents: PolicyLike | Sequence[PolicyLike] = "rule",
    opponent_knobs: dict[str, Any] | None = None,
    **kwargs: Any,
) -> BatchedCardGameEnv:
    """:class:`BatchedCardGameEnv` (``num_envs`` games on the batched engine) with opponents
    given as specs, as :func:`make_env` takes them."""
    spec = game_spec(game)
    table = spec.engine_class()(num_players)
    policies = make_policies(opponents, spec, table.num_players, **(opponent_knobs or {}))
    return BatchedCardGameEnv(spec, num_envs, num_players, opponents=policies, **kwargs)
