"""Named, documented fields of a flat observation vector.

A game declares its observation as a list of fields; the same object encodes
the vector, decodes it for scripted agents, gives the Box bounds, and prints
the table in ``docs/``. One definition, so code and docs cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Field:
    name: str
    size: int
    high: float
    doc: str
    low: float = 0.0


class ObservationLayout:
    """Offsets of the named fields in an observation vector."""

    def __init__(self, fields: list[Field]) -> None:
        self.fields = fields
        self.slices: dict[str, slice] = {}
        offset = 0
        for f in fields:
            if f.name in self.slices:
                raise ValueError(f"duplicate observation field {f.name!r}")
            self.slices[f.name] = slice(offset, offset + f.size)
            offset += f.size
        self.size = offset
        self.low = np.concatenate([np.full(f.size, f.low, np.float32) for f in fields])
        self.high = np.concatenate([np.full(f.size, f.high, np.float32) for f in fields])

    def new(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def starts(self, names: tuple[str, ...]) -> np.ndarray:
        """Where each named field begins (int64): what a compiled player reads the vector with."""
        return np.array([self.slices[name].start for name in names], dtype=np.int64)

    def view(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """The fields of ``vector`` by name (views, not copies)."""
        return {name: vector[s] for name, s in self.slices.items()}

    def markdown_table(self) -> str:
        rows = ["| offset | size | field | range | meaning |", "|---|---|---|---|---|"]
        for f in self.fields:
            s = self.slices[f.name]
            rows.append(f"| {s.start} | {f.size} | `{f.name}` | {f.low:g}..{f.high:g} | {f.doc} |")
        return "\n".join(rows)
