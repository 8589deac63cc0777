"""The web server lets no one else in: a foreign Host, a change from another origin, a body not
sent as JSON, a request about a game without its secret, an API request without the server's
token where one is set: each refused with 403 (415 for the body) and nothing changed; and every
answer carries the security headers."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from card_envs.web.app import WebConfig, make_app
from card_envs.web.security import SECRET_HEADER, SECURITY_HEADERS, TOKEN_COOKIE, TOKEN_HEADER, host_name
from card_envs.web.tables import offered_actions
from tests.web_client import BASE_URL

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
NEW_GAME = {"game": "uno", "players": 3, "seed": 5}


def bare(config: WebConfig | None = None, base_url: str = BASE_URL) -> TestClient:
    """A client that sends only what each test gives it (no secret of its own)."""
    return TestClient(make_app(config or WebConfig()), base_url=base_url)


def new_game(client: TestClient) -> dict[str, Any]:
    response = client.post("/api/games", json=NEW_GAME)
    assert response.status_code == 201, response.text
    return response.json()


def secret_of(game: dict[str, Any]) -> dict[str, str]:
    return {SECRET_HEADER: game["secret"]}


def state_of(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    response = client.get(f"/api/games/{game['id']}", headers=secret_of(game))
    assert response.status_code == 200, response.text
    return response.json()["state"]


def live(client: TestClient) -> int:
    return len(client.app.state.web.sessions)  # type: ignore[attr-defined]


# ------------------------------------------------------------------ Host
@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "localhost.evil.example:8000", ""]
)
@pytest.mark.parametrize(("method", "path"), [("GET", "/"), ("GET", "/api/catalog"), ("POST", "/api/games")])
def test_a_foreign_host_is_refused_on_every_route_and_creates_nothing(host, method, path):
    client = bare()
    response = client.request(method, path, json=NEW_GAME, headers={"host": host})
    assert response.status_code == 403, response.text
    assert (
        "does not answer to the Host" in response.json()["error"]
        and "--allow-host" in response.json()["error"]
    )
    assert live(client) == 0


@pytest.mark.parametrize(
    "base", ["http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000", "http://127.0.0.1"]
)
def test_the_loopback_names_are_answered(base):
    assert bare(base_url=base).get("/api/catalog").status_code == 200


def test_a_host_given_to_the_server_is_answered_and_others_still_refused():
    client = bare(WebConfig(hosts=["cards.lan"]), base_url="http://cards.lan:8000")
    assert client.get("/api/catalog").status_code == 200
    assert client.get("/api/catalog", headers={"host": "other.lan"}).status_code == 403


def test_host_names_are_read_without_their_port():
    assert host_name("[::1]:8000") == "[::1]" and host_name("::1") == "[::1]"
    assert host_name("LocalHost:80") == "localhost" and host_name("127.0.0.1") == "127.0.0.1"


# ------------------------------------------------------------------ Origin
FOREIGN = [
    {"origin": "http://evil.example"},
    {"origin": "http://127.0.0.1:9999"},  # another port is another origin
    {"origin": "null"},  # a sandboxed frame or a file: page
    {"sec-fetch-site": "cross-site"},
    {"sec-fetch-site": "same-site"},
]


@pytest.mark.parametrize("headers", FOREIGN)
def test_a_change_from_another_origin_is_refused_and_changes_nothing(headers):
    client = bare()
    refused = client.post("/api/games", json=NEW_GAME, headers=headers)
    assert refused.status_code == 403 and "changes nothing" in refused.json()["error"]
    assert live(client) == 0
    game = new_game(client)
    before = state_of(client, game)
    action = offered_actions(before["choices"])[0]
    for method, path, body in [
        ("POST", f"/api/games/{game['id']}/move", {"action": action}),
        ("DELETE", f"/api/games/{game['id']}", None),
    ]:
        response = client.request(method, path, json=body, headers={**secret_of(game), **headers})
        assert response.status_code == 403, (method, response.text)
        assert state_of(client, game) == before
    assert live(client) == 1


def test_a_change_from_the_page_itself_goes_through():
    client = bare()
    same_origin = {"origin": BASE_URL, "sec-fetch-site": "same-origin"}
    game = client.post("/api/games", json=NEW_GAME, headers=same_origin)
    assert game.status_code == 201, game.text
    reads = client.get("/api/catalog", headers={"origin": "http://evil.example"})
    assert (
        reads.status_code == 200
    )  # a read changes nothing; without CORS headers the other page cannot read it
    assert "access-control-allow-origin" not in reads.headers


@pytest.mark.parametrize(
    "kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None]
)
def test_a_body_not_sent_as_json_is_refused_and_creates_nothing(kind):
    client = bare()
    headers = {"content-type": kind} if kind else {}
    response = client.post("/api/games", content=b'{"game": "uno"}', headers=headers)
    assert response.status_code == 415 and "application/json" in response.json()["error"]
    assert live(client) == 0


# ------------------------------------------------------------------ the game's secret
@pytest.mark.parametrize("secret", [None, "", "wrong", "other game"])
def test_a_request_about_a_game_without_its_secret_is_refused_and_changes_nothing(secret):
    client = bare()
    game, other = new_game(client), new_game(client)
    assert game["secret"] != other["secret"] and len(game["secret"]) >= 24
    before = state_of(client, game)
    given = other["secret"] if secret == "other game" else secret
    headers = {} if given is None else {SECRET_HEADER: given}
    action = offered_actions(before["choices"])[0]
    for method, path, body in [
        ("GET", f"/api/games/{game['id']}", None),
        ("POST", f"/api/games/{game['id']}/move", {"action": action}),
        ("POST", f"/api/games/{game['id']}/advance", {"steps": 1}),
        ("DELETE", f"/api/games/{game['id']}", None),
    ]:
        response = client.request(method, path, json=body, headers=headers)
        assert response.status_code == 403, (method, path, response.text)
        assert SECRET_HEADER in response.json()["error"]
        assert state_of(client, game) == before
    assert live(client) == 2
    moved = client.post(f"/api/games/{game['id']}/move", json={"action": action}, headers=secret_of(game))
    assert moved.status_code == 200 and "secret" not in moved.json()  # sent once, at creation
    assert client.delete(f"/api/games/{game['id']}", headers=secret_of(game)).status_code == 200


# ------------------------------------------------------------------ the server's token
TOKEN = "a-token-of-twenty-four-ch"


def test_with_a_token_no_api_request_goes_through_without_it():
    client = bare(WebConfig(token=TOKEN))
    for wrong in [{}, {TOKEN_HEADER: "nope"}, {"cookie": f"{TOKEN_COOKIE}=nope"}]:
        response = client.post("/api/games", json=NEW_GAME, headers=wrong)
        assert response.status_code == 403 and "token" in response.json()["error"]
        assert client.get("/api/catalog", headers=wrong).status_code == 403
    assert live(client) == 0
    assert client.get("/").status_code == 200 and client.get("/static/app.js").status_code == 200
    assert client.get("/api/catalog", headers={TOKEN_HEADER: TOKEN}).status_code == 200


def test_opening_the_printed_address_gives_the_browser_its_token_cookie():
    client = bare(WebConfig(token=TOKEN))
    assert "set-cookie" not in client.get("/?token=wrong").headers
    page = client.get(f"/?token={TOKEN}")
    cookie = page.headers["set-cookie"]
    assert (
        cookie.startswith(f"{TOKEN_COOKIE}={TOKEN}") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    )
    assert client.post("/api/games", json=NEW_GAME).status_code == 201  # the client keeps the cookie


# ------------------------------------------------------------------ headers
def test_every_answer_carries_the_security_headers():
    client = bare()
    answers = [
        client.get("/"),
        client.get("/static/app.js"),
        client.get("/api/catalog"),
        client.get("/api/nothing"),  # 404
        client.get("/", headers={"host": "evil.example"}),  # 403 from the guard
        client.post("/api/games", content=b"x", headers={"content-type": "text/plain"}),  # 415
    ]
    for answer in answers:
        for name, value in SECURITY_HEADERS.items():
            assert answer.headers.get(name) == value, (answer.url, name)
    policy = SECURITY_HEADERS["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy


def test_the_page_has_no_inline_script_or_style():
    page = bare().get("/").text
    assert "<script src=" in page and "<script>" not in page
    assert " style=" not in page and "<style" not in page and " onclick=" not in page
