"""The page in a real browser: a whole game of each game played by clicking, agents watched,
a record stepped through both ways, a report read; screenshots of each table for the README.

Headless Chromium from the system (Debian's ``chromium`` package), driven by Playwright
(whose own browser download is not used). Marked ``browser``: ``pytest -m browser``
(``.ci/run`` installs Chromium and runs them); skipped, saying why, where Chromium or
Playwright is missing.
"""

from __future__ import annotations

import http.server
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (the 'browser' extra)")

from card_envs.web.app import WebConfig, make_app  # noqa: E402
from tests.test_web import record_game  # noqa: E402

pytestmark = pytest.mark.browser
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"
GAMES = ["uno", "tock", "chipit"]
#: a safety bound on the clicks of one game (a game ends long before)
MAX_CLICKS = 3000
#: a name of another site that the browser resolves to 127.0.0.1, as a rebinding DNS would
REBOUND = "rebound.example"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("web")
    found = {kind: root / kind for kind in ("records", "reports")}
    for folder in found.values():
        folder.mkdir()
    record_game(found["records"], "tock", seed=3)
    report = found["reports"] / "uno-eval"
    report.mkdir()
    from PIL import Image

    Image.new("RGB", (120, 40), (30, 120, 60)).save(report / "win_rates.png")
    (report / "report.md").write_text(
        "# Evaluation: uno, 4 players\n\n## rule vs random\n\n| agent | win rate |\n|---|---|\n"
        "| rule | 0.61 |\n| random | 0.13 |\n\n- 400 games, seats rotated\n\n![win rates](win_rates.png)\n"
    )
    return found


@pytest.fixture(scope="module")
def app(folders):
    return make_app(WebConfig(records=[str(folders["records"])], reports=[str(folders["reports"])]))


@pytest.fixture(scope="module")
def server(app) -> Iterator[str]:
    """The app served by uvicorn on a free loopback port, in a thread of this process."""
    port = free_port()
    served = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=served.run, daemon=True)
    thread.start()
    while not served.started:
        if not thread.is_alive():
            pytest.fail("the server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    served.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if CHROMIUM is None:
        pytest.skip("no system Chromium (apt-get install chromium); Playwright's own download is not used")
    with sync_api.sync_playwright() as playwright:
        # the name a DNS-rebinding site would point at this machine (test_a_name_rebound...)
        rebinding = f"--host-resolver-rules=MAP {REBOUND} 127.0.0.1"
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", rebinding])
        yield launched
        launched.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    # the page breaks none of its own Content-Security-Policy (no inline script or style)
    tab.on(
        "console", lambda message: errors.append(message.text) if "Content Security" in message.text else None
    )
    tab.goto(f"{server}/?pace=0")
    tab.wait_for_selector("body[data-ready='1']")
    yield tab
    context.close()
    assert not errors, errors


def wait_for_decision(page) -> str:
    page.wait_for_selector("body[data-phase='yours'], body[data-phase='over']")
    return page.get_attribute("body", "data-phase") or ""


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_is_played_by_clicking_and_every_move_is_told(page, game):
    rng = np.random.default_rng(1)
    page.select_option("#game", game)
    page.fill("#seed", "5")
    page.click("#start")
    clicks = shot = 0
    while wait_for_decision(page) == "yours" and clicks < MAX_CLICKS:
        buttons = page.locator("#choices button.choice")
        count = buttons.count()
        assert count > 0
        button = buttons.nth(int(rng.integers(count)))
        if "warn" in (button.get_attribute("class") or ""):
            button.click()  # a rule break asks for a second click
        button.click()
        clicks += 1
        if clicks == 8 and not shot:
            page.locator("#board").screenshot(path=str(IMAGES / f"web-{game}.png"))
            shot = 1
    assert page.get_attribute("body", "data-phase") == "over", f"no end after {clicks} clicks"
    assert page.locator("#result table.results tr").count() == 1 + {"uno": 4, "tock": 4, "chipit": 4}[game]
    assert "you" in page.inner_text("#result")
    log = page.locator("#log li")
    moves = page.locator("#log li[data-player]")
    assert moves.count() >= clicks and log.count() == moves.count() + 1  # the deal, then every move
    assert all(text.strip() for text in moves.all_inner_texts())
    if not shot:
        page.locator("#board").screenshot(path=str(IMAGES / f"web-{game}.png"))


def test_watching_agents_plays_them_to_the_end(page):
    """At a pace (one move a request, 50 ms apart), as a person watches."""
    page.eval_on_selector("#pace", "(pace) => { pace.value = 50; pace.dispatchEvent(new Event('input')); }")
    assert page.inner_text("#pace-label") == "0.05 s"
    page.click("#modes button[data-mode='watch']")
    page.select_option("#game", "chipit")
    page.fill("#players", "3")
    page.dispatch_event("#players", "change")
    assert page.locator("#opponents .opponent").count() == 3
    page.select_option("#opponents .opponent:nth-of-type(2) select", "random")
    page.click("#start")
    page.wait_for_selector("body[data-phase='over']")
    assert "random" in page.inner_text("#result")
    assert page.locator("#log li[data-player]").count() > 3


def test_a_record_is_opened_and_stepped_forwards_and_backwards(page):
    page.click("#modes button[data-mode='replay']")
    page.click("#records button.record")
    page.wait_for_selector("#replay-step")
    total = int(page.inner_text("#replay-step").split(" of ")[1])
    assert page.inner_text("#replay-step") == f"move 0 of {total}"
    start = page.inner_text("#table")
    for _ in range(3):
        page.click("#replay-next")
    assert page.inner_text("#replay-step") == f"move 3 of {total}"
    third = page.inner_text("#table")
    assert third != start
    page.click("#replay-back")
    assert page.inner_text("#replay-step") == f"move 2 of {total}"
    page.click("#replay-next")
    assert page.inner_text("#table") == third  # the same table again
    page.click("#replay-first")
    assert page.inner_text("#table") == start
    middle = total * 2 // 3
    page.eval_on_selector(
        "#replay-slider",
        "(slider, at) => { slider.value = at; slider.dispatchEvent(new Event('input')); }",
        middle,
    )
    assert page.inner_text("#replay-step") == f"move {middle} of {total}"
    page.locator("#board").screenshot(path=str(IMAGES / "web-replay.png"))
    page.click("#replay-last")
    assert page.inner_text("#replay-step") == f"move {total} of {total}"
    assert page.locator("#result").is_visible()


def test_a_report_shows_its_tables_and_plots(page):
    page.click("#modes button[data-mode='report']")
    page.click("#reports button.report")
    page.wait_for_selector("#report-view table.md")
    assert page.locator("#report-view table.md tr").count() == 3
    assert "rule vs random" in page.inner_text("#report-view")
    image = page.locator("#report-view img.plot")
    image.wait_for()
    assert page.evaluate("document.querySelector('#report-view img.plot').naturalWidth") == 120


def test_a_refused_request_is_shown_and_leaves_the_page_working(page):
    page.select_option("#opponents .opponent:nth-of-type(1) select", "custom")
    page.fill("#opponents .opponent:nth-of-type(1) input", "wizard")
    page.click("#start")
    page.wait_for_selector("#error:not([hidden])")
    assert "unknown policy spec 'wizard'" in page.inner_text("#error")
    page.select_option("#opponents .opponent:nth-of-type(1) select", "random")
    page.click("#start")
    assert wait_for_decision(page) in ("yours", "over")


def nested_choices(game) -> list:
    """Every legal move one step down, behind an inner choice, and the first one marked as
    a rule break: the parts of the choice tree no built-in game uses yet."""
    from card_envs.core.choices import Choice, ChoiceGroup

    legal = game.legal_actions()
    leaves = tuple(
        Choice(game.describe_action(a), action=a, warn=i == 0, note="a test" if i == 0 else "")
        for i, a in enumerate(legal)
    )
    return [ChoiceGroup("steps", (Choice("pick a move", then=(ChoiceGroup("moves", leaves),)),))]


def test_a_play_built_in_steps_is_chosen_step_by_step(page, monkeypatch):
    """The page walks the engine's choice tree: an inner choice opens its next step, back
    returns, and a warned move needs a second click."""
    from tests.toy_game import ClimbGame

    monkeypatch.setattr(ClimbGame, "move_choices", nested_choices)
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#game", "climb")
    page.click("#start")
    moves = 0
    while wait_for_decision(page) == "yours" and moves < MAX_CLICKS:
        page.click("#choices button.choice.inner")
        assert page.locator("#choices button.back").is_visible()
        if moves == 0:  # back, and in again
            page.click("#choices button.back")
            page.click("#choices button.choice.inner")
        warned = page.locator("#choices button.choice.warn")
        warned.click()
        assert "click again to confirm" in warned.inner_text()
        assert page.get_attribute("body", "data-phase") == "yours"  # nothing sent yet
        warned.click()
        moves += 1
    assert page.get_attribute("body", "data-phase") == "over"
    assert moves > 0 and page.locator("#log li[data-player='0']").count() == moves


def test_a_move_in_an_expired_game_says_so(page, app):
    page.click("#start")
    assert wait_for_decision(page) == "yours"
    sessions = app.state.web.sessions
    idle, sessions.idle_seconds = sessions.idle_seconds, -1.0  # every game counts as idle
    assert sessions.expire() >= 1
    sessions.idle_seconds = idle
    page.locator("#choices button.choice").first.click()
    page.wait_for_selector("body[data-phase='gone']")
    assert "no live game" in page.inner_text("#error")
    assert "expired" in page.inner_text("#status")


def test_a_card_of_the_hand_plays_the_one_move_that_names_it(page):
    """UNO offers "play R5"-like moves: the hand's cards they name are clickable."""
    page.select_option("#game", "uno")
    page.fill("#seed", "5")
    page.click("#start")
    for _ in range(60):  # until a turn where one card is playable by exactly one move
        assert wait_for_decision(page) == "yours"
        playable = page.locator("#table .zone.turn .card.playable")
        single = [
            i for i in range(playable.count()) if " | " not in (playable.nth(i).get_attribute("title") or "")
        ]
        if single:
            card = playable.nth(single[0])
            code = card.inner_text()
            before = page.locator("#log li[data-player='0']").count()
            card.click()
            wait_for_decision(page)
            mine = page.locator("#log li[data-player='0']")
            assert mine.count() == before + 1
            assert code in mine.nth(before).inner_text()  # the move played that card
            return
        page.locator("#choices button.choice").last.click()  # draw, and look again
    pytest.fail("no turn with a card to play in 60 moves")


# ------------------------------------------------------------------ another site's page
#: a page of another origin (served by the browser itself, from a route) that tries to deal a
#: game and to move one whose id it knows, as a cross-site request needing no preflight does
FOREIGN_PAGE = """<!doctype html><title>another site</title><script>
async function attempt(url, body) {
  try {
    await fetch(url, {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body});
    return "sent";
  } catch (error) { return String(error); }
}
</script>"""


@contextmanager
def foreign_site() -> Iterator[str]:
    """:data:`FOREIGN_PAGE` served on another loopback port: another origin, which Chromium lets
    reach this server (a public site's request would also meet its local-network checks, which
    other browsers do not make)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(FOREIGN_PAGE.encode())

        def log_message(self, *args: object) -> None:
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler) as site:
        thread = threading.Thread(target=site.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{site.server_address[1]}"
        site.shutdown()


def test_another_sites_page_deals_nothing_and_moves_nothing(browser, server, app):
    from starlette.testclient import TestClient

    from card_envs.web.security import SECRET_HEADER
    from tests.web_client import BASE_URL

    client = TestClient(app, base_url=BASE_URL)
    game = client.post("/api/games", json={"game": "uno", "players": 3, "seed": 2}).json()
    headers = {SECRET_HEADER: game["secret"]}
    before = client.get(f"/api/games/{game['id']}", headers=headers).json()["state"]
    live = len(app.state.web.sessions)
    context = browser.new_context()
    tab = context.new_page()
    with foreign_site() as foreign:
        tab.goto(f"{foreign}/page.html")
    refused = []
    tab.on("response", lambda response: refused.append(response.status) if server in response.url else None)
    action = before["choices"][0]["choices"][0].get("action", 0)
    for path, body in [
        ("/api/games", '{"game": "uno"}'),
        (f"/api/games/{game['id']}/move", f'{{"action": {action}}}'),
    ]:
        assert tab.evaluate("([url, body]) => attempt(url, body)", [server + path, body]) == "sent"
    context.close()
    assert refused == [403, 403]  # each reached the server, which refused it
    assert len(app.state.web.sessions) == live
    assert client.get(f"/api/games/{game['id']}", headers=headers).json()["state"] == before


def test_a_name_rebound_to_this_machine_gets_no_page_and_no_api(browser, server, app):
    """DNS rebinding: another site's name made to resolve to 127.0.0.1, as the attacker's DNS
    does after the first visit; the browser then sends that name as the Host."""
    port = server.rsplit(":", 1)[1]
    live = len(app.state.web.sessions)
    context = browser.new_context()
    tab = context.new_page()
    answer = tab.goto(f"http://{REBOUND}:{port}/")
    assert answer is not None and answer.status == 403
    assert "does not answer to the Host" in tab.content()
    statuses = tab.evaluate(
        """async () => [
            (await fetch('/api/catalog')).status,
            (await fetch('/api/games', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                        body: '{"game": "uno"}'})).status,
        ]"""
    )
    context.close()
    assert statuses == [403, 403] and len(app.state.web.sessions) == live


# ------------------------------------------------------------------ friends at one table
def api_answers(context, server: str) -> list[dict]:
    """Every game answer this browser context receives, as JSON (filled in as they come)."""
    answers: list[dict] = []

    def keep(response) -> None:
        if response.url.startswith(f"{server}/api/games") and response.ok:
            answers.append(response.json())

    context.on("response", keep)
    return answers


def others_hands_hidden(seat: int, answers: list[dict]) -> int:
    """Check that no answer shows another seat's hand face up; the number of views checked."""
    views = [frame["table"]["view"] for answer in answers for frame in answer.get("frames", [])]
    views += [answer["state"]["table"]["view"] for answer in answers if "state" in answer]
    for view in views:
        for other, zone in enumerate(view["players"]):
            if other != seat:
                assert all(card["face_down"] for card in zone["cards"]), (seat, other, zone)
    return len(views)


def test_two_people_play_one_game_in_two_browsers_neither_seeing_the_others_hand(browser, server):
    first, second = browser.new_context(), browser.new_context()
    seen = {0: api_answers(first, server), 1: api_answers(second, server)}
    host = first.new_page()
    host.goto(f"{server}/?pace=0&poll=100")
    host.wait_for_selector("body[data-ready='1']")
    host.select_option("#game", "uno")
    host.fill("#players", "3")
    host.dispatch_event("#players", "change")
    host.fill("#seed", "8")
    host.select_option("#opponents select[data-seat='1']", "person")
    host.click("#start")
    link = host.locator("#invites input[data-seat='1']").input_value()
    assert link.startswith(f"{server}/#game=") and "&secret=" in link
    guest = second.new_page()
    guest.goto(link.replace("/#", "/?pace=0&poll=100#"))
    guest.wait_for_selector("body[data-ready='1']")
    rng = np.random.default_rng(3)
    pages = {0: host, 1: guest}
    for _ in range(MAX_CLICKS):
        phases = {seat: tab.get_attribute("body", "data-phase") for seat, tab in pages.items()}
        if all(phase == "over" for phase in phases.values()):
            break
        for seat, tab in pages.items():
            if phases[seat] != "yours":
                continue
            buttons = tab.locator("#choices button.choice")
            if buttons.count():
                button = buttons.nth(int(rng.integers(buttons.count())))
                if "warn" in (button.get_attribute("class") or ""):
                    button.click()
                button.click()
        time.sleep(0.02)
    assert all(tab.get_attribute("body", "data-phase") == "over" for tab in pages.values())
    assert "you" in guest.locator("#result").inner_text()
    for seat, answers in seen.items():
        assert others_hands_hidden(seat, answers) > 10
    first.close()
    second.close()


def test_the_pages_own_request_without_the_games_secret_changes_nothing(page, app):
    """Even from the page's own origin, a game's id alone moves nothing."""
    page.select_option("#game", "uno")
    page.fill("#seed", "4")
    page.click("#start")
    wait_for_decision(page)
    key = list(app.state.web.sessions._games)[-1]  # the game just dealt
    session = app.state.web.sessions.get(key)
    before = session.steps, session.game.state_dict()
    action = int(page.locator("#choices button.choice[data-action]").first.get_attribute("data-action"))
    statuses = page.evaluate(
        """async ([key, action]) => {
            const post = (headers) => fetch(`/api/games/${key}/move`, {method: 'POST',
                headers: {'Content-Type': 'application/json', ...headers}, body: JSON.stringify({action})});
            return [(await post({})).status, (await post({'X-Game-Secret': 'guessed'})).status,
                    (await fetch(`/api/games/${key}`)).status];
        }""",
        [key, action],
    )
    assert statuses == [403, 403, 403]
    assert (session.steps, session.game.state_dict()) == before
    page.locator(f"#choices button.choice[data-action='{action}']").first.click()  # the page's own move goes
    page.wait_for_function("() => document.body.dataset.phase !== 'waiting'")
    assert session.steps > before[0]
