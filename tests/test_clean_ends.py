"""A tool stopped by SIGTERM (a job scheduler, ``timeout``) ends with every worker it started."""

from __future__ import annotations

import os
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


def test_evaluate_stopped_by_sigterm_leaves_no_worker(tmp_path):
    command = [sys.executable, str(ROOT / "evaluate.py"), "--agents", "rule,rule,rule,rule"]
    command += ["--games", "1000000", "--workers", "2"]
    code, workers = stop_with_sigterm(command, 2, tmp_path)
    assert code == 128 + signal.SIGTERM
    assert_gone(workers)


@pytest.mark.slow
def test_train_stopped_by_sigterm_during_imitation_leaves_no_worker(tmp_path):
    command = [sys.executable, str(ROOT / "train.py"), "--game", "tock", "--envs", "2"]
    command += ["--imitation-steps", "5000000", "--out", str(tmp_path / "run")]
    code, workers = stop_with_sigterm(command, 2, tmp_path)
    assert code == 128 + signal.SIGTERM
    assert_gone(workers)
    assert not (tmp_path / "run" / "model.zip").exists()


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
