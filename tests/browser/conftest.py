"""Browser fixtures: one gunicorn on a demo database, one Chromium, a watched page per test.

The whole browser suite shares the one server and the one browser; tests that need posts of
their own add them through `live_server.app` and take them away again.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import traceback
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import flask_migrate
import pytest
from bs4 import BeautifulSoup, Tag
from flask import Flask
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Frame,
    Page,
    Request,
    Response,
    Route,
    expect,
    sync_playwright,
)
from playwright.sync_api import Error as PlaywrightError

from blog import create_app
from blog.authoring import store
from blog.database import WRITE_OPTION
from blog.extensions import db
from tests.authoring.test_auth import CHEAP_METHOD
from tests.conftest import postgres_database, require

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
CHROMIUM = Path("/usr/bin/chromium")
AXE_SCRIPT = ROOT / "node_modules" / "axe-core" / "axe.min.js"
HTMX_SCRIPT = ROOT / "static" / "vendor" / "htmx.min.js"
FONTS_COPIED = ROOT / "static" / "vendor" / "fonts" / ".copied"
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
HERE = Path(__file__).resolve().parent

# No network on test machines and nothing to sync: keep Chromium quiet and local.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Nothing but the live server resolves, so a stray request can never leave the machine.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
DEFAULT_TIMEOUT_MS = 10_000
PER_PAGE = 12
SERVER_START_SECONDS = 30
SECRET_KEY = "browser-suite-secret"
# The site's zone, not UTC, so the suite shows and takes dates as a site in New York does
# (tests/browser/test_schedule.py); no other browser test reads a date.
SITE_TIMEZONE = "America/New_York"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test in this folder `browser`, even one whose module forgot to."""
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.browser)


@dataclass
class LiveServer:
    """The app served by gunicorn on 127.0.0.1, and the same app in this process, on the
    same database, for the CLI and for tests that add rows of their own."""

    url: str
    env: dict[str, str]
    log: Path
    app: Flask

    def flask(self, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
        """Run the `flask --app blog ARGS` command against the served database.

        The command runs in this process (Click's runner), so no Python starts for it; the
        answer has the shape of a finished `flask` process.
        """
        result = self.app.test_cli_runner().invoke(args=list(args), input=input)
        stderr = result.stderr
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            stderr += "".join(traceback.format_exception(result.exception))
        return subprocess.CompletedProcess(
            ["flask", "--app", "blog", *args], result.exit_code, result.stdout, stderr
        )

    def log_tail(self, lines: int = 40) -> str:
        """The end of the server's log, for failure messages."""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def _must(result: subprocess.CompletedProcess[str], what: str) -> None:
    """Stop the session with the command's output when a set-up command fails."""
    if result.returncode != 0:
        pytest.fail(f"{what} failed:\n{result.stdout}\n{result.stderr}", pytrace=False)


def _wait_for_address(process: subprocess.Popen[bytes], log: Path) -> str:
    """Read gunicorn's log until it says where it listens; return that base URL."""
    deadline = time.monotonic() + SERVER_START_SECONDS
    pattern = re.compile(r"Listening at: (http://127\.0\.0\.1:\d+)")
    while time.monotonic() < deadline:
        found = pattern.search(log.read_text(errors="replace"))
        if found:
            return found.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    pytest.fail(f"gunicorn did not start:\n{log.read_text(errors='replace')}", pytrace=False)


def _no_control_socket() -> list[str]:
    """gunicorn's flag to skip its per-user control socket, where this version has one.

    Without it, every gunicorn run by the same user would share one socket path.
    """
    from gunicorn.config import KNOWN_SETTINGS

    names = {setting.name for setting in KNOWN_SETTINGS}
    return ["--no-control-socket"] if "control_socket_disable" in names else []


@pytest.fixture(scope="session")
def live_server(sqlite_live_server: LiveServer) -> LiveServer:
    """The server the browser suite uses: gunicorn on a SQLite file with the demo posts."""
    return sqlite_live_server


@pytest.fixture(scope="session")
def sqlite_live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One gunicorn for the session, on a fresh SQLite file loaded with the demo posts."""
    folder = tmp_path_factory.mktemp("live")
    with _serving(folder, f"sqlite:///{folder / 'live.sqlite3'}") as server:
        yield server


@pytest.fixture(scope="session")
def postgresql_live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The same server on a throwaway PostgreSQL database, started only for the journeys
    that run on both stores (see `on_both_stores`)."""
    folder = tmp_path_factory.mktemp("live-postgresql")
    with (
        postgres_database("fieldnotes_browser") as database_url,
        _serving(folder, database_url, topics=("Databases",)) as server,
    ):
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def on_both_stores(request: pytest.FixtureRequest) -> LiveServer:
    """The suite's server, then the same on PostgreSQL. A module whose `live_server` fixture
    returns this runs each of its tests on both stores; its pages follow the server."""
    server: LiveServer = request.getfixturevalue(f"{request.param}_live_server")
    return server


@contextmanager
def _serving(
    folder: Path, database_url: str, *, topics: tuple[str, ...] = ()
) -> Iterator[LiveServer]:
    """gunicorn serving the app on `database_url`, migrated and loaded with the demo posts;
    or, given `topics`, with only those topics (the journeys run on both stores write what
    they read, and a writer may only choose a topic that exists): loading the demo through
    `flask demo load` costs a Python start-up and 67 renders."""
    require(HTMX_SCRIPT.exists(), f"{HTMX_SCRIPT.relative_to(ROOT)} is missing: run `make setup`")
    require(FONTS_COPIED.exists(), "static/vendor/fonts/ is missing: run `make setup`")
    require(shutil.which("gunicorn", path=str(BIN)) is not None, "gunicorn is not installed")
    settings = {"SECRET_KEY": SECRET_KEY, "SITE_TIMEZONE": SITE_TIMEZONE}
    env = os.environ | settings | {"DATABASE_URL": database_url}
    env.pop("FLASK_DEBUG", None)
    # The suite's own reads and writes of the served database (set-ups, checks, clean-ups)
    # start as writers: on SQLite a read that turns into a write while the server commits
    # fails at once with "database is locked", where a writer waits its turn.
    app = create_app(
        settings
        | {
            "SQLALCHEMY_DATABASE_URI": database_url,
            "SQLALCHEMY_ENGINE_OPTIONS": {"execution_options": {WRITE_OPTION: True}},
        }
    )
    server = LiveServer(url="", env=env, log=folder / "gunicorn.log", app=app)
    # Every head, like the suite's own schema: branches from parallel work may not be merged yet.
    with app.app_context():
        flask_migrate.upgrade(revision="heads")
    if topics:
        with app.app_context():
            for name in topics:
                store.topic_named(name)
            db.session.commit()
    else:
        _must(server.flask("demo", "load"), "flask demo load")
    with server.log.open("wb") as log:
        # Port 0: the kernel picks a free port and gunicorn reports it in its log.
        process = subprocess.Popen(
            [
                str(BIN / "gunicorn"),
                "--workers=2",
                "--threads=4",
                "--bind=127.0.0.1:0",
                "--graceful-timeout=5",
                *_no_control_socket(),
                "blog:create_app()",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        server.url = _wait_for_address(process, server.log)
        yield server
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        with app.app_context():
            db.engine.dispose()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, shared by the whole session."""
    require(CHROMIUM.exists(), f"{CHROMIUM} is missing: install Debian's chromium package")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


# What the editor asks in the background, and a test that acts at once cancels, as a writer
# would: the browser's copy of unsaved text (GET, on load), the presence heartbeat (POST, on
# load and every 20 s), which stores nothing but "open since", the drawing preview (POST, on
# load and as the drawing field changes), which stores nothing, and an autosave (POST), which
# a save starting aborts by design (the save carries the same text).
BACKGROUND_REQUESTS = (
    ("GET", re.compile(r"/editor/posts/\d+/autosave")),
    ("POST", re.compile(r"/editor/posts/(\d+|new)/autosave")),
    ("POST", re.compile(r"/editor/posts/\d+/presence")),
    ("POST", re.compile(r"/editor/drawing")),
)

# What htmx logs as errors when it aborts a request that a newer one replaces.
HTMX_ABORT_LINES = frozenset({"htmx:afterRequest", "htmx:sendAbort"})


@dataclass
class PageWatch:
    """Everything that went wrong in the browser during one test."""

    origin: str
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    allowed_statuses: set[int] = field(default_factory=set)
    superseded_paths: set[str] = field(default_factory=set)
    # Navigations of each frame so far, what each request saw when it left, and the aborted
    # ones still to judge (once the test is over, every navigation has happened).
    navigations: dict[Frame, int] = field(default_factory=dict)
    sent_at: dict[Request, tuple[Frame, int]] = field(default_factory=dict)
    aborted: list[Request] = field(default_factory=list)

    def expect_status(self, *codes: int) -> None:
        """Accept responses with these error codes (and the console line Chromium logs for them)."""
        self.allowed_statuses.update(codes)

    def expect_superseded(self, path: str) -> None:
        """Accept htmx aborting its requests to `path` when a newer one replaces them
        (hx-sync="replace", as search-as-you-type does), and the lines it logs for that."""
        self.superseded_paths.add(path)

    def on_console(self, message: ConsoleMessage) -> None:
        """Record console errors, except the line for an expected error status."""
        if message.type != "error":
            return
        if self.superseded_paths and message.text in HTMX_ABORT_LINES:
            return
        status = re.search(r"status of (\d{3})", message.text)
        if status and int(status.group(1)) in self.allowed_statuses:
            return
        self.console_errors.append(f"{message.text} ({message.location.get('url', '')})")

    def on_page_error(self, error: PlaywrightError) -> None:
        """Record uncaught exceptions in the page."""
        self.console_errors.append(f"uncaught: {error}")

    def on_navigated(self, frame: Frame) -> None:
        """Count a frame's navigations (a new document in it)."""
        self.navigations[frame] = self.navigations.get(frame, 0) + 1

    def watch_page(self, page: Page) -> None:
        """Listen to a page of the test, opened by it or as a new tab; closing it is leaving."""
        page.on("console", self.on_console)
        page.on("pageerror", self.on_page_error)
        page.on("framenavigated", self.on_navigated)
        page.on("close", lambda closed: self.on_navigated(closed.main_frame))

    def on_request(self, request: Request) -> None:
        """Note which document sent a script's request, and record any request that leaves
        the app's origin."""
        if request.resource_type in ("fetch", "xhr"):
            frame = request.frame
            self.sent_at[request] = (frame, self.navigations.get(frame, 0))
        url = request.url
        if url.startswith(("data:", "blob:", "about:")):
            return
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" != self.origin:
            self.foreign_requests.append(url)

    def on_request_failed(self, request: Request) -> None:
        """Record requests that never got a response.

        A navigation cancels the pictures and scripts the old page was still loading
        (net::ERR_ABORTED), and whatever its scripts were still asking: that is the browser
        tidying up, not a failure. A script's request cancelled while its page stays counts,
        unless htmx replaced it (`expect_superseded`) or it is one of the editor's
        background requests. Whether its page left is judged at the end of the test.
        """
        aborted = (request.failure or "").startswith("net::ERR_ABORTED")
        if aborted and request.resource_type not in ("fetch", "xhr"):
            return
        path = urlsplit(request.url).path
        if aborted and path in self.superseded_paths:
            return
        if aborted and any(
            request.method == method and pattern.fullmatch(path)
            for method, pattern in BACKGROUND_REQUESTS
        ):
            return
        if aborted and request in self.sent_at:
            self.aborted.append(request)
            return
        self.failed_requests.append(f"{request.method} {request.url}: {request.failure}")

    def cancelled_in_place(self) -> list[str]:
        """Scripts' requests aborted while the page that sent them stayed."""
        stayed = []
        for request in self.aborted:
            frame, seen = self.sent_at[request]
            if self.navigations.get(frame, 0) <= seen:
                stayed.append(f"{request.method} {request.url}: {request.failure}")
        return stayed

    def on_response(self, response: Response) -> None:
        """Record error responses that the test did not expect."""
        if response.status >= 400 and response.status not in self.allowed_statuses:
            self.failed_requests.append(
                f"{response.request.method} {response.url}: HTTP {response.status}"
            )

    def problems(self) -> list[str]:
        """Every recorded problem, one line each."""
        return (
            [f"console error: {line}" for line in self.console_errors]
            + [f"failed request: {line}" for line in self.failed_requests]
            + [f"failed request: {line}" for line in self.cancelled_in_place()]
            + [f"request to another host: {line}" for line in self.foreign_requests]
        )

    def clear(self) -> None:
        """Forget what was recorded so far (for a step that provokes errors on purpose)."""
        self.console_errors.clear()
        self.failed_requests.clear()
        self.foreign_requests.clear()
        self.aborted.clear()


@pytest.fixture
def page_watch(live_server: LiveServer) -> PageWatch:
    """The problem recorder that every page of this test reports to."""
    return PageWatch(origin=live_server.url)


OpenPage = Callable[..., Page]


@pytest.fixture
def open_page(
    live_server: LiveServer, browser: Browser, page_watch: PageWatch
) -> Iterator[OpenPage]:
    """Open watched pages in fresh contexts (options go to `browser.new_context`).

    (The server is asked for first: its workers start while Chromium does.)

    At teardown the test fails if any page logged a console error, had a request fail,
    or asked any host other than the live server for anything.
    """
    contexts: list[BrowserContext] = []

    def open_(**options: Any) -> Page:
        context = browser.new_context(base_url=live_server.url, **options)
        context.set_default_timeout(DEFAULT_TIMEOUT_MS)
        context.on("request", page_watch.on_request)
        context.on("requestfailed", page_watch.on_request_failed)
        context.on("response", page_watch.on_response)
        context.on("page", page_watch.watch_page)
        contexts.append(context)
        return context.new_page()

    yield open_
    for context in contexts:
        # Let the last page finish loading, so its errors are heard; closing then cancels
        # whatever lazy pictures were still coming, which is not a failure.
        for page in context.pages:
            try:
                page.wait_for_load_state("load", timeout=5_000)
            except PlaywrightError as error:
                page_watch.failed_requests.append(f"page never finished loading: {error}")
        context.remove_listener("requestfailed", page_watch.on_request_failed)
        context.close()
    problems = page_watch.problems()
    if problems:
        pytest.fail(
            "The browser reported problems:\n  "
            + "\n  ".join(problems)
            + f"\n\nServer log (end):\n{live_server.log_tail()}",
            pytrace=False,
        )


@pytest.fixture
def page(open_page: OpenPage) -> Page:
    """A fresh context and page on the live server, with the CSP in force and JS on."""
    return open_page()


Capture = Callable[[Page, str], None]


def screenshots(page: Page, name: str, *, full_page: bool = True) -> None:
    """Save artifacts/screenshots/NAME-light.png and NAME-dark.png (the browser's colour
    scheme emulated): the whole page, or with `full_page` false what is on screen."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.evaluate("() => document.fonts.ready.then(() => true)")
        path = SCREENSHOTS / f"{name}-{scheme}.png"
        # Hiding the caret leaves an empty style attribute on every field, which htmx's
        # next swap copies over, against the page's CSP (style-src 'self').
        page.screenshot(path=path, full_page=full_page, caret="initial")
        assert path.stat().st_size > 10_000, f"{path.name} looks empty"
    page.emulate_media(color_scheme="light")


@pytest.fixture
def capture(request: pytest.FixtureRequest) -> Capture:
    """Save full-page screenshots (`screenshots`) for people to review; only with
    `--screenshots` (`make screenshots`), since capturing costs seconds a page."""
    wanted = bool(request.config.getoption("screenshots", default=False))

    def capture_(page: Page, name: str) -> None:
        if wanted:
            screenshots(page, name)

    return capture_


@dataclass(frozen=True)
class TopicLink:
    """A topic as the filter shows it."""

    slug: str
    name: str
    count: int


@dataclass(frozen=True)
class EditorAccount:
    """An editor account made with the CLI for the browser suite."""

    email: str
    password: str
    name: str


@pytest.fixture(scope="session")
def editor_account(live_server: LiveServer) -> EditorAccount:
    """One editor account on the served database, made with `flask editors create`."""
    account = EditorAccount(
        email="browser-suite@example.com",
        password="a long passphrase for the browser suite",
        name="Sam Browser",
    )
    return create_account(live_server, account)


@contextmanager
def cheap_passwords() -> Iterator[None]:
    """Accounts made meanwhile get a cheap scrypt hash (the login checks a hash with the
    parameters stored in it, so the server's check is cheap too): a real one costs half a
    second of CPU to make and again at each login, and the journeys make a dozen accounts.
    The real parameters have their own tests (tests/authoring/test_auth.py)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("blog.models.PASSWORD_METHOD", CHEAP_METHOD)
        yield


def create_account(live_server: LiveServer, account: EditorAccount) -> EditorAccount:
    """Make the account on the served database with `flask editors create`."""
    with cheap_passwords():
        result = live_server.flask(
            "editors",
            "create",
            account.email,
            "--name",
            account.name,
            "--password-stdin",
            input=account.password + "\n",
        )
    _must(result, "flask editors create")
    return account


def delete_posts(live_server: LiveServer, slugs: list[str]) -> None:
    """Delete the posts a test added to the served database, so later tests see the demo."""
    import sqlalchemy as sa

    from blog.extensions import db
    from blog.models import Post

    with live_server.app.app_context():
        for post in db.session.scalars(sa.select(Post).where(Post.slug.in_(slugs))):
            db.session.delete(post)
        db.session.commit()
        db.session.remove()


# The page as a reader meets it once nothing is left to come: loaded, no htmx request in
# flight or swap settling (the editor fetches its drawing preview on load), fonts in. htmx
# sends a request on load before the load event, so none can start after this holds.
SETTLED_JS = """() => document.readyState === "complete"
  && document.fonts.status === "loaded"
  && !document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added")"""


def settle(page: Page) -> None:
    """Wait until the page is settled (SETTLED_JS): the real condition that networkidle's
    half a second of quiet stood in for."""
    page.wait_for_function(SETTLED_JS)


def log_in(page: Page, account: EditorAccount) -> None:
    """Log in through the login form, as an editor would."""
    page.goto("/login")
    page.get_by_label("Email").fill(account.email)
    page.get_by_label("Password").fill(account.password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: urlsplit(url).path != "/login")
    # Each login replaces the account's session token, ending the sessions opened before it:
    # the cookies `signed_in` hands out are always those of the latest one.
    SESSIONS[account.email] = page.context.cookies()


# The cookies of each editor's latest session, by email, once it has logged in.
SESSIONS: dict[str, list[Any]] = {}


def signed_in(page: Page, account: EditorAccount, *, afresh: bool = False) -> None:
    """Log the page's context in: through the login form the first time (or `afresh`), then
    with the cookies of that session. Tests that only need to be logged in to reach a page
    skip the form's scrypt check (a third of a second of server time each)."""
    kept = None if afresh else SESSIONS.get(account.email)
    if kept:
        page.context.add_cookies(kept)
        return
    log_in(page, account)


@dataclass(frozen=True)
class Site:
    """What the demo site holds, read from its home page, and the pages worth visiting."""

    total: int
    topics: list[TopicLink]
    paths: dict[str, str]
    account: EditorAccount
    # Pages behind the login: `visit` logs in first.
    private: frozenset[str] = frozenset({"editor"})

    @property
    def biggest_topic(self) -> TopicLink:
        """The topic with the most posts (it has a "read more" when it has over 12)."""
        return max(self.topics, key=lambda topic: topic.count)

    def visit(self, page: Page, name: str) -> None:
        """Open one of the named pages, logged in when it is private (see `signed_in`), and
        wait for it to settle."""
        if name in self.private:
            signed_in(page, self.account)
        response = page.goto(self.paths[name])
        if name in self.private and urlsplit(page.url).path == "/login":
            # A test logged this account out since, which ends every copy of its cookie.
            signed_in(page, self.account, afresh=True)
            response = page.goto(self.paths[name])
        status = response.status if response is not None else None
        assert status == 200, f"{name} ({self.paths[name]}) answered {status}"
        # The editor asks for its drawing preview on load: a test that moved on at once cut
        # that request short (a failed request, 1 run in 3 under load).
        settle(page)


def _first_text(link: Tag) -> str:
    """The text of an element's first child (a topic link's name, before any count)."""
    first = next(iter(link.children), "")
    return (first.get_text() if isinstance(first, Tag) else str(first)).strip()


def _html(url: str) -> BeautifulSoup:
    """A page's HTML, parsed: what a browser without JavaScript gets."""
    with urllib.request.urlopen(url, timeout=30) as response:
        return BeautifulSoup(response.read(), "lxml")


def _post_count(live_server: LiveServer, link: Tag) -> int:
    """How many posts a filter link leads to: the count beside it, or (where the filter shows
    none) the total in the counter of the page it leads to."""
    shown = link.select_one(".count")
    if shown is not None:
        return int(shown.get_text(strip=True))
    counter = _html(live_server.url + str(link.get("href"))).select_one("#counter")
    found = re.search(r"of (\d+) posts?", counter.get_text(" ", strip=True) if counter else "")
    assert found, f"no post count for {link.get('href')}"
    return int(found.group(1))


@pytest.fixture
def site(live_server: LiveServer, editor_account: EditorAccount) -> Site:
    """Read the site's topics and newest post from its home page's HTML (what a browser
    without JavaScript gets, with no browser to start).

    Read afresh for each test: other browser tests publish posts on the same server.
    """
    home = _html(live_server.url + "/")
    links = home.select(".topic-filter a")
    topics = [
        TopicLink(
            slug=str(link.get("href") or "").split("#")[0].removeprefix("/topics/"),
            name=_first_text(link),
            count=_post_count(live_server, link),
        )
        for link in links[1:]
    ]
    total = _post_count(live_server, links[0]) if links else 0
    first_card = home.select_one("#post-list .card-title a")
    post_path = str(first_card.get("href") or "") if first_card is not None else ""
    byline = home.select_one("#post-list .card-author")
    author_path = str(byline.get("href") or "") if byline is not None else ""
    assert topics and total > 2 * PER_PAGE, "the demo content should fill several pages"
    paths = {
        "home": "/",
        "topic": f"/topics/{max(topics, key=lambda t: t.count).slug}",
        "page-2": "/?page=2",
        "post": post_path,
        "search": "/search?q=database",
        "author": author_path,
        "login": "/login",
        "editor": "/editor/posts/new",
    }
    return Site(total=total, topics=topics, paths=paths, account=editor_account)


LISTING_STATE_JS = """() => {
  const text = (el) => el ? el.textContent.replace(/\\s+/g, " ").trim() : null;
  const picks = document.querySelector("#picks");
  return {
    path: location.pathname + location.search,
    title: document.title,
    current: [...document.querySelectorAll('.topic-filter [aria-current="page"]')].map((a) => a.id),
    h1: text(document.querySelector("h1")),
    featured: text(document.querySelector("#featured:not([hidden]) .card-title")),
    heading: text(document.querySelector("#all-posts-label")),
    counter: text(document.querySelector("#counter")),
    cards: [...document.querySelectorAll("#post-list .card-title a")].map(text),
    picks: picks && !picks.hidden ? picks.querySelectorAll(".card").length : 0,
    more: document.querySelector("#more .read-more")?.getAttribute("href") ?? null,
  };
}"""


class HeldRequests:
    """Requests for a URL pattern, kept waiting until the test releases them."""

    def __init__(self, page: Page, pattern: str) -> None:
        self.page = page
        self.pattern = pattern
        self.routes: list[Route] = []
        page.route(pattern, self._hold)

    def _hold(self, route: Route) -> None:
        """Keep the request pending."""
        self.routes.append(route)

    def wait(self, count: int = 1) -> None:
        """Let Playwright deliver pending route events until `count` requests are held."""
        for _ in range(50):
            if len(self.routes) >= count:
                return
            self.page.wait_for_timeout(100)
        pytest.fail(f"fewer than {count} requests for {self.pattern} were made")

    def release(self) -> None:
        """Stop holding and let every held request through."""
        for route in self.routes:
            route.continue_()
        self.page.unroute(self.pattern, self._hold)


def listing_state(page: Page) -> dict[str, Any]:
    """What a reader sees of a listing: address, current topic, counter, cards, picks, next page."""
    return page.evaluate(LISTING_STATE_JS)


def card_titles(page: Page) -> list[str]:
    """Titles of the cards in the post list, read through locators (works without JS)."""
    return [" ".join(t.split()) for t in page.locator("#post-list .card-title a").all_inner_texts()]


def counter_text(page: Page) -> str:
    """The counter's text, whitespace normalised (works without JS)."""
    return " ".join(page.locator("#counter").inner_text().split())


def expected_counter(first: int, last: int, total: int) -> str:
    """The counter's wording for cards first..last of total (12 a page)."""
    if total <= PER_PAGE:
        return f"Showing {total} of {total} post{'s' if total != 1 else ''}"
    return f"Showing {first}\u2013{last} of {total} posts"


def publish_and_wait(page: Page, question: str = "Publish to readers now?") -> None:
    """Press the bar's main button, answer its question, and wait for the saved editor."""
    with page.expect_response(
        lambda r: r.request.method == "POST" and "/editor/posts/" in r.url
    ) as asked:
        page.locator("#publish-button").click()
    assert asked.value.status == 200, asked.value.text()[:500]
    expect(page.locator("#publish-question h2")).to_have_text(question)
    expect(page.locator("#publish-question")).to_be_focused()
    with page.expect_response(
        lambda r: r.request.method == "POST" and "/editor/posts/" in r.url
    ) as answer:
        page.locator("#confirm-button").click()
    assert answer.value.status == 200, answer.value.text()[:500]
    expect(page.locator("#saved-notice")).to_be_visible()
