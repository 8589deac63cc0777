"""Whole play-outs in one compiled call: a game's row functions and a player's row act, looped.

A search values a leaf by playing its game to the end; stepping many rows from Python costs
far more around each step than the compiled rules inside it. Here the loop itself is compiled:
it takes the game's per-row functions (its kernels' ``row_functions()``) and the player's
per-row act (its twin's ``row_act()``) as arguments, so one loop serves every game and player.

Numba specialises the loop for each combination of functions it is handed (a dispatcher
argument is a type of its own), so it compiles once per game and player kind in a process.
It is not cached on disk: a dispatcher's type names the object, which differs in every
process, so a cache would never hit (and would grow on every run); the first play-out of a
combination compiles it (about a second, the row functions themselves come from their caches).
"""

from __future__ import annotations

from numba import njit


@njit
def play_rows(game, player, rows, gens, observations, masks, current, steps, max_steps, ranks, truncated):
    """Play each game ``rows[i]`` to its end as :meth:`BatchedGame.step` steps it, one action at
    a time by the deciding seat's player; ``ranks[i]``/``truncated[i]`` as ``step()`` gives them
    at the end.

    ``game`` = ``(k, step1, write1, over1, ranks1)``, ``player`` = ``(seat_a, act1)``: one act
    for every seat, with each seat's own knobs ``seat_a[seat]`` (a tuple of one ``a`` per seat,
    all of one type: the same kind of player at different knobs). Each row's observation, mask,
    decider and step count are kept as ``step()`` leaves them (a truncated row's mask emptied),
    and it draws only from its own generator, in the same order.
    """
    k, step1, write1, over1, ranks1 = game
    seat_a, act1 = player
    for i in range(rows.size):
        b = rows[i]
        gen = gens[b]
        while True:
            step1(k, b, act1(seat_a[current[b]], observations[b], masks[b], gen), gen)
            steps[b] += 1
            over = over1(k, b)
            current[b] = write1(k, b, observations[b], masks[b])
            if over:
                break
            if steps[b] >= max_steps:
                truncated[i] = True
                masks[b, :] = 0
                break
        ranks1(k, b, truncated[i], ranks[i])
