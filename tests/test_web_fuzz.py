"""The server's OpenAPI document and a property-based fuzz of every route from it
(Schemathesis over Hypothesis, in-process through ASGI): no 5xx, every answer one the document
lists, a refused request about a live game changes nothing, and the live games stay under the
cap however many are dealt (the memory bound: nothing else grows per request).

The document's routes are checked against the app's in the fast suite; the fuzz is slow."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.routing import Route
from starlette.testclient import TestClient

from card_envs.web.app import WebConfig, make_app
from card_envs.web.openapi import openapi_document
from card_envs.web.security import SECRET_HEADER
from tests.web_client import BASE_URL

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
#: the cap on live games for the fuzz: it deals hundreds
MAX_GAMES = 25
APP = make_app(WebConfig(max_games=MAX_GAMES))
CLIENT = TestClient(APP, base_url=BASE_URL)


def app_routes() -> dict[str, set[str]]:
    """The app's API routes and their methods (HEAD answered with GET, as Starlette does)."""
    found: dict[str, set[str]] = {}
    for route in APP.routes:
        if isinstance(route, Route) and route.path.startswith("/api/"):
            methods = {method.lower() for method in route.methods or ()} - {"head"}
            found.setdefault(route.path, set()).update(methods)
    return found


def test_the_document_describes_exactly_the_apps_routes():
    document = CLIENT.get("/api/openapi.json").json()
    assert document == openapi_document() and document["openapi"].startswith("3.1")
    described = {
        path: {method for method in item if method != "parameters"}
        for path, item in document["paths"].items()
    }
    assert described == app_routes()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method != "parameters":
                assert "200" in operation["responses"] or "201" in operation["responses"], (path, method)


schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

SCHEMA = schemathesis.openapi.from_asgi("/api/openapi.json", APP, headers={"host": "127.0.0.1:8000"})
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def live_game() -> dict[str, Any]:
    """A game to aim the fuzzed request at (a new one: the request may close it)."""
    response = CLIENT.post("/api/games", json={"game": "uno", "players": 2, "seed": 1})
    if response.status_code == 429:  # the fuzz filled the server: make room
        APP.state.web.sessions.expire()
        for key in list(APP.state.web.sessions._games):
            APP.state.web.sessions.remove(key)
        response = CLIENT.post("/api/games", json={"game": "uno", "players": 2, "seed": 1})
    assert response.status_code == 201, response.text
    return response.json()


def state_of(game: dict[str, Any]) -> dict[str, Any]:
    return CLIENT.get(f"/api/games/{game['id']}", headers={SECRET_HEADER: game["secret"]}).json()["state"]


@pytest.mark.slow
@SCHEMA.parametrize()
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_route_under_fuzz_answers_as_documented_and_a_refusal_changes_nothing(case):
    headers = {"host": "127.0.0.1:8000"}
    game = None
    if "key" in (case.path_parameters or {}):
        game = live_game()
        case.path_parameters["key"] = game["id"]
        headers[SECRET_HEADER] = game["secret"]
    before = state_of(game) if game else None
    response = case.call_and_validate(headers=headers, checks=CHECKS)
    if game is not None and 400 <= response.status_code < 500:
        assert state_of(game) == before, response.text
    assert len(APP.state.web.sessions) <= MAX_GAMES


@pytest.mark.slow
def test_refused_requests_by_the_thousand_leave_the_servers_memory_as_it_was():
    """Python-level memory (tracemalloc) after 3,000 refused requests of every kind, against a
    warmed-up server: what a refusal allocates is all freed."""
    import tracemalloc

    game = live_game()
    bad = [
        ("POST", "/api/games", {"json": {"game": "nope"}}),
        ("POST", "/api/games", {"content": b"{", "headers": {"content-type": "application/json"}}),
        ("POST", "/api/games", {"content": b"x" * 20_000, "headers": {"content-type": "application/json"}}),
        (
            "POST",
            f"/api/games/{game['id']}/move",
            {"json": {"action": -1}, "headers": {SECRET_HEADER: game["secret"]}},
        ),
        ("POST", f"/api/games/{game['id']}/move", {"json": {"action": 0}}),
        ("GET", "/api/games/nope", {}),
        ("GET", "/api/catalog", {"headers": {"host": "evil.example"}}),
        ("POST", "/api/games", {"json": {}, "headers": {"origin": "http://evil.example"}}),
    ]

    def refuse(rounds: int) -> None:
        for _ in range(rounds):
            for method, path, extra in bad:
                assert 400 <= CLIENT.request(method, path, **extra).status_code < 500

    refuse(50)  # warm-up: caches, the first import of each error path
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    refuse(375)
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert grown < 2_000_000, f"{grown:,} bytes more after 3,000 refused requests"
