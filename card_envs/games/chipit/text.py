"""Plain-text picture of a Chip It table (``render_text``)."""

from __future__ import annotations

from card_envs.games.chipit.cards import CODES, card_cost
from card_envs.games.chipit.encoding import BLOCK
from card_envs.games.chipit.state import Shown, Table, hand_codes


def _shown(cards: list[Shown]) -> str:
    if not cards:
        return "-"
    return " ".join(f"{CODES[s.card]}+{s.chips}" for s in cards) + f" (= {cards[0].value})"


def render(table: Table) -> str:
    phase = table.phase
    lines = [
        f"Chip It, {table.num_players} players | phase {phase} | supply {table.supply} points"
        + ("" if phase == "over" else f" | seat {table.current} to act")
    ]
    last = table.last
    if last is None:
        lines.append("To beat: nothing (a lead is due)")
    else:
        lines.append(
            f"To beat: {last.count} card(s) at {last.value}, played by seat {last.seat};"
            f" passes since: {table.passes}"
        )
    for p in range(table.num_players):
        mark = ">" if p == table.current and phase != "over" else " "
        status = f" finished #{table.finished.index(p) + 1}" if table.is_finished[p] else ""
        lines.append(
            f"{mark} seat {p}: chips {table.held[p]:3d} | out: {_shown(table.display[p])}{status}\n"
            f"    hand ({table.hand_sizes[p]}): {' '.join(hand_codes(table.hands[p])) or '-'}"
        )
    b = table.build
    if b is not None:
        if b.value is None:  # phase units: only the block is chosen
            assert b.block is not None
            what, chosen = f"value block {b.block}..{b.block + BLOCK - 1}", "no cards yet"
        else:
            value = b.value
            what = f"value {value}"
            chosen = " ".join(f"{CODES[t]}+{card_cost(t, value)}" for t in b.cards) or "no cards yet"
        lines.append(f"  building: {what}; {chosen}; {b.chips} chip point(s)")
    if table.ranks is not None:
        lines.append(f"Ranks: {table.ranks}")
    return "\n".join(lines)
