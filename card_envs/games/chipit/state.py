"""The JSON-able state of a Chip It game: ``state_dict()`` and its loader (format in docs/chipit.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from card_envs.core.game import check_int
from card_envs.games.chipit.cards import (
    CODES,
    COPIES,
    NUM_TYPES,
    TOTAL_CHIPS,
    TYPE_OF_CODE,
    card_cost,
    card_value,
)

if TYPE_CHECKING:
    from card_envs.games.chipit.engine import ChipItGame


def hand_codes(hand: list[int]) -> list[str]:
    return [CODES[t] for t in range(NUM_TYPES) for _ in range(hand[t])]


def to_dict(game: ChipItGame) -> dict[str, Any]:
    b = game.build
    last = game.last
    return {
        "game": game.name,
        "num_players": game.num_players,
        "rules": {"play_to_end": game.play_to_end},
        "current_player": game.current_player,
        "phase": game.phase,
        "hands": [hand_codes(h) for h in game.hands],
        "chips": list(game.held),
        "supply": game.supply,
        "display": [[{"card": CODES[t], "chips": c} for t, c in shown] for shown in game.display],
        "last_play": None if last is None else {"seat": last[0], "count": last[1], "value": last[2]},
        "passes": game.passes,
        "discard": [CODES[t] for t in game.discard],
        "out": [CODES[t] for t in game.out],
        "finished": list(game.finished),
        "ranks": game.ranks,
        "building": None
        if b is None
        else {"value": b["value"], "block": b["block"], "cards": [CODES[t] for t in b["cards"]]},
    }


def _type(code: Any) -> int:
    if code not in TYPE_OF_CODE:
        raise ValueError(f"unknown card code {code!r}; codes are G2..G21 and P2..P11")
    return TYPE_OF_CODE[code]


def load(game: ChipItGame, state: dict[str, Any]) -> None:
    """Set ``game`` from a ``to_dict``-shaped dict, checking that it is a consistent position."""
    n = game.num_players
    game._clear()
    if len(state["hands"]) != n or len(state["chips"]) != n or len(state["display"]) != n:
        raise ValueError(f"hands, chips and display need one entry per seat ({n})")
    for p, codes in enumerate(state["hands"]):
        for code in codes:
            game.hands[p][_type(code)] += 1
        game.hand_sizes[p] = len(codes)
    game.held = [check_int("chips", c, 0, TOTAL_CHIPS) for c in state["chips"]]
    game.supply = check_int("supply", state["supply"], 0, TOTAL_CHIPS)
    for p, shown in enumerate(state["display"]):
        game.display[p] = [
            (_type(e["card"]), check_int("display chips", e["chips"], 0, TOTAL_CHIPS)) for e in shown
        ]
        if len({card_value(t, c) for t, c in game.display[p]}) > 1:
            raise ValueError(f"the cards lying out at seat {p} do not show one common value")
    game.discard = [_type(c) for c in state["discard"]]
    for t in game.discard:
        game.discard_counts[t] += 1
    game.out = [_type(c) for c in state["out"]]
    counts = [0] * NUM_TYPES
    for t in game.discard + game.out:
        counts[t] += 1
    for p in range(n):
        for t in range(NUM_TYPES):
            counts[t] += game.hands[p][t]
        for t, _ in game.display[p]:
            counts[t] += 1
    if counts != [COPIES] * NUM_TYPES:
        wrong = [CODES[t] for t in range(NUM_TYPES) if counts[t] != COPIES]
        raise ValueError(f"every card must be somewhere exactly {COPIES} times; wrong: {wrong}")
    chips = game.supply + sum(game.held) + sum(game.display_chips(p) for p in range(n))
    if chips != TOTAL_CHIPS:
        raise ValueError(f"supply, holdings and chips lying out must add up to {TOTAL_CHIPS}, got {chips}")

    last = state["last_play"]
    if last is not None:
        seat = check_int("last_play seat", last["seat"], 0, n - 1)
        count = check_int("last_play count", last["count"], 1, NUM_TYPES * COPIES)
        value = check_int("last_play value", last["value"], 2, 10**4)
        shown = game.display[seat]
        if len(shown) != count or any(card_value(t, c) != value for t, c in shown):
            raise ValueError(f"last_play {last} is not what seat {seat} has lying out")
        game.last = (seat, count, value)
    game.passes = check_int("passes", state.get("passes", 0), 0, 10**9)
    game.finished = [check_int("finished seat", p, 0, n - 1) for p in state["finished"]]
    if len(set(game.finished)) != len(game.finished):
        raise ValueError(f"finished lists a seat twice: {game.finished}")
    for p in game.finished:
        game.is_finished[p] = True
    game._current = check_int("current_player", state["current_player"], 0, n - 1)
    if state["ranks"] is not None:
        if len(state["ranks"]) != n:
            raise ValueError(f"ranks needs one entry per seat ({n})")
        game._ranks = [check_int("rank", r, 1, n) for r in state["ranks"]]
    elif game.is_finished[game._current]:
        raise ValueError(f"current_player {game._current} has already finished")
    elif game.display[game._current]:
        raise ValueError(
            "the current player's cards were cleared when its turn started; display must be empty"
        )

    building = state.get("building")
    if building is not None:
        _load_building(game, building)
    if state.get("phase", game.phase) != game.phase:
        raise ValueError(f"phase {state['phase']!r} does not fit the state (it is {game.phase!r})")


def _load_building(game: ChipItGame, building: dict[str, Any]) -> None:
    p = game.current_player
    rest = game.hands[p][:]
    cards = [_type(c) for c in building["cards"]]
    value, block = building["value"], building["block"]
    if value is None and (block is None or cards):
        raise ValueError("a play being built needs a value (or a block, with no cards chosen yet)")
    chips = 0
    for t in cards:
        rest[t] -= 1
        if rest[t] < 0:
            raise ValueError(f"the play being built uses {CODES[t]} more often than seat {p} holds it")
        cost = card_cost(t, value)
        if cost is None:
            raise ValueError(f"{CODES[t]} cannot show the value {value}")
        chips += cost
    if chips > game.supply:
        raise ValueError(f"the play being built needs {chips} chip points, the supply has {game.supply}")
    if game.last is not None and len(cards) >= game.last[1]:
        raise ValueError(
            f"an answer to {game.last[1]} card(s) is complete with {len(cards)}; it cannot be building"
        )
    if game.is_over:
        raise ValueError("a finished game has no play being built")
    game.build = {"value": value, "block": block, "cards": cards, "chips": chips, "rest": rest}
    if not game._legal_mask().any():
        raise ValueError(f"the play being built {building} cannot be completed")
