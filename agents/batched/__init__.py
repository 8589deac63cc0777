"""The rule-based agents compiled for batched games (:mod:`card_envs.batched`), one module per game.

Each takes the same knobs as its reference agent and, from the same observation, mask
and generator state, plays the same action (``tests/test_batched_agents.py``).
"""
