"""``strong``: each game's strongest player at at most 50 ms a decision, named once in its
GameSpec and built like any other spec, at every table size; bench/strong.py writes its figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from card_envs.agents.search import SearchPlayer
from card_envs.agents.specs import check_spec, make_policy
from card_envs.core.registry import game_spec
from tests.scripts import load_script

bench = load_script("bench/strong.py")


@pytest.mark.parametrize("game", bench.GAMES)
def test_strong_is_the_player_its_game_spec_names(game: str) -> None:
    named = game_spec(game).strong
    assert named != "strong"  # no loop
    strong, direct = make_policy("strong", game, 4), make_policy(named, game, 4)
    assert type(strong) is type(direct)
    if isinstance(strong, SearchPlayer):
        assert isinstance(direct, SearchPlayer) and strong.settings == direct.settings
        assert strong.settings.sims is not None and strong.settings.sims < 400  # below search's default


@pytest.mark.parametrize("game", bench.GAMES)
def test_strong_is_built_at_every_table_size_the_rules_allow(game: str) -> None:
    cls = game_spec(game).engine_class()
    for players in range(cls.min_players, cls.max_players + 1):
        check_spec("strong", game, players)  # the shipped network it may use exists at each


def test_the_bench_writes_each_games_speed_and_strength_lines(tmp_path: Path) -> None:
    doc = tmp_path / "strong.md"
    doc.write_text("# strong\n")
    bench.main(["--quick", "--game", "uno", "--workers", "1", "--doc", str(doc)])
    text = doc.read_text()
    begin, end = bench.markers("uno")
    section = text[text.index(begin) : text.index(end)]
    assert text.startswith("# strong\n") and "`python bench/strong.py --quick --game uno" in section
    rows = [line for line in section.splitlines() if line.startswith("| uno | `")]
    speed = [line for line in rows if " x3 | " not in line]
    assert [line.split("|")[2].strip() for line in speed] == ["`strong`", "`search`", "`pretrained`"]
    assert all(float(line.split("|")[4]) > 0 for line in speed)
    strength = [line for line in rows if " x3 | " in line]
    assert len(strength) == 2 and "`heuristic` x3" in strength[0]  # UNO is not asked to beat search


def test_a_bad_count_is_refused_in_one_line_with_exit_code_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        bench.main(["--games", "0"])
    assert stop.value.code == 2 and "--games" in capsys.readouterr().err.splitlines()[-1]
