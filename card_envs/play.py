"""``python -m card_envs.play``: see :mod:`card_envs.commands.play`."""

from card_envs.commands.play import main

if __name__ == "__main__":
    main()
