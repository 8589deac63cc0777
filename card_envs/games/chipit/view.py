"""A Chip It table as cards, for ``render_mode="rgb_array"``: the words and colours are those of :mod:`.text`.

Hands are private (face down in a seat's view); the cards lying out are public
and follow a grey "out" card in their seat's row, with the chips on them (``G9`` over ``+2``).
"""

from __future__ import annotations

from card_envs.core.choices import plural
from card_envs.core.view import Card, TableView, Zone
from card_envs.games.chipit import text
from card_envs.games.chipit.arith import card_cost
from card_envs.games.chipit.cards import CODES
from card_envs.games.chipit.state import Build, Shown, Table

FACE_DOWN = Card(face_down=True)
OUT = Card("out", "grey")  # marks where a seat's cards lying out begin
NOTE_WIDTH = 30  # characters of a zone's note the picture shows


def table_view(table: Table, seat: int | None) -> TableView:
    """Header, what is to beat and the play being built, one zone per seat, the last move."""
    centre = [_to_beat(table), _building(table, table.build)]
    players = [_player(table, p, seat) for p in range(table.num_players)]
    return TableView(text.header(table, False), centre, players)


def card(t: int, chips: int) -> Card:
    """``G15`` over ``+2``: the text's ``G15+2`` is too wide for a drawn card on one line."""
    return Card(CODES[t] + (f"\n+{chips}" if chips else ""), text.card_paint(t))


def _shown(shown: list[Shown]) -> list[Card]:
    return [card(s.card, s.chips) for s in shown]


def _to_beat(table: Table) -> Zone:
    """The combination to beat with its chips, its count and value; the chips left in the supply."""
    supply = f"supply {table.supply}"
    last = table.last
    if last is None:
        return Zone("to beat", [], f"{'nothing' if table.ranks is not None else 'a new lead'} | {supply}")
    note = f"{plural(last.count, 'card')} at {last.value} | {supply}"
    return Zone(f"to beat: {text.name(last.seat)}", _shown(table.display[last.seat]), note)


def _building(table: Table, b: Build | None) -> Zone:
    """The play the decider is building, step by step: its value (or range of ten), the cards chosen."""
    if b is None:
        return Zone("play being built", [], "none")
    title = f"{text.name(table.current)}'s play"
    if b.value is None:
        assert b.block is not None  # phase units: a range of ten values was chosen
        return Zone(title, [], text.value_range(b.block))
    chosen = [card(t, card_cost(t, b.value) or 0) for t in b.cards]
    return Zone(title, chosen, f"at {b.value}: {text.progress(table, b)}")


def _player(table: Table, p: int, seat: int | None) -> Zone:
    """A seat's hand (face down where this view may not see it), then its cards lying out."""
    title = text.name(p) + (" (you)" if p == seat else "")
    deciding = p == table.current and table.ranks is None
    counts, out = table.hands[p], table.display[p]
    hidden = seat not in (None, p)
    hand = [FACE_DOWN if hidden else card(t, 0) for t in range(len(counts)) for _ in range(counts[t])]
    return Zone(title, hand + ([OUT, *_shown(out)] if out else []), _note(table, p), deciding)


def _note(table: Table, p: int) -> str:
    """Rank, cards and chips held, and the value lying out where the line has room for it."""
    if table.is_finished[p]:
        parts = [f"finished {text.ordinal(table.finished.index(p) + 1)}"]
    else:
        parts = [plural(table.hand_sizes[p], "card"), plural(table.held[p], "chip")]
        if table.ranks is not None:  # the text's "Final ranks" line, on each seat
            parts.insert(0, text.ordinal(table.ranks[p]))
    out = table.display[p]
    with_out = ", ".join([*parts, f"out = {out[0].value}"]) if out else ""
    return with_out if 0 < len(with_out) <= NOTE_WIDTH else ", ".join(parts)
