"""The learner's seat, written once for every env that seats a learner among policies.

The single-agent env (:mod:`card_envs.envs.single`), the env over a batch
(:mod:`card_envs.envs.vector`) and the RLlib env (:mod:`card_envs.integrations.rllib`)
all seat one learner and let policies play the other seats. What they share is here:

* the learner's seat: a fixed seat or ``"random"``, drawn from the env's generator at
  each deal (:meth:`Seating.draw`: one ``integers(num_players)`` draw, or none for a
  fixed seat, so seeded episodes stay the same);
* which policy plays each other seat: opponent ``k`` sits ``k + 1`` seats after the
  learner (:func:`opponent_index`, :func:`opponent_seat`; ints or arrays of seats);
* the redeal rule: a deal in which the learner never decides is dealt again, at most
  :data:`MAX_REDEALS` times (:func:`redeal`);
* the shaping potential: the learner's progress minus the mean of the others'
  (:func:`progress_lead`, for one game or a batch), whose change after each learner step
  is the shaped reward (:func:`shaping_reward`; the potential is 0 at the end);
* who plays each seat, for game records (:meth:`Seating.names`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

from card_envs.core.policy import Policy, RandomAgent

#: a deal in which the learner never gets to decide is dealt again, at most this often
MAX_REDEALS = 100

#: the learner seat spec that draws the seat at each deal
RANDOM_SEAT = "random"

P = TypeVar("P")


def check_learner_seat(learner_seat: object, num_players: int) -> int | str:
    """``"random"`` or a seat ``0..num_players-1`` (an int), else ValueError naming both."""
    if isinstance(learner_seat, str) and learner_seat == RANDOM_SEAT:
        return RANDOM_SEAT
    if (
        isinstance(learner_seat, bool)
        or not isinstance(learner_seat, (int, np.integer))
        or not 0 <= learner_seat < num_players
    ):
        raise ValueError(
            f"learner_seat must be {RANDOM_SEAT!r} or a seat 0..{num_players - 1}, got {learner_seat!r}"
        )
    return int(learner_seat)


def one_per_other_seat(opponents: Any, num_players: int, kinds: tuple[type, ...] = (Policy,)) -> list[Any]:
    """The opponents as one entry per other seat, in seat order after the learner: a sequence
    with one per other seat, or one policy (None: a uniformly random player) for all of them.
    Each entry must be one of ``kinds``."""
    n_other = num_players - 1
    if opponents is None:
        opponents = RandomAgent()
    policies = list(opponents) if isinstance(opponents, (list, tuple)) else [opponents] * n_other
    if len(policies) != n_other:
        raise ValueError(f"opponents needs {n_other} entries (one per other seat), got {len(policies)}")
    for policy in policies:
        if not isinstance(policy, kinds):
            raise ValueError(
                f"an opponent must be a Policy, got {policy!r}; name opponents by spec"
                " ('rule', 'random', 'model:PATH') through gymnasium.make or agents.make_env"
            )
    return policies


def opponent_index(seat: Any, learner: Any, num_players: int) -> Any:
    """Which opponent plays ``seat`` when the learner sits at ``learner``: 0 for the seat
    after the learner, and so on round the table (ints, or arrays of seats elementwise)."""
    return (seat - learner - 1) % num_players


def opponent_seat(index: Any, learner: Any, num_players: int) -> Any:
    """The seat of opponent ``index`` (the inverse of :func:`opponent_index`)."""
    return (learner + 1 + index) % num_players


def progress_lead(progress: Sequence[Any], learner: Any) -> Any:
    """The shaping potential: the learner's progress minus the mean of the others'.

    ``progress[seat]`` is each seat's progress (:meth:`CardGame.progress`): a float, or an
    array over a batch's games with ``learner`` an array of their learner seats. The others
    are summed in seat order, so a game gives the same float as a plain Python sum, alone or
    in a batch. Summed over every choice of learner the leads are zero: the shaping is zero-sum.
    """
    mine: Any = 0.0
    others: Any = 0.0
    for seat, value in enumerate(progress):  # times 0 or 1 leaves each sum exact
        mine = mine + value * (learner == seat)
        others = others + value * (learner != seat)
    return mine - others / (len(progress) - 1)


def shaping_reward(weight: float, discount: float, potential: Any, next_potential: Any) -> Any:
    """The dense reward of one learner step, ``weight * (discount * next_potential - potential)``,
    where the potential is the lead (:func:`progress_lead`), and 0 once the game has ended.

    With the potential back at 0 at the end, the shaping of a game sums (discounted with
    ``discount``, the learner's own discount factor) to ``-weight`` times the lead right after
    the deal, which no choice of the learner changes: it moves credit to the moves that earn
    it but adds nothing to what a game is worth, so the learner still maximizes its rank
    reward (Ng, Harada & Russell 1999). Without the end's term it would also pay the lead left
    at the end: in Tock, where the last player holds tens of cards, a hundred times the rank
    reward. Floats, or arrays over a batch's games.
    """
    return weight * (discount * next_potential - potential)


def redeal(deal: Callable[[], bool], failure: str = "the learner got no decision") -> None:
    """Call ``deal()`` (a new deal, played up to the learner's first decision; True when the
    learner got one) until it returns True, at most :data:`MAX_REDEALS` times, else
    RuntimeError."""
    for _ in range(MAX_REDEALS):
        if deal():
            return
    raise RuntimeError(f"{failure} in {MAX_REDEALS} deals")


@dataclass(frozen=True)
class Seating(Generic[P]):
    """One learner seat spec and the policies of the other seats.

    ``opponents[k]`` plays the seat ``k + 1`` after the learner's. ``P`` is the policies'
    type: :class:`~card_envs.core.policy.Policy` for one game at a time, a batched policy
    for the env over a batch.
    """

    num_players: int
    learner_seat: int | str
    opponents: list[P]

    @classmethod
    def build(
        cls,
        num_players: int,
        learner_seat: object = RANDOM_SEAT,
        opponents: Any = None,
        kinds: tuple[type, ...] = (Policy,),
    ) -> Seating[Any]:
        """Check the learner seat and the opponents (:func:`one_per_other_seat`)."""
        seat = check_learner_seat(learner_seat, num_players)
        return cls(num_players, seat, one_per_other_seat(opponents, num_players, kinds))

    def draw(self, rng: np.random.Generator) -> int:
        """The learner's seat for a new deal: the fixed seat, or one drawn from ``rng``."""
        if self.learner_seat == RANDOM_SEAT:
            return int(rng.integers(self.num_players))
        return int(self.learner_seat)

    def opponent_index(self, seat: Any, learner: Any) -> Any:
        """:func:`opponent_index` at this table."""
        return opponent_index(seat, learner, self.num_players)

    def policy_at(self, seat: int, learner: int) -> P:
        """The policy that plays ``seat`` (not the learner's)."""
        return self.opponents[self.opponent_index(seat, learner)]

    def seats(self, learner: int) -> dict[int, P]:
        """Each other seat and its policy, opponent 0 first."""
        return {
            int(opponent_seat(k, learner, self.num_players)): policy
            for k, policy in enumerate(self.opponents)
        }

    def names(self, learner: int, learner_name: str = "learner") -> list[str]:
        """Who plays each seat, for game records: ``learner_name`` and the opponents' reprs."""
        return [
            learner_name if seat == learner else repr(self.policy_at(seat, learner))
            for seat in range(self.num_players)
        ]

    def new_game(self: Seating[Policy], rng: np.random.Generator) -> None:
        """Tell every opponent of a new deal (once per seat: a policy in two seats hears it twice)."""
        for policy in self.opponents:
            policy.new_game(rng)

    def distinct(self) -> list[P]:
        """The opponents, each object once (for calls that must reach each policy once)."""
        return list({id(policy): policy for policy in self.opponents}.values())
