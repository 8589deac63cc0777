"""Glue for other RL libraries, one module each, each importing its library only when used.

Install the extra of a library (``pip install -e ".[torchrl]"``) before importing its module.
"""
