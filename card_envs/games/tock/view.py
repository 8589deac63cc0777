"""A Tock table as cards, for ``render_mode="rgb_array"``: the words and colours are those of :mod:`.text`.

Everything but the order of face-down cards is public in Tock, so a seat's view
differs from the full view only in the supply's next card (as in the text).
"""

from __future__ import annotations

from card_envs.core.view import Card, TableView, Zone
from card_envs.games.tock import text
from card_envs.games.tock.cards import MAX_ROWS, ROW_END
from card_envs.games.tock.state import Table

FACE_DOWN = Card(face_down=True)


def table_view(table: Table, seat: int | None) -> TableView:
    """Header, the centre rows and the supply, one zone per seat with its open pile, the last move."""
    header = f"Tock, {table.num_players} players | {text.decision(table)}"
    players = [_player(table, p, seat) for p in range(table.num_players)]
    return TableView(header, [_rows(table), _supply(table, seat)], players)


def _rows(table: Table) -> Zone:
    """Each centre row's top card, ``..`` for a row not opened yet (always six cards)."""
    cards = [Card(str(top), text.row_colour(top)) for top in table.centre]
    cards += [Card("..", "grey")] * (MAX_ROWS - len(table.centre))
    done = sum(top == ROW_END for top in table.centre)
    return Zone("centre rows", cards, f"{done} complete" if done else "")


def _supply(table: Table, seat: int | None) -> Zone:
    """The supply face down; its next card only in the full view, as in the text."""
    supply = table.supply
    note = f"{len(supply)} card{'' if len(supply) == 1 else 's'}"
    if seat is None and supply:
        note += f", next {supply[-1]}"
    return Zone("supply", [FACE_DOWN] if supply else [], note)


def _player(table: Table, p: int, seat: int | None) -> Zone:
    """A seat's open pile, bottom first and its top card (the one that plays) in yellow; the counts."""
    title = text.name(p) + (" (you)" if p == seat else "")
    deciding = table.phase != "over" and p == table.current_player
    if not table.alive[p]:
        return Zone(title, [], f"finished, rank {table.finish_ranks[p]}", deciding)
    pile = table.piles[p]
    shown = text.pile_shown(pile)
    cards = [Card(str(c)) if c else Card("..", "grey") for c in shown[:-1]]
    cards += [Card(str(c), "yellow") for c in shown[-1:]]
    note = f"open {len(pile)}, stack {len(table.stacks[p])}"
    if p == table.turn and table.drawn is not None and table.phase != "over":
        note += f", drawn {table.drawn}"
    if table.ranks is not None:
        note += f", rank {table.ranks[p]}"
    return Zone(title, cards, note, deciding)
