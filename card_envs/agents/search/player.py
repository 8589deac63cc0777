"""The search player: search over sampled worlds as a :class:`~card_envs.core.policy.Policy`.

Each simulation samples a world the searching seat cannot tell from the true one
(:meth:`CardGame.sample_world`: built from the seat's own view, so the search never reads a
hidden card) and values a position in it by a rollout (:mod:`.rollouts`), many rolled out
together on the compiled batched engine, or cut short and valued by a network's value head
(``value=net``). With ``algo=halving`` (the default) the root moves
are compared in the same worlds and the budget is spent by sequential halving
(:mod:`.halving`); ``gumbel`` does the same with a network's policy drawing and ranking the
moves (:mod:`.gumbel`), and leaves the improved policy it found in :attr:`SearchPlayer.last`;
with ``puct`` or ``uct`` each simulation walks its world down one shared tree (:mod:`.tree`,
information-set MCTS), adds a node, and the most visited root move is played.

All randomness comes from one seed drawn from the play loop's generator, so a seeded game
with search players replays exactly (with a ``sims`` budget; an ``ms`` budget depends on
the machine's speed).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from card_envs.agents.policy_spec import rule_spec
from card_envs.agents.pretrained import PRETRAINED
from card_envs.agents.registry import rule_agent_spec
from card_envs.agents.search.gumbel import GumbelHalving
from card_envs.agents.search.halving import Halving, PlayMoves
from card_envs.agents.search.rollouts import LeafValue, Rollouts, make_rollouts
from card_envs.agents.search.settings import PRIOR_MIX, SearchSettings
from card_envs.agents.search.tree import Node, count_available, most_visited, select_puct, select_uct, untried
from card_envs.core.game import SEED_BOUND, CardGame
from card_envs.core.policy import Policy
from card_envs.core.registry import GameRef
from card_envs.core.table import Table

#: what builds a policy from a spec at a table: :func:`card_envs.agents.specs.make_policy`
PolicyMaker = Callable[[str, Table], Policy]


@dataclass(frozen=True)
class SearchStats:
    """What the last search did: for tests (budgets are kept) and benchmarks."""

    sims: int
    waves: int
    seconds: float
    nodes: int
    #: root visits per legal action
    visits: dict[int, int] = field(default_factory=dict)
    #: ``gumbel``: the improved policy over all actions (0 where illegal), the target a
    #: network is trained towards, and the network's value of the root (None without a value head)
    policy: np.ndarray | None = None
    value: float | None = None


class SearchPlayer(Policy):
    """Plays by searching sampled worlds (sequential halving, or ISMCTS); a forced move is played at once.

    ``table`` (a :class:`~card_envs.core.table.Table`, or a game and ``num_players``) fixes the
    game and player count it may be seated at (the rollout engine is built for the rules it is
    seated with, on first use); ``settings`` says how it searches, or keyword knobs over the
    game's own search defaults at this table (``GameSpec.search_defaults``: Tock's rollouts
    stop at 200 actions, at 2 players later).
    """

    reads_game = True

    def __init__(
        self,
        table: Table | GameRef,
        num_players: int | None = None,
        settings: SearchSettings | None = None,
        *,
        make_policy: PolicyMaker | None = None,
        **knobs: Any,
    ) -> None:
        self.table = Table.of(table, num_players)
        self.spec = self.table.spec
        self.num_players = self.table.num_players
        #: builds the players it names by spec (rollouts, its own, the network): given by
        #: whoever builds the search player, so that this module needs not import the specs
        self.make_policy = make_policy
        self.settings = (
            settings
            if settings is not None
            else SearchSettings.from_knobs(knobs, self.spec.search_defaults(self.num_players))
        )
        if not self.settings.perfect and not self.spec.engine_class().samples_worlds():
            raise ValueError(
                f"{self.spec.name} cannot sample the cards a seat does not see (no _seat_view),"
                " so only a perfect-information search (perfect=true) can play it"
            )
        self.last: SearchStats | None = None
        self._rollouts: dict[str, Rollouts] = {}
        self._rollout_policy: Policy | None = None
        self._own_policy: Policy | None = None
        self._default_policy: Policy | None = None
        self._network: Any = None
        if self.settings.default != "own":
            self._default_player()  # a table without a heuristic player, or a bad net, fails here
        if self.settings.value == "net":
            self._leaf_value()  # a network without a value head fails here

    def __repr__(self) -> str:
        s = self.settings
        budget = f"sims={s.sims}" if s.sims is not None else f"ms={s.ms}"
        perfect = ", perfect" if s.perfect else ""
        default = f", default={s.default}" if s.default != "own" else ""
        value = f", value={s.value}" if s.value != "ranks" else ""
        knobs = f"algo={s.algo}, rollout={s.rollout}, own={s.own}{default}{value}{perfect}"
        return f"SearchPlayer({budget}, {knobs})"

    def check_table(self, game: CardGame) -> None:
        if game.name != self.spec.name or game.num_players != self.num_players:
            raise ValueError(
                f"this search player was built for {self.num_players}-player {self.spec.name},"
                f" not {game.num_players}-player {game.name}"
            )

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        raise TypeError(
            "a search player decides from the game itself (it samples the worlds its seat cannot"
            " tell apart): call act_in(game, rng), as the play loop card_envs.core.play does"
        )

    def act_in(self, game: CardGame, rng: np.random.Generator) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return self.search(game, np.random.default_rng(int(rng.integers(SEED_BOUND))))

    # ------------------------------------------------------------------ the search
    def search(self, game: CardGame, rng: np.random.Generator) -> int:
        """The move of ``game.current_player`` after a search drawing from ``rng`` alone."""
        if self.settings.algo == "halving":
            return self._halving(game, rng)
        if self.settings.algo == "gumbel":
            return self._gumbel(game, rng)
        return self._tree_search(game, rng)

    def _gumbel(self, game: CardGame, rng: np.random.Generator) -> int:
        """Gumbel sequential halving over the network's moves in shared worlds (:mod:`.gumbel`)."""
        start = time.perf_counter()
        s = self.settings
        seat = game.current_player
        rollouts = self._rollouts_for(game)
        sample = self._sampler(game, seat)
        network = self._network_player()
        observation, mask = game.observe(seat), game.action_mask()
        legal = np.flatnonzero(mask)
        prior = (1.0 - s.mix) * network.probabilities(observation, mask)[legal] + s.mix / legal.size
        logits = np.log(np.maximum(prior, 1e-12))
        root_value = float(network.values(observation[None])[0]) if self._has_value(network) else None
        noise = rng.gumbel(size=legal.size) if s.noise else np.zeros(legal.size)
        search = GumbelHalving(
            legal.tolist(), logits, noise, s.width, lambda: sample(rng),
            self._mover(rollouts, seat, rng), root_value,
        )  # fmt: skip
        search.run(s.sims, s.ms)
        policy = np.zeros(game.num_actions)
        policy[legal] = search.policy()
        seconds = time.perf_counter() - start
        self.last = SearchStats(search.sims, 1, seconds, 0, search.visits(), policy, root_value)
        return search.choice()

    def _halving(self, game: CardGame, rng: np.random.Generator) -> int:
        """Sequential halving over the root moves in shared worlds (:mod:`.halving`)."""
        start = time.perf_counter()
        s = self.settings
        seat = game.current_player
        rollouts = self._rollouts_for(game)
        sample = self._sampler(game, seat)
        search = Halving(
            self._candidates(game, rng),
            lambda: sample(rng),
            self._mover(rollouts, seat, rng),
        )
        search.run(s.sims, s.ms)
        self.last = SearchStats(search.sims, 1, time.perf_counter() - start, 0, search.visits())
        return search.choice(s.z)

    @staticmethod
    def _mover(rollouts: Rollouts, seat: int, rng: np.random.Generator) -> PlayMoves:
        """The searching seat's values of moves played in shared worlds (what halving asks)."""
        return lambda worlds, moves: [
            v[:, seat].tolist() for v in rollouts.values_after(worlds, moves, seat, rng)
        ]

    def default_move(self, game: CardGame, rng: np.random.Generator) -> int:
        """The move ``halving`` keeps unless another beats it by ``z`` standard errors (the
        ``default`` player's): where the search leaves it, it departs."""
        return self._default_player().act_in(game, rng)

    def _candidates(self, game: CardGame, rng: np.random.Generator) -> list[int]:
        """The root moves halving compares: the default move first (the ``default`` player's),
        then up to ``width - 1`` others (the network's most probable with ``prior=net``, else
        drawn at random)."""
        default = self.default_move(game, rng)
        others = [a for a in game.legal_actions() if a != default]
        room = self.settings.width - 1
        if len(others) > room:
            if self.settings.prior == "net":
                probabilities = self._prior(game, rng)
                others = sorted(others, key=lambda a: -probabilities[a])[:room]
            else:
                others = [others[i] for i in sorted(rng.choice(len(others), room, replace=False).tolist())]
        return [default, *others]

    def _tree_search(self, game: CardGame, rng: np.random.Generator) -> int:
        """Information-set MCTS: one tree shared by the sampled worlds (:mod:`.tree`)."""
        start = time.perf_counter()
        s = self.settings
        seat = game.current_player
        legal = game.legal_actions()
        rollouts = self._rollouts_for(game)
        root = Node(game.num_players)
        sample = self._sampler(game, seat)
        deadline = None if s.ms is None else start + s.ms / 1000.0
        sims = waves = 0
        while True:
            wave = s.leaves if s.sims is None else min(s.leaves, s.sims - sims)
            paths, worlds = [], []
            for _ in range(wave):
                world = sample(rng)
                paths.append(self._descend(root, world, seat, rng))
                worlds.append(world)
            for path, value in zip(paths, rollouts.values(worlds, seat, rng), strict=True):
                for node in path:
                    node.pending -= 1
                    node.visits += 1
                    node.returns += value
            sims += wave
            waves += 1
            if (s.sims is not None and sims >= s.sims) or (
                deadline is not None and time.perf_counter() >= deadline
            ):
                break
        visits = {a: root.children[a].visits for a in legal if a in root.children}
        self.last = SearchStats(sims, waves, time.perf_counter() - start, root.size(), visits)
        return most_visited(root, legal, seat)

    def _sampler(self, game: CardGame, seat: int) -> Callable[[np.random.Generator], CardGame]:
        """Draws the worlds to simulate in: sampled from the seat's view, or (``perfect``) the
        true one with a future of its own."""
        if not self.settings.perfect:
            return game.world_sampler(seat)

        def true_world(rng: np.random.Generator) -> CardGame:
            world = game.clone()
            world.rng = np.random.default_rng(int(rng.integers(SEED_BOUND)))
            return world

        return true_world

    def _descend(self, root: Node, world: CardGame, searcher: int, rng: np.random.Generator) -> list[Node]:
        """Walk ``world`` down the tree to a new node (or the game's end); the nodes passed."""
        s = self.settings
        path = [root]  # the root's own mean is PUCT's value of its untried moves
        node = root
        while not world.is_over:
            legal = world.legal_actions()
            seat = world.current_player
            if s.algo == "puct":
                if node.prior is None:
                    node.prior = self._prior(world, rng, own=seat == searcher)
                action = select_puct(node, legal, seat, s.c, legal_prior(node.prior, legal))
                taken = node.children.get(action)
                fresh = taken is None or taken.visits + taken.pending == 0
            else:
                count_available(node, legal)
                new = untried(node, legal)
                fresh = bool(new)
                if new:
                    action = self._expansion(world, new, seat == searcher, rng)
                else:
                    action = select_uct(node, legal, seat, s.c)
            node = node.child(action)
            node.pending += 1
            path.append(node)
            world.step(action)
            if fresh:
                break
        return path

    def _expansion(self, world: CardGame, new: list[int], own: bool, rng: np.random.Generator) -> int:
        """The untried action a simulation adds: the decider's rollout player's own choice first
        (so one simulation plays as the own player would), else one drawn uniformly."""
        choice = (self._own_player() if own else self._rollout_player()).act_in(world, rng)
        if choice in new:
            return choice
        return new[int(rng.integers(len(new)))]

    # ------------------------------------------------------------------ parts, built once
    def _rollouts_for(self, game: CardGame) -> Rollouts:
        key = json.dumps([game.num_players, game.rules], sort_keys=True, default=str)
        if key not in self._rollouts:
            self.check_table(game)
            leaf = self._leaf_value() if self.settings.value == "net" else None
            self._rollouts[key] = make_rollouts(
                self.spec, game, self._rollout_player(), self._own_player(),
                max(self.settings.leaves, self.settings.width), self.settings.horizon, leaf,
            )  # fmt: skip
        return self._rollouts[key]

    def _network_player(self) -> Any:
        """The network of ``net`` (its move probabilities, and values where it has a value head)."""
        if self._network is None:
            self._network = self._player(self._net_spec())
        return self._network

    @staticmethod
    def _has_value(network: Any) -> bool:
        inner = getattr(network, "network", None)
        return bool(getattr(inner, "has_value", False))

    def _leaf_value(self) -> LeafValue:
        """``value=net``: the network's value head, or ValueError where it has none."""
        network = self._network_player()
        if not self._has_value(network):
            raise ValueError(
                f"search value=net needs a network with a value head (train.py --algo az);"
                f" net={self.settings.net} has none"
            )
        return network.values

    def _rollout_player(self) -> Policy:
        """Who plays the other seats of a rollout (``rollout``)."""
        if self._rollout_policy is None:
            self._rollout_policy = self._player(self._rollout_spec())
        return self._rollout_policy

    def _own_player(self) -> Policy:
        """Who plays the searching seat in rollouts, and its default move (``own``)."""
        if self._own_policy is None:
            spec = "heuristic" if self.settings.own == "heuristic" else self._rollout_spec()
            if self.settings.own == "sound" and spec == "rule":
                spec = rule_spec(dict(rule_agent_spec(self.spec).sound_knobs))
            self._own_policy = self._player(spec)
        return self._own_policy

    def _default_player(self) -> Policy:
        """Who proposes ``halving``'s default move (``default``)."""
        if self.settings.default == "own":
            return self._own_player()
        if self._default_policy is None:
            spec = self._net_spec() if self.settings.default == "net" else self.settings.default
            self._default_policy = self._player(spec)
        return self._default_policy

    def _rollout_spec(self) -> str:
        return self._net_spec() if self.settings.rollout == "net" else self.settings.rollout

    def _net_spec(self) -> str:
        """The network's spec: the shipped agent (``net=pretrained``) or a trained run, greedy."""
        return PRETRAINED if self.settings.net == PRETRAINED else f"greedy:{self.settings.net}"

    def _player(self, spec: str) -> Policy:
        if self.make_policy is None:
            raise ValueError(
                f"this search player needs a policy ({spec!r}) and was given no make_policy to build it"
                " (card_envs.agents.make_policy builds search players with theirs)"
            )
        return self.make_policy(spec, self.table)

    def _prior(self, world: CardGame, rng: np.random.Generator, own: bool = True) -> np.ndarray:
        """PUCT's prior over all actions for the decider of ``world`` (:data:`PRIORS`); ``own``:
        the decider is the searching seat (its rollout player is its own player)."""
        legal = world.legal_actions()
        prior = np.zeros(world.num_actions)
        if self.settings.prior == "net":
            seat = world.current_player
            prior[:] = self._network_player().probabilities(world.observe(seat), world.action_mask())
            return prior
        prior[legal] = 1.0 / len(legal)
        if self.settings.prior == "rollout":
            prior *= PRIOR_MIX
            player = self._own_player() if own else self._rollout_player()
            prior[player.act_in(world, rng)] += 1.0 - PRIOR_MIX
        return prior


def legal_prior(prior: np.ndarray, legal: list[int]) -> np.ndarray:
    """A node's prior over this world's legal actions, renormalized; an action the first world
    did not offer keeps a small share rather than none."""
    p = prior[legal] + 1e-3 / len(legal)
    return p / p.sum()
