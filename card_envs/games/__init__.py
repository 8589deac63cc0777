"""The built-in games, one subpackage each; each subpackage registers its GameSpec.

See :mod:`card_envs.core.registry` and docs/architecture.md ("How to add a game").
"""
