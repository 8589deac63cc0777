"""The one policy interface shared by scripted opponents, trained models, envs and tools.

It lives at the bottom of the import graph so that the single-agent env can
run opponents it is handed without importing the agents package above it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar

import numpy as np

if TYPE_CHECKING:
    from card_envs.core.game import CardGame


class Policy(ABC):
    """Chooses an action from what a seat sees.

    ``act`` receives the seat's observation vector, the int8 mask of legal
    actions and the env's generator; all randomness must come from ``rng`` so
    that a seeded env replays the same game.
    """

    #: True for a policy that decides from the game itself rather than the seat's observation
    #: (a search player samples the worlds its seat cannot tell apart): play loops that hold
    #: the engine then call :meth:`act_in`, and :meth:`act` alone is not enough to play it
    reads_game: ClassVar[bool] = False

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        """Return one action whose mask entry is 1."""

    def act_in(self, game: CardGame, rng: np.random.Generator) -> int:
        """Choose for ``game.current_player`` in ``game``; by default from that seat's
        observation and mask (:meth:`act`). A policy that sets :attr:`reads_game` overrides it
        and may use only what the seat is allowed to know (``game.sample_world(seat, rng)``)."""
        seat = game.current_player
        return self.act(game.observe(seat), game.action_mask(), rng)

    def new_game(self, rng: np.random.Generator) -> None:
        """Called when a game is dealt (e.g. a self-play pool draws its opponent); default: nothing."""
        return

    def check_table(self, game: CardGame) -> None:
        """Raise ValueError, naming both, for a table this policy cannot play (a trained
        network has one observation and action size); default: every table."""
        return

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def choose_from_logits(
    logits: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator, greedy: bool
) -> int:
    """What a network-backed policy plays: its most probable legal action (``greedy``), or one
    drawn with ``rng`` from the softmax over the legal actions."""
    scores = np.where(action_mask > 0, np.asarray(logits, dtype=np.float64), -np.inf)
    if greedy:
        return int(np.argmax(scores))
    probs = np.exp(scores - scores.max())
    return int(rng.choice(probs.size, p=probs / probs.sum()))


class RandomAgent(Policy):
    """Uniform over the legal actions; works for every game."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("RandomAgent was asked to act with an empty action mask")
        return int(legal[rng.integers(legal.size)])
