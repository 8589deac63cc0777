"""Load test of the web server: many concurrent games through its HTTP API on 127.0.0.1.

    python bench/web_load.py                      # 50 games at once for 60 s, rule-based and model opponents
    python bench/web_load.py --games 20 --seconds 10 --think 0

Starts ``python -m card_envs.web`` in its own process, then ``--games`` clients (threads),
each playing one game after another from the person's seat: a new game (UNO, Tock and Chip It
in turn; rule-based opponents, or a model's in every other game), random legal moves with a
pause of ``--think`` seconds on average between them (a person's pace; 0: as fast as the
server answers), then closing the game, or leaving one in ten open to check that idle games
expire. Stops after ``--seconds`` (each client finishes the request under way). Prints the
latency of each kind of request (p50, p95, max), the errors, the server's memory before and
after, and the live games once the idle ones should have expired; exits 1 on any error.

The model opponent is a MaskablePPO network of the shape ``train.py`` saves (256x256),
untrained: a trained one costs the same forward pass. ``--runs DIR --model NAME`` plays
against a run of your own instead (a 4-player UNO run).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from card_envs.web.security import SECRET_HEADER
from card_envs.web.tables import offered_actions

ROOT = Path(__file__).resolve().parents[1]
GAMES = ["uno", "tock", "chipit"]


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time process ``pid`` has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def make_model_run(folder: Path) -> str:
    """An untrained 4-player UNO MaskablePPO run in ``folder`` (the shape train.py saves)."""
    from sb3_contrib import MaskablePPO

    from card_envs.agents.envs import make_env

    env = make_env("uno", num_players=4, opponents="random")
    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu", policy_kwargs={"net_arch": [256, 256]})
    (folder / "uno4").mkdir()
    model.save(folder / "uno4" / "model.zip")
    (folder / "uno4" / "settings.json").write_text(json.dumps({"game": "uno", "num_players": 4}))
    return "uno4"


class Client(threading.Thread):
    """One person at the table, game after game, until ``deadline``."""

    def __init__(
        self, index: int, base: str, args: argparse.Namespace, deadline: float, stats: Stats
    ) -> None:
        super().__init__(daemon=True)
        self.index, self.base, self.args, self.deadline, self.stats = index, base, args, deadline, stats
        self.rng = np.random.default_rng(index)

    def timed(
        self, kind: str, method: str, path: str, body: dict[str, Any] | None = None, secret: str = ""
    ) -> dict[str, Any]:
        """One request, as the page sends it (the game's secret with every request about it)."""
        headers = {SECRET_HEADER: secret} if secret else {}
        start = time.perf_counter()
        response = self.http.request(method, self.base + path, json=body, headers=headers)
        self.stats.add(kind, time.perf_counter() - start, response)
        return response.json() if response.status_code < 300 else {}

    def pause(self) -> None:
        if self.args.think > 0:
            time.sleep(self.rng.uniform(0.5, 1.5) * self.args.think)

    def run(self) -> None:
        with httpx.Client(timeout=30) as self.http:
            self.pause()  # people do not all arrive in the same millisecond
            played = 0
            while time.monotonic() < self.deadline:
                game = GAMES[(self.index + played) % len(GAMES)]
                model = game == "uno" and self.args.model and played % 2 == 0
                kind = "model" if model else "rule"
                opponents = f"greedy:0/{self.args.model}" if model else "rule"
                data = self.timed("new game", "POST", "/api/games", {"game": game, "opponents": opponents})
                secret = data.get("secret", "")
                played += 1
                while data and data["state"]["result"] is None and time.monotonic() < self.deadline:
                    self.pause()
                    action = int(self.rng.choice(offered_actions(data["state"]["choices"])))
                    path = f"/api/games/{data['id']}/move"
                    data = self.timed(f"move ({kind})", "POST", path, {"action": action}, secret)
                if data and self.rng.random() < 0.9:
                    self.timed("close", "DELETE", f"/api/games/{data['id']}", secret=secret)


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: list[str] = []

    def add(self, kind: str, seconds: float, response: httpx.Response) -> None:
        with self.lock:
            self.latency[kind].append(seconds)
            if response.status_code >= 300:
                self.errors.append(f"{kind}: {response.status_code} {response.text[:200]}")


def wait_for(base: str, server: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}")
        try:
            httpx.get(base + "/api/health", timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=50, help="concurrent games (default: 50)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long they play (default: 60)")
    parser.add_argument("--think", type=float, default=0.5, help="mean pause between moves, s (default: 0.5)")
    parser.add_argument("--port", type=int, default=8431)
    parser.add_argument(
        "--idle-seconds", type=float, default=10.0, help="the server's idle expiry (default: 10)"
    )
    parser.add_argument(
        "--runs", help="a runs folder holding --model (default: an untrained model, temp dir)"
    )
    parser.add_argument("--model", help="a 4-player UNO run in --runs to play against ('' for none)")
    args = parser.parse_args(argv)
    base = f"http://127.0.0.1:{args.port}"
    with tempfile.TemporaryDirectory() as scratch:
        runs = args.runs
        if runs is None:
            runs = scratch
            if args.model is None:
                args.model = make_model_run(Path(scratch))
        command = [sys.executable, "-m", "card_envs.web", "--port", str(args.port), "--runs", runs]
        command += ["--idle-minutes", str(args.idle_seconds / 60), "--max-games", str(args.games * 4)]
        server = subprocess.Popen(command, cwd=ROOT)
        try:
            wait_for(base, server)
            warm = Stats()  # one game of each kind first: numba's and torch's loading is not load
            eager = argparse.Namespace(**{**vars(args), "think": 0})
            Client(10_000, base, eager, time.monotonic() + 3, warm).run()
            time.sleep(args.idle_seconds + 1)
            httpx.get(base + "/api/health")
            before, cpu = rss_mb(server.pid), cpu_seconds(server.pid)
            stats = Stats()
            deadline = time.monotonic() + args.seconds
            clients = [Client(i, base, args, deadline, stats) for i in range(args.games)]
            for client in clients:
                client.start()
            for client in clients:
                client.join()
            after, cpu = rss_mb(server.pid), cpu_seconds(server.pid) - cpu
            live = httpx.get(base + "/api/health").json()["games"]
            time.sleep(args.idle_seconds + 1)
            left = httpx.get(base + "/api/health").json()["games"]
            freed = rss_mb(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
    report(args, stats, before, after, freed, live, left, cpu)
    return 1 if stats.errors or left else 0


def report(
    args: argparse.Namespace,
    stats: Stats,
    before: float,
    after: float,
    freed: float,
    live: int,
    left: int,
    cpu: float,
) -> None:
    total = sum(len(v) for v in stats.latency.values())
    print(f"{args.games} concurrent games for {args.seconds:.0f} s, think {args.think} s: {total} requests")
    print(f"server CPU: {cpu:.1f} s, {1000 * cpu / max(total, 1):.2f} ms per request on average")
    print(f"load average at the end (other processes included): {os.getloadavg()[0]:.1f}")
    print(f"{'request':<16} {'count':>7} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for kind in sorted(stats.latency):
        ms = np.array(stats.latency[kind]) * 1000
        p50, p95 = np.percentile(ms, [50, 95])
        print(f"{kind:<16} {len(ms):>7} {p50:>8.1f} {p95:>8.1f} {ms.max():>8.1f}")
    print(f"errors: {len(stats.errors)}")
    for error in stats.errors[:10]:
        print("  " + error)
    print(f"server memory: {before:.0f} MB before, {after:.0f} MB after ({after - before:+.0f} MB)")
    print(f"live games at the end: {live}; after {args.idle_seconds:.0f} s idle: {left} ({freed:.0f} MB)")


if __name__ == "__main__":
    sys.exit(main())
