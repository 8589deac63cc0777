"""UNO's moves as a person chooses them (:mod:`card_envs.core.choices`).

The plays come first, and when LETZTE is due (two cards in hand) each play *with* the call
comes before the same play without it, which is marked: the habit of typing 1 must not get
a person caught. Every choice says what it causes: who draws, who misses a turn, what a
challenge or a catch costs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from card_envs.core.choices import Choice, ChoiceGroup
from card_envs.core.game import CardGame
from card_envs.games.uno import cards as C
from card_envs.games.uno import encoding as E

if TYPE_CHECKING:
    from card_envs.games.uno.engine import UnoGame

name = CardGame.player_name


def move_choices(game: UnoGame) -> list[ChoiceGroup]:
    """The legal moves of the deciding player, grouped (docs/rules/uno.md)."""
    legal = game.legal_actions()
    phase = game.phase
    if phase == "catch":
        return [_catch_window(game)]
    if phase == "choose_colour":
        return [ChoiceGroup("name the colour", tuple(_colour(game, a) for a in legal))]
    plays = [a for a in legal if a < E.PLAY_CALL]
    groups = []
    if any(a >= E.PLAY_CALL for a in legal if a < E.CHOOSE_COLOUR):  # two cards in hand: a call is due
        calls = tuple(_play(game, a, call=True) for a in plays)
        groups.append(ChoiceGroup("play and call LETZTE (one card left after it)", calls))
        without = tuple(_play(game, a, call=False) for a in plays)
        groups.append(ChoiceGroup("play without the call", without))
    elif plays:
        groups.append(ChoiceGroup("play", tuple(_play(game, a, call=False) for a in plays)))
    others = tuple(_other(game, a) for a in legal if a >= E.CHOOSE_COLOUR)
    if others:
        groups.append(ChoiceGroup("or", others))
    return groups


def _play(game: UnoGame, card: int, call: bool) -> Choice:
    """A play, with the call or without it (marked when the call was due)."""
    action = E.PLAY_CALL + card if call else E.PLAY + card
    effect = _effect(game, card)
    if game.hand_sizes[game.turn] == 1:
        return Choice(game.describe_action(action), action, note="your last card: you win the round")
    if game.hand_sizes[game.turn] == 2 and not call:
        caught = game.missed_call_penalty
        risk = f"no LETZTE: anyone may catch you (you draw {caught})" if caught else "no LETZTE"
        return Choice(game.describe_action(action), action, note=_join(effect, risk), warn=bool(caught))
    return Choice(game.describe_action(action), action, note=effect)


def _effect(game: UnoGame, card: int) -> str:
    """What a card does to the next player, in a few words."""
    nxt = name((game.turn + game.direction) % game.num_players)
    rank = C.rank_of(card)
    if game.phase == "pending":
        return f"adds to the stack: {nxt} faces {game.pending + C.draw_amount(card)}"
    if card == C.WILD_DRAW_FOUR:
        return f"you name the colour; {nxt} draws 4"
    if card == C.WILD:
        return "you name the colour"
    if rank == C.DRAW_TWO:
        return f"{nxt} draws 2"
    if rank == C.SKIP:
        return f"{nxt} misses a turn"
    if rank == C.REVERSE:
        return "play changes direction" + (f": {nxt} misses a turn" if game.num_players == 2 else "")
    return ""


def _join(*parts: str) -> str:
    return "; ".join(part for part in parts if part)


def _colour(game: UnoGame, action: int) -> Choice:
    colour = action - E.CHOOSE_COLOUR
    held = sum(game.hands[game.turn][C.COLOUR_SLICES[colour]])
    return Choice(game.describe_action(action), action, note=f"you hold {held} {C.COLOUR_NAMES[colour]}")


def _other(game: UnoGame, action: int) -> Choice:
    """Draw, keep or challenge, with what each costs."""
    label = game.describe_action(action)
    if action == E.DRAW and game.phase == "pending":
        return Choice(f"draw the stack of {game.pending}", action, note="your turn ends")
    if action == E.DRAW:
        return Choice(label, action, note="play it at once if it matches, else your turn ends")
    if action == E.KEEP:
        return Choice(label, action, note="your turn ends")
    offender = name((game.turn - game.direction) % game.num_players)
    note = f"a bluff: {offender} draws 4; no bluff: you draw {game.pending + C.CHALLENGE_PENALTY}"
    return Choice(label, action, note=note)


def _catch_window(game: UnoGame) -> ChoiceGroup:
    offender = name(game.turn)
    penalty = game.missed_call_penalty
    catch = Choice(f"catch {offender}", E.CATCH, note=f"{offender} did not call LETZTE: it draws {penalty}")
    after = "the next player in seat order may still catch" if len(game.catchers) > 1 else "nothing happens"
    let_go = Choice("let it go", E.PASS, note=after)
    return ChoiceGroup(f"{offender} has one card and did not call LETZTE", (catch, let_go))
