"""Play a game yourself, or watch agents play, in a terminal: the library side of
``python -m card_envs.cli.play`` and ``python -m card_envs.cli.watch``.

Both run the one play loop (:func:`card_envs.core.play.play_game`, as tournaments do),
so a seed gives the same deal and the same opponents' choices as anywhere
else; a person is one more :class:`~card_envs.core.policy.Policy` at the table.
Input and output are functions (``input``/``print`` by default) so tests can
drive a whole game with scripted answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from card_envs.core.choices import Choice, ChoiceGroup
from card_envs.core.game import CardGame
from card_envs.core.play import play_game
from card_envs.core.policy import Policy

Read = Callable[[str], str]
Write = Callable[[str], None]


class PlayerQuitError(Exception):
    """The person at the table asked to stop (``q``, end of input)."""


class HumanPlayer(Policy):
    """Shows ``seat``'s view of the table and the moves it may choose, and asks for one.

    The moves are the game's :meth:`~card_envs.core.game.CardGame.move_choices`: groups of
    numbered choices, each with its consequence; an inner choice (marked ``...``) opens the
    next step of a play built in parts, and ``b`` goes back a step; a choice marked ``!``
    (a rule break, a costly play) is played only once confirmed. A forced move (the only
    legal one) is made without asking, and said with its consequence; bad answers are asked
    again; ``?`` shows the card codes; ``q`` (or the end of input) raises
    :class:`PlayerQuitError`.
    """

    def __init__(
        self, game: CardGame, seat: int, read: Read = input, write: Write = print, color: bool = False
    ) -> None:
        self.game, self.seat, self.read, self.write, self.color = game, seat, read, write, color

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        game = self.game
        self.write("\n" + game.render_text(self.seat, color=self.color))
        groups = game.move_choices()
        leaves = [leaf for group in groups for leaf in group.leaves()]
        if len(leaves) == 1:  # forced moves (a draw, a pass) are made for you, and said
            self.write(f"your only move: {with_note(leaves[0])}")
            return int(leaves[0].action)  # type: ignore[arg-type]  # a leaf has an action
        self.write(f"{game.player_name(self.seat)} (you), your decision ({game.phase}):")
        steps: list[tuple[ChoiceGroup, ...]] = [tuple(groups)]
        while True:
            choices = self._show(steps[-1])
            back = ", b back" if len(steps) > 1 else ""
            answer = self._ask(f"your move [1-{len(choices)}{back}, ? codes, q quit]: ")
            if answer in ("q", "quit", "exit"):
                raise PlayerQuitError
            if answer == "?":
                self.write(game.legend() or "(this game has no card codes to explain)")
                continue
            if answer in ("b", "back") and len(steps) > 1:
                steps.pop()
                continue
            if not (answer.isdigit() and 1 <= int(answer) <= len(choices)):
                self.write(f"{answer!r} is not a move: type a number from 1 to {len(choices)}{back}")
                continue
            choice = choices[int(answer) - 1]
            if choice.then:
                steps.append(choice.then)
            elif not choice.warn or self._confirm(choice):
                return int(choice.action)  # type: ignore[arg-type]  # a leaf has an action

    def _show(self, groups: tuple[ChoiceGroup, ...]) -> list[Choice]:
        """Write the groups with their choices numbered on from 1; return the choices in that order."""
        shown: list[Choice] = []
        for group in groups:
            if group.title:
                self.write(f"  {group.title}:")
            for choice in group.choices:
                shown.append(choice)
                mark = "!" if choice.warn else " "
                more = " ..." if choice.then else ""
                self.write(f"  {len(shown):>3}{mark} {with_note(choice)}{more}")
        return shown

    def _confirm(self, choice: Choice) -> bool:
        """Ask before a marked choice; anything but yes goes back to the list."""
        answer = self._ask(f"{with_note(choice)}: play it? [y/N] ")
        return answer in ("y", "yes")

    def _ask(self, prompt: str) -> str:
        try:
            return self.read(prompt).strip().lower()
        except EOFError:
            raise PlayerQuitError from None

    def __repr__(self) -> str:
        return "you"


def with_note(choice: Choice) -> str:
    """A choice's label and, after a dash, its consequence."""
    return f"{choice.label} - {choice.note}" if choice.note else choice.label


def ordinal(rank: int) -> str:
    return f"{rank}{'st' if rank == 1 else 'nd' if rank == 2 else 'rd' if rank == 3 else 'th'}"


def seating(game: CardGame, names: Sequence[str]) -> str:
    """Who plays each seat: ``player_0: you, player_1: rule, ...``."""
    return ", ".join(f"{game.player_name(s)}: {name}" for s, name in enumerate(names))


def result_lines(game: CardGame, ranks: list[int], names: Sequence[str]) -> list[str]:
    """One line per seat, best first: ``1st  player_2 (rule)``."""
    order = sorted(range(len(ranks)), key=lambda seat: (ranks[seat], seat))
    return [f"  {ordinal(ranks[s]):>4}  {game.player_name(s)} ({names[s]})" for s in order]


def play_against(
    game: CardGame,
    seat: int,
    opponents: Sequence[Policy],
    seed: int,
    read: Read = input,
    write: Write = print,
    color: bool = False,
    names: Sequence[str] | None = None,
) -> list[int]:
    """A person plays ``seat``; ``opponents`` fill the other seats in seat order. Returns the ranks.

    ``names``: how to call each opponent (default: its repr).

    Every opponent's move is shown as it happens, the person's own as a line
    after their choice; raises :class:`PlayerQuitError` if they stop.
    """
    human = HumanPlayer(game, seat, read, write, color)
    others = iter(opponents)
    policies = [human if s == seat else next(others) for s in range(game.num_players)]
    labels = iter(names or [repr(p) for p in opponents])
    seat_names = ["you" if s == seat else next(labels) for s in range(game.num_players)]

    def deal(game: CardGame) -> None:
        write(f"you are {game.player_name(seat)}; " + seating(game, seat_names))

    def show(game: CardGame, mover: int) -> None:
        write(("  you: " if mover == seat else "  ") + game.last_move())

    rng = np.random.default_rng(seed)
    outcome = play_game(game, policies, rng, on_deal=deal, on_move=show)
    write("\n" + game.render_text(None, color=color))
    write("the game hit the step cap; ranks by cards held:" if outcome.truncated else "game over:")
    write("\n".join(result_lines(game, outcome.ranks, seat_names)))
    return outcome.ranks


def watch(
    game: CardGame,
    policies: Sequence[Policy],
    seed: int,
    write: Write = print,
    pace: float = 0.0,
    step: Read | None = None,
    seat: int | None = None,
    color: bool = False,
    names: Sequence[str] | None = None,
) -> list[int]:
    """Agents play one game, shown move by move: the table (``seat``'s view, or all of it)
    after each action, ``pace`` seconds apart, or at each Enter when ``step`` reads input.
    ``names``: how to call each agent (default: its repr)."""
    names = list(names or [repr(p) for p in policies])

    def table(game: CardGame) -> str:
        """The table as ``seat`` sees it; nobody watching is that seat, so it is not "you"."""
        return (
            game.render_text(seat, color=color)
            .replace(" (you)", " (watched)")
            .replace(", you)", ", watched)")
        )

    def show(game: CardGame, mover: int) -> None:
        write("\n" + table(game))
        if step is not None:
            try:
                answer = step("[Enter: next move, q: quit] ")
            except EOFError:
                raise PlayerQuitError from None
            if answer.strip().lower() in ("q", "quit"):
                raise PlayerQuitError
        elif pace > 0:
            time.sleep(pace)

    def deal(game: CardGame) -> None:
        write(seating(game, names) + "\n\n" + table(game))

    rng = np.random.default_rng(seed)
    outcome = play_game(game, policies, rng, on_deal=deal, on_move=show)
    write(("stopped at the step cap:" if outcome.truncated else "game over:") + "\n")
    write("\n".join(result_lines(game, outcome.ranks, names)))
    return outcome.ranks
