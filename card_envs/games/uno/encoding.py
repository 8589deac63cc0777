"""Action numbering and observation layout of the UNO-style game (tables in docs/uno.md)."""

from __future__ import annotations

from functools import cache

from card_envs.core.layout import Field, ObservationLayout
from card_envs.games.uno.cards import CODES, COLOUR_NAMES, DECK_SIZE, MAX_COPIES, NUM_COLOURS, NUM_TYPES

# Actions ---------------------------------------------------------------------
PLAY = 0  # PLAY + t: play a card of type t without calling LETZTE
PLAY_CALL = NUM_TYPES  # PLAY_CALL + t: play type t and call LETZTE
CHOOSE_COLOUR = 2 * NUM_TYPES  # + colour index: name the colour after a wild
DRAW = CHOOSE_COLOUR + NUM_COLOURS  # draw one card, or the whole pending total
KEEP = DRAW + 1  # keep the card just drawn; the turn ends
CHALLENGE = KEEP + 1  # challenge a Wild Draw Four ("official" variant)
CATCH = CHALLENGE + 1  # catch a player who did not call LETZTE
PASS = CATCH + 1  # let a missed call go
NUM_ACTIONS = PASS + 1  # 117

PHASES = ("play", "play_drawn", "choose_colour", "pending", "catch", "over")


#: the words of the actions that name no card or colour
OTHER_ACTIONS = {
    DRAW: "draw",
    KEEP: "keep the drawn card",
    CHALLENGE: "challenge the W+4",
    CATCH: "catch the player who did not call LETZTE",
    PASS: "pass (do not catch)",
}


def describe_action(action: int) -> str:
    """An action in a player's words (card codes: ``UnoGame.legend()``)."""
    if action < PLAY_CALL:
        return f"play {CODES[action]}"
    if action < CHOOSE_COLOUR:
        return f"play {CODES[action - PLAY_CALL]} and call LETZTE"
    if action < DRAW:
        return f"choose colour {COLOUR_NAMES[action - CHOOSE_COLOUR]}"
    return OTHER_ACTIONS[action]


@cache
def observation_layout(num_players: int) -> ObservationLayout:
    """Fields of a seat's observation; per-player fields are in relative seat order (own first)."""
    n = num_players
    return ObservationLayout(
        [
            Field(
                "hand",
                NUM_TYPES,
                MAX_COPIES,
                "own cards: count per card type (type order of the action table)",
            ),
            Field("top_card", NUM_TYPES, 1, "one-hot type of the top card of the discard pile"),
            Field(
                "colour",
                NUM_COLOURS,
                1,
                "one-hot colour to match (R, Y, G, B); all 0 while a first Wild is named",
            ),
            Field("clockwise", 1, 1, "1 if play goes clockwise (seat order), 0 if counter-clockwise"),
            Field("pending_draw", 1, DECK_SIZE, "stacked total the player facing it must draw (0 if none)"),
            Field("pending_kind", 2, 1, "one-hot kind of the pending stack: Draw Two, Draw Four"),
            Field("challengeable", 1, 1, "1 if the pending Wild Draw Four may be challenged"),
            Field("hand_sizes", n, DECK_SIZE, "cards in hand, per player (relative seats, own first)"),
            Field("called", n, 1, "1 if the player called LETZTE for the one-card hand held now"),
            Field("draw_pile_size", 1, DECK_SIZE, "cards left in the draw pile"),
            Field(
                "discard_counts",
                NUM_TYPES,
                MAX_COPIES,
                "cards of each type in the discard pile (played since the last reshuffle)",
            ),
            Field("phase", len(PHASES), 1, f"one-hot phase: {', '.join(PHASES)}"),
            Field("drawn", NUM_TYPES, 1, "one-hot type of the card just drawn that may still be played"),
            Field("deciding", n, 1, "one-hot relative seat of the player who decides now"),
            Field("turn", n, 1, "one-hot relative seat of the player on turn"),
            Field("catch_target", n, 1, "one-hot relative seat of the player who may be caught now"),
        ]
    )
