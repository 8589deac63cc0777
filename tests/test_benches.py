"""The benchmarks of search players, shipped agents and time to a winning agent run end to end
(``--quick``: tiny budgets, so these check the pipeline and what it writes, not the figures)."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow  # whole benches in subprocesses; their library sides are tested fast


def run_bench(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_search_bench_writes_its_strength_table_into_its_section(tmp_path: Path) -> None:
    begin, end = (
        "<!-- bench/search.py strength tock: begin -->",
        "<!-- bench/search.py strength tock: end -->",
    )
    doc = tmp_path / "search.md"
    doc.write_text(f"# Search\n\n{begin}\nold figures\n{end}\n\nafter\n")
    run_bench(
        "bench/search.py",
        "--quick",
        "--game",
        "tock",
        "--part",
        "strength",
        "--workers",
        "1",
        "--doc",
        str(doc),
    )
    text = doc.read_text()
    assert "old figures" not in text and "`python bench/search.py --quick --game tock" in text
    assert text.endswith(f"{end}\n\nafter\n")
    for row in (
        "| tock | `search:sims=8` | `rule` x3 |",  # Tock's horizon is its spec's search default
        "| tock | `search:sims=8:perfect=true` | `rule` x3 |",
        "| tock | `heuristic` | `rule` x3 |",
        "| tock | `pretrained` | `rule` x3 |",
        "| tock | `search:sims=8` | `heuristic` x3 |",
    ):
        assert row in text


def test_the_search_bench_compares_horizons_against_lapse_free_players(tmp_path: Path) -> None:
    doc = tmp_path / "search.md"
    command = ("bench/search.py", "--quick", "--game", "tock", "--part", "horizon", "--workers", "1")
    out = run_bench(*command, "--doc", str(doc))
    lapse_free = "`rule:vigilance=1.0:false_knock_rate=0.0:cheat_rate=0.0`"
    for horizon in ("50", "none"):
        assert f"| tock | `search:sims=8:horizon={horizon}` | {lapse_free} x3 | 4, seats rotated |" in out
    assert "<!-- bench/search.py horizon tock: begin -->" in doc.read_text()
    two = run_bench(*command, "--doc", str(doc), "--players", "2")  # a section of its own
    assert f"| tock | `search:sims=8:horizon=50` | {lapse_free} x1 | 4, seats rotated |" in two
    text = doc.read_text()
    assert "<!-- bench/search.py horizon tock 2p: begin -->" in text
    assert "<!-- bench/search.py horizon tock: begin -->" in text


def test_the_pretrain_bench_ships_a_4_player_agent_with_its_card(tmp_path: Path) -> None:
    """Chip It's 4-player agent: the recipe's run, then its further stages (FOLLOW_STAGES), the
    last one fitting the network to its own valued moves without PPO."""
    out = run_bench("bench/pretrain.py", "--quick", "--tables", "chipit-4p", "--workers", "1")
    doc = Path(re.findall(r"wrote (\S+pretrained\.md)", out)[-1])
    card = json.loads((doc.parent / "agents" / "chipit-4p.json").read_text())
    commands = card["training"]["commands"]
    assert card["results"]["gauntlet"] and len(commands) == 7
    assert all(row["duplicate"] for row in card["results"]["gauntlet"])  # Chip It's deals decide much
    assert "--opponents league" in commands[1] and "--opponents heuristic" in commands[3]
    assert all("--improve-games 600" in c and "--timesteps 0" in c for c in commands[5:])
    page = doc.read_text()
    assert "## 4-player chipit: `pretrained` (`chipit-4p`)" in page and "`, then `python train.py" in page
    assert card["results"]["head_to_head"]["agent"]["games"] > 0 and "**Head to head** against" in page


def test_the_time_to_win_bench_writes_its_page(tmp_path: Path) -> None:
    """A run of one game rewrites that game's row and keeps the other games' rows."""
    old = "# old\n\n| game | head |\n|---|\n| tock | old |\n| uno | kept |\n"
    (tmp_path / "time-to-win.md").write_text(old)
    run_bench("bench/learning.py", "--time-to-win", "--quick", "--game", "tock", "--out", str(tmp_path))
    page = (tmp_path / "time-to-win.md").read_text()
    assert page.startswith("# Time to a winning agent") and "\n| tock | " in page
    assert "--stop-when-ahead" in page
    assert "| tock | old |" not in page and page.endswith("\n| uno | kept |\n")


def test_the_heuristic_twins_bench_prints_a_row_per_game() -> None:
    out = run_bench("bench/heuristic_twins.py", "--quick")
    assert all(f"| {game} | " in out for game in ("uno", "tock", "chipit"))


def test_the_pretrain_bench_trains_tock_on_its_full_recipe_and_judges_uno_on_more_games() -> None:
    """FULL_RECIPE (Tock away from 4 players) and EVALUATION_SCALE (UNO's games x50)."""
    out = run_bench("bench/pretrain.py", "--quick", "--tables", "tock-3p,uno-3p", "--workers", "1")
    assert "tock-3p: python train.py --game tock --players 3 --recipe full --seed 0" in out
    assert "uno-3p: python train.py --game uno --players 3 --recipe quick --seed 0" in out
    games = [int(n) for n in re.findall(r"agent: \{'games': (\d+)", out)]
    # --quick plays 8 games a table; UNO's duplicate deals round up to whole deals of 3 games
    assert games[0] == 8 and 8 * 50 <= games[1] < 8 * 50 + 3


def test_the_departures_bench_prints_a_row_per_search() -> None:
    out = run_bench("bench/search_departures.py", "--quick")
    assert "`python bench/search_departures.py --quick`" in out
    rows = [line for line in out.splitlines() if line.startswith("| tock | `search:sims=4:horizon=200`")]
    assert len(rows) == 1 and rows[0].count("|") == 10


def test_the_knock_values_bench_prints_a_row_per_pass() -> None:
    out = run_bench("bench/knock_values.py", "--quick", "--workers", "1", "--order")
    assert "`python bench/knock_values.py --quick --workers 1 --order`" in out
    rows = [line for line in out.splitlines() if line.startswith("| observation and order | 1 |")]
    assert len(rows) == 1 and rows[0].count("|") == 7


def test_the_pretrain_bench_judges_a_shipped_agent_again_keeping_how_it_was_trained() -> None:
    out = run_bench(
        "bench/pretrain.py", "--rejudge", "--quick", "--tables", "uno-3p,uno-4p", "--workers", "1"
    )
    folder = Path(re.findall(r"wrote (\S+)pretrained\.md", out)[-1])
    cards = {
        stem: json.loads((folder / "agents" / f"{stem}.json").read_text()) for stem in ("uno-3p", "uno-4p")
    }
    shipped = {
        stem: json.loads((ROOT / "card_envs" / "agents" / "pretrained" / f"{stem}.json").read_text())
        for stem in cards
    }
    for stem, card in cards.items():
        assert card["training"] == shipped[stem]["training"] and card["results"]["judged"]
    assert 8 * 50 <= cards["uno-3p"]["results"]["agent"]["games"] < 8 * 50 + 3  # --quick's 8, UNO's x50
    # the recipe's run is not in the scratch folder: the card's head to head stays, dated
    duel, before = cards["uno-4p"]["results"]["head_to_head"], shipped["uno-4p"]["results"]["head_to_head"]
    assert duel["agent"] == before["agent"] and duel["judged"] == before.get(
        "judged", shipped["uno-4p"]["training"]["date"]
    )
    text = (folder / "pretrained.md").read_text()
    assert text.count("**Judged again** on") == 2 and f"(judged on {duel['judged']})" in text


def test_the_improvement_targets_bench_prints_a_row_per_beta() -> None:
    out = run_bench("bench/improvement_targets.py", "--quick", "--workers", "1", "--betas", "5,20")
    assert "`python bench/improvement_targets.py --quick --workers 1 --betas 5,20`" in out
    for beta in ("5", "20"):
        rows = [line for line in out.splitlines() if line.startswith(f"| fitted, beta {beta} | ")]
        assert len(rows) == 1 and rows[0].count("|") == 8
    assert len([line for line in out.splitlines() if line.startswith("| shipped | ")]) == 1


def test_the_web_load_bench_plays_games_through_the_secured_server_with_no_error() -> None:
    """The load bench's clients send what the page sends (each game's secret): none refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    out = run_bench(
        "bench/web_load.py",
        "--games",
        "3",
        "--seconds",
        "4",
        "--think",
        "0",
        "--idle-seconds",
        "2",
        "--port",
        port,
    )
    assert "errors: 0" in out and re.search(r"move \(rule\)\s+[1-9]", out), out


def test_the_agents_bench_writes_each_games_table_into_its_section(tmp_path: Path) -> None:
    doc = tmp_path / "agents.md"
    doc.write_text("# Agents\n")
    run_bench("bench/agents.py", "--quick", "--game", "uno", "--workers", "1", "--doc", str(doc))
    text = doc.read_text()
    assert (
        "<!-- bench/agents.py uno: begin -->" in text and "`python bench/agents.py --quick --game uno" in text
    )
    for spec in ("random", "rule", "heuristic", "pretrained", "strong", "search"):
        assert f"| uno | `{spec}`" in text, spec
