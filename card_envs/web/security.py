"""The server's guard: which names it answers to, which requests may change a game, the headers
every answer carries.

A page on any website can reach a server on 127.0.0.1: by DNS rebinding (its own name made to
point at 127.0.0.1, so the browser sends that name as the Host), or by a cross-site request
(a POST with a text body needs no preflight). Jupyter, TensorBoard and the Ray dashboard are
the anchors; as they do, the guard

- answers only to the Host names it was given (the loopback names and ``--host``, plus any
  ``--allow-host``), so a rebound name gets 403;
- refuses a request that changes state (any method but GET, HEAD, OPTIONS) when the browser
  says it comes from another origin (``Origin``, ``Sec-Fetch-Site``);
- where a token is set (required when the server listens beyond loopback), lets no ``/api/``
  request through without it: the header ``X-Server-Token`` or the cookie that ``/?token=...``
  sets (SameSite=Strict, so another site's requests never carry it);
- adds a Content-Security-Policy with no inline script and no framing, and ``nosniff``.

A game's own secret (one per game, sent with every request about it) is checked by the app;
a game id alone moves nothing. Written as a small ASGI middleware rather than Starlette's
``TrustedHostMiddleware``, which answers a foreign Host with a plain-text 400, and whose
sibling ``CORSMiddleware`` grants cross-origin access rather than refusing it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: the names of this machine's loopback interface, as a browser writes them in Host
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
#: methods that change nothing on this server (the routes that change a game are POST, DELETE)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: the request header that carries a game's secret
SECRET_HEADER = "X-Game-Secret"
#: the request header, or the cookie, that carries the server's token
TOKEN_HEADER = "X-Server-Token"
TOKEN_COOKIE = "card_envs_token"
#: on every answer: scripts, styles and images from this server only, never inside a frame
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
        " object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
}


def host_name(host: str) -> str:
    """The name part of a Host header or an address: ``[::1]:8000`` -> ``[::1]``, lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    if host.count(":") > 1:  # a bare IPv6 address (as --host ::1 is written)
        return f"[{host}]"
    return host.partition(":")[0]


def same(given: str | None, expected: str) -> bool:
    """``given == expected``, in time that does not tell how much of it matched."""
    return given is not None and secrets.compare_digest(given.encode(), expected.encode())


@dataclass(frozen=True)
class Guard:
    """What the server lets through: requests to these Host names, from its own origin, with
    the token where one is set."""

    hosts: frozenset[str]
    token: str | None = None

    @classmethod
    def of(cls, extra_hosts: Iterable[str] = (), token: str | None = None) -> Guard:
        """The loopback names and ``extra_hosts`` (``--host``, ``--allow-host``)."""
        return cls(frozenset(host_name(h) for h in (*LOOPBACK_HOSTS, *extra_hosts)), token)

    def refusal(self, method: str, path: str, headers: Headers) -> str | None:
        """Why this request is refused (403), or None to let it through."""
        host = headers.get("host", "")
        if host_name(host) not in self.hosts:
            allowed = ", ".join(sorted(self.hosts))
            return (
                f"this server does not answer to the Host {host!r} (it answers to {allowed};"
                " python -m card_envs.web --allow-host NAME adds a name)"
            )
        if self.token is not None and path.startswith("/api/") and not self.has_token(headers):
            return (
                f"this server needs its token: open the address it printed (/?token=...) or send"
                f" the header {TOKEN_HEADER}"
            )
        if method in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None and origin not in (f"http://{host}", f"https://{host}"):
            return f"a {method} from the page of another origin ({origin!r}) changes nothing here"
        site = headers.get("sec-fetch-site")
        if site in ("cross-site", "same-site"):
            return f"a {method} from another site ({site}) changes nothing here"
        return None

    def has_token(self, headers: Headers) -> bool:
        assert self.token is not None
        if same(headers.get(TOKEN_HEADER), self.token):
            return True
        cookie = SimpleCookie(headers.get("cookie", ""))
        return TOKEN_COOKIE in cookie and same(cookie[TOKEN_COOKIE].value, self.token)


def token_cookie(token: str) -> str:
    """The Set-Cookie value that lets this browser's requests carry the server's token."""
    return f"{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"


class GuardMiddleware:
    """The ASGI middleware over the whole app: a refused request is answered 403 (JSON, with
    why) before any route sees it, and every answer gets :data:`SECURITY_HEADERS`."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).update(SECURITY_HEADERS)
            await send(message)

        reason = self.guard.refusal(scope["method"], scope["path"], Headers(scope=scope))
        if reason is not None:
            refused: Any = JSONResponse({"error": reason}, status_code=403)
            await refused(scope, receive, send_secured)
            return
        await self.app(scope, receive, send_secured)
