"""An UNO table as cards, for ``render_mode="rgb_array"``: the words and colours are those of :mod:`.text`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from card_envs.core.view import Card, TableView, Zone
from card_envs.games.uno import cards as C
from card_envs.games.uno import text
from card_envs.games.uno.state import Table

if TYPE_CHECKING:
    from card_envs.games.uno.engine import UnoGame


def table_view(game: UnoGame, seat: int | None) -> TableView:
    """Header, the top card and the draw pile, one zone per seat (others' hands face down for a seat)."""
    s = game.state_view()
    decision = (
        text.decision(game, s, seat, text.PLAIN) if s.winner is None else text.round_over(game, s.winner)
    )
    header = f"UNO, {s.num_players} players | {text.direction(s)} | {decision}"
    ranks = None if s.winner is None else game.final_ranks()
    players = [_player(game, s, p, seat, ranks) for p in range(game.num_players)]
    return TableView(header, [_top(s), _draw_pile(s)], players)


def card(t: int) -> Card:
    return Card(C.CODES[t], text.card_paint(t))


def _top(s: Table) -> Zone:
    """The card to match, with the colour to play and a Draw Two / Draw Four stack waiting."""
    note = "colour not named yet" if s.colour is None else f"colour {C.COLOUR_NAMES[s.colour]}"
    if s.pending:
        note += f" | stack {s.pending}"
    return Zone("top card", [card(s.top)], note)


def _draw_pile(s: Table) -> Zone:
    size = len(s.draw_pile)
    return Zone("draw pile", [Card(face_down=True)] if size else [], f"{size} card{'' if size == 1 else 's'}")


def _player(game: UnoGame, s: Table, p: int, seat: int | None, ranks: list[int] | None) -> Zone:
    """A seat's hand in type order, as the text lists it; face down where this view may not see it.
    At the end its rank (the text's header lists them all: too long for a picture's one line)."""
    tags = text.player_tags(game, s, p)
    if ranks is not None and p != s.winner:
        tags.insert(1, text.ordinal(ranks[p]))
    hidden = seat not in (None, p)
    hand = [Card(face_down=True) if hidden else card(t) for t, k in enumerate(s.hands[p]) for _ in range(k)]
    title = text.name(p) + (" (you)" if p == seat else "")
    deciding = s.winner is None and p == game.current_player
    return Zone(title, hand, ", ".join(tags), highlight=deciding)
