"""The move choices every game offers a person: every legal action once, nothing else."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs.core.choices import SCREEN, Choice, ChoiceGroup, leaf_actions
from card_envs.core.registry import game_class, game_specs


def test_a_choice_plays_an_action_or_opens_a_step_never_both() -> None:
    leaf = Choice("play R5", action=3)
    with pytest.raises(ValueError, match="exactly one"):
        Choice("nothing")
    with pytest.raises(ValueError, match="exactly one"):
        Choice("both", action=1, then=(ChoiceGroup("x", (leaf,)),))
    inner = Choice("pick R5", then=(ChoiceGroup("chips", (leaf,)),))
    assert [c.action for c in inner.leaves()] == [3]
    assert inner.to_json()["then"][0]["choices"][0]["action"] == 3


def positions(name: str, seed: int, moves: int):
    """The positions of random games at the smallest and largest table, ``moves`` each
    (a game that ends is dealt again)."""
    rng = np.random.default_rng(seed)
    cls = game_class(name)
    for players in (cls.min_players, cls.max_players):
        game = cls(players)
        game.reset(int(rng.integers(1000)))
        for _ in range(moves):
            if game.is_over:
                game.reset(int(rng.integers(1000)))
            yield game
            game.step(int(rng.choice(game.legal_actions())))


def steps(groups):
    """Every step a person can open, as the list of its choices (the first step first)."""
    shown = [choice for group in groups for choice in group.choices]
    yield shown
    for choice in shown:
        if choice.then:
            yield from steps(choice.then)


@pytest.mark.parametrize("name", sorted(game_specs()))
def test_choices_offer_exactly_the_legal_actions(name: str) -> None:
    for game in positions(name, 0, 150):
        offered = leaf_actions(game.move_choices())
        assert sorted(offered) == game.legal_actions()
        assert len(offered) == len(set(offered))


@pytest.mark.parametrize("name", sorted(game_specs()))
def test_no_step_is_longer_than_a_screen_and_a_marked_choice_never_comes_first(name: str) -> None:
    """A menu fits under the table on a 50-line screen, and typing 1 out of habit never lands
    on a rule break or a costly play while a plain move exists."""
    for game in positions(name, 1, 300):
        groups = game.move_choices()
        for step in steps(groups):
            assert len(step) <= SCREEN + 2, [c.label for c in step]
        leaves = [leaf for group in groups for leaf in group.leaves()]
        first = groups[0].choices[0]
        while first.then:
            first = first.then[0].choices[0]
        assert not first.warn or all(leaf.warn for leaf in leaves), first
