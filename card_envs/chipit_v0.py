"""Chip It: a climbing game where chips raise card values: the PettingZoo AEC env.

| fact | value |
|---|---|
| import | `from card_envs import chipit_v0`; `chipit_v0.env(num_players=4, render_mode="ansi")` |
| Gymnasium id (single agent) | `card_envs/ChipIt-v0` |
| agents | `player_0` .. `player_(N-1)`, N = 2-6 (default 4; 2 is our variant) |
| actions | `Discrete(279)`: a play is built over several decisions (value, then cards one at a time, then chips), or pass |
| observation | `{"observation": Box(float32, (D,)), "action_mask": Box(int8, (279,))}`, D = 430 + 35 per player beyond 2 (500 at 4 players, 570 at 6) |
| rewards | rank reward at the end, `1 - 2(r-1)/(N-1)` for rank r of N (ties share); 0 before |
| rules keywords | play_to_end |
| render modes | `ansi`, `human`, `rgb_array` |

Observation and action tables, phases and the state format: docs/chipit.md; the rules: docs/rules/chipit.md.

Version history:

* v0: first release: multi-card plays built over several decisions in one action space, the partial play in the observation.
"""

from card_envs.envs.aec import aec_constructors
from card_envs.games.chipit import SPEC

env, raw_env = aec_constructors(SPEC)

__all__ = ["env", "raw_env"]
