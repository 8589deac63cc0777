"""Gymnasium ids of the registered games (called when gymnasium is imported, and on register).

In the agents layer: an id's entry point builds the opponents it is given by spec
(``opponents="rule"``) before the env.
"""

from __future__ import annotations

import gymnasium

from card_envs.core.registry import game_specs
from card_envs.core.spec import GameSpec

#: resolves opponent specs ("rule", "model:PATH", ...) and builds the env
SINGLE_AGENT_ENTRY_POINT = "card_envs.agents.envs:make_env"


def register_gym_id(spec: GameSpec) -> None:
    if spec.gym_id not in gymnasium.registry:
        gymnasium.register(spec.gym_id, entry_point=SINGLE_AGENT_ENTRY_POINT, kwargs={"game": spec.name})


def register_gym_ids(*_: object) -> None:
    for spec in game_specs().values():
        register_gym_id(spec)
