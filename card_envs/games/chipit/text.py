"""Chip It as text a person can follow: ``render_text``, ``last_move``, ``describe_action``, the legend.

Everything here reads the :class:`Table`; the engine stores only the little
that the table cannot tell afterwards (:class:`Turn`), so the step path stays
cheap and a loaded state reads exactly like the original. Players are always
``player_N`` and values are game values, never action numbers.
"""

from __future__ import annotations

from card_envs.core.choices import plural
from card_envs.core.colors import paint
from card_envs.core.game import CardGame
from card_envs.games.chipit import encoding as E
from card_envs.games.chipit.arith import card_cost
from card_envs.games.chipit.cards import CODES, IS_PURPLE
from card_envs.games.chipit.state import Build, Shown, Table, Turn

LEGEND = """\
Card codes: G7 is a green 7, P7 a purple 7 (green 2..21 and purple 2..11, two of each).
+N: N chip points lie on the card (G7+2); no +N: none.
A green card is worth its number plus its chips (G7+2 = 9), a purple one its number times
1 + its chips (P3+2 = 9). "(= 9)" is the common value the cards lying out show.
An answer lays out as many cards as lie to beat, at a higher common value.
Or pass, giving 0, 1 or 2 of your held chip points back to the supply: held chips count
against you, so giving back 2 is usually best; a pass does not end your part in the round.
Chips on cards come from the supply; when your turn comes round, your cards lying out are
discarded and their chips go to your holding. You win with no cards and no chips;
the others rank by cards in hand plus chip points (held and lying out), fewest first."""


# ----------------------------------------------------------------- pieces
def name(seat: int) -> str:
    return CardGame.player_name(seat)


def ordinal(rank: int) -> str:
    return f"{rank}{'st' if rank == 1 else 'nd' if rank == 2 else 'rd' if rank == 3 else 'th'}"


def card(t: int, chips: int, color: bool = False) -> str:
    """``G9+2``: the code and the chips on it, in the card's colour."""
    code = CODES[t] + (f"+{chips}" if chips else "")
    return paint(code, card_paint(t), color)


def card_paint(t: int) -> str:
    """The colour a card is shown in, as text and as a picture."""
    return "magenta" if IS_PURPLE[t] else "green"


def _cards(shown: list[Shown], color: bool = False) -> str:
    return " ".join(card(s.card, s.chips, color) for s in shown)


def cards_out(shown: list[Shown], color: bool = False) -> str:
    """The cards a seat has lying out and the value they show: ``G9+2 P11 (= 11)``."""
    return f"{_cards(shown, color)} (= {shown[0].value})" if shown else "-"


def hand(counts: list[int], color: bool = False) -> str:
    """A hand (counts per card type) as its codes in type order, ``-`` when empty."""
    return " ".join(card(t, 0, color) for t in range(len(counts)) for _ in range(counts[t])) or "-"


def value_range(block: int) -> str:
    """The ten values a HIGH choice narrows the value to, before its last digit is chosen."""
    return f"a value from {block} to {block + E.BLOCK - 1}"


def _chosen(b: Build, color: bool = False) -> str:
    """The cards chosen so far, with the chips each needs at the chosen value."""
    value = b.target
    return " ".join(card(t, card_cost(t, value) or 0, color) for t in b.cards)


# --------------------------------------------------------- describe_action
def describe_action(table: Table, action: int) -> str:
    """What ``action`` would do now; while a play is built, with the value or chips it means."""
    b = table.build
    if b is not None:
        if E.UNITS <= action < E.CARD and b.value is None and b.block is not None:
            return f"value {b.block + action - E.UNITS}"
        if E.CARD <= action < E.DONE and b.value is not None:
            t = action - E.CARD
            chips = card_cost(t, b.value)
            if chips:
                return f"add card {CODES[t]} with {plural(chips, 'chip point')} ({CODES[t]}+{chips})"
    return E.describe_action(action)


# --------------------------------------------------------------- last move
def last_move(table: Table) -> str:
    """One line on the last action and what it caused; "" before the first."""
    b = table.build
    if b is not None:  # the last action was a step of the play being built
        return _building_step(table, b)
    turn = table.turn
    if turn is None:
        return ""
    return "; ".join([_turn_action(table, turn), *_consequences(table, turn)])


def _building_step(table: Table, b: Build) -> str:
    who = name(table.current)
    what = "its lead" if table.last is None else "its answer"
    if b.value is None:
        assert b.block is not None  # phase units: a range of ten values was chosen
        return f"{who} chose {value_range(b.block)} for {what} (the last digit next)"
    if not b.cards:
        return f"{who} chose the value {b.value} for {what}"
    t = b.cards[-1]
    chosen = card(t, card_cost(t, b.value) or 0)
    return f"{who} chose {chosen} for {what} at {b.value} ({progress(table, b)} chosen)"


def progress(table: Table, b: Build) -> str:
    """How many cards are chosen: ``2 cards`` of a lead, ``1 of 2 cards`` of an answer."""
    if table.last is None:
        return plural(len(b.cards), "card")
    return f"{len(b.cards)} of {plural(table.last.count, 'card')}"


def _turn_action(table: Table, turn: Turn) -> str:
    who = name(turn.seat)
    if turn.kind == "pass":
        points = "returning no chips"
        if turn.returned:
            points = f"returning {plural(turn.returned, 'chip point')} to the supply"
        if _passed_the_lead(table, turn):
            return f"{who} had no cards to lead and passed, {points}"
        return f"{who} passed, {points}"
    last = table.last
    assert last is not None  # a play is the combination to beat until the next turn ends
    verb = "led" if turn.kind == "lead" else "played"
    played = _cards(table.display[turn.seat])
    return f"{who} {verb} {played} ({plural(last.count, 'card')} at {last.value})"


def _passed_the_lead(table: Table, turn: Turn) -> bool:
    """A pass at the lead (only an empty hand passes there) leaves a lead due without ending a round."""
    return turn.kind == "pass" and turn.stood is None and table.last is None


def _consequences(table: Table, turn: Turn) -> list[str]:
    """What the turn caused: a finish, the end of the game or of a round, chips taken from cards."""
    said = []
    if table.is_finished[turn.seat]:
        rank = table.finished.index(turn.seat) + 1
        said.append(f"{name(turn.seat)} finished {ordinal(rank)} (no cards, no chips left)")
    if table.ranks is not None:
        return [*said, "game over"]
    nxt = name(table.current)
    took = f"takes the {plural(turn.took, 'chip point')} from its cards"
    if turn.stood is not None:
        leads = "leads anew" if table.current == turn.stood else "leads"
        start = f"{nxt} {took} and {leads}" if turn.took else f"{nxt} {leads}"
        said.append(f"everybody passed on {name(turn.stood)}'s cards: round over, {start}")
    elif _passed_the_lead(table, turn):
        said.append(f"the lead moves on to {nxt}" + (f", who {took}" if turn.took else ""))
    elif turn.took:
        said.append(f"{nxt} {took}")
    return said


# ------------------------------------------------------------------ table
def render(table: Table, seat: int | None = None, color: bool = False) -> str:
    """The table: header, what is to beat, one line per player, a play being built, the last move.

    ``seat``: that player's view (other hands as counts); None shows every hand.
    """
    lines = [header(table, color), _to_beat(table, color)]
    for p in range(table.num_players):
        lines.extend(_player(table, p, seat, color))
    b = table.build
    if b is not None:
        lines.append(_building(table, b, color))
    if table.ranks is not None:
        lines.append(_final_ranks(table.ranks))
        lines.append(_totals(table, table.ranks))
    lines.append(paint("Last move:", "bold", color) + " " + (last_move(table) or "none yet"))
    return "\n".join(lines)


def _final_ranks(ranks: list[int]) -> str:
    """``Final ranks: player_2 1st, player_0 2nd, ...``, best first (ties share a rank)."""
    ranked = sorted(range(len(ranks)), key=ranks.__getitem__)
    return "Final ranks: " + ", ".join(f"{name(p)} {ordinal(ranks[p])}" for p in ranked)


def _totals(table: Table, ranks: list[int]) -> str:
    """What ranks the players still in: hand cards plus chip points (held and lying out), fewest best."""
    still_in = sorted(
        (p for p in range(table.num_players) if not table.is_finished[p]), key=ranks.__getitem__
    )
    totals = []
    for p in still_in:
        chips = table.held[p] + table.display_chips(p)
        totals.append(f"{name(p)} {table.hand_sizes[p]} + {chips} = {table.hand_sizes[p] + chips}")
    return "Cards + chips (fewest ranks first): " + ", ".join(totals)


def header(table: Table, color: bool) -> str:
    return (
        f"Chip It, {table.num_players} players | supply {plural(table.supply, 'chip point')}"
        f" | {_decision(table, color)}"
    )


def _decision(table: Table, color: bool) -> str:
    """Whose decision it is and what kind, in words."""
    if table.ranks is not None:
        return "game over"
    p = table.current
    who = paint(name(p), "bold", color)
    last = table.last
    b = table.build
    if b is None:
        if last is not None:
            return f"{who} to answer {last.value} ({plural(last.count, 'card')}) or pass"
        if table.hand_sizes[p]:
            return f"{who} to lead: any value, any number of cards showing it"
        most = plural(min(E.MAX_RETURN, table.held[p]), "chip point")
        return f"{who} to lead with no cards: pass, returning up to {most}"
    what = "lead" if last is None else "answer"
    if b.value is None:
        assert b.block is not None  # phase units
        return f"{who} to choose the last digit of its {what}'s value ({b.block} to {b.block + E.BLOCK - 1})"
    if last is not None:
        return f"{who} to choose card {len(b.cards) + 1} of {last.count} for its answer at {b.value}"
    if b.cards:
        return f"{who} to choose another card for its lead at {b.value}, or lay the cards out"
    return f"{who} to choose the first card of its lead at {b.value}"


def _to_beat(table: Table, color: bool) -> str:
    last = table.last
    if last is None:
        return "To beat: nothing" + ("" if table.ranks is not None else ", a new round is led")
    return (
        f"To beat: {name(last.seat)}'s {_cards(table.display[last.seat], color)},"
        f" {plural(last.count, 'card')} at {last.value}; {plural(table.passes, 'pass', 'passes')} since"
    )


def _player(table: Table, p: int, seat: int | None, color: bool) -> list[str]:
    """A player's line (and its hand, when shown): chips, cards, what it has lying out."""
    deciding = p == table.current and table.ranks is None
    mark = paint(">", "bold", color) if deciding else " "
    who = paint(name(p), "bold", color) if deciding else name(p)
    you = " (you)" if p == seat else ""
    out = f"out: {cards_out(table.display[p], color)}"
    if table.is_finished[p]:
        rank = paint(f"finished {ordinal(table.finished.index(p) + 1)}", "cyan", color)
        return [f"{mark} {who}{you}: {rank} | {out}"]
    held = f"{plural(table.held[p], 'chip point')} held"
    line = f"{mark} {who}{you}: {held} | {plural(table.hand_sizes[p], 'card')} in hand | {out}"
    if seat is not None and p != seat:
        return [line]
    return [line, f"    hand: {hand(table.hands[p], color)}"]


def _building(table: Table, b: Build, color: bool) -> str:
    """The play being built, in game terms: its value (or range of ten values) and the cards so far."""
    who = name(table.current)
    what = "a lead" if table.last is None else "an answer"
    if b.value is None:
        assert b.block is not None
        return f"{who} is building {what} at {value_range(b.block)} (last digit next)"
    line = f"{who} is building {what} at {b.value}: "
    if not b.cards:
        needed = "" if table.last is None else f" ({table.last.count} needed)"
        return f"{line}no cards chosen yet{needed}"
    chips = f", {plural(b.chips, 'chip point')} from the supply" if b.chips else ""
    return f"{line}{_chosen(b, color)} so far ({progress(table, b)}{chips})"
