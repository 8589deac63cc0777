"""Entry point kept at the repository root: ``python evaluate.py --help`` (installed: ``card-envs-evaluate``).

The command lives in :mod:`card_envs.cli.evaluate`.
"""

from card_envs.cli.evaluate import main

if __name__ == "__main__":
    main()
