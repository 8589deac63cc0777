"""Games "people" play on the web page, recorded: a scripted person (random legal moves from
the page's own choices, seeded) plays through the page's API, so the records are exactly
what the page writes. ``python -m tests.people_records`` rewrites the small shipped set in
``tests/data/people/`` (no real person played those: they test the pipeline, not people)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from starlette.testclient import TestClient

from card_envs.web.app import WebConfig, make_app
from card_envs.web.security import SECRET_HEADER
from card_envs.web.tables import offered_actions
from tests.web_client import BASE_URL

SHIPPED = Path(__file__).parent / "data" / "people"
#: the shipped set: (game, players, people's seats, opponents, seed)
TABLES: list[tuple[str, int, list[int], str, int]] = [
    ("uno", 4, [0], "rule", 1),
    ("uno", 4, [0], "rule", 2),
    ("uno", 4, [1, 3], "heuristic", 3),
    ("chipit", 4, [0], "rule", 4),
    ("chipit", 4, [2], "rule", 5),
]


def play_on_the_page(
    folder: Path, tables: list[tuple[str, int, list[int], str, int]], close_after: int = 0
) -> None:
    """Each table's game played to its end by scripted people through the page's API, recorded
    in ``folder``; ``close_after`` > 0: the last game is closed after that many of its moves."""
    client = TestClient(make_app(WebConfig(record_dir=str(folder))), base_url=BASE_URL)
    for number, (game, players, seats, opponents, seed) in enumerate(tables):
        data = client.post(
            "/api/games",
            json={"game": game, "players": players, "seat": seats, "opponents": opponents, "seed": seed},
        ).json()
        secrets = [data["secret"], *(invite["secret"] for invite in data["invites"])]
        rng = np.random.default_rng(seed)
        moves = 0
        while True:
            states: list[dict[str, Any]] = [
                client.get(f"/api/games/{data['id']}", headers={SECRET_HEADER: secret}).json()["state"]
                for secret in secrets
            ]
            if states[0]["result"] is not None:
                break
            if close_after and number == len(tables) - 1 and moves >= close_after:
                client.delete(f"/api/games/{data['id']}", headers={SECRET_HEADER: secrets[0]})
                break
            for secret, state in zip(secrets, states, strict=True):
                if state["your_turn"]:
                    action = int(rng.choice(offered_actions(state["choices"])))
                    client.post(
                        f"/api/games/{data['id']}/move",
                        json={"action": action},
                        headers={SECRET_HEADER: secret},
                    )
                    moves += 1


if __name__ == "__main__":
    for old in SHIPPED.glob("*.jsonl"):
        old.unlink()
    play_on_the_page(SHIPPED, TABLES)
    print(f"wrote {len(list(SHIPPED.glob('*.jsonl')))} records in {SHIPPED}")
