"""The page's game work runs off the event loop: while an agent of one game is still thinking,
another game's move is answered, and the torch thread count is set once, when the app starts."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")

from card_envs.core.policy import Policy  # noqa: E402
from card_envs.web.app import make_app  # noqa: E402
from card_envs.web.security import SECRET_HEADER  # noqa: E402
from card_envs.web.tables import offered_actions  # noqa: E402

WAIT = 20.0  # seconds an agent waits to be released: only reached if the server is stalled


class Held(Policy):
    """An agent that thinks until it is released (a search player taking long, without timing)."""

    def __init__(self) -> None:
        self.thinking = threading.Event()
        self.release = threading.Event()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        self.thinking.set()
        self.release.wait(WAIT)
        return int(np.flatnonzero(action_mask)[0])


def secret(game: dict[str, Any]) -> dict[str, str]:
    return {SECRET_HEADER: game["secret"]}


async def new_game(client: Any) -> dict[str, Any]:
    answer = await client.post("/api/games", json={"game": "uno", "players": 4, "seed": 3})
    assert answer.status_code == 201, answer.text
    return answer.json()


async def scenario() -> tuple[bool, int, int]:
    app = make_app()
    held = Held()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        slow, quick = await new_game(client), await new_game(client)
        session = app.state.web.sessions.get(slow["id"])
        session.policies = [None, held, held, held]  # every agent of the first game is held
        action = offered_actions(slow["state"]["choices"])[0]
        waiting = asyncio.create_task(
            client.post(f"/api/games/{slow['id']}/move", json={"action": action}, headers=secret(slow))
        )
        for _ in range(int(WAIT * 100)):
            if held.thinking.is_set():
                break
            await asyncio.sleep(0.01)
        assert held.thinking.is_set()  # the first game's agent is thinking now
        other = offered_actions(quick["state"]["choices"])[0]
        answered = await client.post(
            f"/api/games/{quick['id']}/move", json={"action": other}, headers=secret(quick)
        )
        still_thinking = not waiting.done() and not held.release.is_set()
        held.release.set()
        return still_thinking, answered.status_code, (await waiting).status_code


def test_another_games_move_is_answered_while_an_agent_is_still_thinking() -> None:
    still_thinking, other, held = asyncio.run(scenario())
    assert other == 200 and held == 200
    assert still_thinking  # answered before the first game's agent was released


def test_torch_is_set_to_one_thread_when_the_app_starts() -> None:
    torch = pytest.importorskip("torch")
    torch.set_num_threads(2)
    make_app()
    assert torch.get_num_threads() == 1
