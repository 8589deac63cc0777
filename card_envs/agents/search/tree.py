"""The search tree: one node per sequence of actions from the root, shared by every sampled world.

Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012): the worlds differ in
the cards the searching seat cannot see, so an action legal in one world may be missing in the
next. Each node therefore counts, per action, the visits in which that action was *available*,
and UCB1 uses that count in place of the node's visits (the subset-armed bandit); PUCT
renormalizes its prior over the actions available in the world at hand. Returns are kept per
seat, and each node's decider picks by its own return, so any number of players works.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


class Node:
    """The statistics of one action sequence from the root: as a child, of its last action."""

    __slots__ = ("available", "children", "pending", "prior", "returns", "visits")

    def __init__(self, num_players: int) -> None:
        self.children: dict[int, Node] = {}
        #: per action, the visits here in which it was legal (UCT's exploration count); kept
        #: on the parent so that an action never taken costs no node
        self.available: dict[int, int] = {}
        self.visits = 0
        #: sum of each seat's rank reward over the simulations through this node
        self.returns = np.zeros(num_players)
        #: simulations of the current wave on their way through (virtual loss)
        self.pending = 0
        #: the decider's move probabilities here (PUCT), from the first world that came by
        self.prior: np.ndarray | None = None

    def child(self, action: int) -> Node:
        node = self.children.get(action)
        if node is None:
            node = self.children[action] = Node(self.returns.size)
        return node

    def mean(self, seat: int) -> float:
        """The seat's mean return here, counting simulations still on their way as losses."""
        seen = self.visits + self.pending
        return (self.returns[seat] - self.pending) / seen if seen else 0.0

    def size(self) -> int:
        """Nodes in this subtree (for memory figures)."""
        return 1 + sum(child.size() for child in self.children.values())


def count_available(node: Node, legal: Sequence[int]) -> None:
    """Note that ``legal`` were the decider's choices in this visit of ``node``."""
    available = node.available
    for action in legal:
        available[action] = available.get(action, 0) + 1


def untried(node: Node, legal: Sequence[int]) -> list[int]:
    """The legal actions no simulation has taken from ``node`` yet (this wave included)."""
    return [a for a in legal if (c := node.children.get(a)) is None or c.visits + c.pending == 0]


def select_uct(node: Node, legal: Sequence[int], seat: int, c: float) -> int:
    """UCB1 over the available actions, all of which were tried: ``mean + c sqrt(ln avail / n)``."""
    best, best_score = legal[0], -math.inf
    for action in legal:
        child = node.children[action]
        seen = child.visits + child.pending
        available = node.available.get(action, 1)
        score = child.mean(seat) + c * math.sqrt(math.log(max(available, 1)) / seen)
        if score > best_score:
            best, best_score = action, score
    return best


def select_puct(node: Node, legal: Sequence[int], seat: int, c: float, prior: np.ndarray) -> int:
    """PUCT: ``mean + c P(a) sqrt(N) / (1 + n)`` with ``prior`` over this world's ``legal``
    actions; an untried action is valued at the node's own mean for the decider (first-play
    urgency), so a losing line does not make every untried action look good."""
    visits = [0 if (ch := node.children.get(a)) is None else ch.visits + ch.pending for a in legal]
    root_n = math.sqrt(max(sum(visits), 1))
    untried_value = node.mean(seat)
    best, best_score = legal[0], -math.inf
    for action, p, seen in zip(legal, prior.tolist(), visits, strict=True):
        mean = node.children[action].mean(seat) if seen else untried_value
        score = mean + c * p * root_n / (1 + seen)
        if score > best_score:
            best, best_score = action, score
    return best


def most_visited(root: Node, legal: Sequence[int], seat: int) -> int:
    """The move a search plays: the most visited legal action, the better mean on a tie."""
    visited = [a for a in legal if a in root.children]
    if not visited:
        return legal[0]
    return max(visited, key=lambda a: (root.children[a].visits, root.children[a].mean(seat)))
