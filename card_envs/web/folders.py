"""Paths a request names, kept inside the folders the server was started with.

A request names a record, a report or a run by a path relative to one of the server's
folders (``--records``, ``--reports``, ``--runs``); anything that resolves outside them
(``../``, an absolute path, a symbolic link out) is refused with :class:`OutsideFoldersError`,
which the app answers with 403. The folders are resolved once, at start.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path


class OutsideFoldersError(ValueError):
    """A path that is not inside any of the allowed folders (or names no file there)."""


@dataclass(frozen=True)
class Folders:
    """The folders of one kind (records, reports or runs) a server may read from."""

    kind: str
    roots: tuple[Path, ...]

    @classmethod
    def of(cls, kind: str, paths: Sequence[str | Path]) -> Folders:
        return cls(kind, tuple(Path(p).expanduser().resolve() for p in paths))

    def resolve(self, name: str) -> Path:
        """The path ``name`` names: ``ROOT_INDEX/relative`` or an absolute path inside a root."""
        if not isinstance(name, str) or not name or "\x00" in name:
            raise OutsideFoldersError(f"a {self.kind} path must be a non-empty string, got {name!r}")
        if not self.roots:
            raise OutsideFoldersError(f"the server was started without {self.kind} folders (--{self.kind})")
        candidate = Path(name)
        if not candidate.is_absolute():
            index, _, rest = name.partition("/")
            if not index.isdigit() or int(index) >= len(self.roots):
                raise OutsideFoldersError(
                    f"{self.kind} path {name!r} must start with a folder number 0..{len(self.roots) - 1}"
                )
            candidate = self.roots[int(index)] / rest
        resolved = candidate.resolve()
        if not any(resolved == root or root in resolved.parents for root in self.roots):
            raise OutsideFoldersError(
                f"{self.kind} path {name!r} is outside this server's {self.kind} folders"
            )
        return resolved

    def name_of(self, path: Path) -> str:
        """The name a request uses for ``path`` (inside root ``i``: ``"i/relative"``)."""
        for index, root in enumerate(self.roots):
            if path == root or root in path.parents:
                relative = path.relative_to(root).as_posix()
                return str(index) if relative == "." else f"{index}/{relative}"
        raise OutsideFoldersError(f"{path} is outside the {self.kind} folders of this server")

    def label_of(self, path: Path) -> str:
        """How the page names ``path``: under its folder's own name (``runs/uno-4p``), not its number."""
        index, _, rest = self.name_of(path).partition("/")
        return "/".join(part for part in (self.roots[int(index)].name, rest) if part)

    def files(self, pattern: str, limit: int = 500) -> Iterator[Path]:
        """Files matching ``pattern`` under every root, sorted, at most ``limit`` of them."""
        count = 0
        for root in self.roots:
            for path in sorted(root.rglob(pattern)):
                resolved = path.resolve()
                if not any(resolved == r or r in resolved.parents for r in self.roots):
                    continue  # a link out of the folders
                yield path
                count += 1
                if count >= limit:
                    return
