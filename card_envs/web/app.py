"""The server: a Starlette app whose routes deal, play, watch, replay and report; JSON over HTTP.

Every route answers JSON. A bad request gets a 4xx whose ``error`` says what was wrong and
what is allowed, and changes no game: 400 a malformed body or a bad field (unknown game,
bad rule, bad opponent), 403 a path outside the server's folders, 404 an unknown game id,
record or route, 409 a move that does not fit the table now, 413 a body over the size cap,
415 a body that is not sent as JSON, 422 an illegal action (the message names the legal ones),
429 the cap on live games. 403 also answers whatever :mod:`card_envs.web.security` refuses
(a foreign Host, a change from another origin, a missing token) and a request about a game
without that game's secret, which the game's creation answered with.

Game work (dealing, the agents' replies, loading a model) runs in Starlette's thread pool, one
game at a time under its own lock, so a search player thinking in one game never holds up the
requests of another; the event loop only reads requests and writes answers.
"""

from __future__ import annotations

import importlib.util
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from card_envs.agents.policy_spec import PolicySpec
from card_envs.agents.specs import make_policy, spec_label
from card_envs.core.game import IllegalActionError
from card_envs.core.policy import Policy
from card_envs.core.table import Table
from card_envs.records.people import HUMAN
from card_envs.records.record import GameRecorder, RecordError
from card_envs.web.catalog import (
    BadRequestError,
    catalog,
    check_opponent,
    check_people,
    new_table,
)
from card_envs.web.folders import Folders, OutsideFoldersError
from card_envs.web.openapi import openapi_document
from card_envs.web.replays import record_frames
from card_envs.web.reports import REPORT_FILES, report_list
from card_envs.web.security import SECRET_HEADER, Guard, GuardMiddleware, same, token_cookie
from card_envs.web.sessions import (
    NotYourTurnError,
    Session,
    Sessions,
    TooManyGamesError,
    UnknownGameError,
    Viewer,
    WrongSecretError,
)

STATIC = Path(__file__).parent / "static"
#: what a route sends the page: one frame of the table after each move
Frames = list[dict[str, Any]]
#: trained models kept loaded, so that a new game against one does not load it again
MODEL_CACHE = 8


class BodyTooLargeError(ValueError):
    """A request body over :attr:`WebConfig.max_body` bytes: 413."""


class NotJSONError(ValueError):
    """A request body not sent as ``application/json`` (as a cross-site form or text POST is): 415."""


@dataclass
class WebConfig:
    """What one server may read and how much it keeps."""

    records: list[str] = field(default_factory=list)
    reports: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    max_games: int = 200
    idle_seconds: float = 1800.0
    max_body: int = 16_384
    #: a person silent this long is away, and their seat's stand-in plays for them
    away_seconds: float = 60.0
    #: where every game played here is recorded (who sat where: "human" or the agent's spec)
    record_dir: str | None = None
    #: Host names answered besides the loopback ones (``--host``, ``--allow-host``)
    hosts: list[str] = field(default_factory=list)
    #: what every API request must carry (set when the server listens beyond loopback)
    token: str | None = None


#: exception type -> HTTP status; the message of the exception is the error shown
STATUS: list[tuple[type[Exception], int]] = [
    (BodyTooLargeError, 413),
    (NotJSONError, 415),
    (WrongSecretError, 403),
    (TooManyGamesError, 429),
    (UnknownGameError, 404),
    (OutsideFoldersError, 403),
    (IllegalActionError, 422),
    (NotYourTurnError, 409),
    (RecordError, 400),
    (BadRequestError, 400),
    (ModuleNotFoundError, 400),  # an opponent needing a missing extra (MissingExtraError)
    (ValueError, 400),
]


def error_response(error: Exception) -> JSONResponse:
    for kind, status in STATUS:
        if isinstance(error, kind):
            message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
            return JSONResponse({"error": message}, status_code=status)
    return JSONResponse({"error": f"internal error: {type(error).__name__}: {error}"}, status_code=500)


async def read_json(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object, read at most ``limit`` bytes far (:class:`BodyTooLargeError` beyond)."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise BodyTooLargeError(f"the request body has {length} bytes; at most {limit} are accepted")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BodyTooLargeError(f"the request body is over {limit} bytes, the most accepted")
    kind = request.headers.get("content-type", "")
    if body and kind.partition(";")[0].strip().lower() != "application/json":
        raise NotJSONError(f"the request body must be sent as application/json, not {kind or 'untyped'}")
    try:
        data = json.loads(body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BadRequestError(f"the request body is not JSON ({error})") from None
    if not isinstance(data, dict):
        raise BadRequestError(f"the request body must be a JSON object, got {type(data).__name__}")
    return data


def one_torch_thread() -> None:
    """Small networks, one decision at a time: torch's own thread pool only makes every request
    wait on its threads (a move took seconds on a busy machine). Set once, for the process,
    where torch is installed."""
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.set_num_threads(1)


def locked(session: Session, work: Callable[[Viewer, Any], Frames], viewer: Viewer, argument: Any) -> Frames:
    """``work(viewer, argument)`` on ``session``'s game, one request of that game at a time."""
    with session.lock:
        return work(viewer, argument)


class WebApp:
    """The routes over one :class:`Sessions` and the server's folders."""

    def __init__(self, config: WebConfig, sessions: Sessions | None = None) -> None:
        self.config = config
        self.sessions = (
            sessions
            if sessions is not None
            else Sessions(config.max_games, config.idle_seconds, away_seconds=config.away_seconds)
        )
        self.records = Folders.of("records", config.records)
        self.reports = Folders.of("reports", config.reports)
        self.runs = Folders.of("runs", config.runs)
        self._models: OrderedDict[tuple[str, str, int], Policy] = OrderedDict()
        self._models_lock = threading.Lock()  # games are dealt in several threads at once
        one_torch_thread()

    def policy(self, spec: str, table: Table) -> Policy:
        """The policy of a checked spec; a trained model is loaded once and kept."""
        if PolicySpec.parse(spec).path is None:
            return make_policy(spec, table)
        key = (spec, table.name, table.num_players)  # a model plays whatever the rules
        with self._models_lock:
            if key not in self._models:
                self._models[key] = make_policy(spec, table)
                while len(self._models) > MODEL_CACHE:
                    self._models.popitem(last=False)
            self._models.move_to_end(key)
            return self._models[key]

    def deal(
        self, table: Table, people: tuple[int, ...], specs: list[str], stand_in: str, seed: int
    ) -> tuple[str, Session, Frames]:
        """A new game at ``table``: its policies (``specs`` for the agents' seats in order,
        ``stand_in`` for each person's), its session and the creator's first frames (a
        thread-pool job)."""
        game = table.engine()
        n = table.num_players
        agents = iter(specs)
        seat_specs = [stand_in if s in people else next(agents) for s in range(n)]
        policies = [self.policy(spec, table) for spec in seat_specs]
        names = ["person" if s in people else spec_label(seat_specs[s]) for s in range(n)]
        if self.config.record_dir is not None:
            game.recorder = GameRecorder(self.config.record_dir)
            stem = f"web-{game.name}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
            game.recorder.name_next(stem, [HUMAN if s in people else seat_specs[s] for s in range(n)])
        key, session = self.sessions.add(game, people, policies, names, seed)
        with session.lock:
            return key, session, session.start()

    # ------------------------------------------------------------------ routes
    async def catalog(self, request: Request) -> Response:
        return JSONResponse(
            {
                **catalog(self.runs),
                "records": bool(self.records.roots),
                "reports": bool(self.reports.roots),
            }
        )

    async def create(self, request: Request) -> Response:
        data = await read_json(request, self.config.max_body)
        known = ["game", "players", "rules", "seat", "opponents", "stand_in", "seed"]
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise BadRequestError(f"unknown field(s) {unknown}; known: {', '.join(known)}")
        table = new_table(data.get("game"), data.get("players"), data.get("rules"))
        people = check_people(data.get("seat", 0), table.num_players)
        agents = table.num_players - len(people)
        specs = data.get("opponents", "rule")
        if isinstance(specs, str):
            specs = [specs] * agents
        if not isinstance(specs, list) or len(specs) != agents:
            raise BadRequestError(
                f"opponents must be one spec or a list of {agents} (one per agent's seat), got {specs!r}"
            )
        specs = [check_opponent(spec, table, self.runs) for spec in specs]
        stand_in = check_opponent(data.get("stand_in", "rule"), table, self.runs)
        seed = data.get("seed")
        if seed is None:
            seed = secrets.randbelow(2**31)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise BadRequestError(f"seed must be an int 0..2**63-1 (or null for a fresh deal), got {seed!r}")
        key, session, frames = await run_in_threadpool(self.deal, table, people, specs, stand_in, seed)
        created = {
            "id": key,
            "secret": session.secret,
            "invites": session.invites(),
            "frames": frames,
            "state": session.state(session.seat),
        }
        return JSONResponse(created, status_code=201)

    def session(self, request: Request) -> tuple[str, Session, Viewer]:
        """The game a request is about and who asks (the seat whose secret it carries)."""
        key = request.path_params["key"]
        session = self.sessions.get(key)
        return key, session, session.viewer(request.headers.get(SECRET_HEADER))

    async def show(self, request: Request) -> Response:
        """The game now as the asker sees it; with ``?since=STEP``, also their frames after that
        step (a waiting person's page asks so, and its stand-ins play for people away)."""
        key, session, viewer = self.session(request)
        since = request.query_params.get("since")
        if since is not None and not since.lstrip("-").isdigit():
            raise BadRequestError(f"since must be a step (an int, -1: from the deal), got {since!r}")
        step = None if since is None else int(since)
        frames = await run_in_threadpool(locked, session, session.catch_up, viewer, step)
        answer: dict[str, Any] = {"id": key, "state": session.state(viewer)}
        if since is not None:
            answer["frames"] = frames
        return JSONResponse(answer)

    def answer(self, session: Session, viewer: Viewer, frames: Frames, key: str) -> Response:
        return JSONResponse({"id": key, "frames": frames, "state": session.state(viewer)})

    async def move(self, request: Request) -> Response:
        key, session, viewer = self.session(request)
        data = await read_json(request, self.config.max_body)
        if "action" not in data:
            raise BadRequestError('a move needs an action: {"action": N}, N one of the legal actions')
        frames = await run_in_threadpool(locked, session, session.move, viewer, data["action"])
        return self.answer(session, viewer, frames, key)

    async def advance(self, request: Request) -> Response:
        key, session, viewer = self.session(request)
        data = await read_json(request, self.config.max_body)
        frames = await run_in_threadpool(locked, session, session.advance, viewer, data.get("steps", 1))
        return self.answer(session, viewer, frames, key)

    async def close(self, request: Request) -> Response:
        """The asker leaves (their seat's stand-in plays on); the game closes when nobody is left."""
        key, session, viewer = self.session(request)
        with session.lock:
            empty = session.leave(viewer)
        if empty:
            self.sessions.remove(key)
            return JSONResponse({"closed": key})
        return JSONResponse({"left": key, "seat": viewer})

    async def health(self, request: Request) -> Response:
        """How many games are live (idle ones dropped first): for a load test and a monitor."""
        self.sessions.expire()
        return JSONResponse({"games": len(self.sessions), "max_games": self.sessions.max_games})

    async def openapi(self, request: Request) -> Response:
        """The routes described for machines (OpenAPI 3.1)."""
        return JSONResponse(openapi_document())

    async def record_list(self, request: Request) -> Response:
        names = [self.records.name_of(path) for path in self.records.files("*.jsonl")]
        return JSONResponse({"records": names})

    async def record_open(self, request: Request) -> Response:
        path = self.records.resolve(request.query_params.get("path", ""))
        if not path.is_file():
            raise UnknownGameError(f"no record {request.query_params.get('path')!r} in the records folders")
        return JSONResponse({"path": self.records.name_of(path), **record_frames(path)})

    async def report_list(self, request: Request) -> Response:
        return JSONResponse({"reports": report_list(self.reports)})

    async def report_file(self, request: Request) -> Response:
        name = request.query_params.get("path", "")
        path = self.reports.resolve(name)
        if path.suffix not in REPORT_FILES:
            raise BadRequestError(
                f"only {', '.join(REPORT_FILES)} files of a report are served, not {name!r}"
            )
        if not path.is_file():
            raise UnknownGameError(f"no report file {name!r} in the reports folders")
        return FileResponse(path, media_type=REPORT_FILES[path.suffix])

    async def index(self, request: Request) -> Response:
        """The page; ``/?token=...`` with the server's token also gives this browser its cookie."""
        page = FileResponse(STATIC / "index.html", media_type="text/html")
        token = self.config.token
        if token is not None and same(request.query_params.get("token"), token):
            page.headers.append("set-cookie", token_cookie(token))
        return page


def guarded(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """The route, with every refused request (and any failure) answered as JSON."""

    async def route(request: Request) -> Response:
        try:
            return await handler(request)
        except Exception as error:
            return error_response(error)

    return route


async def http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    detail = "no such route" if error.status_code == 404 else error.detail
    message = f"{request.method} {request.url.path}: {detail}"
    return JSONResponse({"error": message}, status_code=error.status_code)


def make_app(config: WebConfig | None = None, sessions: Sessions | None = None) -> Starlette:
    """The ASGI app of one server (``sessions``: to hand it a clock, in tests)."""
    web = WebApp(config or WebConfig(), sessions)
    routes = [
        Route("/", web.index),
        Route("/api/catalog", guarded(web.catalog)),
        Route("/api/health", guarded(web.health)),
        Route("/api/openapi.json", guarded(web.openapi)),
        Route("/api/games", guarded(web.create), methods=["POST"]),
        Route("/api/games/{key}", guarded(web.show), methods=["GET"]),
        Route("/api/games/{key}", guarded(web.close), methods=["DELETE"]),
        Route("/api/games/{key}/move", guarded(web.move), methods=["POST"]),
        Route("/api/games/{key}/advance", guarded(web.advance), methods=["POST"]),
        Route("/api/records", guarded(web.record_list)),
        Route("/api/records/open", guarded(web.record_open)),
        Route("/api/reports", guarded(web.report_list)),
        Route("/api/reports/file", guarded(web.report_file)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    guard = Guard.of(web.config.hosts, web.config.token)
    app = Starlette(
        routes=routes,
        middleware=[Middleware(GuardMiddleware, guard=guard)],
        exception_handlers={HTTPException: http_error},
    )
    app.state.web = web
    return app
