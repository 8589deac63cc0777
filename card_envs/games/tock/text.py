"""Tock as text a person can follow: ``describe_action``, ``render_text``, ``last_move`` and the legend.

The engine only stores small records of what happened (:class:`~.state.Move`,
:class:`~.state.LastAction`, the penalty, who just finished); every word is
made here, when text is asked for, so stepping stays fast. Text is built from
segments ``(text, colour)`` so the same words come out plain or in colour.
"""

from __future__ import annotations

from card_envs.core.choices import plural
from card_envs.core.colors import paint
from card_envs.core.game import CardGame
from card_envs.games.tock.cards import MAX_ROWS, ROW_END
from card_envs.games.tock.encoding import CENTRE, DRAW, KNOCK, OWN_PILE, PASS
from card_envs.games.tock.state import Move, Table

#: a piece of text and its colour (a key of ``card_envs.core.colors.CODES``, or None)
Segment = tuple[str, str | None]

name = CardGame.player_name
#: open piles longer than this show their bottom and top cards only (the count says how many)
PILE_SHOWN = 10
PILE_BOTTOM, PILE_TOP = 2, 6
#: face-down cards shown in the full view (the next ones to be drawn)
PEEK = 5
NAME_WIDTH = 15
PILE_WIDTH = 40

LEGEND = """\
Tock card codes:
  1..20   number cards, six of each; 21 is El Travieso (goes only onto an open 20, never to the centre)
  Centre rows: the top card of each row (a row with top t holds 1..t); .. a row not opened yet
  open N: a player's open pile, N cards, bottom first; [t] its top card, the one that plays;
          the bottom card is the one given away as a penalty; a long pile shows ".." for its middle
  supply: face-down cards left to draw; stack N: a player's own face-down stack (its turned-over
          open pile, drawn from once the supply is empty); the full view shows the next cards of both
  drawn c: the card the player on turn drew and has to place
  > the player who decides now; (you) the seat whose view this is
Moves: to the centre, onto an opponent's open pile (top card 1 higher or lower), draw,
  put the drawn card on the own pile, and after a move: knock (TOCK!: "that broke a rule") or pass."""


def _join(segments: list[Segment], color: bool) -> str:
    return "".join(paint(text, hue, color) for text, hue in segments)


def _plain(segments: list[Segment]) -> str:
    return "".join(text for text, _ in segments)


def _padded(segments: list[Segment], width: int) -> list[Segment]:
    """Pad by the visible length, so colour codes do not shift the columns."""
    return [*segments, (" " * max(1, width - len(_plain(segments))), None)]


# ------------------------------------------------------------------ actions
def describe_action(table: Table, action: int) -> str:
    """What ``action`` would do now, in words (for errors, logs and the list of moves)."""
    card, _ = table.card_in_play() if table.phase == "play" else (None, None)
    what = f"play {card}" if card is not None else "play the card"
    n = table.num_players
    if action == CENTRE:
        return f"{what} to the centre"
    if CENTRE < action < DRAW:
        if action >= n:
            return f"{what} onto the pile {action} seats to the left (no such seat)"
        seat = (table.turn + action) % n
        pile = table.piles[seat]
        return f"{what} onto {name(seat)}'s open pile ({f'top {pile[-1]}' if pile else 'empty'})"
    if action == DRAW:
        if not table.supply and not table.stacks[table.turn]:
            return "turn the own open pile over and draw its top card"
        return "draw the top card of the supply" if table.supply else "draw from the own stack"
    if action == OWN_PILE:
        return f"put the drawn card{'' if card is None else f' {card}'} on the own open pile (the turn ends)"
    if action == KNOCK:
        return "knock (TOCK!)"
    if action == PASS:
        return "pass (no knock)"
    return f"action {action} (unknown)"


# ---------------------------------------------------------------- last move
def last_move(table: Table) -> str:
    """One line on the last action and what it caused; "" before the first action."""
    return _plain(_last_move_segments(table))


def _last_move_segments(table: Table) -> list[Segment]:
    last = table.last_action
    if last is None:
        return []
    move = table.move
    if last.action == KNOCK:
        segments = _knock(table, last.player)
    elif last.action == PASS:
        segments = [(_pass(table, last.player), None)]
    elif move is not None and (move.player, move.action) == (last.player, last.action):
        segments = _move(table, move)
    else:  # a hand-made state whose move record is missing
        segments = [(f"{name(last.player)} moved", None)]
    return segments + _finishing(table)


def _move(table: Table, move: Move) -> list[Segment]:
    segments: list[Segment] = [(f"{name(move.player)} {move_text(table, move)}", None)]
    if move.rule_break:
        segments.append((f" (rule break: {_break_reason(move)})", "red"))
    return segments


def move_text(table: Table, move: Move) -> str:
    """The move without the mover's name; right after it (or during its knock window)."""
    card = move.card
    action = move.action
    if action == DRAW:
        drawn = "a card" if table.drawn is None else str(table.drawn)
        if move.source == "turned":
            return f"turned the open pile over and drew {drawn}"
        where = {"supply": " from the supply", "stack": " from the own stack"}.get(move.source or "", "")
        return f"drew {drawn}{where}"
    if action == OWN_PILE:
        return f"put the drawn {card} on the own open pile, ending the turn"
    what = _played_card(move)
    if action == CENTRE:
        if card == 1:
            return f"opened a new centre row with {what}"
        done = ", the row is complete" if card == ROW_END else ""
        return f"played {what} to the centre (row {card - 1} -> {card}{done})"
    return f"played {what} onto {name(move.target)}'s open pile"


def _played_card(move: Move) -> str:
    card = move.card
    if move.source == "drawn":
        return f"the drawn {card}"
    return f"{card} from the own pile" if move.source == "pile" else str(card)


def _break_reason(move: Move) -> str:
    if move.action == DRAW:
        return "the own top card could have been played"
    if move.action == OWN_PILE:
        return f"the drawn {move.card} fits somewhere"
    return f"{move.card} fits the centre"


def _break_summary(move: Move) -> str:
    """The rule break a correct knock caught, in a few words (the piles may have changed since)."""
    if move.action == DRAW:
        return "drew although the own top card could be played"
    if move.action == OWN_PILE:
        return f"kept the drawn {move.card} although it fits somewhere"
    return f"played {move.card} onto {name(move.target)}'s pile although it fits the centre"


def _knock(table: Table, knocker: int) -> list[Segment]:
    """docs/rules/tock.md, "Rule breaks and TOCK!": who was right, who takes which penalty cards."""
    move = table.move
    if move is None:
        return [(f"{name(knocker)} knocked TOCK!", "red")]
    mover = name(move.player)
    if move.rule_break:
        head = f"{name(knocker)} knocked TOCK! rightly: {mover} broke a rule ({_break_summary(move)})"
        text = f"{head} and takes {_penalty(table)}"
        pile = table.piles[move.player]
        if move.action == DRAW and pile:
            text += f"; the drawn {pile[-1]} goes onto {mover}'s open pile"
        text += f"; {mover}'s turn ends"
    else:
        text = f"{name(knocker)} knocked TOCK! falsely ({mover}'s move broke no rule):"
        text += f" {name(knocker)} takes {_penalty(table)}"
        if move.action == OWN_PILE:
            text += f"; {mover}'s turn stays over"
        elif table.phase != "over" and table.alive[move.player]:
            text += f"; {mover} plays on"
    return [(text, "red")]


def _penalty(table: Table) -> str:
    penalty = table.penalty
    if penalty is None:  # a state saved before the penalty was kept
        return "the penalty cards"
    if not penalty:
        return "no penalty cards (the other open piles are empty)"
    cards = ", ".join(f"{card} from {name(giver)}" for giver, card in penalty)
    return f"{plural(len(penalty), 'penalty card')} ({cards})"


def _pass(table: Table, player: int) -> str:
    move = table.move
    about = "" if move is None else f" on {name(move.player)}'s move"
    if table.window is None:
        return f"{name(player)} passed: nobody knocked{about}"
    return f"{name(player)} passed (no TOCK!{about})"


def _finishing(table: Table) -> list[Segment]:
    """Who finished with the last action, and the end of the game."""
    segments: list[Segment] = []
    k = table.newly_finished
    if k:
        seats = table.finished[-k:]
        who = _names(seats)
        verb = "finishes" if k == 1 else "finish"
        segments.append((f"; {who} {verb} with rank {table.finish_ranks[seats[0]]}", "green"))
    if table.phase == "over":
        why = " (all six centre rows are complete)" if table.centre_complete() else ""
        segments.append((f"; game over{why}", "bold"))
    return segments


def _names(seats: list[int]) -> str:
    """``player_0``, ``player_0 and player_2``, ``player_0, player_2 and player_3``."""
    names = [name(s) for s in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# ------------------------------------------------------------------- table
def render(table: Table, seat: int | None = None, color: bool = False) -> str:
    """The table: who decides what, the centre, one line per player, the last move.

    Everything in Tock is public except the order of face-down cards: ``seat=None``
    also lists the next cards of the supply and of each stack, a seat's view only counts them.
    """
    lines = [
        _title(table, seat),
        paint(decision(table), "bold", color),
        _centre(table, color),
        *(_player_line(table, s, seat, color) for s in range(table.num_players)),
    ]
    last = _last_move_segments(table)
    lines.append(_join([("Last move: ", None), *last], color) if last else "Last move: none yet")
    return "\n".join(lines)


def _title(table: Table, seat: int | None) -> str:
    supply = table.supply
    text = f"Tock, {table.num_players} players | supply: {len(supply)}"
    if seat is None and supply:
        text += f" (next {supply[-1]})"
    text += " | game over" if table.phase == "over" else f" | turn: {name(table.turn)}"
    if seat is not None:
        text += f" | view of {name(seat)}"
    return text


def decision(table: Table) -> str:
    """Whose decision it is, and of what kind."""
    if table.phase == "over":
        return "Game over: the ranks are on the player lines."
    who = name(table.current_player)
    if table.phase == "knock":
        move = table.move
        about = "" if move is None else f" on {name(move.player)}'s move: {move_text(table, move)}"
        return f"{who} may knock (TOCK!) or pass{about}"
    card, source = table.card_in_play()
    if source == "drawn":
        return f"{who} to play: place the drawn {card}"
    if source == "pile":
        return f"{who} to play: the own top card {card}, or draw"
    return f"{who} to play: the open pile is empty, so {describe_action(table, DRAW)}"


def row_colour(top: int) -> str:
    """A centre row's colour: green once complete (1..20), cyan while it grows."""
    return "green" if top == ROW_END else "cyan"


def _centre(table: Table, color: bool) -> str:
    rows: list[Segment] = [(f"{top:3d}", row_colour(top)) for top in table.centre]
    rows += [(" ..", "grey")] * (MAX_ROWS - len(table.centre))
    return _join([("Centre rows:", None), *rows], color)


def _player_line(table: Table, s: int, seat: int | None, color: bool) -> str:
    decider = table.phase != "over" and s == table.current_player
    who = f"{'>' if decider else ' '} {name(s)}{' (you)' if s == seat else ''}"
    head: list[Segment] = _padded([(who, "bold" if decider else None)], NAME_WIDTH + 2)
    if not table.alive[s]:
        return _join([*head, (f"finished, rank {table.finish_ranks[s]}", "green")], color)
    pile = table.piles[s]
    segments = [*head, *_padded([(f"open {len(pile):3d}: ", None), *_cards(pile)], PILE_WIDTH)]
    segments.append((_stack(table.stacks[s], seat is None), None))
    if s == table.turn and table.drawn is not None and table.phase != "over":
        segments.append((f"  drawn {table.drawn}", "yellow"))
    if table.ranks is not None:
        segments.append((f"  final rank {table.ranks[s]}", "green"))
    return _join(segments, color)


def _cards(pile: list[int]) -> list[Segment]:
    """An open pile, bottom first, its top card in brackets; a long one without its middle."""
    if not pile:
        return [("-", "grey")]
    below = pile_shown(pile)[:-1]
    text = "".join(f"{c} " if c else ".. " for c in below)
    return [(text, None), (f"[{pile[-1]}]", "yellow")]


def pile_shown(pile: list[int]) -> list[int]:
    """The cards of an open pile that are shown, bottom first, 0 for a long pile's middle."""
    if len(pile) > PILE_SHOWN:
        return [*pile[:PILE_BOTTOM], 0, *pile[-PILE_TOP:]]
    return list(pile)


def _stack(stack: list[int], show: bool) -> str:
    """The own face-down stack (top card last): its size, and in the full view its next cards."""
    text = f"stack {len(stack):3d}"
    if show and stack:
        nxt = stack[: -PEEK - 1 : -1]
        text += ": next " + " ".join(map(str, nxt)) + (" .." if len(stack) > PEEK else "")
    return text
