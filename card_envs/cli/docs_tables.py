"""Write the tables of the docs that code can write: the observation tables of
docs/<game>.md (each game's ObservationLayout) and the option table of docs/cli.md.

    python -m card_envs.cli.docs_tables        # rewrite the tables (python3 tasks.py docs)
    python -m card_envs.cli.docs_tables --check  # exit 1 if a table is out of date

The observation table is the layout's own ``markdown_table()`` for the game's default
table size, the option table :func:`card_envs.cli.options.options_table`, so code and docs
cannot drift apart.
"""

from __future__ import annotations

import re
from pathlib import Path

from card_envs.cli.args import Parser
from card_envs.core.registry import game_specs
from card_envs.core.spec import GameSpec

DOCS = Path(__file__).resolve().parents[2] / "docs"
TABLE = re.compile(r"^\| offset \| size \| field \| range \| meaning \|\n(?:\|.*\n)*", re.M)
OPTIONS_PAGE = DOCS / "cli.md"
OPTIONS_TABLE = re.compile(r"^\| tool \| option \|.*\n(?:\|.*\n)*", re.M)


def observation_table(spec: GameSpec) -> str:
    cls = spec.engine_class()
    return cls(cls.default_players).observation_layout.markdown_table() + "\n"


def documented_games() -> dict[str, Path]:
    """The registered games that have a docs page (the built-in ones)."""
    pages = {name: DOCS / f"{name}.md" for name in game_specs()}
    return {name: page for name, page in pages.items() if page.exists()}


def updated_page(spec: GameSpec, text: str) -> str:
    if not TABLE.search(text):
        raise ValueError(f"no observation table in the docs page of {spec.name!r}")
    return TABLE.sub(lambda _: observation_table(spec), text, count=1)


def updated_options_page(text: str) -> str:
    from card_envs.cli.options import options_table

    if not OPTIONS_TABLE.search(text):
        raise ValueError(f"no option table in {OPTIONS_PAGE.name}")
    return OPTIONS_TABLE.sub(lambda _: options_table(), text, count=1)


def main(argv: list[str] | None = None) -> int:
    parser = Parser("python -m card_envs.cli.docs_tables", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only report pages that are out of date")
    args = parser.parse_args(argv)
    stale = []
    pages = [
        (page, lambda text, name=name: updated_page(game_specs()[name], text))
        for name, page in documented_games().items()
    ]
    for page, update in [*pages, (OPTIONS_PAGE, updated_options_page)]:
        text = page.read_text()
        new = update(text)
        if new != text:
            stale.append(page.name)
            if not args.check:
                page.write_text(new)
    verb = "out of date" if args.check else "rewritten"
    print(f"{verb}: {', '.join(stale)}" if stale else "tables up to date")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
