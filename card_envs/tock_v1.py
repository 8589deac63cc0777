"""Tock: a patience race on centre rows 1..20 with the TOCK! knock: the PettingZoo AEC env.

| fact | value |
|---|---|
| import | `from card_envs import tock_v1`; `tock_v1.env(num_players=4, render_mode="ansi")` |
| Gymnasium id (single agent) | `card_envs/Tock-v1` |
| agents | `player_0` .. `player_(N-1)`, N = 2-6 (default 4) |
| actions | `Discrete(10)`: place the turned-up card on a centre row, an opponent's pile or one's own pile, turn up a card, knock or pass in a knock window |
| observation | `{"observation": Box(float32, (D,)), "action_mask": Box(int8, (10,))}`, D = 243 at every table size |
| rewards | rank reward at the end, `1 - 2(r-1)/(N-1)` for rank r of N (ties share); 0 before |
| rules keywords | opponent_choice, allow_violations |
| render modes | `ansi`, `human`, `rgb_array` |

Observation and action tables, phases and the state format: docs/tock.md; the rules: docs/rules/tock.md.

Version history:

* v1: the observation adds what the table shows beyond the pile tops (D = 243, was 78): the
  card under each pile's top, each pile's bottom card (what a knock takes), each stack's top
  card, the copies of each card in each pile and in the supply. The first 78 entries are v0's.
  Agents trained on v0 are refused (their input size no longer matches).
* v0: first release: rule breaks as legal, masked-in moves, punished by the knock window.
"""

from card_envs.envs.aec import aec_constructors
from card_envs.games.tock import SPEC

env, raw_env = aec_constructors(SPEC)

__all__ = ["env", "raw_env"]
