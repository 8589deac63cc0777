"""UNO-style shedding game with stacking and the LETZTE call (rules: docs/rules/uno.md)."""

from card_envs.core.registry import register
from card_envs.core.spec import GameSpec

SPEC = register(
    GameSpec(
        name="uno",
        title="Uno",
        engine="card_envs.games.uno.engine:UnoGame",
        batched="card_envs.games.uno.kernels:UnoKernels",
        # imitation of the heuristic player (+0.068 against three rule-based players over 2,000
        # games), then PPO on the batched engine: +0.062 (+0.048..+0.076) over 6,000 games after
        # the quick recipe's 5 minutes, where the agent that imitated the lapse-free rule-based
        # player (full recipe, 13.5 minutes) gets +0.016 on the same deals (docs/learning.md)
        recipe={
            "teacher": "heuristic",
            "imitation_steps": 100_000,
            "imitation_epochs": 10,
            "vectorized": True,
            "envs": 32,
            "ppo": {"n_steps": 256, "batch_size": 1024},
            "timesteps": {"quick": 100_000, "full": 1_500_000},
        },
        # the heuristic player's move unless another beats it by 3 standard errors in the same
        # sampled worlds: +0.085 against three rule-based players where the rule-based player's
        # defaults scored about 0, and z=1.5 changed the heuristic's moves for worse (search.md)
        search={"default": "heuristic", "z": 3.0},
        # the shipped agent alone (under 1 ms a decision): UNO's search adds nothing measurable
        # to a good move (bench/strong.py, docs/strong.md)
        strong="pretrained",
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
