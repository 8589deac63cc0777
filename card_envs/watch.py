"""``python -m card_envs.watch``: see :mod:`card_envs.commands.watch`."""

from card_envs.commands.watch import main

if __name__ == "__main__":
    main()
