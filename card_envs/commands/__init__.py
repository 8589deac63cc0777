"""The command-line tools (thin shells over card_envs.training and card_envs.evaluation)."""
