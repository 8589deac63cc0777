"""A test client of the web page's API that behaves as the page does: it talks to the server by
a loopback name and sends each game's secret (from the answer that created the game) with every
request about that game. The refusals themselves are tested with a bare client."""

from __future__ import annotations

import re
from typing import Any

from starlette.testclient import TestClient

from card_envs.web.security import SECRET_HEADER

#: a loopback name, as the page is opened by (a TestClient's default Host, testserver, is refused)
BASE_URL = "http://127.0.0.1:8000"
GAME_PATH = re.compile(r"^/api/games/([^/?]+)")


class PageClient(TestClient):
    """A :class:`TestClient` that keeps the secret of every game it created."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, base_url=BASE_URL, **kwargs)
        self.secrets: dict[str, str] = {}

    def request(self, method: str, url: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        found = GAME_PATH.match(str(url))
        if found and found.group(1) in self.secrets:
            kwargs["headers"] = {SECRET_HEADER: self.secrets[found.group(1)], **(kwargs.get("headers") or {})}
        response = super().request(method, url, **kwargs)
        if method.upper() == "POST" and str(url) == "/api/games" and response.status_code == 201:
            data = response.json()
            self.secrets[data["id"]] = data["secret"]
        return response
