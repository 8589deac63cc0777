"""Text of an UNO table for people: ``render_text``, ``last_move`` and ``legend``.

The engine notes each action as a few numbers (:class:`.state.LastMove`); the
words are written here, only when someone asks, from that note and the state
after the action, so stepping pays nothing for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from card_envs.core.colors import paint
from card_envs.core.game import CardGame
from card_envs.games.uno import cards as C
from card_envs.games.uno import encoding as E
from card_envs.games.uno.state import LastMove, Table

if TYPE_CHECKING:
    from card_envs.games.uno.engine import UnoGame

#: the terminal colour of each card colour (R, Y, G, B) and of the wilds
PAINTS = ("red", "yellow", "green", "blue")
WILD_PAINT = "magenta"

name = CardGame.player_name
Draws = Iterator[tuple[int, int]]


@dataclass(frozen=True)
class Style:
    """How codes look: plain, or in ANSI colours for a terminal."""

    color: bool = False

    def card(self, card: int) -> str:
        return paint(C.CODES[card], card_paint(card), self.color)

    def colour(self, colour: int) -> str:
        return paint(C.COLOUR_NAMES[colour], PAINTS[colour], self.color)

    def bold(self, text: str) -> str:
        return paint(text, "bold", self.color)


PLAIN = Style()


def card_paint(card: int) -> str:
    """The colour a card is shown in, as text and as a picture."""
    colour = C.colour_of(card)
    return WILD_PAINT if colour is None else PAINTS[colour]


# ------------------------------------------------------------------ last move
def last_move(game: UnoGame, style: Style = PLAIN) -> str:
    """One line on the last action and what it caused; "" before the first action."""
    s = game.state_view()
    m = s.last
    if m is None:
        return _opening(game, s, style)
    draws = iter(m.draws)  # each part takes the draws it caused, in the order they happened
    a = m.action
    if a < E.CHOOSE_COLOUR:
        parts = _played(game, s, m, draws, style)
    elif a < E.DRAW:
        parts = _chose(game, s, m, draws, style)
    elif a == E.DRAW:
        parts = _drew(game, s, m, draws, style)
    elif a == E.KEEP:
        parts = [f"{name(m.seat)} kept the drawn card"]
    elif a == E.CHALLENGE:
        parts = _challenged(game, s, m, draws, style)
    elif a == E.CATCH:
        parts = _caught(game, s, m, draws, style)
    else:
        parts = _passed(game, s, m, draws, style)
    return "; ".join(parts)


def _opening(game: UnoGame, s: Table, style: Style) -> str:
    """What the first card did before anyone moved (a Draw Two drawn, a Skip, a Reverse); "" if nothing."""
    if len(s.discard) != 1 or C.is_wild(s.top):
        return ""
    first = f"the first card, {style.card(s.top)},"
    rank = C.rank_of(s.top)
    if rank == C.DRAW_TWO and s.phase != "pending":  # seat 0 had nothing to stack: drawn at deal time
        return f"{first} made {name(0)} draw 2 and skipped it; {name(s.turn)} starts"
    if rank == C.SKIP:
        return f"{first} skipped {name(0)}; {name(s.turn)} starts"
    if rank == C.REVERSE:
        return f"{first} reversed the direction; {name(s.turn)} (the dealer) starts, {direction(s)}"
    return ""


def _played(game: UnoGame, s: Table, m: LastMove, draws: Draws, style: Style) -> list[str]:
    call = m.action >= E.PLAY_CALL
    card = m.action - E.PLAY_CALL if call else m.action
    who = name(m.seat)
    if s.winner == m.seat:  # a final Draw Two / Four is still drawn
        return [f"{who} played its last card, {style.card(card)}, and wins the round"] + [
            f"{name(seat)} still draws {count}" for seat, count in draws
        ]
    parts = [f"{who} played {style.card(card)}" + (" and called LETZTE" if call else "")]
    if s.phase == "choose_colour":  # the rest follows the colour
        return parts
    parts += _missed_call(s, m)
    rank = C.rank_of(card)
    if rank == C.REVERSE and not _skips(game, card):
        parts.append(f"play now goes {direction(s)}")
    return parts + _skipped(game, s, m.turn) + _next_turn(game, s, draws, style)


def _chose(game: UnoGame, s: Table, m: LastMove, draws: Draws, style: Style) -> list[str]:
    parts = [f"{name(m.seat)} chose colour {style.colour(m.action - E.CHOOSE_COLOUR)}"]
    return parts + _missed_call(s, m) + _next_turn(game, s, draws, style)


def _drew(game: UnoGame, s: Table, m: LastMove, draws: Draws, style: Style) -> list[str]:
    who = name(m.seat)
    _, count = next(draws, (m.seat, 0))
    if m.pending:  # the whole stack
        short = f"; only {count} of {m.pending} were left" if count < m.pending else ""
        return [f"{who} drew {count} (penalty of {_stack(s.top, m.pending, style)}{short})"]
    if not count:
        return [f"{who} could not draw (no cards left)"]
    if s.phase == "play_drawn" and s.turn == m.seat:
        return [f"{who} drew a card that matches: play it or keep it"]
    return [f"{who} drew a card (kept it: no match)"]


def _challenged(game: UnoGame, s: Table, m: LastMove, draws: Draws, style: Style) -> list[str]:
    victim, offender = m.seat, (m.turn - s.direction) % game.num_players
    seat, count = next(draws, (victim, 0))
    what = f"{name(victim)} challenged {name(offender)}'s {style.card(C.WILD_DRAW_FOUR)}"
    if seat != offender or seat == victim:
        return [f"{what} and was wrong (no bluff): {name(victim)} draws {count} and is skipped"]
    parts = [f"{what}: a bluff, {name(offender)} draws {count}"]
    parts += _next_turn(game, s, draws, style)
    if s.phase == "play" and s.turn == victim:
        parts.append(f"{name(victim)} plays on")
    return parts


def _caught(game: UnoGame, s: Table, m: LastMove, draws: Draws, style: Style) -> list[str]:
    offender = name(m.turn)
    _, count = next(draws, (m.turn, 0))
    parts = [f"{name(m.seat)} caught {offender} without LETZTE: {offender} draws {count}"]
    return parts + _skipped(game, s, m.turn) + _next_turn(game, s, draws, style)


def _passed(game: UnoGame, s: Table, m: LastMove, draws: Draws, style: Style) -> list[str]:
    offender = name(m.turn)
    parts = [f"{name(m.seat)} did not catch {offender}"]
    if s.phase == "catch" and s.turn == m.turn:  # others may still catch
        return parts
    parts.append(f"nobody caught {offender}")
    return parts + _skipped(game, s, m.turn) + _next_turn(game, s, draws, style)


def _missed_call(s: Table, m: LastMove) -> list[str]:
    """The catch window this action opened, if it did."""
    if s.phase == "catch" and s.turn == m.seat:
        return [f"no LETZTE called: the others may catch {name(m.seat)}"]
    return []


def _skips(game: UnoGame, card: int) -> bool:
    rank = C.rank_of(card)
    two_player_reverse = rank == C.REVERSE and game.num_players == 2 and game.two_player_reverse_skips
    return rank == C.SKIP or two_player_reverse


def _skipped(game: UnoGame, s: Table, turn: int) -> list[str]:
    """The player a Skip on top skips (after a catch window, if one is open)."""
    if C.is_wild(s.top) or not _skips(game, s.top) or s.phase == "over":
        return []
    seat = name((turn + s.direction) % game.num_players)
    return [f"{seat} will be skipped" if s.phase == "catch" else f"{seat} is skipped"]


def _next_turn(game: UnoGame, s: Table, draws: Draws, style: Style) -> list[str]:
    """A stack drawn at once (nothing to answer it with), or the stack the next player faces."""
    parts = [f"{name(seat)} draws {count} and is skipped" for seat, count in draws]
    if s.phase == "pending":
        parts.append(f"{name(s.turn)} must {_stack_choices(game, s, style)}")
    return parts


# ---------------------------------------------------------------------- table
def render(game: UnoGame, seat: int | None, color: bool) -> str:
    """The table; ``seat`` None shows every hand, a seat only its own (others as counts)."""
    s, style = game.state_view(), Style(color)
    lines = [_header(s, style), decision(game, s, seat, style)]
    lines += [_player(game, s, p, seat, style) for p in range(game.num_players)]
    lines.append(f"Last move: {last_move(game, style) or 'none yet'}")
    return "\n".join(lines)


def _header(s: Table, style: Style) -> str:
    if s.phase == "over" and C.is_wild(s.top):  # a last wild names no colour: the old one is moot
        colour = "none (the round ended on a wild)"
    else:
        colour = "not named yet" if s.colour is None else style.colour(s.colour)
    stack = f"stack: {s.pending} to draw" if s.pending else "no stack"
    return (
        f"UNO, {s.num_players} players | top {style.card(s.top)} | colour {colour} | {direction(s)}"
        f" | {stack} | draw pile {len(s.draw_pile)}"
    )


def decision(game: UnoGame, s: Table, seat: int | None, style: Style) -> str:
    """Who decides now and what, in words."""
    if s.winner is not None:
        ranks = game.final_ranks()
        order = sorted(range(game.num_players), key=lambda p: (ranks[p], p))
        shown = ", ".join(f"{ordinal(ranks[p])} {name(p)}" for p in order)
        return f"{round_over(game, s.winner)}. Ranks: {shown}"
    who = style.bold(name(game.current_player))
    if s.phase == "choose_colour":
        return f"{who} to choose a colour" + (" for the first card" if s.opening else "")
    if s.phase == "pending":
        return f"{who} to {_stack_choices(game, s, style)}"
    if s.phase == "catch":
        return f"{who} to catch {name(s.turn)} (no LETZTE called) or pass"
    if s.phase == "play_drawn":
        private = s.drawn is None or seat not in (None, s.turn)  # only its drawer sees the card
        drawn = "" if private or s.drawn is None else f" ({style.card(s.drawn)})"
        return f"{who} to play the drawn card{drawn} or keep it"
    return f"{who} to play a card or draw"


def round_over(game: UnoGame, winner: int) -> str:
    """Who won the round and its score (the ranks follow in the text, on each seat in a picture)."""
    return f"Round over: {name(winner)} wins, scoring {game.score()}"


def player_tags(game: UnoGame, s: Table, p: int) -> list[str]:
    """What the table says of a seat: card count, LETZTE, winner, points at the end."""
    size = s.hand_sizes[p]
    tags = [f"{size} card{'' if size == 1 else 's'}"]
    if size == 1 and s.called[p]:
        tags.append("LETZTE")
    if s.phase == "catch" and p == s.turn:
        tags.append("did not call LETZTE")
    if p == s.winner:
        tags.append("winner")
    if s.winner is not None:
        tags.append(f"{game.hand_points()[p]} points")
    return tags


def _player(game: UnoGame, s: Table, p: int, seat: int | None, style: Style) -> str:
    """One seat: decider marker, card count, LETZTE, winner; the hand where this view may see it."""
    size = s.hand_sizes[p]
    tags = player_tags(game, s, p)
    if p == seat:
        tags.append("you")
    deciding = s.winner is None and p == game.current_player
    marker = style.bold(">") if deciding else " "
    line = f"{marker} {style.bold(name(p)) if deciding else name(p)} ({', '.join(tags)})"
    if size and seat in (None, p):
        line += ": " + " ".join(style.card(t) for t, k in enumerate(s.hands[p]) for _ in range(k))
    return line


# -------------------------------------------------------------------- helpers
def direction(s: Table) -> str:
    return "clockwise" if s.direction == 1 else "counter-clockwise"


def _stack(top: int, pending: int, style: Style) -> str:
    """The stack as its cards, e.g. "the stacked +2 +2" ("+2" for a Draw Two of any colour)."""
    kind = style.card(C.WILD_DRAW_FOUR) if top == C.WILD_DRAW_FOUR else "+2"
    count = pending // (C.draw_amount(top) or 2)
    return f"the {kind}" if count <= 1 else f"the stacked {' '.join([kind] * count)}"


def _stack_choices(game: UnoGame, s: Table, style: Style) -> str:
    """What the player facing a stack may do, e.g. "draw 4, stack a W+4 or challenge"."""
    choices = [f"draw {s.pending}"]
    if game.stacking:
        choices.append(f"stack a {style.card(C.WILD_DRAW_FOUR) if s.top == C.WILD_DRAW_FOUR else '+2'}")
    if s.challenge is not None:
        choices.append(f"challenge {name(s.challenge.seat)}")
    return choices[0] if len(choices) == 1 else ", ".join(choices[:-1]) + " or " + choices[-1]


def ordinal(rank: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(rank, "th")
    return f"{rank}{suffix}"


# --------------------------------------------------------------------- legend
def legend(game: UnoGame) -> str:
    """The card codes and the words of the table, for this game's rules."""
    reverse = "R reverse: play changes direction"
    if game.num_players == 2 and game.two_player_reverse_skips:
        reverse += " (with two players it skips the other player)"
    draw_two = "+2 draw two: the next player draws 2" + (" or stacks another +2" if game.stacking else "")
    draw_four = "W+4 wild draw four: name the colour; the next player draws 4"
    if game.stacking:
        draw_four += " or stacks another W+4"
    if game.draw_four == "official":
        draw_four += " (or challenges: allowed only without a card of the colour to match)"
    lines = [
        "Card codes: colour letter, then the rank; e.g. G7 green 7, GS green skip, YR yellow reverse.",
        "  Colours: R red, Y yellow, G green, B blue.",
        "  0-9 number cards: match the top card by colour or number.",
        "  S skip: the next player misses a turn.",
        f"  {reverse}.",
        f"  {draw_two}.",
        "  W wild: plays on anything; name the colour to match.",
        f"  {draw_four}.",
        "Stack: the Draw Two / Draw Four total the player facing it must draw.",
        _letzte(game.missed_call_penalty),
    ]
    return "\n".join(lines)


def _letzte(penalty: int) -> str:
    text = "LETZTE: the call made when playing your second-to-last card"
    if not penalty:
        return text + " (forgetting it costs nothing in this game)."
    return text + f"; forget it and another player may catch you: you draw {penalty}."
