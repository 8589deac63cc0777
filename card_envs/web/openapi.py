"""The server's routes described for machines: an OpenAPI 3.1 document, served at
``/api/openapi.json``, that clients can be generated from and that the fuzz test
(``tests/test_web_fuzz.py``) draws its requests from.

Written out rather than generated from docstrings (Starlette's ``SchemaGenerator`` reads
YAML from each route's docstring, which would put a second description beside the one the
routes' code checks); ``tests/test_web_fuzz.py`` checks that it lists exactly the app's routes.
"""

from __future__ import annotations

from typing import Any

from card_envs.core.registry import game_specs
from card_envs.core.version import __version__ as VERSION
from card_envs.web.security import SECRET_HEADER, TOKEN_HEADER
from card_envs.web.sessions import MAX_ADVANCE

JSON = "application/json"
OBJECT: dict[str, Any] = {"type": "object"}
ERROR: dict[str, Any] = {
    "type": "object",
    "properties": {"error": {"type": "string"}},
    "required": ["error"],
}
#: what a refused request answers, by status (app.py's docstring says when each comes)
REFUSALS = {
    "400": "a malformed body or a bad field",
    "403": "a foreign Host or origin, no token, no game secret, a path outside the folders",
    "404": "an unknown game, record or file",
    "409": "a move or advance that does not fit the table now",
    "413": "a body over the size cap",
    "415": "a body not sent as application/json",
    "422": "an illegal action (the message names the legal ones)",
    "429": "the cap on live games",
}
GAME_ANSWER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "frames": {"type": "array", "items": OBJECT},
        "state": OBJECT,
    },
    "required": ["id", "state"],
}
SPEC: dict[str, Any] = {"type": "string", "description": "a policy spec, as evaluate.py --agents takes"}


def new_game_body() -> dict[str, Any]:
    """A new game's fields (the games: those registered when the document is asked for)."""
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "game": {"type": "string", "enum": sorted(game_specs())},
            "players": {"type": "integer"},
            "rules": {"type": "object", "description": "the engine's rule keywords"},
            "seat": {
                "description": "your seat; a list (yours first, then your friends'); null to watch agents",
                "oneOf": [
                    {"type": "integer", "minimum": 0},
                    {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1},
                    {"type": "null"},
                ],
            },
            "opponents": {"oneOf": [SPEC, {"type": "array", "items": SPEC}]},
            "stand_in": SPEC,
            "seed": {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
        },
    }


def answers(ok: str, schema: dict[str, Any], *refused: str) -> dict[str, Any]:
    found: dict[str, Any] = {ok: {"description": "done", "content": {JSON: {"schema": schema}}}}
    for status in refused:
        found[status] = {"description": REFUSALS[status], "content": {JSON: {"schema": ERROR}}}
    return found


def body(schema: dict[str, Any], required: bool = True) -> dict[str, Any]:
    return {"required": required, "content": {JSON: {"schema": schema}}}


def query(name: str, schema: dict[str, Any], required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": required, "schema": schema}


GAME_KEY = {"name": "key", "in": "path", "required": True, "schema": {"type": "string"}}
SECRET: list[dict[str, list[str]]] = [{"gameSecret": []}]
FILE_PATH = query("path", {"type": "string"}, required=True)


def openapi_document() -> dict[str, Any]:
    """The routes of :func:`card_envs.web.app.make_app`, their bodies and their answers."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "card_envs web page", "version": VERSION},
        "components": {
            "securitySchemes": {
                "gameSecret": {"type": "apiKey", "in": "header", "name": SECRET_HEADER},
                "serverToken": {"type": "apiKey", "in": "header", "name": TOKEN_HEADER},
            }
        },
        "paths": {
            "/api/catalog": {
                "get": {
                    "summary": "the games, rules, opponents and runs",
                    "responses": answers("200", OBJECT),
                }
            },
            "/api/health": {"get": {"summary": "the live games", "responses": answers("200", OBJECT)}},
            "/api/openapi.json": {"get": {"summary": "this document", "responses": answers("200", OBJECT)}},
            "/api/games": {
                "post": {
                    "summary": "deal a new game",
                    "requestBody": body(new_game_body(), required=False),
                    "responses": answers("201", GAME_ANSWER, "400", "403", "413", "415", "429"),
                }
            },
            "/api/games/{key}": {
                "parameters": [GAME_KEY],
                "get": {
                    "summary": "the game as the asker's seat sees it (with ?since, the frames after)",
                    "security": SECRET,
                    "parameters": [query("since", {"type": "integer", "minimum": -1})],
                    "responses": answers("200", GAME_ANSWER, "400", "403", "404"),
                },
                "delete": {
                    "summary": "leave the game (it closes when nobody is left)",
                    "security": SECRET,
                    "responses": answers("200", OBJECT, "403", "404"),
                },
            },
            "/api/games/{key}/move": {
                "parameters": [GAME_KEY],
                "post": {
                    "summary": "play the asker's move; the agents reply",
                    "security": SECRET,
                    "requestBody": body(
                        {
                            "type": "object",
                            "properties": {"action": {"type": "integer"}},
                            "required": ["action"],
                        }
                    ),
                    "responses": answers("200", GAME_ANSWER, "400", "403", "404", "409", "413", "415", "422"),
                },
            },
            "/api/games/{key}/advance": {
                "parameters": [GAME_KEY],
                "post": {
                    "summary": "the agents' next moves of a watched game",
                    "security": SECRET,
                    "requestBody": body(
                        {
                            "type": "object",
                            "properties": {
                                "steps": {"type": "integer", "minimum": 1, "maximum": MAX_ADVANCE}
                            },
                        },
                        required=False,
                    ),
                    "responses": answers("200", GAME_ANSWER, "400", "403", "404", "409", "413", "415"),
                },
            },
            "/api/records": {
                "get": {"summary": "the records to replay", "responses": answers("200", OBJECT)}
            },
            "/api/records/open": {
                "get": {
                    "summary": "one record, replayed as frames",
                    "parameters": [FILE_PATH],
                    "responses": answers("200", OBJECT, "400", "403", "404"),
                }
            },
            "/api/reports": {
                "get": {"summary": "the evaluation reports", "responses": answers("200", OBJECT)}
            },
            "/api/reports/file": {
                "get": {
                    "summary": "one file of a report (.md, .png, .json, .csv)",
                    "parameters": [FILE_PATH],
                    "responses": {
                        "200": {"description": "the file"},
                        **{s: answers("200", OBJECT, s)[s] for s in ("400", "403", "404")},
                    },
                }
            },
        },
    }
