"""Test-session set-up: the toy game of the test tree joins the registry, so every shared test
covers it; a worker of ``pytest -n N`` computes with one thread."""

import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    # the workers fill the cores already: torch's and numba's thread pools beside them only
    # contend (one test's torch fit took 15 s in the suite, 3 s alone), as train.py's runs found
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(name, "1")

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import card_envs.agents.pretrained as pretrained
import tests.toy_game  # noqa: F401  (registers the game "climb")

#: the table that :func:`unshipped_table` hides: every table of every game ships an agent
UNSHIPPED = ("chipit", 2)


@pytest.fixture
def unshipped_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, int]]:
    """(game, players) of a table without a shipped agent: the package's cards are copied but
    that one's, and the copy stands in for the package's folder while the test runs (what a
    refusal reads: the cards name the tables that have an agent)."""
    hidden = pretrained.file_stem(*UNSHIPPED)
    for card in pretrained.DATA.glob("*.json"):
        if card.stem != hidden:
            shutil.copy(card, tmp_path / card.name)
    monkeypatch.setattr(pretrained, "DATA", tmp_path)
    pretrained.load_pretrained.cache_clear()
    yield UNSHIPPED
    pretrained.load_pretrained.cache_clear()
