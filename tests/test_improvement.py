"""Search as a teacher by soft targets (card_envs.training.improvement): the moves valued are the
network's own first, each advantage is over that move in the same worlds, the same seeds give the
same values, the soft targets lean towards the moves that gain, and a fit to them picks those
moves on games it never saw."""

from __future__ import annotations

import numpy as np
import torch

from card_envs.agents.pretrained import load_pretrained
from card_envs.core.table import Table
from card_envs.training.improvement import (
    Valued,
    collect_valued,
    fit_soft_targets,
    soft_targets,
    value_decisions,
)


def test_each_decision_compares_the_networks_own_move_first_in_the_same_worlds() -> None:
    valued = value_decisions(Table.of("chipit", 4), "pretrained", [3], 3, 4, "rule")
    net = load_pretrained("chipit", 4)
    own = np.argmax(net.logits(valued.observations, valued.masks), axis=1)
    assert len(valued) > 20 and set(valued.games.tolist()) == {3}
    assert (valued.moves[:, 0] == own).all()
    assert (valued.advantages[:, 0] == 0).all() and (valued.errors[:, 0] == 0).all()
    compared = (valued.moves >= 0).sum(axis=1)
    assert (compared == np.minimum(valued.masks.sum(axis=1), 3)).all()  # -1 only where fewer were legal
    for mask, moves in zip(valued.masks, valued.moves, strict=True):
        shown = moves[moves >= 0]
        assert mask[shown].all() and len(set(shown.tolist())) == shown.size
    # four players' rank rewards lie 2/3 apart: a difference of two is at most 2, and some are not 0
    assert np.abs(valued.advantages).max() <= 2.0 and (np.abs(valued.advantages) > 0).any()


def test_the_same_seeds_give_the_same_values_in_one_process_or_two() -> None:
    alone = value_decisions(Table.of("uno", 3), "pretrained", [5, 6, 7], 2, 3, "rule")
    shared = collect_valued(Table.of("uno", 3), "pretrained", 3, 2, 3, "rule", seed=5, workers=2)
    assert set(alone.games.tolist()) == {5, 6, 7}
    for name in Valued.__dataclass_fields__:
        assert np.array_equal(getattr(alone, name), getattr(shared, name)), name


def test_the_soft_targets_lean_towards_a_gaining_move_by_exp_beta_times_its_gain() -> None:
    p = np.array([[0.5, 0.3, 0.2, 0.0], [0.1, 0.1, 0.1, 0.7]])
    valued = Valued(
        np.zeros((2, 1), np.float32),
        np.array([[1, 1, 1, 0], [1, 1, 1, 1]], np.int8),
        np.array([[0, 1], [3, -1]]),
        np.array([[0.0, 0.1], [0.0, 0.0]]),
        np.zeros((2, 2)),
        np.array([0, 1]),
    )
    target = soft_targets(p, valued, np.arange(2), 20.0)
    assert np.allclose(target.sum(axis=1), 1.0) and target[0, 3] == 0.0
    assert np.isclose((target[0, 1] / target[0, 0]) / (0.3 / 0.5), np.exp(2.0))
    assert np.isclose(target[0, 2] / target[0, 0], 0.2 / 0.5)  # a move not compared keeps its share
    assert np.allclose(target[1], p[1])  # nothing gains: the network's own probabilities


def test_a_fit_to_targets_that_favour_another_move_plays_it_on_games_it_never_saw() -> None:
    """40 games of 8 decisions; the network starts sure of move 0, move 1 gains 0.5 everywhere."""
    rng = np.random.default_rng(0)
    n = 320
    valued = Valued(
        rng.normal(size=(n, 6)).astype(np.float32),
        np.ones((n, 5), np.int8),
        np.tile([0, 1], (n, 1)),
        np.tile([0.0, 0.5], (n, 1)),
        np.full((n, 2), 0.1),
        np.repeat(np.arange(40), 8),
    )
    torch.manual_seed(0)
    layer = torch.nn.Linear(6, 5)
    with torch.no_grad():
        layer.bias.copy_(torch.tensor([3.0, 0.0, 0.0, 0.0, 0.0]))

    def logits(observations: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        return layer(observations).masked_fill(~masks, -1e9)

    result = fit_soft_targets(logits, layer.parameters(), valued, 40.0, 100, 5e-2)
    assert (result.decisions, result.games) == (288, 40)  # 36 games fitted, 4 held out whole
    assert (result.changed, result.outside) == (1.0, 0.0) and np.isclose(result.gain, 0.5)
