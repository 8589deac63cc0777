"""What a search-in-the-loop run is told: one dataclass whose fields are ``train.py --algo az``'s
options (names, defaults and help are read from here: :mod:`card_envs.cli.dataclass_options`).

Checked as a whole before the run directory is touched, without building a network.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from card_envs.agents.pretrained import PRETRAINED
from card_envs.agents.search.settings import SearchSettings
from card_envs.agents.specs import check_spec
from card_envs.core.checks import check_float, check_int
from card_envs.core.fields import option
from card_envs.core.table import Table

#: ``opponents`` that means every seat is the searching network (self-play)
SELF = "self"


@dataclass(frozen=True)
class AZSettings:
    """A run of :func:`card_envs.training.az.run.train_az` (the table is given beside it).

    Each iteration plays ``games`` games in which the searching seats choose every move with a
    choice by Gumbel search (``search:algo=gumbel``) with the current network as prior and its
    value head at the leaves, then fits the network to the search's improved policies and the
    games' results.
    """

    iterations: int = option(20, "iterations of self-play and fitting")
    games: int = option(16, "games per iteration (spread over --workers)")
    sims: int = option(16, "simulations per searched decision (sampled worlds x moves)")
    width: int = option(4, "moves the Gumbel search considers at the root")
    horizon: int = option(
        1,
        "actions a leaf is played on before the value head judges it (1: right after the move;"
        " more: played on by --rollout players, compiled)",
    )
    rollout: str = option(
        "rule", "who plays a leaf on for --horizon > 1", choices=("rule", "heuristic", "random")
    )
    value: str = option(
        "net",
        "what a leaf is worth: net (the value head, from each seat's observation) or ranks (the"
        " rank rewards of the truncation ranks at --horizon: the rollout search's valuation)",
        choices=("net", "ranks"),
    )
    mix: float = option(
        0.25,
        "share of the network's prior the search spreads uniformly over the legal moves (a sure"
        " network's move is otherwise never overturned)",
    )
    opponents: str = option(
        SELF,
        "self (every seat searches and is learned from) or one policy spec per other seat,"
        " comma-separated (one searching seat, rotated by game)",
    )
    init_from: str = option(
        PRETRAINED,
        "the policy's first weights: the shipped agent's or new ones",
        choices=(PRETRAINED, "none"),
    )
    hidden: list[int] = field(
        default_factory=lambda: [256, 256],
        metadata={"help": "hidden layer widths of the value head (and the policy's with --init-from none)"},
    )
    value_warmup: int = option(
        0,
        "games of the starting network alone (greedy, every seat) whose positions, seen from"
        " every seat, fit the value head only, before the first search (0: none; a new value head"
        " otherwise values the first searches' leaves at random)",
    )
    warmup_epochs: int = option(10, "passes over the warm-up's positions")
    value_views: str = option(
        "decider",
        "whose views train the value head in the loop: decider (the searched seat's, at its"
        " decisions) or every (every seat's at every decision: also the views a leaf is valued"
        " from, a seat's own after its move)",
        choices=("decider", "every"),
    )
    learning_rate: float = option(3e-4, "Adam's step size")
    epochs: int = option(2, "passes over the window of samples per iteration")
    batch_size: int = option(256, "samples per gradient step")
    value_weight: float = option(1.0, "weight of the value loss beside the policy's cross-entropy")
    window: int = option(4, "iterations whose samples the fit uses (the newest)")
    eval_games: int = option(
        100, "games of the network alone against each line-up after every iteration (0: none)"
    )
    workers: int = option(2, "processes that play the games")
    seed: int = option(0, "the run's seed: games, noise, fits")
    max_minutes: float | None = field(
        default=None, metadata={"help": "stop after the iteration that passes this wall time"}
    )

    def search_knobs(self) -> dict[str, Any]:
        """The knobs of the searching seats' ``search`` spec, the network's run added by the trainer."""
        return {
            "algo": "gumbel",
            "sims": self.sims,
            "width": self.width,
            "horizon": self.horizon,
            "rollout": self.rollout,
            "value": self.value,
            "mix": self.mix,
        }

    def lineup(self, num_players: int) -> list[str] | None:
        """The other seats' specs, or None in self-play."""
        if self.opponents == SELF:
            return None
        specs = self.opponents.split(",")
        return specs * (num_players - 1) if len(specs) == 1 else specs

    def check(self, table: Table) -> None:
        """Every field, against the table, before any work."""
        for name in ("iterations", "games", "epochs", "batch_size", "window", "workers", "warmup_epochs"):
            check_int(name, getattr(self, name), 1, 10**9)
        check_int("eval_games", self.eval_games, 0, 10**9)
        check_int("value_warmup", self.value_warmup, 0, 10**9)
        check_int("seed", self.seed, 0, 2**63 - 1)
        check_float("learning_rate", self.learning_rate, 1e-9, 1.0)
        check_float("value_weight", self.value_weight, 0.0, 1000.0)
        if self.max_minutes is not None:
            check_float("max_minutes", self.max_minutes, 1e-3, 1e7)
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"hidden must be widths >= 1, got {self.hidden}")
        if self.init_from not in (PRETRAINED, "none"):
            raise ValueError(f"init_from must be pretrained or none, got {self.init_from!r}")
        if self.init_from == PRETRAINED:
            check_spec(PRETRAINED, table, what="init_from")
        if self.value_views not in ("decider", "every"):
            raise ValueError(f"value_views must be decider or every, got {self.value_views!r}")
        if self.rollout not in ("rule", "heuristic", "random"):
            raise ValueError(f"rollout must be rule, heuristic or random, got {self.rollout!r}")
        SearchSettings.from_knobs({**self.search_knobs(), "net": "checked"})  # sims, width, horizon, value
        lineup = self.lineup(table.num_players)
        if lineup is not None:
            if len(lineup) != table.num_players - 1:
                raise ValueError(
                    f"opponents needs 1 or {table.num_players - 1} specs (one per other seat),"
                    f" got {len(lineup)}"
                )
            for spec in lineup:
                check_spec(spec, table, what="opponent")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AZSettings:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
