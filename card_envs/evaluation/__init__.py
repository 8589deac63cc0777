"""Evaluation: tournaments with rotated seats, their statistics, reports, and soak runs.

:func:`card_envs.evaluation.tournament.tournament` is what ``evaluate.py`` calls;
:func:`card_envs.evaluation.against.evaluate` plays one policy against opponents.
"""

from card_envs.core.extras import require

require("eval", "card_envs.evaluation")
