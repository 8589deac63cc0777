"""Entry point kept at the repository root: ``python train.py --help`` (installed: ``card-envs-train``).

The command lives in :mod:`card_envs.cli.train`.
"""

from card_envs.cli.train import main

if __name__ == "__main__":
    main()
