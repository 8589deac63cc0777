"""League training (``--opponents league``): each game's opponents drawn from a pool, the
ones the learner does worst against most often (prioritized fictitious self-play).

The pool (:func:`league_pool`) holds

* the rule-based player at its default knobs, and ``rule_players`` more with knobs drawn
  once, with the run's seed, from the rule agent's ``knob_ranges``
  (:class:`card_envs.agents.registry.RuleAgentSpec`; training opponents only: every
  evaluation seats rule-based players at their default knobs);
* the learner's ``snapshots`` most recent snapshots (``self@STEPS``), added as it trains;
* any ``others``: further specs, e.g. ``random``, ``model:PATH`` (an earlier trained agent)
  or a search player's spec once there is one. The heuristic player is left out by default:
  it is the gauntlet's player that no agent trained against.

At each deal of a batch row, every opponent seat draws its entry from that row's own
generator with probability proportional to ``f(p) = (1 - p)^exponent + floor``, ``p`` the
learner's score against the entry (its rank reward mapped from -1..1 onto 0..1: 1 when it
always won, 0.5 level; a mean over the entry's first ``window`` games, then an exponential
average over about that many), ``floor`` keeping every entry in play. A new entry starts at
``p = 0.5``. Each finished game's score goes to every entry at its table
(:class:`card_envs.training.league_play.LeagueVecEnv`). The pool, the weights and each
entry's games, wins and mean score are written to the run's ``settings.json``
(``league``) at its end.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from card_envs.agents.policy_spec import rule_spec, spec_kind
from card_envs.agents.registry import rule_agent_spec
from card_envs.agents.specs import check_spec
from card_envs.core.checks import check_float, check_int
from card_envs.core.fields import option
from card_envs.core.table import Table

#: the opponents spec that trains against a league
LEAGUE = "league"


@dataclass(frozen=True)
class LeagueSettings:
    """The pool of ``--opponents league`` and how it is sampled (module docstring)."""

    rule_players: int = option(6, "rule-based players with knobs drawn from their documented ranges")
    snapshots: int = option(4, "the agent's recent snapshots kept")
    others: tuple[str, ...] = option(
        (), "more opponents for the pool, comma-separated specs, e.g. random,model:runs/x", shown="none"
    )
    exponent: float = option(
        2.0,
        "how much the opponents the agent does worst against are preferred: each is drawn in"
        " proportion to (1 - score)^EXPONENT + FLOOR, its score 0..1 (at most 10)",
    )
    floor: float = option(0.05, "the FLOOR above, which keeps every opponent in play (above 0)")
    window: int = option(200, "games a score averages over", low=1)

    def check(self, table: Table) -> None:
        check_int("league_rule_players", self.rule_players, 0, 1000)
        check_int("league_snapshots", self.snapshots, 0, 1000)
        check_int("league_window", self.window, 1, 10**9)
        check_float("league_exponent", self.exponent, 0.0, 10.0)
        check_float("league_floor", self.floor, 1e-6, 1.0)  # above 0: every entry stays in play
        for spec in self.others:
            if spec in ("self", LEAGUE):
                raise ValueError(
                    f"league_others takes policy specs, not {spec!r} (snapshots: league_snapshots)"
                )
            check_spec(spec, table, what="league opponent")
            if spec_kind(spec) == "search":
                raise ValueError(
                    f"league opponent {spec!r}: a search player decides from the engine, which the"
                    " league's batched engine keeps none of; train against it without --vectorized"
                )


def league_pool(game: str, settings: LeagueSettings, seed: int) -> list[str]:
    """The pool's specs at the start of a run (snapshots join later): the default rule-based
    player, ``rule_players`` with knobs drawn from its ``knob_ranges`` with ``seed``, then
    ``others``. A game whose rule agent gives no ranges has the default player only."""
    rng = np.random.default_rng([seed, 25])
    ranges = rule_agent_spec(game).knob_ranges
    drawn = [rule_spec({k: r.draw(rng) for k, r in ranges.items()}) for _ in range(settings.rule_players)]
    if not ranges:
        drawn = []
    return ["rule", *drawn, *settings.others]
