"""Chip It: a climbing game where chips raise card values (rules: docs/rules/chipit.md)."""

from card_envs.core.registry import register
from card_envs.core.spec import GameSpec

SPEC = register(
    GameSpec(
        name="chipit",
        title="ChipIt",
        engine="card_envs.games.chipit.engine:ChipItGame",
        batched="card_envs.games.chipit.kernels:ChipItKernels",
        # imitation of the heuristic player (+0.28 against three rule-based players), then PPO on
        # the batched engine: ahead of the rule-based players after the imitation alone (3.8 min
        # beside another run, docs/time-to-win.md), +0.313 after 20 min; imitating the
        # rule-based player took 10.5 min to get ahead, and gave +0.255 after 25 (learning.md)
        recipe={
            "teacher": "heuristic",
            "imitation_steps": 100_000,
            "imitation_epochs": 10,
            "reward_shaping": 1.0,
            "vectorized": True,
            "envs": 32,
            "ppo": {"n_steps": 256, "batch_size": 1024},
            "timesteps": {"quick": 300_000, "full": 3_000_000},
        },
        # 100 simulations keeping the shipped agent's move unless another beats it by 3 standard
        # errors, the agent choosing the moves compared: about 40 ms a decision on one core
        # (bench/strong.py, docs/strong.md)
        strong="search:sims=100:prior=net:net=pretrained:default=net:z=3",
        rule_mixes=({"play_to_end": True},),
        early_finish_rules={"play_to_end": True},
    )
)
