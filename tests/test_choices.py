"""The move choices every game offers a person: every legal action once, nothing else."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs.core.choices import Choice, ChoiceGroup, leaf_actions
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


@pytest.mark.parametrize("name", sorted(game_specs()))
def test_choices_offer_exactly_the_legal_actions(name: str) -> None:
    rng = np.random.default_rng(0)
    cls = game_class(name)
    for players in (cls.min_players, cls.max_players):
        game = cls(players)
        game.reset(int(rng.integers(1000)))
        for _ in range(150):
            if game.is_over:
                break
            offered = leaf_actions(game.move_choices())
            assert sorted(offered) == game.legal_actions()
            assert len(offered) == len(set(offered))
            game.step(int(rng.choice(game.legal_actions())))
