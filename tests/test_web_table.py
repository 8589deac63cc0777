"""Friends at one table: several people in one game, each with their own secret (the invite),
bots in the other seats; each person sees only what their seat sees, every move reaches each
of them, and a person away or gone is played for by their seat's stand-in."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from card_envs.web.app import WebConfig, make_app
from card_envs.web.security import SECRET_HEADER
from card_envs.web.sessions import Sessions
from card_envs.web.tables import offered_actions
from tests.web_client import BASE_URL

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
#: the games whose hands are hidden from the other seats (Tock's cards are all in the open)
HIDDEN_HANDS = ["uno", "chipit"]


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Person:
    """One person's page: their secret, the frames they were sent, the last step they saw."""

    def __init__(self, client: TestClient, key: str, secret: str) -> None:
        self.client, self.key, self.headers = client, key, {SECRET_HEADER: secret}
        self.frames: list[dict[str, Any]] = []
        self.states: list[dict[str, Any]] = []
        self.step = -1

    def take(self, data: dict[str, Any]) -> dict[str, Any]:
        self.frames += data.get("frames", [])
        self.states.append(data["state"])
        if self.frames:
            self.step = self.frames[-1]["step"]
        return data["state"]

    def poll(self) -> dict[str, Any]:
        response = self.client.get(f"/api/games/{self.key}?since={self.step}", headers=self.headers)
        assert response.status_code == 200, response.text
        return self.take(response.json())

    def move(self, action: int) -> dict[str, Any]:
        response = self.client.post(
            f"/api/games/{self.key}/move", json={"action": action}, headers=self.headers
        )
        assert response.status_code == 200, response.text
        return self.take(response.json())


def table(config: WebConfig | None = None, sessions: Sessions | None = None) -> TestClient:
    return TestClient(make_app(config or WebConfig(), sessions), base_url=BASE_URL)


def seat_with(client: TestClient, **body: Any) -> tuple[dict[str, Any], list[Person]]:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    data = response.json()
    people = [Person(client, data["id"], data["secret"])]
    people += [Person(client, data["id"], invite["secret"]) for invite in data["invites"]]
    people[0].take(data)
    return data, people


def hand(zone: dict[str, Any]) -> list[dict[str, Any]]:
    """A seat's hand in its zone: the cards before the public ones (Chip It's "out" marker)."""
    labels = [card["label"] for card in zone["cards"]]
    return zone["cards"][: labels.index("out")] if "out" in labels else zone["cards"]


def hands_of_others_hidden(person_seat: int, received: list[dict[str, Any]]) -> None:
    for table_json in received:
        view = table_json["view"]
        for seat, zone in enumerate(view["players"]):
            if seat != person_seat:
                assert all(card["face_down"] for card in hand(zone)), (person_seat, seat, zone)
            else:
                assert not any(card["face_down"] for card in hand(zone)), (person_seat, zone)


@pytest.mark.parametrize("game", [*HIDDEN_HANDS, pytest.param("tock", marks=pytest.mark.slow)])
def test_two_people_and_two_bots_play_a_whole_game_each_seeing_only_their_seat(game):
    client = table()
    data, people = seat_with(client, game=game, players=4, seat=[0, 2], opponents="rule", seed=11)
    assert [invite["seat"] for invite in data["invites"]] == [2]
    assert len({person.headers[SECRET_HEADER] for person in people}) == 2
    rng = np.random.default_rng(0)
    for _ in range(5000):
        states = [person.poll() for person in people]
        if states[0]["result"] is not None:
            break
        for person, state in zip(people, states, strict=True):
            if state["your_turn"]:
                person.move(int(rng.choice(offered_actions(state["choices"]))))
    final = [person.poll() for person in people]
    ranks = [[seat["rank"] for seat in state["result"]["seats"]] for state in final]
    assert ranks[0] == ranks[1] and sorted(ranks[0]) == [1, 2, 3, 4]
    for person, seat in zip(people, (0, 2), strict=True):
        assert {state["seat"] for state in person.states} == {seat}
        assert all(state["names"][seat] == "you" for state in person.states)
        steps = [frame["step"] for frame in person.frames]
        assert steps == list(range(len(steps))) and steps[-1] == final[0]["step"]  # every move, once
        if game in HIDDEN_HANDS:
            hands_of_others_hidden(seat, [frame["table"] for frame in person.frames])
            hands_of_others_hidden(seat, [state["table"] for state in person.states])
    movers = {frame["player"] for frame in people[0].frames}
    assert movers >= {0, 1, 2, 3}  # the people and the bots all moved


def test_a_person_cannot_move_for_another_seat():
    client = table()
    _, (first, second) = seat_with(client, game="uno", players=3, seat=[0, 1], seed=2)
    state = first.states[-1]
    assert state["your_turn"] and state["current"] == 0
    wrong = client.post(
        f"/api/games/{first.key}/move",
        json={"action": offered_actions(state["choices"])[0]},
        headers=second.headers,
    )
    assert wrong.status_code == 409 and "not you (player 1)" in wrong.json()["error"]
    assert second.poll()["choices"] == [] and first.poll()["step"] == state["step"]


def test_a_seat_nobody_takes_or_left_is_played_by_its_stand_in_after_the_timeout():
    clock = FakeClock()
    client = table(WebConfig(away_seconds=10), Sessions(clock=clock, away_seconds=10))
    _, (first, second) = seat_with(client, game="uno", players=3, seat=[0, 1], seed=5)
    state = first.states[-1]
    while state["current"] != 1:  # until the invited seat's turn
        assert state["your_turn"]  # the bot's turn passes without waiting
        state = first.move(offered_actions(state["choices"])[0])
    assert first.poll()["current"] == 1  # waited on while the friend may still join
    clock.now = 5
    assert first.poll()["current"] == 1 and first.states[-1]["present"] == [0, 1]
    clock.now = 16  # the friend never came: their seat's stand-in plays
    after = first.poll()
    assert after["present"] == [0] and any(frame["player"] == 1 for frame in first.frames)
    assert after["your_turn"] or after["result"] is not None
    session = client.app.state.web.sessions.get(first.key)  # type: ignore[attr-defined]
    waiting = len(session.frames[1])
    plain = client.get(f"/api/games/{second.key}", headers=second.headers).json()
    assert "frames" not in plain and len(session.frames[1]) == waiting  # kept for the next ?since
    assert len(session.frames[0]) == 0 and waiting == after["step"] + 1  # kept only for who has not asked
    second.poll()  # joins (late): present again, and sees every move so far
    assert second.states[-1]["present"] == [0, 1] and second.frames[-1]["step"] == after["step"]
    assert len(second.frames) == waiting and len(session.frames[1]) == 0
    left = client.delete(f"/api/games/{second.key}", headers=second.headers)
    assert left.status_code == 200 and left.json() == {"left": second.key, "seat": 1}
    assert first.poll()["present"] == [0]
    closed = client.delete(f"/api/games/{first.key}", headers=first.headers)
    assert closed.status_code == 200 and closed.json() == {"closed": first.key}
    assert client.get(f"/api/games/{first.key}", headers=first.headers).status_code == 404


@pytest.mark.parametrize("seat", [[0, 0], [], [3], [True], ["0"], [0, -1], "0"])
def test_bad_seats_are_refused_and_create_nothing(seat):
    client = table()
    response = client.post("/api/games", json={"game": "uno", "players": 3, "seat": seat})
    assert response.status_code == 400 and "list of distinct seats" in response.json()["error"]
    assert len(client.app.state.web.sessions) == 0  # type: ignore[attr-defined]


def test_a_bad_since_or_stand_in_is_refused():
    client = table()
    _, (person,) = seat_with(client, game="uno", players=2, seed=1)
    bad = client.get(f"/api/games/{person.key}?since=x", headers=person.headers)
    assert bad.status_code == 400 and "since must be a step" in bad.json()["error"]
    refused = client.post("/api/games", json={"game": "uno", "seat": [0, 1], "stand_in": "nobody"})
    assert refused.status_code == 400 and len(client.app.state.web.sessions) == 1  # type: ignore[attr-defined]
