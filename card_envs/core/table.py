"""Table: a game as it is played, its spec, the players at it and its variant rules.

An entry point (a user's call, a command line) makes one with :meth:`Table.of`, which looks the
game's name up and checks the player count and the rule keywords once; the layers below take
the table and read ``table.spec``, ``table.num_players`` and ``table.rules`` from it, instead of
taking a game, a player count and rules apart and checking them again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from card_envs.core.registry import GameRef, game_spec
from card_envs.core.spec import GameSpec

if TYPE_CHECKING:
    from card_envs.core.game import CardGame


@dataclass(frozen=True)
class Table:
    """A game's spec, the number of players at the table and the variant rules in play
    (only the keywords given: the game's defaults fill the rest). Make one with :meth:`of`."""

    spec: GameSpec
    num_players: int
    rules: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", dict(self.rules))  # its own copy (a plain dict pickles)

    def __hash__(self) -> int:
        return hash((self.spec.name, self.num_players, tuple(sorted(self.rules.items()))))

    @classmethod
    def of(
        cls, game: Table | GameRef | type[CardGame], num_players: int | None = None, **rules: Any
    ) -> Table:
        """The table of a game (its name or spec: the one look-up; or an engine class with no
        spec, which gets one of its own), ``num_players`` (None: the game's default) and its
        rule keywords, checked now (ValueError naming what is wrong). A table is returned as it
        is; a player count or rules given beside it must agree."""
        if isinstance(game, Table):
            if num_players not in (None, game.num_players):
                raise ValueError(f"a {game.num_players}-player {game.name} table, not {num_players}")
            if rules and rules != dict(game.rules):
                raise ValueError(f"the {game.name} table's rules are {dict(game.rules)}, not {rules}")
            return game
        spec = GameSpec(game.name, game.name, game) if isinstance(game, type) else game_spec(game)
        engine = spec.engine_class().from_rules(num_players, **rules)  # the checks
        return cls(spec, engine.num_players, rules)

    @property
    def name(self) -> str:
        """The game's name, ``"uno"``."""
        return self.spec.name

    def engine(self) -> CardGame:
        """A new engine of this table."""
        return self.spec.engine_class().from_rules(self.num_players, **self.rules)

    def __repr__(self) -> str:
        rules = "".join(f", {k}={v!r}" for k, v in self.rules.items())
        return f"Table({self.name!r}, {self.num_players}{rules})"
