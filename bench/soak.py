"""Soak test: readers in a burst and several editors saving at once, on SQLite or PostgreSQL.

    python -m bench.soak --db sqlite
    python -m bench.soak --db postgresql

It builds a throwaway database (demo posts and 8 editor accounts), serves the blog with
gunicorn (4 sync workers) on 127.0.0.1, and then, at the same time, 32 readers browse
listings, topic pages, "read more" fragments, posts, search and feeds while 8 editors log in
and save 500 new posts and 500 edits through the real authoring routes (half of the saves as
htmx requests, half as plain form posts). Editors also delete posts and write new ones while
a tab is still open on the deleted post, then save from that old tab (80 times in all). A
reads-only phase first gives the baseline.

Pass: no 5xx and no failed request, every acknowledged save is in the database once with its
last saved text and has its revision, no save from an old tab landed anywhere (each is a 410),
and the server log holds no "database is locked" and no unhandled error.
The run is bounded (--max-seconds, 180 by default) and cleans up after itself; it talks to
127.0.0.1 only. The exit status is 0 on a pass, 1 otherwise.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import random
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_SERVER = os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("SOAK_REDIS_URL", "redis://127.0.0.1:6379/14")
EDITOR_PASSWORD = "soak test passphrase, loopback only"
TOPICS = ["Databases", "Operations", "Frontend", "Security", "Performance", "Culture"]
SERVER_LOG_PROBLEMS = ("database is locked", "Unhandled error", "Traceback", "WORKER TIMEOUT")


# A throwaway database ----------------------------------------------------------------------


@contextmanager
def throwaway_database(kind: str, folder: Path) -> Iterator[str]:
    """A fresh, empty database URL for the run: an SQLite file, or a PostgreSQL database
    created on the local server and dropped afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{folder / 'soak.sqlite3'}"
        return
    admin = sa.create_engine(POSTGRES_SERVER, isolation_level="AUTOCOMMIT")
    name = f"fieldnotes_soak_{uuid.uuid4().hex[:10]}"
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield sa.make_url(POSTGRES_SERVER).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def app_env(database_url: str) -> dict[str, str]:
    """The environment a production server would have, on this run's database."""
    return os.environ | {
        "DATABASE_URL": database_url,
        "SECRET_KEY": secrets.token_hex(32),
        "RATELIMIT_STORAGE_URI": REDIS_URL,
        "FLASK_DEBUG": "0",
        "PYTHONUNBUFFERED": "1",
    }


def flask(env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    """Run `flask --app blog ...` on the run's database; its output (fails loudly)."""
    result = subprocess.run(
        [sys.executable, "-m", "flask", "--app", "blog", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"flask {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def prepare(env: dict[str, str], editors: int) -> list[str]:
    """Schema, demo posts and editor accounts; returns the editors' emails."""
    flask(env, "db", "upgrade")
    flask(env, "demo", "load")
    emails = [f"soak-editor-{n}@example.com" for n in range(editors)]
    for n, email in enumerate(emails):
        flask(env, "editors", "create", email, "--name", f"Soak Editor {n}", "--password-stdin",
              stdin=EDITOR_PASSWORD + "\n")  # fmt: skip
    return emails


# The server ----------------------------------------------------------------------------------


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Server:
    """gunicorn serving the blog on 127.0.0.1, in its own process group."""

    port: int
    process: subprocess.Popen
    log: Path

    def stop(self, hard: bool = False) -> None:
        """Stop the master and its workers (SIGKILL with `hard`, as a crash would)."""
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGKILL if hard else signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(30)

    def problems(self) -> Counter:
        """How often each known failure shows in the server's log."""
        text = self.log.read_text(errors="replace")
        return Counter({marker: text.count(marker) for marker in SERVER_LOG_PROBLEMS})


def start_server(env: dict[str, str], workers: int, log: Path, timeout: float = 60) -> Server:
    """Start gunicorn with `workers` sync workers and wait until it answers."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "--workers",
        str(workers),
        "--bind",
        f"127.0.0.1:{port}",
        "--timeout",
        "60",
        "--graceful-timeout",
        "5",
        "--backlog",
        "256",
        "blog:create_app()",
    ]
    with log.open("ab") as out:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True
        )
    server = Server(port, process, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gunicorn exited:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            if fetch(port, "GET", "/robots.txt", timeout=5).status == 200:
                return server
        except OSError:
            time.sleep(0.2)
    server.stop(hard=True)
    raise SystemExit("gunicorn did not answer in time")


# HTTP over loopback ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """One response, read whole."""

    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float

    @property
    def text(self) -> str:
        """The body as text (pages are UTF-8), decompressed."""
        data = self.body
        if self.headers.get("content-encoding") == "gzip":
            data = gzip.decompress(data)
        return data.decode("utf-8", "replace")


def fetch(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 60,
) -> Answer:
    """One request to the server on 127.0.0.1 (gunicorn's sync workers close each connection)."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        found = {name.lower(): value for name, value in response.getheaders()}
        cookies = response.headers.get_all("Set-Cookie") or []
        if cookies:
            found["set-cookie"] = "\n".join(cookies)
        return Answer(response.status, found, data, time.perf_counter() - started)
    finally:
        connection.close()


class Browser:
    """One visitor: keeps the cookies the site sets (Secure ones too: TLS would end at a proxy)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None
    ) -> Answer:
        """A request carrying this visitor's cookies; the cookies it sets are kept."""
        sent = {"Accept-Encoding": "gzip", **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        answer = fetch(self.port, method, path, body, sent)
        for line in answer.headers.get("set-cookie", "").split("\n"):
            name, _, rest = line.partition("=")
            if name and rest:
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return answer

    def get(self, path: str, headers: dict | None = None) -> Answer:
        """GET a page."""
        return self.request("GET", path, headers=headers)

    def post_form(self, path: str, fields: dict[str, str], headers: dict | None = None) -> Answer:
        """POST a urlencoded form, as a browser does."""
        sent = {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})}
        return self.request("POST", path, urlencode(fields).encode(), sent)


CSRF = re.compile(
    r'name="csrf-token" content="([^"]+)"|name="csrf_token" type="hidden" value="([^"]+)"'
)
LOCK_VERSION = re.compile(r'name="lock_version" type="hidden" value="(\d+)"')
POST_ID = re.compile(r'name="post_id" type="hidden" value="(\d+)"')
PUBLISHED_AT = re.compile(r'name="published_at" type="datetime-local" value="([^"]*)"')
SLUG_IN_SITEMAP = re.compile(r"<loc>[^<]*/posts/([a-z0-9-]+)</loc>")
TOPIC_IN_SITEMAP = re.compile(r"<loc>[^<]*/topics/([a-z0-9-]+)</loc>")


def csrf_of(page: str) -> str:
    """The CSRF token a page hands out."""
    found = CSRF.search(page)
    if found is None:
        raise RuntimeError("no CSRF token on the page")
    return found.group(1) or found.group(2)


# Load ----------------------------------------------------------------------------------------


@dataclass
class Tally:
    """What happened to the requests of one kind of client (thread-safe)."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, answer: Answer | None, problem: str | None = None) -> None:
        """Record one request's outcome."""
        with self.lock:
            if answer is not None:
                self.latencies[kind].append(answer.seconds)
                self.statuses[answer.status] += 1
            if problem:
                self.failures.append(problem)


def percentile(values: list[float], share: float) -> float:
    """The `share` quantile (0..1) of the values, in milliseconds."""
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index] * 1000


@dataclass
class Shared:
    """What readers browse: slugs known now (editors add theirs), and when to stop."""

    topics: list[str]
    slugs: list[str]
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add_slug(self, slug: str) -> None:
        """Readers may now visit this post."""
        with self.lock:
            self.slugs.append(slug)

    def any_slug(self, rng: random.Random) -> str:
        """A post to read."""
        with self.lock:
            return rng.choice(self.slugs)


SEARCH_WORDS = ["index", "latency", "cache", "deploy", "postgres", "queue", "incident", "soak"]


def reader_request(rng: random.Random, shared: Shared) -> tuple[str, str, dict[str, str]]:
    """What a reader asks for next: (kind, path, headers), in a browsing mix."""
    roll = rng.random()
    topic = rng.choice(shared.topics)
    if roll < 0.20:
        page = rng.choice([1, 1, 1, 2, 3])
        return "listing", "/" if page == 1 else f"/?page={page}", {}
    if roll < 0.35:
        return "topic", f"/topics/{topic}", {}
    if roll < 0.70:
        return "post", f"/posts/{shared.any_slug(rng)}", {}
    if roll < 0.80:
        hx = {"HX-Request": "true", "HX-Target": "post-list"}
        return "read more", f"/?page={rng.choice([2, 3])}", hx
    if roll < 0.88:
        hx = {"HX-Request": "true", "HX-Target": "all-posts"}
        return "topic filter", f"/topics/{topic}", hx
    if roll < 0.95:
        return "search", f"/search?q={rng.choice(SEARCH_WORDS)}", {}
    return "feed", rng.choice(["/feed.atom", "/feed.rss", f"/topics/{topic}/feed.atom"]), {}


def reader(port: int, shared: Shared, tally: Tally, seed: int) -> None:
    """Browse until told to stop: every 5xx or failed request is recorded."""
    rng = random.Random(seed)
    browser = Browser(port)
    while not shared.stop.is_set():
        kind, path, headers = reader_request(rng, shared)
        try:
            answer = browser.get(path, headers)
        except (OSError, http.client.HTTPException) as error:
            tally.add(kind, None, f"{kind} {path}: {error!r}")
            continue
        problem = f"{kind} {path}: {answer.status}" if answer.status >= 500 else None
        tally.add(kind, answer, problem)


@dataclass
class Saved:
    """What an editor was told was saved, last time it was saved."""

    post_id: int
    slug: str
    title: str
    body: str
    saves: int = 1


@dataclass
class EditorPlan:
    """One editor's share of the work, and what the server acknowledged."""

    email: str
    creates: int
    edits: int
    seed: int
    stale_tabs: int = 0
    saved: dict[int, Saved] = field(default_factory=dict)
    # Every acknowledged save: (post id, lock version it stored, body), for the revisions.
    acknowledged: list[tuple[int, int, str]] = field(default_factory=list)
    # Saves sent from a tab open on a deleted post: (status, unique text they carried).
    stale_saves: list[tuple[int, str]] = field(default_factory=list)


def post_fields(title: str, body: str, author: str, topics: str, **extra: str) -> dict[str, str]:
    """The editor form's fields."""
    return {
        "title": title,
        "slug": "",
        "topics": topics,
        "summary": f"Summary of {title}.",
        "body": body,
        "author": author,
        "status": "published",
        "published_at": "",
        "image_alt": "",
    } | extra


def body_text(title: str, saves: int, rng: random.Random) -> str:
    """A post body that says how many times it was saved, so the check can tell saves apart."""
    words = " ".join(rng.choice(SEARCH_WORDS) for _ in range(rng.randint(40, 160)))
    return (
        f"{title}, save {saves}.\n\n## What happened\n\n{words}.\n\n"
        f"## What we changed\n\n- one\n- two\n\n`token-{uuid.uuid4().hex}`\n"
    )


def editor(port: int, plan: EditorPlan, shared: Shared, tally: Tally, run: str, n: int) -> None:
    """Log in, then create and edit posts through the authoring routes, half of the saves
    with htmx; records each acknowledged save."""
    rng = random.Random(plan.seed)
    browser = Browser(port)
    author = f"Soak Editor {n}"
    try:
        token = csrf_of(browser.get("/login").text)
        answer = browser.post_form(
            "/login", {"csrf_token": token, "email": plan.email, "password": EDITOR_PASSWORD}
        )
        tally.add("login", answer, None if answer.status == 303 else f"login: {answer.status}")
        if answer.status != 303:
            return
    except (OSError, http.client.HTTPException, RuntimeError) as error:
        tally.add("login", None, f"login: {error!r}")
        return
    creates, edits, stale_tabs = plan.creates, plan.edits, plan.stale_tabs
    while (creates or edits or stale_tabs) and not shared.stop.is_set():
        if stale_tabs and plan.saved and (not (creates or edits) or rng.random() < 0.15):
            stale_tabs -= 1
            try:
                _stale_tab(browser, plan, shared, tally, run, n, rng)
            except (OSError, http.client.HTTPException, AttributeError, RuntimeError) as error:
                tally.add("stale tab", None, f"editor {n}: {error!r}")
            continue
        if not (creates or edits):
            break  # old tabs left, but no post of this editor's to open them on
        create = creates and (not plan.saved or not edits or rng.random() < 0.5)
        htmx = rng.random() < 0.5
        topics = ", ".join([*rng.sample(TOPICS, 2), f"Soak shared {rng.randint(1, 4)}"])
        try:
            if create:
                creates -= 1
                number = plan.creates - creates
                title = f"Soak {run} editor {n} post {number}"
                body = body_text(title, 1, rng)
                form_page = browser.get("/editor/posts/new")
                tally.add("editor page", form_page)
                fields = post_fields(
                    title, body, author, topics, csrf_token=csrf_of(form_page.text)
                )
                save_answer, post_id = _save(browser, "/editor/posts/new", fields, htmx)
                tally.add("create", save_answer, _save_problem("create", save_answer, post_id))
                if post_id is not None:
                    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
                    plan.saved[post_id] = Saved(post_id, slug, title, body)
                    plan.acknowledged.append((post_id, 1, body))
                    shared.add_slug(slug)
            else:
                edits -= 1
                saved = plan.saved[rng.choice(list(plan.saved))]
                form_page = browser.get(f"/editor/posts/{saved.post_id}")
                tally.add("editor page", form_page)
                page = form_page.text
                title = f"{saved.title.split(' (edit')[0]} (edit {saved.saves})"
                body = body_text(title, saved.saves + 1, rng)
                fields = post_fields(
                    title,
                    body,
                    author,
                    topics,
                    slug=saved.slug,
                    csrf_token=csrf_of(page),
                    lock_version=LOCK_VERSION.search(page).group(1),
                    published_at=PUBLISHED_AT.search(page).group(1),
                )
                path = f"/editor/posts/{saved.post_id}"
                save_answer, post_id = _save(browser, path, fields, htmx)
                tally.add("edit", save_answer, _save_problem("edit", save_answer, post_id))
                if post_id is not None:
                    saved.title, saved.body, saved.saves = title, body, saved.saves + 1
                    plan.acknowledged.append((post_id, saved.saves, body))
        except (OSError, http.client.HTTPException, AttributeError, RuntimeError) as error:
            tally.add("create" if create else "edit", None, f"editor {n}: {error!r}")


def _stale_tab(
    browser: Browser,
    plan: EditorPlan,
    shared: Shared,
    tally: Tally,
    run: str,
    n: int,
    rng: random.Random,
) -> None:
    """Open one of this editor's posts in a tab, delete the post, write a new one (which
    would take the deleted id where ids are reused), then save from the old tab: the save
    must be a 410 and land nowhere. The new post counts as an extra acknowledged save."""
    saved = plan.saved.pop(rng.choice(list(plan.saved)))
    tab = browser.get(f"/editor/posts/{saved.post_id}")
    tally.add("editor page", tab)
    confirm = browser.get(f"/editor/posts/{saved.post_id}/delete")
    deleted = browser.post_form(
        f"/editor/posts/{saved.post_id}/delete", {"csrf_token": csrf_of(confirm.text)}
    )
    tally.add("delete", deleted, None if deleted.status == 303 else f"delete: {deleted.status}")
    title = f"Soak {run} editor {n} written after a delete {len(plan.stale_saves)}"
    body = body_text(title, 1, rng)
    form_page = browser.get("/editor/posts/new")
    fields = post_fields(title, body, f"Soak Editor {n}", "Databases",
                         csrf_token=csrf_of(form_page.text))  # fmt: skip
    answer, post_id = _save(browser, "/editor/posts/new", fields, rng.random() < 0.5)
    tally.add("create", answer, _save_problem("create", answer, post_id))
    if post_id is not None:
        slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
        plan.saved[post_id] = Saved(post_id, slug, title, body)
        plan.acknowledged.append((post_id, 1, body))
        shared.add_slug(slug)
    page = tab.text
    marker = f"stale-{run}-{uuid.uuid4().hex}"
    stale = post_fields(
        saved.title, f"Typed in an old tab: {marker}", f"Soak Editor {n}", "Databases",
        slug=saved.slug, csrf_token=csrf_of(page), post_id=POST_ID.search(page).group(1),
        lock_version=LOCK_VERSION.search(page).group(1),
    )  # fmt: skip
    headers = {"HX-Request": "true", "HX-Target": "post-editor", "X-CSRFToken": stale["csrf_token"]}
    old = browser.post_form(f"/editor/posts/{saved.post_id}", stale, headers)
    tally.add("stale save", old, None if old.status == 410 else f"stale save: {old.status}")
    plan.stale_saves.append((old.status, marker))


def _save(browser: Browser, path: str, fields: dict, htmx: bool) -> tuple[Answer, int | None]:
    """Post the editor form; the post's id when the server acknowledged the save."""
    if htmx:
        headers = {
            "HX-Request": "true",
            "HX-Target": "post-editor",
            "X-CSRFToken": fields["csrf_token"],
        }
        answer = browser.post_form(path, fields, headers)
        if answer.status == 200 and 'id="saved-notice"' in answer.text:
            where = answer.headers.get("hx-replace-url") or path
            return answer, int(where.rsplit("/", 1)[1])
        return answer, None
    answer = browser.post_form(path, fields)
    if answer.status == 303 and "/editor/posts/" in answer.headers.get("location", ""):
        return answer, int(answer.headers["location"].rsplit("/", 1)[1])
    return answer, None


def _save_problem(kind: str, answer: Answer, post_id: int | None) -> str | None:
    """Why a save was not acknowledged, or None."""
    if post_id is not None:
        return None
    return f"{kind}: {answer.status} {answer.text[:200]!r}"


# Checking what the database holds ----------------------------------------------------------------


def check_store(database_url: str, plans: list[EditorPlan], run: str) -> dict[str, object]:
    """Every acknowledged save is stored once with its last text; nothing else is."""
    engine = sa.create_engine(database_url)
    lost, stale, duplicated = [], [], []
    with engine.connect() as connection:
        rows = connection.execute(
            sa.text(
                "SELECT id, slug, title, body_markdown, lock_version FROM posts WHERE title LIKE :p"
            ),
            {"p": f"Soak {run} %"},
        ).all()
        revisions = {
            (row.post_id, row.lock_version, row.body_markdown)
            for row in connection.execute(
                sa.text("SELECT post_id, lock_version, body_markdown FROM post_revisions")
            )
        }
        stale_landed = [
            marker
            for plan in plans
            for _, marker in plan.stale_saves
            if connection.execute(
                sa.text("SELECT count(*) FROM posts WHERE body_markdown LIKE :m"),
                {"m": f"%{marker}%"},
            ).scalar()
        ]
        integrity = None
        if engine.dialect.name == "sqlite":
            integrity = connection.exec_driver_sql("PRAGMA integrity_check").scalar()
    engine.dispose()
    by_id = {row.id: row for row in rows}
    titles = Counter(row.title.split(" (edit")[0] for row in rows)
    duplicated = [title for title, count in titles.items() if count > 1]
    acknowledged = 0
    for plan in plans:
        for saved in plan.saved.values():
            acknowledged += 1
            row = by_id.get(saved.post_id)
            if row is None:
                lost.append(saved.title)
            elif (row.title, row.body_markdown, row.lock_version) != (
                saved.title,
                saved.body,
                saved.saves,
            ):
                stale.append(f"{saved.title}: version {row.lock_version}, not {saved.saves}")
    unacknowledged = len(rows) - acknowledged
    saves = [save for plan in plans for save in plan.acknowledged]
    old_tab = [status for plan in plans for status, _ in plan.stale_saves]
    return {
        "saves acknowledged": len(saves),
        "revisions lost": [save[:2] for save in saves if save not in revisions],
        "old-tab saves": len(old_tab),
        "old-tab saves not refused with 410": [status for status in old_tab if status != 410],
        "old-tab saves stored in a post": stale_landed,
        "posts acknowledged": acknowledged,
        "posts stored": len(rows),
        "lost": lost,
        "stale text": stale,
        "duplicated": duplicated,
        "stored without acknowledgement": unacknowledged,
        "integrity_check": integrity,
    }


# The run ----------------------------------------------------------------------------------------


def split(total: int, parts: int) -> list[int]:
    """`total` shared out over `parts` as evenly as possible."""
    return [total // parts + (1 if n < total % parts else 0) for n in range(parts)]


def known_content(port: int) -> tuple[list[str], list[str]]:
    """Topic and post slugs from the sitemap."""
    sitemap = fetch(port, "GET", "/sitemap.xml").text
    return TOPIC_IN_SITEMAP.findall(sitemap), SLUG_IN_SITEMAP.findall(sitemap)


def summary_of(tally: Tally, kinds: set[str] | None, seconds: float) -> dict[str, float]:
    """Requests, throughput and latency quantiles for some kinds of request."""
    values = [
        v for kind, vs in tally.latencies.items() if kinds is None or kind in kinds for v in vs
    ]
    return {
        "requests": len(values),
        "per second": round(len(values) / seconds, 1) if seconds else 0.0,
        "p50 ms": round(percentile(values, 0.50), 1),
        "p95 ms": round(percentile(values, 0.95), 1),
        "p99 ms": round(percentile(values, 0.99), 1),
        "mean ms": round(statistics.fmean(values) * 1000, 1) if values else 0.0,
    }


def soak(args: argparse.Namespace) -> dict[str, object]:
    """One bounded soak run; its results."""
    run = uuid.uuid4().hex[:6]
    with (
        tempfile.TemporaryDirectory(prefix="fieldnotes-soak-") as folder,
        throwaway_database(args.db, Path(folder)) as database_url,
    ):
        env = app_env(database_url)
        emails = prepare(env, args.editors)
        log = Path(folder) / "server.log"
        server = start_server(env, args.workers, log)
        try:
            topics, slugs = known_content(server.port)
            started = time.monotonic()  # the bound covers both load phases
            shared = Shared(topics, slugs)
            reads_alone, reads_during = Tally(), Tally()

            # Phase 1: readers alone, the baseline.
            readers = [
                threading.Thread(
                    target=reader, args=(server.port, shared, reads_alone, args.seed + n)
                )
                for n in range(args.readers)
            ]
            for thread in readers:
                thread.start()
            time.sleep(args.baseline_seconds)
            shared.stop.set()
            for thread in readers:
                thread.join(60)

            # Phase 2: the same readers while the editors save.
            shared.stop.clear()
            writes = Tally()
            plans = [
                EditorPlan(email, creates, edits, args.seed * 1000 + n, stale_tabs)
                for n, (email, creates, edits, stale_tabs) in enumerate(
                    zip(
                        emails,
                        split(args.posts, args.editors),
                        split(args.edits, args.editors),
                        split(args.stale_tabs, args.editors),
                        strict=True,
                    )
                )
            ]
            readers = [
                threading.Thread(
                    target=reader, args=(server.port, shared, reads_during, args.seed + 100 + n)
                )
                for n in range(args.readers)
            ]
            editors = [
                threading.Thread(target=editor, args=(server.port, plan, shared, writes, run, n))
                for n, plan in enumerate(plans)
            ]
            write_started = time.monotonic()
            for thread in readers + editors:
                thread.start()
            deadline = started + args.max_seconds
            for thread in editors:
                thread.join(max(0.0, deadline - time.monotonic()))
            out_of_time = any(thread.is_alive() for thread in editors)
            shared.stop.set()
            for thread in readers + editors:
                thread.join(120)
            write_seconds = time.monotonic() - write_started
        finally:
            server.stop()
        store = check_store(database_url, plans, run)
        problems = server.problems()

    read_kinds = None
    saves = {"create", "edit", "stale save"}
    server_errors = sum(
        n
        for status, n in (reads_alone.statuses + reads_during.statuses + writes.statuses).items()
        if status >= 500
    )
    results = {
        "database": args.db,
        "load": f"{args.workers} gunicorn workers, {args.readers} readers, {args.editors} editors, "
        f"{args.posts} new posts + {args.edits} edits + {args.stale_tabs} old-tab saves, "
        f"{os.cpu_count()} CPU cores",
        "reads alone": summary_of(reads_alone, read_kinds, args.baseline_seconds),
        "reads while writing": summary_of(reads_during, read_kinds, write_seconds),
        "saves": summary_of(writes, saves, write_seconds),
        "editor pages": summary_of(writes, {"editor page"}, write_seconds),
        "write phase seconds": round(write_seconds, 1),
        "statuses": dict(
            sorted((reads_alone.statuses + reads_during.statuses + writes.statuses).items())
        ),
        "5xx": server_errors,
        "failed requests": reads_alone.failures + reads_during.failures + writes.failures,
        "saves acknowledged": store["saves acknowledged"],
        "out of time": out_of_time,
        "server log": dict(problems),
        "store": store,
    }
    alone = results["reads alone"]["per second"]
    during = results["reads while writing"]["per second"]
    results["read throughput while writing / alone"] = round(during / alone, 2) if alone else None
    results["passed"] = (
        server_errors == 0
        and not results["failed requests"]
        and not out_of_time
        and not store["lost"]
        and not store["stale text"]
        and not store["duplicated"]
        and store["stored without acknowledgement"] == 0
        and store["posts acknowledged"] == args.posts
        and results["saves acknowledged"] == args.posts + args.edits + args.stale_tabs
        and not store["revisions lost"]
        and store["old-tab saves"] == args.stale_tabs
        and not store["old-tab saves not refused with 410"]
        and not store["old-tab saves stored in a post"]
        and store["integrity_check"] in (None, "ok")
        and not any(problems.values())
    )
    return results


def print_report(results: dict[str, object]) -> None:
    """The results as a short plain-text report."""
    print(f"\nSoak on {results['database']}: {results['load']}")
    for name in ("reads alone", "reads while writing", "saves", "editor pages"):
        row = results[name]
        print(
            f"  {name:<20} {row['requests']:>7} requests  {row['per second']:>7}/s  "
            f"p50 {row['p50 ms']:>7} ms  p95 {row['p95 ms']:>7} ms  p99 {row['p99 ms']:>7} ms"
        )
    ratio = results["read throughput while writing / alone"]
    print(f"  read throughput while writing / alone: {ratio}")
    print(f"  write phase: {results['write phase seconds']} s")
    print(f"  saves acknowledged: {results['saves acknowledged']}")
    if results["out of time"]:
        print("  out of time: the editors had not finished when the bound (--max-seconds) hit")
    failed = results["failed requests"]
    print(f"  statuses: {results['statuses']}; 5xx: {results['5xx']}; failed: {len(failed)}")
    for failure in failed[:10]:
        print(f"    {failure}")
    store = results["store"]
    print(
        f"  store: {store['posts stored']} soak posts stored, "
        f"{store['posts acknowledged']} acknowledged; lost {len(store['lost'])}, "
        f"stale {len(store['stale text'])}, duplicated {len(store['duplicated'])}, "
        f"unacknowledged {store['stored without acknowledgement']}, "
        f"integrity_check {store['integrity_check']}"
    )
    print(
        f"  old-tab saves: {store['old-tab saves']}, not refused with 410: "
        f"{len(store['old-tab saves not refused with 410'])}, stored in a post: "
        f"{len(store['old-tab saves stored in a post'])}; revisions lost: "
        f"{len(store['revisions lost'])}"
    )
    print(f"  server log: {results['server log']}")
    print(f"  {'PASS' if results['passed'] else 'FAIL'}")


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument("--readers", type=int, default=32)
    parser.add_argument("--editors", type=int, default=8)
    parser.add_argument("--posts", type=int, default=500, help="new posts saved by the editors")
    parser.add_argument("--edits", type=int, default=500, help="edits saved by the editors")
    parser.add_argument(
        "--stale-tabs", type=int, default=80, help="saves from a tab open on a deleted post"
    )
    parser.add_argument("--baseline-seconds", type=float, default=15, help="reads-only phase")
    parser.add_argument("--max-seconds", type=float, default=180, help="bound on the whole load")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--json", type=Path, help="also write the results here as JSON")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the soak and print its report; exit status 0 on a pass."""
    args = arguments(argv)
    results = soak(args)
    print_report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))
    return 0 if results["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
