"""Argument and loaded-state checks shared by every engine: each raises ValueError naming the field.

A constructor keyword or a field of a loaded ``state_dict()`` is checked with
one of these, so every game rejects bad input with the same kind of message.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")


def check_choice(name: str, value: Any, allowed: Iterable[T]) -> T:
    """Return ``value`` if it is one of ``allowed``, else raise ValueError naming both."""
    options = list(allowed)
    if isinstance(value, bool) != isinstance(options[0], bool) or value not in options:
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


def check_int(name: str, value: Any, low: int, high: int) -> int:
    """Return ``value`` as an int if it is one in ``low..high``, else raise ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(f"{name} must be an int in {low}..{high}, got {value!r}")
    return int(value)


def check_float(name: str, value: Any, low: float, high: float) -> float:
    """Return ``value`` as a float if it is a real number in ``low..high``, else raise ValueError."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number in {low}..{high}, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be a number in {low}..{high}, got {value!r}")
    return float(value)


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` if it is a bool (not merely truthy), else raise ValueError naming it."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return bool(value)


def check_seat(name: str, value: Any, num_players: int) -> int:
    """A seat number ``0..num_players-1``."""
    return check_int(name, value, 0, num_players - 1)


def check_optional_seat(name: str, value: Any, num_players: int) -> int | None:
    """A seat number or None (e.g. no winner yet)."""
    return None if value is None else check_seat(name, value, num_players)


def check_list(name: str, value: Any, length: int | None = None) -> list[Any]:
    """``value`` as a list (a JSON array), of exactly ``length`` items when given."""
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{name} must be a list, got {value!r}")
    if length is not None and len(value) != length:
        raise ValueError(f"{name} must have {length} entries, got {len(value)}")
    return list(value)


def check_seats(name: str, value: Any, num_players: int, distinct: bool = True) -> list[int]:
    """A list of seat numbers (distinct unless told otherwise)."""
    seats = [check_seat(f"{name}[{i}]", s, num_players) for i, s in enumerate(check_list(name, value))]
    if distinct and len(set(seats)) != len(seats):
        raise ValueError(f"{name} must not repeat a seat, got {seats}")
    return seats


def check_per_seat(name: str, value: Any, num_players: int) -> list[Any]:
    """A list with one entry per seat."""
    return check_list(name, value, num_players)


def check_card_counts(name: str, counts: Iterable[int], deck: Iterable[int], exact: bool = True) -> None:
    """Conservation: the cards (or chips) of each kind in a state against the full set.

    ``exact`` asks for every card exactly once; otherwise a state may leave
    cards out (scenario tests) but never hold more of a kind than the set has.
    """
    held, full = list(counts), list(deck)
    wrong = [k for k, (h, f) in enumerate(zip(held, full, strict=True)) if h > f or (exact and h != f)]
    if wrong:
        shown = ", ".join(f"kind {k}: {held[k]} of {full[k]}" for k in wrong[:6])
        raise ValueError(f"{name} are not conserved ({shown})")


def check_writable_dir(path: str | Path, name: str = "folder") -> Path:
    """Create the folder ``path`` (and its parents) and check that a file can be written in it;
    else ValueError naming it, so a long run never fails at its end for want of a place to write."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".card_envs_write_check"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise ValueError(f"{name}: cannot write to {path}: {error.strerror or error}") from None
    return path
