"""The web server's API through Starlette's test client: every route, every refused request.

A game played over the API is the engine's game: the moves offered are the legal ones, a
seeded game gives the opponents' choices the terminal's ``play`` gives, and a refused
request (4xx with a message) changes nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from card_envs.agents.specs import make_policy
from card_envs.core.play import play_game
from card_envs.core.policy import Policy
from card_envs.core.registry import game_class
from card_envs.records.record import GameRecorder
from card_envs.web.app import WebConfig, make_app
from card_envs.web.sessions import MAX_ADVANCE, Sessions
from card_envs.web.tables import offered_actions
from tests.web_client import PageClient

GAMES = ["uno", "tock", "chipit"]
#: a reference that would load something from another host (a CDN, a web font)
REMOTE = re.compile(
    r"""(src|href)\s*=\s*["']?(https?:)?//|url\(\s*["']?(https?:)?//|@import|fetch\(\s*["']https?:"""
)
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def client_for(config: WebConfig | None = None, sessions: Sessions | None = None) -> TestClient:
    return PageClient(make_app(config or WebConfig(), sessions))


@pytest.fixture(scope="module")
def client() -> TestClient:
    return client_for()


def first_leaf(groups: list[dict[str, Any]]) -> int:
    return offered_actions(groups)[0]


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def play_through(client: TestClient, data: dict[str, Any], pick=first_leaf) -> tuple[dict[str, Any], list]:
    """Play the person's seat with ``pick`` until the end; every frame seen, in order."""
    frames = list(data["frames"])
    while data["state"]["result"] is None:
        state = data["state"]
        assert state["your_turn"], state
        response = client.post(f"/api/games/{data['id']}/move", json={"action": pick(state["choices"])})
        assert response.status_code == 200, response.text
        data = response.json()
        frames += data["frames"]
    return data, frames


# ------------------------------------------------------------------ the catalog and the page
def test_the_catalog_offers_every_game_with_its_rules_and_opponents(client):
    games = {g["name"]: g for g in client.get("/api/catalog").json()["games"]}
    assert set(GAMES) <= set(games)
    for name in GAMES:
        info, cls = games[name], game_class(name)
        assert (info["min_players"], info["max_players"]) == (cls.min_players, cls.max_players)
        assert [r["name"] for r in info["rules"]] == cls.rule_names()
        built = cls()
        for rule in info["rules"]:
            assert rule["default"] == getattr(built, rule["name"])
        specs = [p["spec"] for p in info["presets"]]
        assert specs[0] == "rule" and "random" in specs and "heuristic" in specs
        for spec in specs:  # every preset builds at the default table
            make_policy(spec, name, cls.default_players)
    uno_rules = {r["name"]: r for r in games["uno"]["rules"]}
    assert uno_rules["draw_four"]["options"][0] == "any_time"


def test_the_page_and_its_static_files_are_served_without_anything_from_outside(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for asset in ("/static/app.js", "/static/style.css", "/static/favicon.svg"):
        response = client.get(asset)
        assert response.status_code == 200, asset
        assert not REMOTE.search(response.text), asset
    assert not REMOTE.search(page.text)
    assert client.get("/static/../app.py").status_code == 404


# ------------------------------------------------------------------ playing
@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_is_played_through_the_api_with_exactly_the_legal_moves(client, game):
    data = create(client, game=game, seed=11, opponents="rule")
    rng = np.random.default_rng(0)
    engine_checks = 0

    def pick(groups):
        nonlocal engine_checks
        offered = offered_actions(groups)
        assert len(offered) == len(set(offered))
        engine_checks += 1
        return int(rng.choice(offered))

    end, frames = play_through(client, data, pick)
    assert [f["step"] for f in frames] == list(range(len(frames)))  # every move shown, in order
    assert frames[0]["player"] is None and all(f["move"] for f in frames)
    result = end["state"]["result"]
    ranks = sorted(seat["rank"] for seat in result["seats"])
    assert ranks[0] == 1 and len(ranks) == game_class(game).default_players
    assert result["seats"][0]["who"] == "you"
    assert engine_checks > 0


@pytest.mark.parametrize("game", GAMES)
def test_the_offered_moves_are_the_engine_legal_actions(client, game):
    data = create(client, game=game, seed=5, opponents="random")
    session = client.app.state.web.sessions.get(data["id"])
    for _ in range(25):
        state = data["state"]
        if state["result"] is not None:
            break
        assert sorted(offered_actions(state["choices"])) == session.game.legal_actions()
        assert client.get(f"/api/games/{data['id']}").json()["state"] == state
        move = {"action": first_leaf(state["choices"])}
        data = client.post(f"/api/games/{data['id']}/move", json=move).json()


class FirstLegal(Policy):
    """The person's stand-in: always the first legal action (as ``first_leaf`` picks it)."""

    def __init__(self, game) -> None:
        self.game = game

    def act(self, observation, action_mask, rng) -> int:
        return int(first_leaf([g.to_json() for g in self.game.move_choices()]))


@pytest.mark.parametrize("game", GAMES)
def test_a_seeded_game_gives_the_opponents_choices_the_terminal_gives(client, game):
    """The server seeds as ``play`` does: default_rng(seed) deals and decides for the agents."""
    _, frames = play_through(client, create(client, game=game, seed=21, opponents=["rule", "random", "rule"]))
    engine = game_class(game)(4)
    moves: list[str] = []
    policies = [FirstLegal(engine)] + [make_policy(s, game, 4) for s in ("rule", "random", "rule")]
    play_game(engine, policies, np.random.default_rng(21), on_move=lambda g, _: moves.append(g.last_move()))
    assert [f["move"] for f in frames[1:]] == moves


def test_watching_agents_advances_them_in_bounded_steps_to_the_end(client):
    data = create(client, game="uno", players=3, seat=None, opponents=["rule", "random", "heuristic"], seed=2)
    assert data["state"]["names"] == ["rule", "random", "heuristic"]
    assert len(data["frames"]) == 1 and not data["state"]["your_turn"]
    steps = 0
    while data["state"]["result"] is None:
        response = client.post(f"/api/games/{data['id']}/advance", json={"steps": 7})
        assert response.status_code == 200, response.text
        data = response.json()
        assert 1 <= len(data["frames"]) <= 7
        steps += len(data["frames"])
    assert data["state"]["step"] == steps
    over = client.post(f"/api/games/{data['id']}/advance", json={"steps": 1})
    assert over.status_code == 409 and "over" in over.json()["error"]


# ------------------------------------------------------------------ refused requests
BAD_CREATES = [
    ({"game": "poker"}, 400, "unknown game 'poker'"),
    ({"game": 3}, 400, "unknown game"),
    ({"game": "uno", "players": 1}, 400, "players"),
    ({"game": "uno", "players": "4"}, 400, "players must be an int"),
    ({"game": "uno", "rules": {"stacking": "yes"}}, 400, "stacking"),
    ({"game": "uno", "rules": {"no_such_rule": 1}}, 400, "no_such_rule"),
    ({"game": "uno", "rules": [1]}, 400, "rules must be an object"),
    ({"game": "uno", "seat": 4}, 400, "seat must be a seat 0..3"),
    ({"game": "uno", "seat": True}, 400, "seat must be"),
    ({"game": "uno", "opponents": ["rule"]}, 400, "a list of 3"),
    ({"game": "uno", "opponents": "wizard"}, 400, "unknown policy spec 'wizard'"),
    ({"game": "uno", "opponents": "rule:bravery=2"}, 400, "unknown knob"),
    ({"game": "uno", "opponents": [1, 2, 3]}, 400, "policy spec string"),
    ({"game": "uno", "opponents": "self"}, 400, "training pool"),
    ({"game": "uno", "opponents": "model:/etc"}, 403, "without runs folders"),
    ({"game": "uno", "seed": -1}, 400, "seed must be"),
    ({"game": "uno", "seed": "x"}, 400, "seed must be"),
    ({"game": "uno", "colour": "red"}, 400, "unknown field(s) ['colour']"),
]


@pytest.mark.parametrize(("body", "status", "message"), BAD_CREATES)
def test_a_bad_new_game_is_refused_with_a_message_and_creates_nothing(body, status, message):
    client = client_for()
    response = client.post("/api/games", json=body)
    assert response.status_code == status, response.text
    assert message in response.json()["error"]
    assert len(client.app.state.web.sessions) == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"{not json", "not JSON"), (b"[1, 2]", "must be a JSON object"), (b"\xff\xfe", "not JSON")],
)
def test_a_malformed_body_is_refused(client, content, message):
    response = client.post("/api/games", content=content, headers={"content-type": "application/json"})
    assert response.status_code == 400 and message in response.json()["error"]


def test_a_body_over_the_size_cap_is_refused_before_it_is_read():
    client = client_for(WebConfig(max_body=100))
    response = client.post("/api/games", json={"game": "uno", "rules": {"x": "y" * 200}})
    assert response.status_code == 413 and "at most 100" in response.json()["error"]

    def chunks():  # no content-length: refused while streaming
        yield b'{"game": "uno", "pad": "'
        for _ in range(10):
            yield b"y" * 50
        yield b'"}'

    streamed = client.post("/api/games", content=chunks())
    assert streamed.status_code == 413


def test_an_illegal_or_malformed_move_changes_nothing(client):
    data = create(client, game="uno", seed=4)
    key, before = data["id"], data["state"]
    legal = offered_actions(before["choices"])
    illegal = next(a for a in range(game_class("uno").num_actions) if a not in legal)
    for action, status, message in [
        (illegal, 422, "legal:"),
        (-1, 422, "out of range"),
        (10**6, 422, "out of range"),
        ("12", 422, "must be an int"),
        (1.5, 422, "must be an int"),
        (None, 422, "must be an int"),
        (True, 422, "must be an int"),
    ]:
        response = client.post(f"/api/games/{key}/move", json={"action": action})
        assert response.status_code == status, (action, response.text)
        assert message in response.json()["error"], action
        assert client.get(f"/api/games/{key}").json()["state"] == before
    missing = client.post(f"/api/games/{key}/move", json={})
    assert missing.status_code == 400 and "needs an action" in missing.json()["error"]
    assert client.get(f"/api/games/{key}").json()["state"] == before


def test_moves_that_do_not_fit_the_table_are_refused_with_409(client):
    watched = create(client, game="tock", seat=None, seed=1)
    response = client.post(f"/api/games/{watched['id']}/move", json={"action": 0})
    assert response.status_code == 409 and "watched" in response.json()["error"]
    played = create(client, game="tock", seed=1)
    response = client.post(f"/api/games/{played['id']}/advance", json={"steps": 1})
    assert response.status_code == 409 and "person" in response.json()["error"]
    for steps in (0, MAX_ADVANCE + 1, "3", True):
        response = client.post(f"/api/games/{watched['id']}/advance", json={"steps": steps})
        assert response.status_code == 400 and "steps must be" in response.json()["error"]
    end, _ = play_through(client, create(client, game="uno", players=2, seed=3))
    response = client.post(f"/api/games/{end['id']}/move", json={"action": 0})
    assert response.status_code == 409 and "over" in response.json()["error"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/games/nope"),
        ("POST", "/api/games/nope/move"),
        ("POST", "/api/games/nope/advance"),
        ("DELETE", "/api/games/nope"),
        ("GET", "/api/games/..%2F..%2Fetc"),  # not a game id at all: no such route
    ],
)
def test_a_wrong_game_id_is_a_404(client, method, path):
    response = client.request(method, path, json={"action": 0})
    assert response.status_code == 404
    assert re.search("no live game|no such route", response.json()["error"])


def test_unknown_routes_and_methods_answer_json(client):
    missing = client.get("/api/nothing")
    assert missing.status_code == 404 and "no such route" in missing.json()["error"]
    wrong = client.put("/api/games")
    assert wrong.status_code == 405 and "error" in wrong.json()


def test_the_cap_on_live_games_and_idle_expiry():
    clock = FakeClock()
    client = client_for(sessions=Sessions(max_games=2, idle_seconds=60, clock=clock))
    first = create(client, game="uno", seed=1)
    create(client, game="uno", seed=2)
    refused = client.post("/api/games", json={"game": "uno"})
    assert refused.status_code == 429 and "2 games are live" in refused.json()["error"]
    assert client.delete(f"/api/games/{first['id']}").json() == {"closed": first["id"]}
    kept = create(client, game="uno", seed=3)
    clock.now = 50.0
    assert client.get(f"/api/games/{kept['id']}").status_code == 200  # used: its idle time restarts
    clock.now = 100.0
    sessions = client.app.state.web.sessions
    assert client.get("/api/health").json() == {"games": 1, "max_games": 2}  # the second game went
    clock.now = 200.0
    gone = client.get(f"/api/games/{kept['id']}")
    assert gone.status_code == 404 and "expired" in gone.json()["error"]
    assert len(sessions) == 0


# ------------------------------------------------------------------ records
def record_game(folder: Path, game: str = "uno", seed: int = 7) -> Path:
    """One rule-based game recorded as evaluate.py --record writes it."""
    engine = game_class(game)(3)
    engine.recorder = recorder = GameRecorder(folder)
    recorder.name_next(players=["rule", "random", "rule"])
    policies = [make_policy(s, game, 3) for s in ("rule", "random", "rule")]
    play_game(engine, policies, np.random.default_rng(seed))
    (path,) = recorder.saved  # written when the game ended
    return path


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> tuple[TestClient, Path, Path]:
    root = tmp_path_factory.mktemp("served")
    records, reports, runs = root / "records", root / "reports", root / "runs"
    for folder in (records, reports, runs):
        folder.mkdir()
    (records / "sub").mkdir()
    record_game(records / "sub")
    (root / "secret.jsonl").write_text("{}\n")
    (records / "notes.txt").write_text("not a record\n")
    (records / "broken.jsonl").write_text('{"record": "card_envs"}\nnot json\n')
    report = reports / "uno-eval"
    report.mkdir()
    (report / "report.md").write_text("# Evaluation: uno\n\n| agent | win |\n|---|---|\n| rule | 0.5 |\n")
    (report / "win_rates.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    (report / "private.key").write_text("no")
    config = WebConfig(records=[str(records)], reports=[str(reports)], runs=[str(runs)])
    return client_for(config), records, root


def test_records_are_listed_opened_and_stepped_through(served):
    client, records, _ = served
    names = client.get("/api/records").json()["records"]
    assert names == ["0/broken.jsonl", "0/sub/uno-000001.jsonl"]
    data = client.get("/api/records/open", params={"path": names[1]}).json()
    lines = [json.loads(line) for line in (records / "sub" / "uno-000001.jsonl").read_text().splitlines()]
    moves = [line for line in lines[1:] if "action" in line]
    assert len(data["frames"]) == len(moves) + 1
    assert [f["step"] for f in data["frames"]] == list(range(len(moves) + 1))
    assert [f["player"] for f in data["frames"][1:]] == [m["player"] for m in moves]
    assert data["names"] == ["rule", "random", "rule"]
    assert data["result"]["seats"][0]["rank"] == lines[-1]["ranks"][0]
    assert all(f["table"]["view"]["players"] for f in data["frames"])  # the whole table drawn


@pytest.mark.parametrize(
    ("path", "status", "message"),
    [
        ("../secret.jsonl", 403, "folder number"),
        ("0/../secret.jsonl", 403, "outside"),
        ("0/sub/../../secret.jsonl", 403, "outside"),
        ("/etc/passwd", 403, "outside"),
        ("1/x.jsonl", 403, "folder number 0..0"),
        ("", 403, "non-empty"),
        ("0/none.jsonl", 404, "no record"),
        ("0/notes.txt", 400, "not a game record"),
        ("0/broken.jsonl", 400, "not JSON"),
    ],
)
def test_a_record_outside_the_folders_or_broken_is_refused(served, path, status, message):
    client, _, _ = served
    response = client.get("/api/records/open", params={"path": path})
    assert response.status_code == status, response.text
    assert message in response.json()["error"]


def test_a_server_without_folders_refuses_records_reports_and_runs(client):
    response = client.get("/api/records/open", params={"path": "0/x.jsonl"})
    assert response.status_code == 403 and "without records folders" in response.json()["error"]
    assert client.get("/api/records").json() == {"records": []}
    assert client.get("/api/reports").json() == {"reports": []}
    response = client.post("/api/games", json={"game": "uno", "opponents": "greedy:0/run"})
    assert response.status_code == 403 and "runs" in response.json()["error"]


# ------------------------------------------------------------------ reports
def test_reports_are_listed_and_their_files_served(served):
    client, _, _ = served
    (report,) = client.get("/api/reports").json()["reports"]
    assert report == {
        "name": "0/uno-eval",
        "label": "reports/uno-eval",
        "files": ["report.md", "win_rates.png"],
    }
    markdown = client.get("/api/reports/file", params={"path": "0/uno-eval/report.md"})
    assert markdown.status_code == 200 and markdown.text.startswith("# Evaluation: uno")
    plot = client.get("/api/reports/file", params={"path": "0/uno-eval/win_rates.png"})
    assert plot.headers["content-type"] == "image/png"


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("0/uno-eval/private.key", 400),
        ("0/uno-eval/missing.png", 404),
        ("0/../records/sub/uno-000001.jsonl", 403),
        ("0/uno-eval/../../secret.jsonl", 403),
    ],
)
def test_report_files_outside_the_folders_or_of_other_kinds_are_refused(served, path, status):
    client, _, _ = served
    response = client.get("/api/reports/file", params={"path": path})
    assert response.status_code == status, response.text
    assert response.json()["error"]


def test_a_run_outside_the_run_folders_or_missing_is_refused(served):
    client, _, root = served
    outside = client.post("/api/games", json={"game": "uno", "opponents": f"model:{root}"})
    assert outside.status_code == 403
    tricked = client.post("/api/games", json={"game": "uno", "opponents": "model:0/../records"})
    assert tricked.status_code == 403
    missing = client.post("/api/games", json={"game": "uno", "opponents": "model:0/nothing"})
    assert missing.status_code == 400 and "no saved model" in missing.json()["error"]


# ------------------------------------------------------------------ trained opponents
@pytest.fixture(scope="module")
def trained_runs(tmp_path_factory) -> Path:
    """A folder holding one (untrained) MaskablePPO run of 3-player UNO, its settings.json saying so."""
    pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from card_envs.agents.envs import make_env

    runs = tmp_path_factory.mktemp("runs")
    env = make_env("uno", num_players=3, opponents="random")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, seed=0, device="cpu", policy_kwargs={"net_arch": [16]})
    (runs / "uno3").mkdir()
    model.save(runs / "uno3" / "model.zip")
    (runs / "uno3" / "settings.json").write_text(json.dumps({"game": "uno", "num_players": 3}))
    return runs


def test_a_trained_run_in_the_run_folders_is_offered_and_plays(trained_runs):
    client = client_for(WebConfig(runs=[str(trained_runs)]))
    uno = next(g for g in client.get("/api/catalog").json()["games"] if g["name"] == "uno")
    offered = {run["spec"]: run["players"] for run in uno["runs"]}
    assert offered == {"greedy:0/uno3": [3], "model:0/uno3": [3]}  # the table it was trained for
    data = create(client, game="uno", players=3, opponents=["greedy:0/uno3", "model:0/uno3"], seed=4)
    assert data["state"]["names"] == ["you", "greedy:uno3", "model:uno3"]
    end, _ = play_through(client, data)
    assert end["state"]["result"] is not None
    wrong = client.post("/api/games", json={"game": "uno", "players": 4, "opponents": "greedy:0/uno3"})
    assert wrong.status_code == 400 and "3-player uno" in wrong.json()["error"]


# ------------------------------------------------------------------ the command
def test_the_command_listens_on_loopback_unless_told_and_then_warns(monkeypatch, capsys, tmp_path):
    import uvicorn

    from card_envs.web.__main__ import is_loopback, main

    started = []
    configs = []

    def run(app, host, port, **kw):
        started.append((host, port))
        configs.append(app.state.web.config)

    monkeypatch.setattr(uvicorn, "run", run)
    main(["--port", "0", "--records", str(tmp_path)])
    assert started == [("127.0.0.1", 0)] and "warning" not in capsys.readouterr().err
    assert configs[-1].token is None
    main(["--host", "0.0.0.0", "--allow-host", "cards.lan"])
    assert started[-1] == ("0.0.0.0", 8000)
    out, err = capsys.readouterr()
    assert "warning: listening on 0.0.0.0" in err
    token = configs[-1].token  # beyond loopback a token is required: a random one, in the address
    assert token and len(token) >= 24 and f"http://0.0.0.0:8000/?token={token}" in out
    assert configs[-1].hosts == ["0.0.0.0", "cards.lan"]
    main(["--host", "0.0.0.0", "--token", "t" * 16])
    assert configs[-1].token == "t" * 16
    assert is_loopback("localhost") and is_loopback("::1") and not is_loopback("example.org")
    for argv, message in [
        (["--records", str(tmp_path / "none")], "no such folder"),
        (["--max-games", "0"], "--max-games"),
        (["--idle-minutes", "-1"], "--idle-minutes"),
        (["--token", "short"], "at least 16"),
        (["--away-seconds", "0"], "--away-seconds"),
    ]:
        with pytest.raises(SystemExit):
            main(argv)
        assert message in capsys.readouterr().err


def test_the_table_as_json_is_every_field_of_the_view():
    from dataclasses import asdict

    from card_envs.web.tables import view_json

    for game in GAMES:
        engine = game_class(game)()
        engine.reset(3)
        for seat in (None, 0):
            view = engine.table_view(seat)
            assert view is not None and view_json(view) == asdict(view)


def test_every_static_file_is_package_data():
    """A wheel carries the page: pyproject.toml's package data covers every static file."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    root = Path(__file__).resolve().parents[1]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    static = root / "card_envs" / "web" / "static"
    covered = {
        path for pattern in patterns["card_envs.web"] for path in (root / "card_envs" / "web").glob(pattern)
    }
    assert {path for path in static.iterdir() if path.is_file()} == covered
    assert {"index.html", "app.js", "style.css"} <= {path.name for path in covered}
