"""UNO-style shedding game with stacking and the LETZTE call (rules: docs/rules/uno.md)."""

from card_envs.core.registry import register
from card_envs.core.spec import GameSpec

SPEC = register(
    GameSpec(
        name="uno",
        title="Uno",
        engine="card_envs.games.uno.engine:UnoGame",
        batched="card_envs.games.uno.kernels:UnoKernels",
        # imitation of a lapse-free rule-based player, then PPO on the batched engine: +0.024
        # (-0.009..+0.056) in the benchmark, level with the rule-based players (docs/learning.md)
        recipe={
            "teacher": "rule:forget_call=0.0:catch_rate=1.0",
            "vectorized": True,
            "envs": 32,
            "ppo": {"n_steps": 256, "batch_size": 1024},
            "timesteps": {"quick": 100_000, "full": 1_500_000},
        },
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
