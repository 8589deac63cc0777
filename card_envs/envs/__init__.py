"""The generic envs over any engine: one PettingZoo AEC env and one single-agent Gymnasium env."""
