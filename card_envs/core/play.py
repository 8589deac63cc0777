"""The one play loop: a game played to its end with a policy in each seat.

Tournaments and soak games (evaluation), the teacher's games (training) and the console
(cli) all play through :func:`play_game` or :func:`play_out`, each with the hooks it needs.
The loop needs only the engine interface and :class:`~card_envs.core.policy.Policy`, so it
lives in core, the lowest layer: every user sits above it, and a soak run or a tournament
worker loads neither gymnasium nor pettingzoo to play.

Every action is drawn in the same order from the one generator it is handed: a seed gives
the same game wherever it is played.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

import numpy as np

from card_envs.core.game import CardGame, Seed
from card_envs.core.policy import Policy


class Table(Protocol):
    """What the loop needs of a game: a :class:`CardGame`, or anything that behaves like one
    (the single-agent env seen from its learner's seat, where the teacher plays)."""

    @property
    def is_over(self) -> bool: ...

    @property
    def current_player(self) -> int: ...

    def observe(self, player: int) -> np.ndarray: ...

    def action_mask(self) -> np.ndarray: ...

    def step(self, action: int) -> None: ...


T = TypeVar("T", bound=Table)

#: what a policy is shown with ``observe=False``
UNOBSERVED = np.zeros(0, np.float32)
UNOBSERVED.flags.writeable = False

#: called with (seat, observation, mask, action) once the policy has chosen, before the action is applied
OnDecision = Callable[[int, np.ndarray, np.ndarray, int], None]


@dataclass(frozen=True)
class Played:
    """How a game ended: the actions played and whether the step cap stopped it."""

    steps: int
    truncated: bool


@dataclass(frozen=True)
class Outcome(Played):
    """A dealt game played out: :class:`Played` and the ranks (truncation ranks at the cap)."""

    ranks: list[int]


def decide(
    policy: Policy, table: Table, observation: np.ndarray, mask: np.ndarray, rng: np.random.Generator
) -> int:
    """What ``policy`` plays for the deciding seat: from the observation and mask, or, for a
    policy that reads the game (:attr:`Policy.reads_game`, a search player), from the engine:
    ``table`` itself, or the ``game`` a table standing for one seat of a game names (the
    single-agent env's learner seat, where a search teacher plays)."""
    if not policy.reads_game:
        return policy.act(observation, mask, rng)
    game = table if isinstance(table, CardGame) else getattr(table, "game", None)
    if not isinstance(game, CardGame):
        raise TypeError(f"{policy!r} reads the game itself; a {type(table).__name__} has no game to read")
    return policy.act_in(game, rng)


def play_out(
    table: T,
    policies: Sequence[Policy],
    rng: np.random.Generator,
    max_steps: int | None = None,
    *,
    observe: bool = True,
    before_decision: Callable[[T], None] | None = None,
    on_decision: OnDecision | None = None,
    on_move: Callable[[T, int], None] | None = None,
) -> Played:
    """Play ``table`` from where it stands until it is over or ``max_steps`` actions were
    played (None: no cap); ``policies[seat]`` decides for ``seat`` with ``rng``, shown the
    seat's observation (``observe=False``: an empty one, for players that read the mask
    alone, such as the soak's random ones, where observing costs more than playing).

    Hooks: ``before_decision(table)`` before each decision (an invariant check may raise),
    ``on_decision(seat, observation, mask, action)`` once the policy has chosen (what a
    teacher did), ``on_move(table, seat)`` after the action is applied (to show it).
    """
    steps = 0
    while not table.is_over and (max_steps is None or steps < max_steps):
        if before_decision is not None:
            before_decision(table)
        seat = table.current_player
        observation = table.observe(seat) if observe else UNOBSERVED
        mask = table.action_mask()
        action = decide(policies[seat], table, observation, mask, rng)
        if on_decision is not None:
            on_decision(seat, observation, mask, action)
        table.step(action)
        steps += 1
        if on_move is not None:
            on_move(table, seat)
    return Played(steps, not table.is_over)


def play_game(
    game: CardGame,
    policies: Sequence[Policy],
    rng: np.random.Generator,
    max_steps: int | None = None,
    *,
    deal: Seed = None,
    observe: bool = True,
    on_deal: Callable[[CardGame], None] | None = None,
    before_decision: Callable[[CardGame], None] | None = None,
    on_decision: OnDecision | None = None,
    on_move: Callable[[CardGame, int], None] | None = None,
) -> Outcome:
    """Deal ``game`` and play it out (:func:`play_out`) with one policy per seat.

    The deal is ``game.reset(deal)``, with ``rng`` itself when ``deal`` is None (the game
    then draws its seed from ``rng`` first); ``on_deal(game)`` is called after it.
    ``max_steps`` None: the game's own cap (:attr:`CardGame.default_max_steps`).
    """
    game.reset(rng if deal is None else deal)
    if on_deal is not None:
        on_deal(game)
    cap = game.default_max_steps if max_steps is None else max_steps
    played = play_out(
        game,
        policies,
        rng,
        cap,
        observe=observe,
        before_decision=before_decision,
        on_decision=on_decision,
        on_move=on_move,
    )
    ranks = game.truncation_ranks() if played.truncated else game.final_ranks()
    return Outcome(played.steps, played.truncated, ranks)
