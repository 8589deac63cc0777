"""Chip It's moves as a person chooses them (:mod:`card_envs.core.choices`).

The engine builds a play over several decisions (the value, or a block of ten values and
then its last digit, then the cards one at a time; :mod:`.encoding`), and its mask offers
every value the hand can reach: hundreds of them. A person thinks in cards and chips, so
each decision is offered by what it costs: first the values the cards show without chips,
then the values that need chips, cheapest first, in bands of cost, then the pass, then the
costly plays (:data:`MANY_CHIPS` or more, each to be confirmed), so the habit of typing 1
never lays out a fortune. Every value says the cheapest cards that show it; every card
says the chips it takes from the supply, which come back to the player as a burden when
its turn comes round.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from card_envs.core.choices import SCREEN, Choice, ChoiceGroup, paged, plural
from card_envs.games.chipit import encoding as E
from card_envs.games.chipit.arith import card_cost
from card_envs.games.chipit.cards import CODES
from card_envs.games.chipit.state import Build, Table

if TYPE_CHECKING:
    from card_envs.games.chipit.engine import ChipItGame

#: a play that puts this many chip points (or more) on the table is confirmed first
MANY_CHIPS = 5
#: the bands of cost the costly plays are grouped in (the lowest cost of each band)
BANDS = (MANY_CHIPS, 10, 20, 50)
BURDEN = "they come back to you as held chips when your turn comes round"

#: a value's cheapest way: its cost and the cards (type, chips), cheapest first
Way = tuple[int, list[tuple[int, int]]]


def move_choices(game: ChipItGame) -> list[ChoiceGroup]:
    """The legal moves of the deciding player, grouped by what they cost (docs/rules/chipit.md)."""
    table = game.table
    legal = game.legal_actions()
    b = table.build
    if b is None:
        return _values(table, legal)
    if b.value is None:
        return [_last_digits(table, b, legal)]
    return _cards(table, b, legal)


# ----------------------------------------------------------- the cheapest way
def cheapest(hand: Iterable[int], k: int, value: int) -> Way | None:
    """The ``k`` cards of ``hand`` (counts per type) that show ``value`` for the fewest chips."""
    costs = []
    for t, count in enumerate(hand):
        cost = card_cost(t, value) if count else None
        if cost is not None:
            costs += [(cost, t)] * count
    if len(costs) < k:
        return None
    costs.sort()
    ways = costs[:k]
    return sum(c for c, _ in ways), [(t, c) for c, t in sorted(ways, key=lambda way: way[1])]


def cards_text(cards: list[tuple[int, int]]) -> str:
    """``G7+2 P3+2``: the cards with the chips each would carry."""
    return " ".join(CODES[t] + (f"+{c}" if c else "") for t, c in cards)


def _needed(table: Table) -> int:
    """Cards a play needs: as many as lie to beat, one (at least) for a lead."""
    return 1 if table.last is None else table.last.count


def _verb(table: Table) -> str:
    return "lead" if table.last is None else "answer"


# ---------------------------------------------------------------- the values
def _values(table: Table, legal: list[int]) -> list[ChoiceGroup]:
    """A lead or an answer: the values by cost, and the passes between cheap and costly plays."""
    p = table.current
    hand = table.hands[p]
    k = _needed(table)
    lowest = E.MIN_VALUE if table.last is None else table.last.value + 1
    plays: list[tuple[int, int, Choice]] = []  # (cost, value, choice)
    for action in legal:
        if E.VALUE <= action < E.HIGH:
            value = action - E.VALUE + E.MIN_VALUE
            way = cheapest(hand, k, value)
            assert way is not None  # the mask offers only values the hand can show
            plays.append((way[0], value, _value_choice(table, action, value, way)))
        elif E.HIGH <= action < E.UNITS:
            low = E.block_low(action - E.HIGH)
            above = max(low, lowest)  # an answer's block may begin at or below the value to beat
            ways = [(w, v) for v in range(above, low + E.BLOCK) if (w := cheapest(hand, k, v)) is not None]
            way, value = min(ways, key=lambda wv: wv[0][0])
            plays.append((way[0], value, _block_choice(table, action, low, value, way)))
    plays.sort(key=lambda play: (play[0], play[1]))
    free = [choice for cost, _, choice in plays if cost == 0]
    groups = []
    if free:
        title = "without chips (your cards show these values as they are)"
        groups.append(ChoiceGroup(title, paged(free, _value_run)))
    cheap = _by_cost([(cost, choice) for cost, _, choice in plays if 0 < cost < MANY_CHIPS])
    passes = [a for a in legal if a < E.VALUE]
    if cheap:
        title = f"with 1 to {MANY_CHIPS - 1} chip points, cheapest first"
        if len(free) + len(cheap) + len(passes) + 1 > SCREEN:  # too long with the rest: one step down
            groups.append(ChoiceGroup("with chips", (Choice(title, then=(ChoiceGroup(title, cheap),)),)))
        else:
            groups.append(ChoiceGroup(title, cheap))
    if passes:
        groups.append(_passes(table, passes))
    costly = [(cost, choice) for cost, _, choice in plays if cost >= MANY_CHIPS]
    if costly:
        title = f"with {MANY_CHIPS} chip points or more ({BURDEN})"
        inner = Choice(f"with {MANY_CHIPS} or more chip points", then=(ChoiceGroup(title, _bands(costly)),))
        groups.append(ChoiceGroup("costly plays, to be confirmed", (inner,)))
    return groups


def _value_choice(table: Table, action: int, value: int, way: Way) -> Choice:
    """One value: the cheapest cards that show it and their chips (for a lead, how many could)."""
    cost, cards = way
    chips = f"{plural(cost, 'chip point')}" if cost else "no chips"
    note = f"{cards_text(cards)}, {chips}" if cost == 0 else f"cheapest: {cards_text(cards)}, {chips}"
    if table.last is None:
        hand = table.hands[table.current]
        free = sum(n for t, n in enumerate(hand) if n and card_cost(t, value) == 0)
        if free > 1:
            note += f"; {free} cards show {value} without chips"
    return Choice(f"{_verb(table)} at {value}", action, note=note, warn=cost >= MANY_CHIPS)


def _block_choice(table: Table, action: int, low: int, value: int, way: Way) -> Choice:
    """A block of ten values above 129 (the last digit is chosen next)."""
    cost, cards = way
    note = f"cheapest: {cards_text(cards)} at {value}, {plural(cost, 'chip point')}"
    return Choice(
        f"{_verb(table)} at {low} to {low + E.BLOCK - 1}", action, note=note, warn=cost >= MANY_CHIPS
    )


def _by_cost(plays: list[tuple[int, Choice]]) -> tuple[Choice, ...]:
    """Plays sorted by cost, in pages named by their range of cost when there are too many."""
    cost_of = {choice.action: cost for cost, choice in plays}

    def run(first: Choice, last: Choice) -> str:
        low, high = cost_of[first.action], cost_of[last.action]
        return plural(low, "chip point") if low == high else f"{low} to {high} chip points"

    return paged([choice for _, choice in plays], run)


def _bands(plays: list[tuple[int, Choice]]) -> tuple[Choice, ...]:
    """Costly plays behind one inner choice per band of cost (:data:`BANDS`), cheapest first."""
    bands = []
    for i, low in enumerate(BANDS):
        high = BANDS[i + 1] if i + 1 < len(BANDS) else None
        inside = [(cost, choice) for cost, choice in plays if cost >= low and (high is None or cost < high)]
        if not inside:
            continue
        title = f"{low} chip points or more" if high is None else f"{low} to {high - 1} chip points"
        bands.append(Choice(title, then=(ChoiceGroup(title, _by_cost(inside)),)))
    if len(bands) == 1:  # one band: its choices directly
        return bands[0].then[0].choices
    return tuple(bands)


def _value_run(first: Choice, last: Choice) -> str:
    """A page of values, named by its first and last value: ``at 9 ... at 41``."""
    return f"{first.label} ... {last.label.split()[-1]}"


def _passes(table: Table, passes: list[int]) -> ChoiceGroup:
    held = table.held[table.current]
    choices = []
    for action in sorted(passes, reverse=True):  # giving back the most first: held chips count against you
        r = action - E.PASS
        label = f"pass, giving back {plural(r, 'chip point')}" if r else "pass, giving back nothing"
        choices.append(Choice(label, action, note=f"you hold {held}, then {held - r}"))
    title = "pass (held chips count against you; a pass gives up to 2 back to the supply)"
    return ChoiceGroup(title, tuple(choices))


# ------------------------------------------------------------- the last digit
def _last_digits(table: Table, b: Build, legal: list[int]) -> ChoiceGroup:
    assert b.block is not None  # phase units: a block was chosen
    choices = []
    for action in legal:
        value = b.block + action - E.UNITS
        way = cheapest(b.rest, _needed(table), value)
        assert way is not None  # the mask offers only values the hand can show
        cost, cards = way
        note = f"cheapest: {cards_text(cards)}, {plural(cost, 'chip point')}"
        choices.append(
            (cost, value, Choice(f"{_verb(table)} at {value}", action, note=note, warn=cost >= MANY_CHIPS))
        )
    choices.sort(key=lambda c: (c[0], c[1]))
    return ChoiceGroup(f"the value, {b.block} to {b.block + E.BLOCK - 1}", tuple(c for _, _, c in choices))


# ------------------------------------------------------------------ the cards
def _cards(table: Table, b: Build, legal: list[int]) -> list[ChoiceGroup]:
    """The next card of the play at its value (each with its chips), and for a lead: lay out now."""
    value = b.target
    groups = []
    if E.DONE in legal:
        chosen = cards_text([(t, card_cost(t, value) or 0) for t in b.cards])
        chips = f"{plural(b.chips, 'chip point')} from the supply" if b.chips else "no chips"
        note = f"{plural(len(b.cards), 'card')} at {value}, {chips}"
        groups.append(ChoiceGroup("lay out", (Choice(f"lead {chosen}", E.DONE, note=note),)))
    cards = sorted((card_cost(a - E.CARD, value) or 0, a) for a in legal if E.CARD <= a < E.DONE)
    if cards:
        title = _card_title(table, b)
        groups.append(ChoiceGroup(title, tuple(_card_choice(cost, a, value) for cost, a in cards)))
    return groups


def _card_title(table: Table, b: Build) -> str:
    if table.last is None:
        return f"add a card at {b.target}" + (" (cards that show the value)" if not b.cards else "")
    return f"card {len(b.cards) + 1} of {table.last.count} at {b.target}"


def _card_choice(cost: int, action: int, value: int) -> Choice:
    t = action - E.CARD
    if not cost:
        return Choice(f"add {CODES[t]}", action, note=f"shows {value} without chips")
    note = f"{plural(cost, 'chip point')} from the supply to show {value}; {BURDEN}"
    return Choice(f"add {CODES[t]}+{cost}", action, note=note, warn=cost >= MANY_CHIPS)
