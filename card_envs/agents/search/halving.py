"""Root search by sequential halving over sampled worlds shared by every move (``algo=halving``).

Each candidate move at the root is played in the *same* sampled worlds, each world cloned
with its generator, and every position is played to the end by the rollout players: common
random numbers, so two moves are compared on the same hidden cards and the same future
draws, and the luck of the deal cancels out of their difference. Sequential halving
(Karnin, Koren & Somekh 2013) spends the budget in rounds, keeping the better half of the
moves after each, so most rollouts go to the moves worth telling apart.

The searching seat's own player (its default move) is never dropped, and it is played
unless the best other move beats it on the same worlds by ``z`` standard errors of their
paired difference: a move a few noisy rollouts happen to favour does not replace a sound
one. This is a one-step policy improvement of the rollout player (Tesauro & Galperin 1996,
for backgammon), made safe by the test.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from card_envs.core.game import CardGame

#: rollouts for every candidate in the first round of an ``ms`` budget, before the speed is known
PROBE_WORLDS = 4


@dataclass
class Arm:
    """A root move and its rank rewards, one per world (world ``k`` is the same for every arm)."""

    action: int
    rewards: list[float]

    def mean(self) -> float:
        return sum(self.rewards) / len(self.rewards)


def paired_advantage(better: Arm, default: Arm) -> tuple[float, float]:
    """Mean and standard error of ``better - default`` over the worlds both were played in."""
    n = min(len(better.rewards), len(default.rewards))
    if n < 2:
        return 0.0, math.inf
    diff = np.asarray(better.rewards[:n]) - np.asarray(default.rewards[:n])
    return float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(n))


def halving_rounds(candidates: int) -> int:
    """Rounds that bring ``candidates`` down to the default and one challenger."""
    return max(1, math.ceil(math.log2(candidates)))


#: ``play(worlds, moves)``: for each world, the searching seat's rank reward after each of its
#: moves, every move played in a copy of that world (its generator included) and played out
PlayMoves = Callable[[list[CardGame], list[list[int]]], list[Sequence[float]]]


class Halving:
    """One root decision: ``candidates`` (the default move first) played in shared worlds.

    ``sample_world()`` draws the next shared world; ``play`` (:data:`PlayMoves`) values moves in them.
    """

    def __init__(
        self, candidates: Sequence[int], sample_world: Callable[[], CardGame], play: PlayMoves
    ) -> None:
        self.arms = [Arm(a, []) for a in candidates]
        self.default = self.arms[0]
        self.sample_world = sample_world
        self.play = play
        self.worlds: list[CardGame] = []
        self.sims = 0

    def run(self, sims: int | None, ms: float | None) -> None:
        """Spend ``sims`` rollouts, or about ``ms`` milliseconds (the first round measures the speed)."""
        arms = list(self.arms)
        rounds = halving_rounds(len(arms))
        sims = self._budget(arms, sims, ms)
        for left in range(rounds, 0, -1):  # each round spends an equal share of what is left
            if len(arms) < 2:
                break
            worlds = len(self.default.rewards) + max(sims - self.sims, 0) // left // len(arms)
            if not self._affordable(arms, worlds, sims):
                break
            self._play(arms, worlds)
            arms = self._better_half(arms)

    def _budget(self, arms: list[Arm], sims: int | None, ms: float | None) -> int:
        """The rollouts to spend: ``sims``, or as many as ``ms`` allows at the speed of a first
        round of :data:`PROBE_WORLDS` worlds for every arm (played here)."""
        if sims is not None:
            return sims
        assert ms is not None
        start = time.perf_counter()
        self._play(arms, PROBE_WORLDS)
        spent = time.perf_counter() - start
        return self.sims + int(self.sims * max(ms / 1000.0 - spent, 0.0) / max(spent, 1e-9))

    def choice(self, z: float) -> int:
        """The default move unless the best other beats it by ``z`` standard errors."""
        others = [arm for arm in self.arms if arm is not self.default and arm.rewards]
        if not others:
            return self.default.action
        best = max(others, key=lambda arm: (len(arm.rewards), arm.mean()))
        mean, error = paired_advantage(best, self.default)
        return best.action if mean > z * error else self.default.action

    def _affordable(self, arms: list[Arm], worlds: int, sims: int) -> bool:
        needed = sum(max(worlds - len(arm.rewards), 0) for arm in arms)
        return needed > 0 and self.sims + needed <= sims

    def _play(self, arms: list[Arm], worlds: int) -> None:
        """Bring every arm to ``worlds`` rollouts, each in the shared worlds it has not met yet
        (in world order, so reward ``k`` of every arm comes from world ``k``)."""
        while len(self.worlds) < worlds:
            self.worlds.append(self.sample_world())
        needed = [k for k in range(worlds) if any(len(arm.rewards) <= k for arm in arms)]
        arms_of = [[arm for arm in arms if len(arm.rewards) <= k] for k in needed]  # per world
        if not needed:
            return
        rewards = self.play(
            [self.worlds[k] for k in needed], [[arm.action for arm in its] for its in arms_of]
        )
        for its_arms, its_rewards in zip(arms_of, rewards, strict=True):
            for arm, reward in zip(its_arms, its_rewards, strict=True):
                arm.rewards.append(float(reward))
                self.sims += 1

    def _better_half(self, arms: list[Arm]) -> list[Arm]:
        """The better half by mean over the same worlds, the default kept in any case."""
        ranked = sorted(arms, key=lambda arm: -arm.mean())
        kept = ranked[: max(2, math.ceil(len(ranked) / 2))]
        if self.default not in kept:
            kept[-1] = self.default
        return kept

    def visits(self) -> dict[int, int]:
        """Rollouts per candidate move (the search's statistics)."""
        return {arm.action: len(arm.rewards) for arm in self.arms}
