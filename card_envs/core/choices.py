"""Legal moves as a person chooses them: short groups of choices, each saying what it does.

An action mask is made for networks; a person needs the moves grouped, in a sensible order,
each with its consequence (what it costs, whether it breaks a rule, what a knock would
cost), and plays that are built in parts (pick cards, then chips) offered step by step
rather than as hundreds of numbered actions. The terminal (:mod:`card_envs.cli.console`)
and the web page (:mod:`card_envs.web`) both show what :meth:`CardGame.move_choices`
returns, so neither writes a rule of its own. Every leaf choice plays one legal action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 card``, ``2 cards``; ``words`` for an irregular plural."""
    return f"{count} {word if count == 1 else words or word + 's'}"


@dataclass(frozen=True)
class Choice:
    """One thing a person may pick: a move (``action``) or a step towards one (``then``).

    Exactly one of ``action`` and ``then`` is set: a leaf plays ``action``; an inner choice
    opens the next step of a play built in parts (its ``then`` groups).
    """

    label: str
    #: the legal action this choice plays (None for an inner choice)
    action: int | None = None
    #: the consequence in a few words: a cost, the value reached, a knock's price
    note: str = ""
    #: the person should confirm it first (a rule break, an unusually costly play)
    warn: bool = False
    #: the next step's groups, for an inner choice
    then: tuple[ChoiceGroup, ...] = ()

    def __post_init__(self) -> None:
        if (self.action is None) == (not self.then):
            raise ValueError(f"choice {self.label!r} needs exactly one of action and then")

    def leaves(self) -> Iterator[Choice]:
        """The choices that play an action, at any depth below (or this one)."""
        if self.action is not None:
            yield self
        for group in self.then:
            yield from group.leaves()

    def to_json(self) -> dict[str, Any]:
        """Plain data for the web page (and tests)."""
        data: dict[str, Any] = {"label": self.label, "note": self.note, "warn": self.warn}
        if self.action is not None:
            data["action"] = self.action
        else:
            data["then"] = [group.to_json() for group in self.then]
        return data


@dataclass(frozen=True)
class ChoiceGroup:
    """Choices shown together under a title (e.g. "play", "rule breaks", "knock")."""

    title: str
    choices: tuple[Choice, ...] = field(default_factory=tuple)

    def leaves(self) -> Iterator[Choice]:
        for choice in self.choices:
            yield from choice.leaves()

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "choices": [choice.to_json() for choice in self.choices]}


def plain_choices(legal: list[int], describe: Any, title: str = "moves") -> list[ChoiceGroup]:
    """One group of every legal action, as the action mask orders them: the default of a game
    that does not group its moves (``describe`` is :meth:`CardGame.describe_action`)."""
    return [ChoiceGroup(title, tuple(Choice(describe(a), action=a) for a in legal))]


def leaf_actions(groups: list[ChoiceGroup]) -> list[int]:
    """Every action the groups offer, in the order shown (tests check it is the legal set)."""
    return [leaf.action for group in groups for leaf in group.leaves() if leaf.action is not None]


#: the most choices a step shows at once (a screen with the table above it)
SCREEN = 18


def paged(
    choices: list[Choice], label: Callable[[Choice, Choice], str], size: int = SCREEN
) -> tuple[Choice, ...]:
    """``choices`` as they are when they fit on a screen, else in runs of ``size`` behind
    inner choices (nested again if there are still too many), so no step is longer than a
    screen. ``label(first, last)`` names a run by its first and last leaf choice."""
    if len(choices) <= size:
        return tuple(choices)
    inner = []
    for start in range(0, len(choices), size):
        run = choices[start : start + size]
        title = label(next(run[0].leaves()), list(run[-1].leaves())[-1])
        inner.append(Choice(title, then=(ChoiceGroup(title, tuple(run)),)))
    return paged(inner, label, size)
