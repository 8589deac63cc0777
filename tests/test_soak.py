"""The soak checks find broken engines and report how to reproduce; bench/soak.py runs them in workers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from card_envs.core.registry import game_specs
from card_envs.core.table import Table
from card_envs.evaluation.soak import InvariantError, check_ranks, soak_game
from tests.toy_game import DRAW, ClimbGame

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("game", sorted(game_specs()))
def test_random_games_of_every_game_pass_the_soak_checks(game):
    for seed in range(5):
        result = soak_game(Table.of(game, 3), seed)
        assert result.error is None and result.steps > 0


class LosesCards(ClimbGame):
    """A bug on purpose: drawing from an empty deck loses the pile instead of recycling it."""

    def _apply(self, action: int) -> None:
        if action == DRAW and not self.deck:
            self.pile = []
        super()._apply(action)


class NoMoves(ClimbGame):
    """A bug on purpose: the player on turn may never draw."""

    def _legal_mask(self):
        mask = super()._legal_mask()
        mask[DRAW] = 0
        return mask


def test_a_card_lost_or_an_empty_mask_is_reported_with_the_seed_not_raised():
    lost = [soak_game(LosesCards(3), seed).error for seed in range(30)]
    assert any(error and "inconsistent state" in error for error in lost)
    stuck = soak_game(NoMoves(2), seed=0)
    assert stuck.error is not None and "no legal action for player" in stuck.error
    # the same arguments give the same failure: the report is a reproduction
    assert [soak_game(LosesCards(3), seed).error for seed in range(30)] == lost


def test_invalid_ranks_are_caught():
    check_ranks([1, 2, 2], 3)
    for ranks in ([1, 1, 2], [2, 3, 1, 1], [1, 2], None):
        with pytest.raises(InvariantError):
            check_ranks(ranks, 3)


@pytest.mark.slow  # a whole command in a subprocess or a bench; the library side is tested fast
def test_soak_bench_runs_in_workers_and_writes_its_section(tmp_path):
    out = tmp_path / "reliability.md"
    out.write_text("# Reliability\n\nintro\n")
    run = [
        sys.executable,
        "bench/soak.py",
        "--game",
        "chipit",
        "--games",
        "24",
        "--workers",
        "2",
        "--out",
        str(out),
    ]
    done = subprocess.run(run, cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.startswith("# Reliability\n\nintro\n") and "| ChipIt | 10 | 24 | 0 |" in text
    subprocess.run(run, cwd=REPO, capture_output=True, text=True, check=True)  # replaces its section
    again = out.read_text()
    assert again.startswith("# Reliability\n\nintro\n") and again.count("soak: begin") == 1
