"""UNO-style shedding game with stacking and the LETZTE call: the PettingZoo AEC env.

| fact | value |
|---|---|
| import | `from card_envs import uno_v0`; `uno_v0.env(num_players=4, render_mode="ansi")` |
| Gymnasium id (single agent) | `card_envs/Uno-v0` |
| agents | `player_0` .. `player_(N-1)`, N = 2-10 (default 4) |
| actions | `Discrete(117)`: play each card (with or without the LETZTE call), draw, keep or play a drawn card, name a colour, challenge or accept a Wild Draw Four, catch a missed call or pass |
| observation | `{"observation": Box(float32, (D,)), "action_mask": Box(int8, (117,))}`, D = 242 + 5 per player beyond 2 (252 at 4 players, 282 at 10) |
| rewards | rank reward at the end, `1 - 2(r-1)/(N-1)` for rank r of N (ties share); 0 before |
| rules keywords | draw_four, voluntary_draw, stacking, two_player_reverse_skips, missed_call_penalty |
| render modes | `ansi`, `human`, `rgb_array` |

Observation and action tables, phases and the state format: docs/uno.md; the rules: docs/rules/uno.md.

Version history:

* v0: first release: stacking of Draw Twos and Wild Draw Fours, the LETZTE call and its catch window, the Draw Four challenge; `pending_kind` one-hot fixed before release.
"""

from card_envs.envs.aec import aec_constructors
from card_envs.games.uno import SPEC

env, raw_env = aec_constructors(SPEC)

__all__ = ["env", "raw_env"]
