"""Write the tables of the docs that code can write: the env card and the observation table
of docs/<game>.md (each game's spec and ObservationLayout) and the option table of docs/cli.md.

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
CARD = re.compile(r"^\| env card \| \|\n(?:\|.*\n)*", re.M)
OPTIONS_PAGE = DOCS / "cli.md"
OPTIONS_TABLE = re.compile(r"^\| tool \| option \|.*\n(?:\|.*\n)*", re.M)


def observation_table(spec: GameSpec) -> str:
    cls = spec.engine_class()
    return cls(cls.default_players).observation_layout.markdown_table() + "\n"


def env_card(spec: GameSpec) -> str:
    """The facts a PettingZoo env page opens with, from the game's spec and engine."""
    cls = spec.engine_class()
    game = cls(cls.default_players)
    counts = spec.player_counts()
    rows = [
        ("import", f'`from card_envs import {spec.aec_name}`; `gymnasium.make("{spec.gym_id}")`'),
        (
            "agents",
            f"`player_0` .. `player_{{n-1}}`, n = {counts[0]}..{counts[-1]} (default {cls.default_players})",
        ),
        ("actions", f"`Discrete({game.num_actions})` at {cls.default_players} players"),
        ("observation", f"`Box({game.observation_size},)` float32, with an int8 `action_mask`"),
        ("reward", "the rank reward at the end: 1 for the first, -1 for the last, linear between"),
        ("render modes", "`ansi`, `human`, `rgb_array`"),
        ("version", f"v{spec.version}"),
    ]
    return "| env card | |\n|---|---|\n" + "".join(f"| {name} | {value} |\n" for name, value in rows)


def documented_games() -> dict[str, Path]:
    """The registered games that have a docs page (the built-in ones)."""
    pages = {name: DOCS / f"{name}.md" for name in game_specs()}
    return {name: page for name, page in pages.items() if page.exists()}


def updated_page(spec: GameSpec, text: str) -> str:
    if not TABLE.search(text):
        raise ValueError(f"no observation table in the docs page of {spec.name!r}")
    if not CARD.search(text):
        raise ValueError(f"no env card in the docs page of {spec.name!r}")
    text = CARD.sub(lambda _: env_card(spec), text, count=1)
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
