"""Tock: a patience race on centre rows 1..20 with the TOCK! knock (rules: docs/rules/tock.md)."""

from card_envs.core.registry import register
from card_envs.core.spec import GameSpec

SPEC = register(
    GameSpec(
        name="tock",
        title="Tock",
        engine="card_envs.games.tock.engine:TockGame",
        batched="card_envs.games.tock.kernels:TockKernels",
        rule_mixes=({"opponent_choice": "nearest"}, {"allow_violations": False}),
        early_finish_rules={},
    )
)
