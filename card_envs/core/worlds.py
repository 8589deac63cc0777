"""Sampling what a seat cannot see: the seat's information view and the deal of its unknown cards.

A search agent that plans under hidden cards needs complete positions that agree
with everything one seat knows (determinization). Each game describes that
knowledge as a :class:`SeatView`; :func:`deal_unknown` hands the unknown cards
out uniformly at random; :meth:`card_envs.core.game.CardGame.sample_world`
loads the result into a fresh engine.

A view is built from the engine's true state with an explicit list of what is
public (each game's ``_seat_view`` says which fields it keeps), not from the
seat's observation vector alone: the observation of some games shows only
counts or tops of things the rules make public history (an UNO discard pile,
a Tock open pile). Hidden slots are read only for their sizes and for the
*sorted multiset* of the cards in them all together, which in a full deal is
the deck less what the seat sees; so no placement or order of hidden cards can
reach a sample. The leakage tests (tests/test_sample_world.py) check this.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: a card as a game's ``state_dict()`` writes it (a code such as ``"R5"``, or a number)
Card = Any
#: builds a full ``state_dict()`` from the cards dealt to each hidden slot (in slot order)
Filler = Callable[[list[list[Card]]], dict[str, Any]]


@dataclass(frozen=True)
class HiddenSlot:
    """A place holding cards the seat cannot see: another hand, a draw pile, cards out of play.

    ``size`` counts its unknown cards; cards the seat knows to be there (a drawn
    card everybody saw) are not in the slot but kept by the view's filler.
    """

    name: str
    size: int


@dataclass(frozen=True)
class SeatView:
    """What one seat knows of a position: everything but the unknown cards and where they lie.

    ``unknown`` is the multiset of cards the seat cannot place, sorted (so it
    says nothing of where they are); ``slots`` the places that hold them, their
    sizes adding up to ``len(unknown)``; ``fill`` writes the full state from one
    deal of them. ``note`` says what the game's sampler treats as known.
    """

    unknown: list[Card]
    slots: list[HiddenSlot]
    fill: Filler
    note: str = ""
    sizes: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        sizes = tuple(slot.size for slot in self.slots)
        if sum(sizes) != len(self.unknown):
            raise ValueError(
                f"the hidden slots {[(s.name, s.size) for s in self.slots]} hold {sum(sizes)} cards,"
                f" but {len(self.unknown)} are unknown"
            )
        object.__setattr__(self, "sizes", sizes)


def plain_copy(value: Any) -> Any:
    """A copy of ``state_dict()``-shaped data: dicts and lists copied, their leaves (ints,
    strings, cards) shared, as they are immutable; several times faster than ``copy.deepcopy``,
    which a search pays once per sampled world."""
    if isinstance(value, dict):
        return {key: plain_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain_copy(item) for item in value]
    return value


def canonical(cards: Sequence[Card]) -> list[Card]:
    """The cards in a fixed order that depends only on the multiset (by type, then value)."""
    return sorted(cards, key=lambda c: (type(c).__name__, c))


def deal_unknown(view: SeatView, rng: np.random.Generator) -> list[list[Card]]:
    """One uniformly random deal of the view's unknown cards into its slots (slot order)."""
    order = rng.permutation(len(view.unknown))
    cards = [view.unknown[i] for i in order]
    parts, start = [], 0
    for size in view.sizes:
        parts.append(cards[start : start + size])
        start += size
    return parts


def hands_and_pile_view(
    public: dict[str, Any],
    seat: int,
    pile: str,
    known: tuple[int | None, list[Card]],
    finish: Callable[[dict[str, Any]], dict[str, Any]],
    note: str,
) -> SeatView:
    """The view of a game of hands: the other ``hands`` and the face-down ``pile`` hold the unknown cards.

    ``public`` is the true ``state_dict()``, read only for what the seat may see,
    the slot sizes and the multiset of hidden cards; ``known`` is a seat and cards
    every seat knows it holds (None: none), which stay in its hand; ``finish``
    rewrites what follows from the dealt hands (it gets a copy to change).
    """
    holder, held = known
    others = [p for p in range(len(public["hands"])) if p != seat]
    unknown: list[Card] = []
    slots = []
    for p in others:
        hand = list(public["hands"][p])
        if p == holder:
            for card in held:
                hand.remove(card)
        unknown += hand
        slots.append(HiddenSlot(f"hands[{p}]", len(hand)))
    unknown += public[pile]
    slots.append(HiddenSlot(pile, len(public[pile])))

    def fill(parts: list[list[Card]]) -> dict[str, Any]:
        state = plain_copy(public)
        for p, cards in zip(others, parts, strict=False):
            state["hands"][p] = canonical(cards + (held if p == holder else []))
        state[pile] = parts[-1]
        return finish(state)

    return SeatView(canonical(unknown), slots, fill, note)
