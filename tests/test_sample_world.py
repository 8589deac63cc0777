"""``CardGame.sample_world``: complete positions that agree with what one seat knows (issue 24, item 1).

Per game and table size (smallest, default, largest): the sample shows the seat
the same observation, mask and text as the true state, conserves cards and
chips, and plays on to the end; and it cannot read what the seat must not see:
changing only hidden cards of the true state never changes a seeded sample, two
states the seat cannot tell apart give the same distribution of samples, and
each unknown card lands in each hidden slot as often as a uniform deal makes it
(chi-square tests with fixed seeds, so the outcome is deterministic).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import pytest
from scipy import stats

from card_envs.core.game import CardGame
from card_envs.games.chipit.engine import ChipItGame
from card_envs.games.tock.engine import TockGame
from card_envs.games.uno.engine import UnoGame
from tests.toy_game import ClimbGame

State = dict[str, Any]
#: p-values below this fail a chi-square test (a fixed seed makes each test deterministic)
ALPHA = 1e-4


@dataclass(frozen=True)
class Hidden:
    """Where a game keeps cards a seat may not see, as ``state_dict()`` fields."""

    #: the hidden slots of ``seat``: name -> the cards there (a pile's top card only: a position)
    slots: Callable[[State, int], dict[str, list[Any]]]
    #: every card of the state, for conservation
    cards: Callable[[State], list[Any]]
    #: the fields a sample may change (the rest must be the true state's)
    fields: tuple[str, ...]


def _others(state: State, seat: int) -> list[int]:
    return [p for p in range(state["num_players"]) if p != seat]


def _uno_slots(state: State, seat: int) -> dict[str, list[Any]]:
    slots = {f"hands[{p}]": list(state["hands"][p]) for p in _others(state, seat)}
    if state["drawn"] is not None and state["turn_player"] != seat:
        slots[f"hands[{state['turn_player']}]"].remove(state["drawn"])
    slots["draw_pile top"] = state["draw_pile"][:1]
    return slots


def _chipit_slots(state: State, seat: int) -> dict[str, list[Any]]:
    slots = {f"hands[{p}]": list(state["hands"][p]) for p in _others(state, seat)}
    if state["building"] is not None and state["current_player"] != seat:
        for code in state["building"]["cards"]:
            slots[f"hands[{state['current_player']}]"].remove(code)
    slots["out"] = list(state["out"])
    return slots


def _chipit_cards(state: State) -> list[Any]:
    shown = [s["card"] for seat in state["display"] for s in seat]
    return [*chain.from_iterable(state["hands"]), *state["out"], *state["discard"], *shown]


def _tock_cards(state: State) -> list[Any]:
    drawn = [] if state["drawn"] is None else [state["drawn"]]
    return [
        *state["supply"],
        *chain.from_iterable(state["piles"] + state["stacks"]),
        *drawn,
        *state["centre"],
    ]


HIDDEN = {
    "uno": Hidden(
        _uno_slots,
        lambda s: [*chain.from_iterable(s["hands"]), *s["draw_pile"], *s["discard_pile"]],
        ("hands", "draw_pile", "challenge"),
    ),
    "tock": Hidden(lambda s, seat: {"supply top": s["supply"][:1]}, _tock_cards, ("supply",)),
    "chipit": Hidden(_chipit_slots, _chipit_cards, ("hands", "out")),
}

GAMES: list[tuple[type[CardGame], dict[str, Any]]] = [
    (UnoGame, {"draw_four": "official"}),
    (TockGame, {}),
    (ChipItGame, {}),
]
TABLES = [
    pytest.param(game, rules, n, id=f"{game.name}-{n}p")
    for game, rules in GAMES
    for n in sorted({game.min_players, game.default_players, game.max_players})
]


def positions(
    game: type[CardGame], rules: dict[str, Any], n: int, seeds: range, every: int, per_game: int = 4
) -> Iterator[CardGame]:
    """Mid-game positions of seeded random games: every ``every`` steps (at most ``per_game``
    of each game), each as its own engine."""
    for seed in seeds:
        g = game.from_rules(n, **rules)
        g.reset(seed)
        rng = np.random.default_rng(seed)
        step = 0
        while not g.is_over and step < per_game * every:
            if step % every == every - 1:
                yield _copy(g)
            g.step(int(rng.choice(g.legal_actions())))
            step += 1


def _copy(g: CardGame) -> CardGame:
    copy_ = type(g).from_rules(g.num_players, **g.rules)
    copy_.load_state_dict(g.state_dict(), dealt_holding=g.dealt_holding)
    return copy_


def _public(state: State, hidden: Hidden) -> State:
    return {k: v for k, v in state.items() if k not in hidden.fields}


def _own_cards(state: State, seat: int) -> list[Any]:
    return sorted(state["hands"][seat]) if "hands" in state else []


# ------------------------------------------------------------- agreement
@pytest.mark.parametrize(("game", "rules", "n"), TABLES)
def test_the_sample_looks_the_same_to_the_seat_and_conserves_everything(
    game: type[CardGame], rules: dict[str, Any], n: int
) -> None:
    hidden = HIDDEN[game.name]
    rng = np.random.default_rng(1)
    checked = 0
    for g in positions(game, rules, n, range(3), every=9):
        true = g.state_dict()
        for seat in range(n):
            world = g.sample_world(seat, rng)
            assert type(world) is type(g) and world.num_players == n and world.rules == g.rules
            np.testing.assert_array_equal(world.observe(seat), g.observe(seat))
            assert world.render_text(seat) == g.render_text(seat)
            assert world.current_player == g.current_player and world.phase == g.phase
            if seat == g.current_player:
                np.testing.assert_array_equal(world.action_mask(), g.action_mask())
            world.check_consistency()
            sample = world.state_dict()
            assert Counter(hidden.cards(sample)) == Counter(hidden.cards(true))
            assert _public(sample, hidden) == _public(true, hidden)  # chips, table, counts, history
            assert _own_cards(sample, seat) == _own_cards(true, seat)
            assert world.dealt_holding == g.dealt_holding
            checked += 1
        assert g.state_dict() == true  # sampling leaves the true state alone
    assert checked >= 5 * n


@pytest.mark.parametrize(("game", "rules", "n"), TABLES)
def test_the_sample_plays_on_to_the_end(game: type[CardGame], rules: dict[str, Any], n: int) -> None:
    rng = np.random.default_rng(2)
    played = 0
    for g in positions(game, rules, n, range(2), every=25, per_game=1):
        world = g.sample_world(played % n, rng)
        steps = 0
        while not world.is_over and steps < game.default_max_steps:
            world.step(int(rng.choice(world.legal_actions())))
            steps += 1
        world.check_consistency()
        assert world.is_over or steps == game.default_max_steps
        played += 1
    assert played >= 2


# --------------------------------------------------------------- leakage
def _swap_hidden(g: CardGame, seat: int, rng: np.random.Generator) -> CardGame | None:
    """The true state with two different hidden cards of ``seat`` swapped between slots (or
    within a pile), loaded into a fresh engine whose own generator is elsewhere; None if
    no such swap gives a valid state."""
    state = g.state_dict()
    places = _hidden_places(state, seat)
    for _ in range(20):
        (f1, i1), (f2, i2) = (places[k] for k in rng.choice(len(places), 2, replace=False))
        a, b = _get(state, f1, i1), _get(state, f2, i2)
        if a == b or (f1 == f2 and f1[1] is not None):  # a hand is a set: a swap inside it is none
            continue
        swapped = copy.deepcopy(state)
        _set(swapped, f1, i1, b)
        _set(swapped, f2, i2, a)
        other = type(g).from_rules(g.num_players, **g.rules)
        other.rng = np.random.default_rng(12345)
        try:
            other.load_state_dict(swapped, dealt_holding=g.dealt_holding)
        except ValueError:
            continue  # e.g. the drawn card or a half-built play must stay where it is
        return other
    return None


def _hidden_places(state: State, seat: int) -> list[tuple[tuple[str, int | None], int]]:
    """(field, index) of every card hidden from ``seat`` in a state dict."""
    places: list[tuple[tuple[str, int | None], int]] = []
    if state["game"] == "tock":
        return [(("supply", None), i) for i in range(len(state["supply"]))]
    for p in _others(state, seat):
        places += [(("hands", p), i) for i in range(len(state["hands"][p]))]
    pile = "draw_pile" if state["game"] == "uno" else "out"
    return places + [((pile, None), i) for i in range(len(state[pile]))]


def _get(state: State, where: tuple[str, int | None], i: int) -> Any:
    name, p = where
    return (state[name] if p is None else state[name][p])[i]


def _set(state: State, where: tuple[str, int | None], i: int, card: Any) -> None:
    name, p = where
    (state[name] if p is None else state[name][p])[i] = card


@pytest.mark.parametrize(("game", "rules", "n"), TABLES)
def test_changing_only_hidden_cards_never_changes_a_seeded_sample(
    game: type[CardGame], rules: dict[str, Any], n: int
) -> None:
    rng = np.random.default_rng(3)
    compared = 0
    for g in positions(game, rules, n, range(3), every=11):
        for seat in range(n):
            other = _swap_hidden(g, seat, rng)
            if other is None:
                continue
            assert other.state_dict() != g.state_dict()
            np.testing.assert_array_equal(other.observe(seat), g.observe(seat))
            seed = int(rng.integers(2**32))
            a = g.sample_world(seat, np.random.default_rng(seed))
            b = other.sample_world(seat, np.random.default_rng(seed))
            assert a.state_dict() == b.state_dict()
            assert a.seed == b.seed
            compared += 1
    assert compared >= 3 * n


@pytest.mark.parametrize(("game", "rules", "n"), TABLES)
def test_a_world_sampler_draws_what_sample_world_draws(
    game: type[CardGame], rules: dict[str, Any], n: int
) -> None:
    """The seat's view read once serves many draws: each is the world ``sample_world`` gives
    for the same generator state, hidden cards, generator and all."""
    for g in positions(game, rules, n, range(2), every=13, per_game=2):
        seat = (g.current_player + 1) % n
        sample = g.world_sampler(seat)
        ours, theirs = np.random.default_rng(7), np.random.default_rng(7)
        for _ in range(4):
            a, b = sample(ours), g.sample_world(seat, theirs)
            assert a.state_dict() == b.state_dict()
            assert a.rng.bit_generator.state == b.rng.bit_generator.state


def _slot_counts(g: CardGame, seat: int, samples: int, seed: int) -> dict[str, Counter[Any]]:
    """How often each card lands in each hidden slot of ``seat`` over seeded samples."""
    slots = HIDDEN[g.name].slots
    counts: dict[str, Counter[Any]] = {}
    rng = np.random.default_rng(seed)
    for _ in range(samples):
        for name, cards in slots(g.sample_world(seat, rng).state_dict(), seat).items():
            counts.setdefault(name, Counter()).update(cards)
    return counts


def _position(game: type[CardGame], rules: dict[str, Any], n: int, steps: int) -> CardGame:
    return next(iter(positions(game, rules, n, range(1), every=steps)))


def _early_position(game: type[CardGame], rules: dict[str, Any], n: int) -> tuple[CardGame, int]:
    """A position ten steps into a seeded game, and the seat deciding there."""
    g = _position(game, rules, n, steps=10)
    return g, g.current_player


SMALL_TABLES = [pytest.param(game, rules, game.min_players, id=game.name) for game, rules in GAMES]
ALL_TABLES_SLOW = [pytest.param(*p.values, marks=pytest.mark.slow, id=f"{p.id}-slow") for p in TABLES]


@pytest.mark.parametrize(("game", "rules", "n"), SMALL_TABLES + ALL_TABLES_SLOW)
def test_indistinguishable_states_give_the_same_distribution_of_samples(
    game: type[CardGame], rules: dict[str, Any], n: int
) -> None:
    g, seat = _early_position(game, rules, n)
    other = _swap_hidden(g, seat, np.random.default_rng(4))
    assert other is not None
    a = _slot_counts(g, seat, 400, seed=5)
    b = _slot_counts(other, seat, 400, seed=6)  # different draws: the same law, not the same samples
    assert a.keys() == b.keys()
    for name in a:
        cards = sorted(set(a[name]) | set(b[name]), key=str)
        if not cards:  # an empty slot (no cards out of play at this table)
            continue
        table = np.array([[a[name][c] for c in cards], [b[name][c] for c in cards]])
        assert stats.chi2_contingency(table).pvalue > ALPHA, name


@pytest.mark.parametrize(("game", "rules", "n"), SMALL_TABLES + ALL_TABLES_SLOW)
def test_every_unknown_card_lands_in_every_hidden_slot_uniformly(
    game: type[CardGame], rules: dict[str, Any], n: int
) -> None:
    g, seat = _early_position(game, rules, n)
    true_slots = HIDDEN[game.name].slots(g.state_dict(), seat)
    view = g._seat_view(seat)
    unknown = Counter(view.unknown)
    samples = 400
    counts = _slot_counts(g, seat, samples, seed=7)
    for name, cards in true_slots.items():
        if not cards:
            continue
        # a slot of k of the U unknown cards holds card c, of m copies, k * m / U times a sample on average
        expected = np.array([samples * len(cards) * unknown[c] / len(view.unknown) for c in sorted(unknown)])
        observed = np.array([counts[name][c] for c in sorted(unknown)])
        assert (observed > 0).all(), f"{name}: some unknown card never lands there"
        assert stats.chisquare(observed, expected).pvalue > ALPHA, name


# -------------------------------------------------------- known positions
def test_an_uno_bluff_is_known_to_its_player_and_follows_the_sampled_hand_for_others() -> None:
    g = UnoGame(2, draw_four="official")
    g.reset(0)
    state = g.state_dict()
    # seat 0 played a Wild Draw Four on a red 5 and names the colour; seat 1 may challenge it
    hand0 = ["R1", "Y2"]
    hand1 = list(state["hands"][1])[:5]
    rest = [c for c in state["draw_pile"] + state["hands"][0] + state["hands"][1][5:] if c not in hand0][:20]
    state.update(
        hands=[hand0, hand1],
        draw_pile=rest,
        discard_pile=["R5", "W+4"],
        phase="choose_colour",
        colour="R",
        pending_draw=4,
        drawn=None,
        challenge={"seat": 0, "bluff": True},
        turn_player=0,
        called=[False, False],
    )
    g.load_state_dict(state)
    rng = np.random.default_rng(0)
    bluffs = Counter()
    for _ in range(200):
        world = g.sample_world(1, rng)
        sample = world.state_dict()
        has_red = any(code.startswith("R") for code in sample["hands"][0])
        assert sample["challenge"]["bluff"] == has_red
        bluffs[has_red] += 1
    assert bluffs[True] and bluffs[False]  # seat 1 cannot know: both happen
    assert g.sample_world(0, rng).state_dict()["challenge"]["bluff"] is True  # its player knows


def test_a_tock_sample_only_reorders_the_supply() -> None:
    g = _position(TockGame, {}, 4, steps=30)
    true = g.state_dict()
    sample = g.sample_world(2, np.random.default_rng(0)).state_dict()
    assert sorted(sample["supply"]) == sorted(true["supply"]) and sample["supply"] != true["supply"]
    del sample["supply"], true["supply"]
    assert sample == true


# ------------------------------------------------------------ bad input
def test_sample_world_rejects_bad_input() -> None:
    g = UnoGame(3)
    with pytest.raises(RuntimeError, match="reset"):
        g.sample_world(0, np.random.default_rng(0))
    g.reset(0)
    with pytest.raises(ValueError, match="seat"):
        g.sample_world(3, np.random.default_rng(0))
    with pytest.raises(TypeError, match="Generator"):
        g.sample_world(0, 7)  # type: ignore[arg-type]
    climb = ClimbGame()
    climb.reset(0)
    with pytest.raises(NotImplementedError, match="climb"):
        climb.sample_world(0, np.random.default_rng(0))
