"""Plain-text picture of a Chip It table (``render_text``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from card_envs.games.chipit.cards import CODES, card_cost, card_value
from card_envs.games.chipit.state import hand_codes

if TYPE_CHECKING:
    from card_envs.games.chipit.engine import ChipItGame


def _shown(cards: list[tuple[int, int]]) -> str:
    if not cards:
        return "-"
    value = card_value(*cards[0])
    return " ".join(f"{CODES[t]}+{c}" for t, c in cards) + f" (= {value})"


def render(game: ChipItGame) -> str:
    phase = game.phase
    lines = [
        f"Chip It, {game.num_players} players | phase {phase} | supply {game.supply} points"
        + ("" if phase == "over" else f" | seat {game.current_player} to act")
    ]
    if game.last is None:
        lines.append("To beat: nothing (a lead is due)")
    else:
        seat, count, value = game.last
        lines.append(
            f"To beat: {count} card(s) at {value}, played by seat {seat}; passes since: {game.passes}"
        )
    for p in range(game.num_players):
        mark = ">" if p == game.current_player and phase != "over" else " "
        status = f" finished #{game.finished.index(p) + 1}" if game.is_finished[p] else ""
        lines.append(
            f"{mark} seat {p}: chips {game.held[p]:3d} | out: {_shown(game.display[p])}{status}\n"
            f"    hand ({game.hand_sizes[p]}): {' '.join(hand_codes(game.hands[p])) or '-'}"
        )
    b = game.build
    if b is not None:
        value = b["value"]
        chosen = " ".join(f"{CODES[t]}+{card_cost(t, value)}" for t in b["cards"]) or "no cards yet"
        what = f"value {value}" if value is not None else f"value block {b['block']}..{b['block'] + 9}"
        lines.append(f"  building: {what}; {chosen}; {b['chips']} chip point(s)")
    if game.ranks is not None:
        lines.append(f"Ranks: {game.ranks}")
    return "\n".join(lines)
