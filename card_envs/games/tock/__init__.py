"""Tock: a patience race on centre rows 1..20 with the TOCK! knock (rules: docs/rules/tock.md)."""

from card_envs.core.registry import register
from card_envs.core.spec import GameSpec

SPEC = register(
    GameSpec(
        name="tock",
        title="Tock",
        engine="card_envs.games.tock.engine:TockGame",
        batched="card_envs.games.tock.kernels:TockKernels",
        version=1,  # v1: the observation shows the piles' contents (card_envs/tock_v1.py)
        # PPO from random play on the batched engine: +0.384 after 1M + 1M steps (the
        # benchmark); +0.283 after 350k steps in 109 s (docs/learning.md)
        recipe={
            "teacher": "",
            "reward_shaping": 1.0,
            "vectorized": True,
            "envs": 32,
            "ppo": {"n_steps": 256, "batch_size": 1024, "learning_rate": 3e-4},
            "timesteps": {"quick": 350_000, "full": 2_000_000},
        },
        # rollouts cut at 200 actions and ranked by the cards held: against three lapse-free
        # rule-based players at 10 simulations +0.506, where 100 gave +0.379, 400 +0.421 and
        # played to the end +0.087 (600 games each, `bench/search.py --part horizon`, search.md)
        search={"horizon": 200},
        # at 2 players longer: 400 +0.985, 200 +0.920, 800 +0.970 (400 games each, the same
        # bench with --players 2); at 6 players 200 stays best (+0.168; 100 +0.136, 300 +0.139),
        # at 3 and 5 level with 300 (+0.750 and +0.772; +0.299 and +0.305)
        search_by_players={2: {"horizon": 400}},
        # 40 simulations: about 24 ms a decision on one core, where the default 400 take about
        # 220 and 100 scored as 25 did (bench/strong.py, docs/strong.md)
        strong="search:sims=40",
        rule_mixes=({"opponent_choice": "nearest"}, {"allow_violations": False}),
        early_finish_rules={},
    )
)
