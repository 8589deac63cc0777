"""Batched engines: B games of one kind stepped together by compiled rules (numba).

The per-game engines stay the readable reference; beside each game, ``batched.py``
compiles the same rules over struct-of-arrays state (the game's spec names it).
:class:`BatchedGame` is the one generic front for all of them:

    batch = BatchedGame("uno", batch_size=1024, num_players=4)
    batch.reset(seed=0)
    while True:
        result = batch.step(random_actions(batch.masks, rng))  # finished games are dealt again

After each call, ``observations[b]``, ``masks[b]`` and ``current_players[b]`` are those of
the seat that decides in game ``b``. Each game draws from its own generator, seeded as
``CardGame.reset(seed)`` seeds the reference engine, so game ``b`` replays exactly in
the reference engine from ``seeds[b]`` and the same actions. A game's kernels class is a
codec between a game's ``state_dict()`` and its row of the batch: :meth:`BatchedGame.engine`
hands game ``b`` over as a reference engine, :meth:`BatchedGame.load` puts any state the
reference engine accepts into row ``b``, and play goes on from there in both alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np
from numba import typed

from card_envs.batched.playout import play_out_loop
from card_envs.batched.policy import BatchedPolicy, batched_policy
from card_envs.core.checks import check_int
from card_envs.core.game import SEED_BOUND, CardGame, IllegalActionError, check_max_steps
from card_envs.core.policy import Policy
from card_envs.core.registry import GameRef, game_specs
from card_envs.core.spec import resolve
from card_envs.core.table import Table


class BatchStep(NamedTuple):
    """What one :meth:`BatchedGame.step` did to each game it stepped (``rows``, in order)."""

    rows: np.ndarray  # [R] the games stepped
    rewards: np.ndarray  # [R, N] float32: each seat's rank reward in games that ended, else 0
    terminated: np.ndarray  # [R] the game ended by its rules
    truncated: np.ndarray  # [R] the game reached max_steps
    ranks: np.ndarray  # [R, N] ranks in games that ended (1 = best), else 0

    @property
    def ended(self) -> np.ndarray:
        return self.terminated | self.truncated


class PlayOut(NamedTuple):
    """What :meth:`BatchedGame.play_out` did to each game it played (``rows``, in order)."""

    ranks: np.ndarray  # [R, N] each game's ranks at its end (1 = best; truncation ranks if truncated)
    truncated: np.ndarray  # [R] the game reached max_steps
    steps: np.ndarray  # [R] the actions taken in it


#: who plays a :meth:`BatchedGame.play_out`: one player in every seat, or one per seat
PlayOutPlayers = BatchedPolicy | Policy | Sequence[BatchedPolicy | Policy]


def seated_row_act(twins: Sequence[BatchedPolicy]) -> tuple[tuple[Any, ...], Any] | None:
    """``(seat_a, act1)`` for the compiled play-out where every seat's twin has a row act and
    all share one ``act1`` (one kind of player at per-seat knobs); else None (stepped)."""
    acts = [twin.row_act() for twin in twins]
    if any(act is None for act in acts):
        return None
    act1 = acts[0][1]  # type: ignore[index]
    if any(act[1] is not act1 for act in acts):  # type: ignore[index]
        return None
    return tuple(act[0] for act in acts), act1  # type: ignore[index]


class Kernels(Protocol):
    """What a game's kernels class answers (``GameSpec.batched`` names it; docs/architecture.md)."""

    def __init__(self, game: CardGame, batch_size: int) -> None: ...

    def deal(self, rows: np.ndarray, gens: Any) -> None: ...

    def step(self, rows: np.ndarray, actions: np.ndarray, gens: Any, over: np.ndarray) -> None: ...

    def write(
        self, rows: np.ndarray, observations: np.ndarray, masks: np.ndarray, current: np.ndarray
    ) -> None: ...

    def observe(self, rows: np.ndarray, players: np.ndarray, out: np.ndarray) -> None: ...

    def ranks(self, rows: np.ndarray, truncated: np.ndarray, out: np.ndarray) -> None: ...

    def held(self, rows: np.ndarray, out: np.ndarray) -> None: ...

    # optional: row_functions() -> (k, step1, write1, over1, ranks1), one row's rules for a
    # compiled play-out (BatchedGame.play_out); without it, play-outs are stepped
    # optional: state, a tuple of arrays holding one row per game (the built-in games' NamedTuple
    # of arrays), which BatchedGame.copy_row copies row by row; without it, through the codec
    # optional: load_engine(index, game), load() of a reference engine's position read from its
    # typed state (BatchedGame.load_engine); without it, through game.state_dict()

    def load(self, index: int, state: dict[str, Any], /) -> None: ...

    def state_dict(self, index: int) -> dict[str, Any]: ...


def batched_games() -> list[str]:
    """The games that have a batched engine."""
    return [name for name, spec in game_specs().items() if spec.batched is not None]


def rank_rewards_batch(ranks: np.ndarray) -> np.ndarray:
    """:func:`card_envs.core.ranking.rank_rewards` for rows of ranks [R, N] at once: 1 for
    the best, -1 for the worst, tied seats sharing the mean of the places they fill."""
    n = ranks.shape[1]
    tied = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)
    return (1.0 - 2.0 * (ranks - 1 + (tied - 1) / 2) / (n - 1)).astype(np.float32)


class BatchedGame:
    """``batch_size`` games of ``game`` stepped by one call; finished games are dealt again.

    Args:
        game: a game name with a batched engine (:func:`batched_games`).
        batch_size: games in the batch.
        num_players: seats per game (the game's default if None); 2..max for every game.
        max_steps: step cap per game (all seats' actions), as in the envs; a game that
            reaches it ends truncated, ranked by :meth:`CardGame.truncation_ranks`.
        **rules: the game's variant keywords, as for the reference engine.
    """

    def __init__(
        self,
        game: Table | GameRef = "uno",
        batch_size: int = 1024,
        num_players: int | None = None,
        *,
        max_steps: int | None = None,
        **rules: Any,
    ) -> None:
        #: the game, its player count and rules (:class:`~card_envs.core.table.Table`)
        self.table = Table.of(game, num_players, **rules)
        spec = self.table.spec
        if spec.batched is None:
            raise ValueError(
                f"game {spec.name!r} has no batched engine yet; games with one: {batched_games()}"
            )
        #: an engine of the same table and rules: the sizes, the action words
        self.reference: CardGame = self.table.engine()
        self.batch_size = check_int("batch_size", batch_size, 1, 10**7)
        self.max_steps = check_max_steps(max_steps, self.reference)
        self.num_players = self.reference.num_players
        self.num_actions = self.reference.num_actions
        self.kernels: Kernels = resolve(spec.batched)(self.reference, self.batch_size)
        b = self.batch_size
        self.observations = np.zeros((b, self.reference.observation_size), np.float32)
        self.masks = np.zeros((b, self.num_actions), np.int8)
        self.current_players = np.zeros(b, np.int64)
        self.steps = np.zeros(b, np.int64)  # actions taken in each game so far
        self.seeds = np.zeros(b, np.int64)  # each game's deal seed (CardGame.reset(seed) replays it)
        #: each game's CardGame.dealt_holding: what a seat held at its deal, on average
        self.dealt_holding = np.ones(b, np.float64)
        # one generator per game, re-seeded in place at each deal (the typed List, which the
        # kernels read, holds the same objects; replacing its items costs more than a deal)
        self._generator_objects = [np.random.default_rng(0) for _ in range(b)]
        self.generators = typed.List(self._generator_objects)
        self.all_rows = np.arange(b, dtype=np.int64)
        self._seed_source = np.random.default_rng()
        self._started = False

    def __repr__(self) -> str:
        rules = ", ".join(f"{k}={v!r}" for k, v in self.reference.rules.items())
        return (
            f"BatchedGame({self.reference.name!r}, batch_size={self.batch_size},"
            f" num_players={self.num_players}, {rules})"
        )

    # ------------------------------------------------------------------ stepping
    def reset(self, seed: int | None = None) -> None:
        """Deal every game; the games' seeds are drawn from a generator seeded with ``seed``."""
        self._seed_source = np.random.default_rng(seed)
        self._started = True
        self.deal(self.all_rows)

    def deal(self, rows: np.ndarray, seeds: np.ndarray | None = None) -> None:
        """Deal new games in ``rows``, seeded with ``seeds`` (default: new seeds from the batch's source)."""
        rows = np.asarray(rows, dtype=np.int64)
        self._deal(rows, seeds)
        self.kernels.write(rows, self.observations, self.masks, self.current_players)

    def _deal(self, rows: np.ndarray, seeds: np.ndarray | None) -> None:
        if seeds is None:
            seeds = self._seed_source.integers(SEED_BOUND, size=rows.size)
        self._started = True
        for row, seed in zip(rows.tolist(), seeds.tolist(), strict=True):  # as default_rng(seed)
            self._generator_objects[row].bit_generator.state = np.random.PCG64(seed).state
        self.seeds[rows] = seeds
        self.steps[rows] = 0
        self.kernels.deal(rows, self.generators)
        held = np.zeros((rows.size, self.num_players), np.int64)
        self.kernels.held(rows, held)
        self.dealt_holding[rows] = np.maximum(1.0, held.mean(axis=1))  # as CardGame.reset() sets it

    def step(
        self, actions: Any, rows: Any = None, *, reset_ended: bool = True, check: bool = True
    ) -> BatchStep:
        """Apply ``actions[i]`` for the deciding seat of game ``rows[i]`` (default: every game).

        Every action is checked first; one that is out of range or not legal raises
        :class:`IllegalActionError` naming the game, the action and the legal choices,
        and no game changes. Games that end are dealt again unless ``reset_ended`` is
        False (then call :meth:`deal` on them before stepping them again). ``check=False``
        skips the checks, for a caller whose actions come from compiled players reading the
        masks (a search's rollouts): ``rows`` must then be int64 game indices, each once, and
        ``actions`` int64 legal actions; anything else corrupts the batch.
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if check:
            rows = self._check_rows(rows)
            actions = self._check_actions(actions, rows)
        over = np.zeros(rows.size, np.bool_)
        self.kernels.step(rows, actions, self.generators, over)
        self.steps[rows] += 1
        truncated = ~over & (self.steps[rows] >= self.max_steps)
        ended = over | truncated
        n = self.num_players
        ranks = np.zeros((rows.size, n), np.int64)
        rewards = np.zeros((rows.size, n), np.float32)
        if ended.any():
            done = np.flatnonzero(ended)
            final = np.zeros((done.size, n), np.int64)
            self.kernels.ranks(rows[done], truncated[done], final)
            ranks[done] = final
            rewards[done] = rank_rewards_batch(final)
            if reset_ended:
                self._deal(rows[done], None)
        self.kernels.write(rows, self.observations, self.masks, self.current_players)
        if truncated.any() and not reset_ended:  # a truncated game decides nothing more
            self.masks[rows[truncated]] = 0
        return BatchStep(rows, rewards, over, truncated, ranks)

    def play_out(self, rows: Any, players: PlayOutPlayers) -> PlayOut:
        """Play every game in ``rows`` to its end with ``players`` (one player in every seat, or a
        sequence of one per seat), as :meth:`step` with ``reset_ended=False`` would, step after
        step: the same ranks (truncation ranks for a game that reaches ``max_steps``, counted from
        its :attr:`steps`), and afterwards the same state, generators, observations, masks and
        step counts.

        In one compiled call where the game's kernels offer row functions (``row_functions()``)
        and every seat's twin offers the same row act (:meth:`BatchedPolicy.row_act`: one kind
        of player, each seat with its own knobs), else stepped from Python. ``rows`` are checked
        as :meth:`step` checks them, and a game that has ended (no legal action) is refused with
        :class:`IllegalActionError`; then no game changes.
        """
        if not self._started:
            raise RuntimeError("call reset() before play_out()")
        rows = self._check_rows(rows)
        twins = self._seat_twins(players)
        ended = ~self.masks[rows].any(axis=1)
        if ended.any():
            raise IllegalActionError(
                f"game {int(rows[np.flatnonzero(ended)[0]])} has ended: nothing to play out"
                " (deal or load it first)"
            )
        game_functions = getattr(self.kernels, "row_functions", None)
        player = seated_row_act(twins)
        if game_functions is None or player is None:
            return self._step_out(rows, twins)
        k, *functions = game_functions()
        seat_a, act1 = player
        start = self.steps[rows]
        ranks = np.zeros((rows.size, self.num_players), np.int64)
        truncated = np.zeros(rows.size, np.bool_)
        play_out_loop(tuple(functions), act1)(
            k, seat_a, rows, self.generators, self.observations, self.masks,
            self.current_players, self.steps, self.max_steps, ranks, truncated,
        )  # fmt: skip
        return PlayOut(ranks, truncated, self.steps[rows] - start)

    def _seat_twins(self, players: PlayOutPlayers) -> list[BatchedPolicy]:
        """One twin per seat: ``players`` in every seat, or one of ``players`` per seat."""
        if isinstance(players, (BatchedPolicy, Policy)):
            return [batched_policy(players)] * self.num_players
        players = list(players)
        if len(players) != self.num_players:
            raise ValueError(
                f"play_out needs one player or {self.num_players} (one per seat), got {len(players)}"
            )
        return [batched_policy(p) for p in players]

    def _step_out(self, rows: np.ndarray, twins: list[BatchedPolicy]) -> PlayOut:
        """:meth:`play_out` step by step (twins or a game without row functions); each step
        asks every distinct twin for the rows where one of its seats decides."""
        start = self.steps[rows]
        ranks = np.zeros((rows.size, self.num_players), np.int64)
        truncated = np.zeros(rows.size, np.bool_)
        live = np.arange(rows.size)
        seats_of: dict[int, tuple[BatchedPolicy, list[int]]] = {}
        for seat, twin in enumerate(twins):
            seats_of.setdefault(id(twin), (twin, []))[1].append(seat)
        while live.size:
            played = rows[live]
            actions = np.empty(played.size, np.int64)
            deciders = self.current_players[played]
            for twin, seats in seats_of.values():
                mine = np.flatnonzero(np.isin(deciders, seats))
                if mine.size:
                    on = played[mine]
                    actions[mine] = twin.act(self.observations[on], self.masks[on], self.generators, on)
            result = self.step(actions, played, reset_ended=False)
            ended = result.ended
            ranks[live[ended]] = result.ranks[ended]
            truncated[live[ended]] = result.truncated[ended]
            live = live[~ended]
        return PlayOut(ranks, truncated, self.steps[rows] - start)

    def observe(self, rows: Any, players: Any) -> np.ndarray:
        """Observations [R, D] of seat ``players[i]`` in game ``rows[i]`` (any seat, not only the decider)."""
        rows = np.asarray(rows, dtype=np.int64)
        players = np.asarray(players, dtype=np.int64)
        out = np.zeros((rows.size, self.reference.observation_size), np.float32)
        self.kernels.observe(rows, players, out)
        return out

    def held(self, rows: Any) -> np.ndarray:
        """What each seat holds [R, N] in games ``rows`` (:meth:`CardGame.cards_held`: fewest is best)."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.zeros((rows.size, self.num_players), np.int64)
        self.kernels.held(rows, out)
        return out

    # ------------------------------------------------------------------ looking in
    def engine(self, index: int) -> CardGame:
        """Game ``index`` as a reference engine: a new engine of the same table and rules that
        loaded its ``state_dict()`` (render it, check it, play it on), with the game's deal seed,
        its generator's state and its :attr:`~CardGame.dealt_holding`, so it plays on as the batch."""
        index = check_int("index", index, 0, self.batch_size - 1)
        game = self._new_engine()
        game.load_state_dict(self.kernels.state_dict(index), dealt_holding=float(self.dealt_holding[index]))
        game.seed = int(self.seeds[index])
        game.rng = np.random.Generator(np.random.PCG64())
        game.rng.bit_generator.state = self._generator_objects[index].bit_generator.state
        return game

    def state_dict(self, index: int) -> dict[str, Any]:
        """The reference engine's ``state_dict()`` of game ``index``."""
        return self.kernels.state_dict(check_int("index", index, 0, self.batch_size - 1))

    def load(
        self,
        index: int,
        state: dict[str, Any],
        *,
        seed: int | None = None,
        generator: np.random.Generator | None = None,
    ) -> None:
        """Put ``state`` (a ``state_dict()``) into game ``index``, to play on from there.

        The state is checked by a reference engine's ``load_state_dict`` first: one it refuses
        raises ValueError and leaves the batch unchanged. The game then plays on exactly as a
        reference engine that loaded ``state`` and whose ``rng`` is in the state of the game's
        generator: seeded with ``seed`` as ``CardGame.reset(seed)`` seeds one (``seeds[index]``
        becomes ``seed``), set to the state of ``generator`` (copied, not advanced), or, with
        neither, kept as it was (as ``load_state_dict`` keeps ``rng``). Its step count starts
        again at 0, and :meth:`CardGame.progress` counts from the loaded position, as in the
        reference. A loaded game that is over decides nothing until it is dealt again.
        """
        index = check_int("index", index, 0, self.batch_size - 1)
        if seed is not None and generator is not None:
            raise ValueError("pass a seed or a generator for the loaded game, not both")
        if seed is not None:
            seed = check_int("seed", seed, 0, SEED_BOUND - 1)
        if generator is not None and not isinstance(
            getattr(generator, "bit_generator", None), np.random.PCG64
        ):
            raise ValueError(
                f"generator must be a numpy Generator over PCG64 (np.random.default_rng), got {generator!r}"
            )
        game = self._new_engine()
        game.load_state_dict(state)
        self.kernels.load(index, game.state_dict())
        own = self._generator_objects[index].bit_generator
        if seed is not None:
            own.state = np.random.PCG64(seed).state
            self.seeds[index] = seed
        elif generator is not None:
            own.state = generator.bit_generator.state
        self.steps[index] = 0
        self.dealt_holding[index] = game.dealt_holding
        self.kernels.write(np.array([index], np.int64), self.observations, self.masks, self.current_players)

    def load_engine(self, index: int, game: CardGame) -> None:
        """Put a reference engine's position into game ``index``: :meth:`load` of its
        ``state_dict()`` with its generator and :attr:`~CardGame.dealt_holding`, without checking
        the state again (an engine holds only states its loader or its rules accepted), so a
        search rolls out many positions cheaply. The engine itself is left as it was."""
        index = check_int("index", index, 0, self.batch_size - 1)
        if not isinstance(game, type(self.reference)) or game.num_players != self.num_players:
            raise ValueError(f"game {game.name!r} with {game.num_players} players does not fit {self!r}")
        if game.rules != self.reference.rules:
            raise ValueError(f"game rules {game.rules!r} differ from this batch's {self.reference.rules!r}")
        fast = getattr(self.kernels, "load_engine", None)
        if fast is not None:
            fast(index, game)
        else:
            self.kernels.load(index, game.state_dict())
        self._generator_objects[index].bit_generator.state = game.rng.bit_generator.state
        self.seeds[index] = game.seed
        self.steps[index] = 0
        self.dealt_holding[index] = game.dealt_holding
        self.kernels.write(np.array([index], np.int64), self.observations, self.masks, self.current_players)

    def copy_row(self, source: int, rows: Any) -> None:
        """Make each game of ``rows`` an exact copy of game ``source``: its state, generator,
        deal seed, step count, observation, mask and decider (a search plays several moves
        from one loaded position this way, each in a row of its own)."""
        source = check_int("source", source, 0, self.batch_size - 1)
        rows = self._check_rows(rows)
        arrays = getattr(self.kernels, "state", None)
        if isinstance(arrays, tuple):
            for array in arrays:
                array[rows] = array[source]
        else:
            state = self.kernels.state_dict(source)
            for row in rows.tolist():
                self.kernels.load(row, state)
        generator = self._generator_objects[source].bit_generator.state
        for row in rows.tolist():
            self._generator_objects[row].bit_generator.state = generator
        for per_game in (self.seeds, self.steps, self.dealt_holding, self.observations, self.masks):
            per_game[rows] = per_game[source]
        self.current_players[rows] = self.current_players[source]

    def _new_engine(self) -> CardGame:
        """A fresh reference engine of this batch's table and rules."""
        return self.reference.from_rules(self.num_players, **self.reference.rules)

    # ------------------------------------------------------------------ checks
    def _check_rows(self, rows: Any) -> np.ndarray:
        if rows is None:
            return self.all_rows
        rows = np.asarray(rows)
        if rows.ndim != 1 or rows.dtype.kind not in "iu":
            raise ValueError(f"rows must be a 1-d array of game indices, got {rows!r}")
        if rows.size and (rows.min() < 0 or rows.max() >= self.batch_size):
            raise ValueError(f"rows must be game indices in 0..{self.batch_size - 1}, got {rows!r}")
        if np.unique(rows).size != rows.size:
            raise ValueError("rows must not repeat a game: each game takes one action per step")
        return rows.astype(np.int64)

    def _check_actions(self, actions: Any, rows: np.ndarray) -> np.ndarray:
        actions = np.asarray(actions)
        if actions.shape != rows.shape or (actions.size and actions.dtype.kind not in "iu"):
            raise IllegalActionError(
                f"actions must be {rows.size} ints (one per game stepped),"
                f" got {actions.dtype} of shape {actions.shape}"
            )
        actions = actions.astype(np.int64)
        in_range = (actions >= 0) & (actions < self.num_actions)
        legal = in_range & (self.masks[rows, np.where(in_range, actions, 0)] == 1)
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            row, action = int(rows[i]), int(actions[i])
            choices = ", ".join(
                f"{a} ({self.reference.describe_action(int(a))})" for a in np.flatnonzero(self.masks[row])
            )
            what = (
                f"out of range 0..{self.num_actions - 1}"
                if not in_range[i]
                else f"not legal for player {self.current_players[row]}"
            )
            raise IllegalActionError(
                f"game {row}: action {action} is {what}; legal: {choices or 'none (the game has ended)'}"
            )
        return actions
