"""Training: MaskablePPO runs (settings, run directories), their callbacks, imitation of a teacher.

:func:`card_envs.training.run.train` is what ``train.py`` calls.
"""

from card_envs.core.extras import require

require("train", "card_envs.training")
