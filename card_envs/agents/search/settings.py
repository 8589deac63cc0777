"""What a search player is told: its budget, its tree policy and how it values a leaf.

Parsed from the knobs of a policy spec (``search:sims=400:rollout=rule``) and checked before
any game is played, so a bad knob is refused in one line wherever a spec is accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from card_envs.core.checks import check_float, check_int

#: how a search spends its budget: sequential halving over the root moves in shared worlds
#: (:mod:`.halving`), the same with a network's prior and Gumbel noise choosing and ranking the
#: moves (:mod:`.gumbel`, Danihelka et al. 2022), or a tree: UCB1 over the actions available in
#: each sampled world (Cowling et al. 2012), or PUCT with a prior over the moves (AlphaZero's rule)
ALGORITHMS = ("halving", "gumbel", "uct", "puct")
#: PUCT's priors: the rollout player's own move in the world (mixed with uniform, see
#: :data:`PRIOR_MIX`), a network's move probabilities, or uniform
PRIORS = ("rollout", "net", "uniform")
#: the share of a ``rollout`` prior spread uniformly over the legal moves
PRIOR_MIX = 0.25
#: how a leaf is valued: played out to the end by these players in every seat
ROLLOUTS = ("rule", "heuristic", "random", "net")
#: the searching seat's own player in rollouts and as its default move: the rollout player
#: without human lapses (the rule agent's ``sound_knobs``), the rollout player as it is, or the
#: heuristic player (its compiled twin plays the rollouts, as the rule-based player's does)
OWN_PLAYERS = ("sound", "same", "heuristic")
#: what a rollout cut short by ``horizon`` is worth: the rank rewards of the table's truncation
#: ranks, or the network's value head from each seat's observation (``net`` with a value head)
VALUES = ("ranks", "net")
#: who proposes the default move that ``halving`` keeps unless another beats it: the own player,
#: the heuristic player (a stronger player than the rule-based one in UNO and Chip It), or the
#: network (``net``), each at its most probable move
DEFAULT_MOVES = ("own", "heuristic", "net")


@dataclass(frozen=True)
class SearchSettings:
    """One search player's knobs (the defaults are those of ``search``).

    Args:
        sims: simulations per decision (one sampled world, one path down the tree, one
            rollout); None when the budget is ``ms``.
        ms: milliseconds per decision instead (not reproducible: it depends on the machine).
        c: the exploration constant of the trees (rewards lie in -1..1).
        algo: ``halving`` (the root moves compared in shared sampled worlds, the budget
            spent by sequential halving: :mod:`.halving`), ``gumbel`` (the same, its ``width``
            moves drawn without replacement from the network's policy by Gumbel noise and
            ranked by the noise, the logits and the values found: :mod:`.gumbel`; needs
            ``net``), ``puct`` or ``uct`` (a tree; UCB1 over the available actions, every
            untried action first: thin where a decision has hundreds of moves, as Chip It's
            lead has).
        z: ``halving`` plays another move than its own player's only when it beats that
            move by ``z`` standard errors over the same worlds.
        width: ``halving`` compares at most this many root moves: its own player's and
            others, the network's most probable first with ``prior=net``, else drawn at random.
        prior: PUCT's prior: ``rollout`` (the own player's move in the world, with a
            quarter spread over all moves), ``net`` (needs ``net``) or ``uniform``.
        rollout: the players that finish each leaf's game: ``rule`` (the rule-based agent at
            its default knobs), ``heuristic``, ``random`` or ``net``.
        own: the searching seat's player in rollouts and its default move: ``sound`` (the
            rule-based agent without lapses, for ``rollout=rule``), ``same`` (the rollout
            player as it is) or ``heuristic`` (the heuristic player).
        default: ``halving``'s default move, the one kept unless another beats it: the own
            player's (``own``), the heuristic player's (``heuristic``) or the network's
            (``net``, needs ``net``); the rollouts stay the own and rollout players'.
        horizon: a rollout plays at most this many actions (the move searched counts as
            one), then ranks the table as a truncated game (by what each player holds) or
            asks the network's value (``value=net``); None (``horizon=none``) plays to the
            end. Long games (Tock: about 1,250 actions) search several times faster with it,
            and Tock's search is far stronger with it (its spec's default: docs/search.md).
        value: what a rollout cut short is worth: ``ranks`` (the truncation ranks' rewards)
            or ``net`` (the network's value head, from each seat's observation; needs a
            ``net`` trained with a value head, ``train.py --algo az``).
        mix: ``gumbel`` spreads this share of the network's prior uniformly over the legal
            moves before the search (AlphaZero's root noise, without its randomness): a
            network sure of its move (Tock's shipped agent puts its first move a median 12.5
            logits above its second) is otherwise never overturned by the values found.
        noise: ``gumbel`` draws its moves with Gumbel noise (the algorithm as published, which
            makes its choice a sample); ``noise=false`` ranks them by the logits alone.
        net: a trained run directory or ``.zip`` (no ``:`` in it), or ``pretrained`` (the agent
            shipped for the table), for ``rollout=net`` and ``prior=net``; the network plays
            its most probable move.
        leaves: leaves rolled out together on the compiled batched engine (virtual loss
            keeps the paths of one wave apart).
        perfect: see every hand and the draw pile (an upper bound, not a fair player).
    """

    sims: int | None = 400
    ms: float | None = None
    c: float = 1.0
    algo: str = "halving"
    z: float = 1.5
    width: int = 8
    prior: str = "rollout"
    rollout: str = "rule"
    own: str = "sound"
    default: str = "own"
    horizon: int | None = None
    value: str = "ranks"
    mix: float = 0.0
    noise: bool = True
    net: str | None = None
    leaves: int = 32
    perfect: bool = False

    def __post_init__(self) -> None:
        if (self.sims is None) == (self.ms is None):
            raise ValueError("a search needs one budget: sims=N or ms=T, not both")
        if self.sims is not None:
            check_int("search sims", self.sims, 1, 10**7)
        if self.ms is not None:
            check_float("search ms", self.ms, 0.001, 3.6e6)
        check_float("search c", self.c, 0.0, 100.0)
        check_int("search leaves", self.leaves, 1, 4096)
        check_float("search z", self.z, 0.0, 100.0)
        check_float("search mix", self.mix, 0.0, 1.0)
        if self.horizon is not None:
            check_int("search horizon", self.horizon, 1, 10**7)
        check_int("search width", self.width, 2, 10**4)
        if self.own not in OWN_PLAYERS:
            raise ValueError(f"search own must be one of {list(OWN_PLAYERS)}, got {self.own!r}")
        if self.default not in DEFAULT_MOVES:
            raise ValueError(f"search default must be one of {list(DEFAULT_MOVES)}, got {self.default!r}")
        if self.algo not in ALGORITHMS:
            raise ValueError(f"search algo must be one of {list(ALGORITHMS)}, got {self.algo!r}")
        if self.rollout not in ROLLOUTS:
            raise ValueError(f"search rollout must be one of {list(ROLLOUTS)}, got {self.rollout!r}")
        if self.prior not in PRIORS:
            raise ValueError(f"search prior must be one of {list(PRIORS)}, got {self.prior!r}")
        if self.value not in VALUES:
            raise ValueError(f"search value must be one of {list(VALUES)}, got {self.value!r}")
        needs_net = (
            "net" in (self.rollout, self.default, self.value)
            or self.algo == "gumbel"
            or (self.algo != "uct" and self.prior == "net")
        )
        if needs_net and not self.net:
            raise ValueError(
                "search with algo=gumbel, value=net, rollout=net, prior=net or default=net needs"
                " net=RUN_DIR (a trained model) or net=pretrained"
            )
        if self.net is not None and not isinstance(self.net, str):
            raise ValueError(f"search net must be a path, got {self.net!r}")
        for name in ("perfect", "noise"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"search {name} must be true or false, got {getattr(self, name)!r}")

    @classmethod
    def from_knobs(
        cls, knobs: Mapping[str, Any], defaults: Mapping[str, Any] | None = None
    ) -> SearchSettings:
        """Settings from a spec's knobs over ``defaults`` (a game's ``GameSpec.search``), with one
        clear error for an unknown one."""
        knobs = {**(defaults or {}), **knobs}
        known = list(cls.__dataclass_fields__)
        unknown = sorted(set(knobs) - set(known))
        if unknown:
            raise ValueError(f"unknown search knob(s) {unknown}; known: {known}")
        if "ms" in knobs and "sims" not in knobs:
            knobs = {**knobs, "sims": None}
        if knobs.get("horizon") == "none":
            knobs = {**knobs, "horizon": None}
        if knobs.get("net") is not None:
            knobs = {**knobs, "net": str(knobs["net"])}
        return cls(**knobs)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
