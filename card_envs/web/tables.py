"""A game as JSON for the page: the table as zones of cards, the moves to pick, the end.

Everything the page draws comes from the engine: :meth:`CardGame.table_view` (zones of
cards, :mod:`card_envs.core.view`), :meth:`CardGame.move_choices` (the legal moves as a
person picks them, :mod:`card_envs.core.choices`), :meth:`CardGame.last_move` (what a move
did, in words), the ranks and :meth:`CardGame.player_info` (points, chips) at the end.
"""

from __future__ import annotations

from typing import Any

from card_envs.core.game import CardGame
from card_envs.core.view import Card, TableView, Zone


def card_json(card: Card) -> dict[str, Any]:
    return {"label": card.label, "color": card.color, "face_down": card.face_down}


def zone_json(zone: Zone) -> dict[str, Any]:
    cards = [card_json(card) for card in zone.cards]
    return {"title": zone.title, "cards": cards, "note": zone.note, "highlight": zone.highlight}


def view_json(view: TableView) -> dict[str, Any]:
    """The view as plain data (written out: ``dataclasses.asdict`` deep-copies every field,
    and took most of a move's time)."""
    return {
        "header": view.header,
        "centre": [zone_json(zone) for zone in view.centre],
        "players": [zone_json(zone) for zone in view.players],
        "footer": view.footer,
    }


def table_json(game: CardGame, seat: int | None, text: bool = False) -> dict[str, Any]:
    """What ``seat`` sees of the table (None: all of it) as zones of cards; as text for a game
    that has no drawn view (``text``: always)."""
    view = game.table_view(seat)
    return {
        "view": None if view is None else view_json(view),
        "text": game.render_text(seat) if text or view is None else None,
    }


def result_json(game: CardGame, names: list[str], truncated: bool) -> dict[str, Any] | None:
    """The end of a game: each seat's rank and numbers (points, chips), None while it runs."""
    if not game.is_over and not truncated:
        return None
    ranks = game.truncation_ranks() if truncated and not game.is_over else game.final_ranks()
    return {
        "truncated": truncated and not game.is_over,
        "seats": [
            {
                "seat": s,
                "name": game.player_name(s),
                "who": names[s],
                "rank": ranks[s],
                "info": game.player_info(s),
            }
            for s in range(game.num_players)
        ],
    }


def frame_json(game: CardGame, seat: int | None, step: int, mover: int | None) -> dict[str, Any]:
    """The table after one move (step 0: the deal): who moved, what it did, the table as
    ``seat`` sees it, and who decides next."""
    return {
        "step": step,
        "player": mover,
        "move": game.last_move() if mover is not None else "the cards are dealt",
        "table": table_json(game, seat),
        "current": None if game.is_over else game.current_player,
        "phase": game.phase,
    }


def offered_actions(groups: list[dict[str, Any]]) -> list[int]:
    """Every action a choice tree in its JSON form offers, at any depth: what a client may
    post as a move (the tests and the load test pick from it)."""
    found: list[int] = []
    for group in groups:
        for choice in group["choices"]:
            found += [choice["action"]] if "action" in choice else offered_actions(choice["then"])
    return found
