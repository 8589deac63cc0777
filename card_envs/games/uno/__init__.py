"""UNO-style shedding game with stacking and the LETZTE call (rules: docs/rules/uno.md)."""

from card_envs.core.registry import register
from card_envs.core.spec import GameSpec

SPEC = register(
    GameSpec(
        name="uno",
        title="Uno",
        engine="card_envs.games.uno.engine:UnoGame",
        batched="card_envs.games.uno.kernels:UnoKernels",
        rule_mixes=(
            {
                "draw_four": "official",
                "voluntary_draw": False,
                "stacking": False,
                "two_player_reverse_skips": False,
                "missed_call_penalty": 2,
            },
        ),
    )
)
