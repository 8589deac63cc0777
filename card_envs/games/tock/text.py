"""Plain text of a Tock table: ``describe_action`` and ``render_text``."""

from __future__ import annotations

from card_envs.games.tock.cards import MAX_ROWS
from card_envs.games.tock.encoding import CENTRE, DRAW, KNOCK, OWN_PILE, PASS
from card_envs.games.tock.state import Table


def seat_name(seat: int) -> str:
    return f"player_{seat}"


def describe_action(table: Table, action: int) -> str:
    """What ``action`` would do now, in words (for errors, logs and rendering)."""
    card, _ = table.card_in_play() if table.phase == "play" else (None, None)
    what = f"play {card}" if card is not None else "play the card"
    if action == CENTRE:
        return f"{what} to the centre"
    if CENTRE < action < DRAW:
        seat = (table.turn + action) % table.num_players
        where = f" ({seat_name(seat)})" if action < table.num_players else " (no such seat)"
        return f"{what} onto the open pile {action} seat(s) to the left{where}"
    if action == DRAW:
        if not table.supply and not table.stacks[table.turn]:
            return "turn the own open pile over and draw its top card"
        return "draw a face-down card" if table.supply else "draw from the own stack"
    if action == OWN_PILE:
        return f"put the drawn card{'' if card is None else f' {card}'} on the own open pile"
    if action == KNOCK:
        return "knock (TOCK!)"
    if action == PASS:
        return "pass (no knock)"
    return f"action {action} (unknown)"


def render(table: Table) -> str:
    """A picture of the table: the centre rows, every seat's pile and stack, the last move."""
    n = table.num_players
    head = f"Tock, {n} players | turn: {seat_name(table.turn)} | phase: {table.phase}"
    if table.phase == "knock":
        head += f" ({seat_name(table.current_player)} decides KNOCK or PASS)"
    head += f" | supply: {len(table.supply)}"
    rows = " ".join(f"{top:2d}" for top in table.centre) + " .." * (MAX_ROWS - len(table.centre))
    lines = [head, f"Centre rows: {rows}"]
    for s in range(n):
        mark = ">" if s == table.turn and table.phase != "over" else " "
        pile = table.piles[s]
        top = f"top {pile[-1]:2d}" if pile else "empty "
        stack = len(table.stacks[s])
        line = f"{mark} {seat_name(s):9s} open pile {len(pile):3d} ({top})  stack {stack:3d}"
        if s == table.turn and table.drawn is not None:
            line += f"  drawn: {table.drawn}"
        if not table.alive[s]:
            line += f"  finished, rank {table.finish_ranks[s]}"
        if table.ranks is not None:
            line += f"  final rank {table.ranks[s]}"
        lines.append(line)
    move = table.move
    if move is not None:
        if move.action == DRAW:
            text = "drew a card"
        elif move.action == CENTRE:
            text = f"played {move.card} to the centre"
        elif move.action == OWN_PILE:
            text = f"put {move.card} on the own pile"
        else:
            text = f"played {move.card} onto {seat_name(move.target)}'s pile"
        flag = " (RULE BREAK)" if move.rule_break else ""
        lines.append(f"Last move: {seat_name(move.player)} {text}{flag}")
    last = table.last_action
    if last is not None and last.action in (KNOCK, PASS):
        verb = "knocked: TOCK!" if last.action == KNOCK else "passed"
        lines.append(f"Last action: {seat_name(last.player)} {verb}")
    return "\n".join(lines)
