"""A tool stopped by SIGTERM (a job scheduler, ``timeout``) ends with every worker it started."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")


def children_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid``."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def stop_with_sigterm(command: list[str], workers: int, cwd: Path) -> tuple[int, set[int]]:
    """Start ``command``, wait until it runs ``workers`` worker processes, SIGTERM it; its exit
    code and the workers it had."""
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    workers_seen: set[int] = set()
    while len(workers_seen) < workers + 1 and time.monotonic() < deadline:  # + multiprocessing's tracker
        workers_seen |= children_of(process.pid)
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        time.sleep(0.2)
    time.sleep(2)  # the workers are at work now
    workers_seen |= children_of(process.pid)
    process.send_signal(signal.SIGTERM)
    code = process.wait(timeout=60)
    return code, workers_seen


def assert_gone(pids: set[int]) -> None:
    time.sleep(1)
    assert pids and not [pid for pid in pids if alive(pid)], f"still running: {pids}"


@pytest.mark.slow
def test_evaluate_stopped_by_sigterm_leaves_no_worker(tmp_path):
    command = [sys.executable, str(ROOT / "evaluate.py"), "--agents", "rule,rule,rule,rule"]
    command += ["--games", "1000000", "--workers", "2"]
    code, workers = stop_with_sigterm(command, 2, tmp_path)
    assert code == 128 + signal.SIGTERM
    assert_gone(workers)


@pytest.mark.slow
def test_train_stopped_by_sigterm_during_imitation_leaves_no_worker(tmp_path):
    command = [sys.executable, str(ROOT / "train.py"), "--game", "tock", "--envs", "2", "--teacher", "rule"]
    command += ["--imitation-steps", "5000000", "--out", str(tmp_path / "run")]
    code, workers = stop_with_sigterm(command, 2, tmp_path)
    assert code == 128 + signal.SIGTERM
    assert_gone(workers)
    assert not (tmp_path / "run" / "model.zip").exists()


@pytest.mark.slow
def test_a_worker_ends_with_its_parent_even_when_the_parent_is_killed(tmp_path):
    """die_with_parent: the kernel ends the worker when its parent dies of SIGKILL (no cleanup)."""
    parent = (
        "import concurrent.futures as f, multiprocessing as m, time\n"
        "from card_envs.core.processes import die_with_parent\n"
        "if __name__ == '__main__':\n"
        "    context = m.get_context('spawn')\n"
        "    pool = f.ProcessPoolExecutor(1, mp_context=context, initializer=die_with_parent)\n"
        "    pool.submit(time.sleep, 600)\n"
        "    time.sleep(600)\n"
    )
    script = tmp_path / "parent.py"
    script.write_text(parent)
    process = subprocess.Popen([sys.executable, str(script)], cwd=ROOT)
    deadline, workers = time.monotonic() + 60, set()
    while len(workers) < 2 and time.monotonic() < deadline:
        workers |= children_of(process.pid)
        time.sleep(0.2)
    time.sleep(1)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    assert_gone(workers)


def _default_sigint() -> None:
    """A pytest-xdist worker may ignore SIGINT, and a child inherits that: Python then
    installs no KeyboardInterrupt handler, and Ctrl-C would not reach the tool."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def evaluate_command(games: int, workers: int, out: Path, *more: str) -> list[str]:
    """evaluate.py on 4-player Chip It, rule-based and random players, writing into ``out``."""
    tool, table = [sys.executable, str(ROOT / "evaluate.py")], ["--game", "chipit", "--players", "4"]
    options = ["--agents", "rule,rule,random,random", "--games", str(games), "--workers", str(workers)]
    return [*tool, *table, *options, "--out", str(out), *more]


@pytest.mark.slow
def test_evaluate_stopped_by_ctrl_c_writes_the_games_finished_so_far(tmp_path):
    out, recorded = tmp_path / "out", tmp_path / "games"
    command = evaluate_command(100_000, 1, out, "--record", str(recorded))
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    process = subprocess.Popen(command, cwd=tmp_path, preexec_fn=_default_sigint, **pipes)
    deadline = time.monotonic() + 120
    while len(list(recorded.glob("*.jsonl"))) < 3 and time.monotonic() < deadline:  # a game, a file
        assert process.poll() is None, process.communicate()[1]
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    shown, errors = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGINT, errors
    assert "Traceback" not in errors
    [result] = json.loads((out / "results.json").read_text())
    games = len(list(recorded.glob("*.jsonl")))
    assert result["partial"] and result["planned_games"] == 100_000 and not result["duplicate"]
    assert result["games"] >= 3 and result["games"] in (games - 1, games)  # the game being played is lost
    assert all(sum(agent["seat_games"]) == result["games"] for agent in result["agents"])
    report = (out / "report.md").read_text()
    assert "**Partial results**" in report
    assert f"{result['games']:,} of 100,000 games (stopped early)" in report
    assert "stopped early" in shown.splitlines()[0]  # the partial table, printed


@pytest.mark.slow  # a whole command in a subprocess or a bench; the library side is tested fast
def test_evaluate_stopped_by_sigterm_writes_the_whole_deals_finished(tmp_path):
    out = tmp_path / "out"
    command = evaluate_command(800, 2, out, "--duplicate")
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    errors, deadline = b"", time.monotonic() + 120
    # the first progress line: at 400 games, as the workers hand in their 100 games at a time
    while b"/800 games" not in errors and time.monotonic() < deadline:
        if select.select([process.stderr], [], [], 1)[0]:
            errors += os.read(process.stderr.fileno(), 65536)
        assert process.poll() is None, errors.decode()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM
    [result] = json.loads((out / "results.json").read_text())
    assert result["partial"] and result["duplicate"] and result["planned_games"] == 800
    assert 400 <= result["games"] < 800 and result["games"] == 4 * result["deals"]  # whole deals of 4 games
    assert all(agent["seat_games"] == [result["deals"]] * 4 for agent in result["agents"])
