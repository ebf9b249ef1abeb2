"""Fixtures for the deploy tests: one production stack (deploy/stack.py) for the module, on
free ports, a throwaway PostgreSQL database and the test Redis, and a small HTTP client.

The client keeps its own cookies (the app marks them Secure, which http.cookiejar would not
send over plain http) and records every answer the proxy gives, so a test can check them all.
"""

from __future__ import annotations

import gzip
import http.client
import re
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import brotli
import flask_migrate
import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup
from flask import Flask

from blog import create_app
from deploy.stack import Stack, StackError, nginx_binary
from tests.conftest import REDIS_URL, PostFactory, postgres_database, require

# Short enough for a test to watch an entry expire; the stale window is longer on purpose,
# so readers would see old copies if the proxy ignored max-age.
MAX_AGE = 2
# How long an app server may serve its cached page after another server's write (the default).
RECHECK_MS = 100
STALE = 30
EDITOR_EMAIL = "deploy-editor@example.com"
EDITOR_PASSWORD = "a long deploy test password"
SECRET_KEY = "deploy-suite-secret"
# Enough published posts for a second listing page (12 a page).
POSTS = 30


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Answer:
    """One HTTP response, its body as sent (compressed or not)."""

    status: int
    headers: http.client.HTTPMessage
    raw: bytes
    path: str
    request_headers: dict[str, str]

    def header(self, name: str) -> str:
        """A response header, or '' when absent."""
        return self.headers.get(name, "")

    @property
    def set_cookies(self) -> list[str]:
        """Every Set-Cookie header of the response."""
        return self.headers.get_all("Set-Cookie") or []

    @property
    def text(self) -> str:
        """The body, decompressed."""
        encoding = self.header("Content-Encoding")
        if encoding == "br":
            return brotli.decompress(self.raw).decode()
        if encoding == "gzip":
            return gzip.decompress(self.raw).decode()
        return self.raw.decode()

    @property
    def from_cache(self) -> bool:
        """Whether nginx answered from its cache."""
        return self.header("X-Cache") in {"HIT", "STALE", "UPDATING", "REVALIDATED"}


@dataclass
class Client:
    """A browser-like client of one port: its own cookies, every answer recorded."""

    port: int
    log: list[Answer]
    cookies: dict[str, str] = field(default_factory=dict)

    def request(
        self,
        method: str,
        path: str,
        headers: dict[str, str] | None = None,
        form: dict[str, str] | list[tuple[str, str]] | None = None,
        timeout: float = 10,
    ) -> Answer:
        """Send one request with this client's cookies; keep the cookies it sets."""
        sent = {"Host": "127.0.0.1", **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form).encode()
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            answer = Answer(response.status, response.headers, response.read(), path, sent)
        finally:
            connection.close()
        for value in answer.set_cookies:
            for name, morsel in SimpleCookie(value).items():
                if morsel["max-age"] == "0" or (morsel["expires"] and "1970" in morsel["expires"]):
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        self.log.append(answer)
        return answer

    def get(self, path: str, headers: dict[str, str] | None = None) -> Answer:
        """GET `path`."""
        return self.request("GET", path, headers)

    def submit(self, page: Answer, action: str, changes: dict[str, str]) -> Answer:
        """Post the form of `page` whose action is `action`, as a browser would, with some
        fields changed."""
        soup = BeautifulSoup(page.text, "lxml")
        form = soup.find("form", action=re.compile(rf"^{re.escape(action)}(\?|$)"))
        assert form is not None, f"no form posting to {action} on {page.path}"
        fields: list[tuple[str, str]] = []
        for control in form.find_all(["input", "textarea", "select"]):
            name = control.get("name")
            kind = control.get("type", "text")
            if not name or kind in {"file", "submit", "button"}:
                continue
            if kind in {"checkbox", "radio"} and not control.has_attr("checked"):
                continue
            if control.name == "textarea":
                value = control.text
            elif control.name == "select":
                chosen = control.find("option", selected=True) or control.find("option")
                value = chosen.get("value", chosen.text) if chosen else ""
            else:
                value = control.get("value", "on" if kind in {"checkbox", "radio"} else "")
            fields.append((name, changes.get(name, value)))
        return self.request("POST", form["action"], form=fields)

    def log_in(self) -> None:
        """Log in through the login form with the suite's editor account."""
        page = self.get("/login")
        done = self.submit(page, "/login", {"email": EDITOR_EMAIL, "password": EDITOR_PASSWORD})
        assert done.status == 303, (done.status, done.text[:500])


@dataclass
class RunningStack:
    """The stack under test, its database and what the tests need to reach it."""

    stack: Stack
    database_url: str
    app: Flask
    log: list[Answer]

    def client(self, port: int | None = None) -> Client:
        """A fresh client of the proxy (or of one app server's port)."""
        return Client(port or self.stack.port, self.log if port is None else [])

    @property
    def proxy_answers(self) -> list[Answer]:
        """Every answer the proxy gave so far."""
        return self.log

    def scalar(self, statement: str, **values: object) -> object:
        """One value read straight from the stack's database."""
        engine = sa.create_engine(self.database_url)
        try:
            with engine.connect() as connection:
                return connection.execute(sa.text(statement), values).scalar()
        finally:
            engine.dispose()


@pytest.fixture(scope="module")
def running_stack() -> Iterator[RunningStack]:
    """nginx in front of two gunicorns (2 sync workers each) on a throwaway database."""
    require(nginx_binary() is not None, "nginx is missing: install Debian's nginx package")
    require(
        shutil.which("gunicorn", path=str(Path(sys.executable).parent)) is not None,
        "gunicorn is not installed",
    )
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS_URL).ping()
    except redis.exceptions.ConnectionError as error:
        require(False, f"Redis unreachable at {REDIS_URL}: {error}")
    # Outside pytest's private temporary folder: nginx's unprivileged workers must reach it.
    state = Path(tempfile.mkdtemp(prefix="fieldnotes-stack-"))
    with postgres_database("fieldnotes_deploy") as database_url:
        stack = Stack(
            state_dir=state,
            port=free_port(),
            app_ports=(free_port(), free_port()),
            database_url=database_url,
            redis_url=REDIS_URL,
            settings={
                "SECRET_KEY": SECRET_KEY,
                "CACHE_MAX_AGE": str(MAX_AGE),
                "PAGE_CACHE_RECHECK_MS": str(RECHECK_MS),
                "CACHE_STALE": str(STALE),
            },
            workers=2,
        )
        # The schema, a few small posts and the editor are made here, in this process, rather
        # than by the stack's own `flask db upgrade` and `flask demo load` (`make serve` runs
        # those): two more Python start-ups and 66 rendered posts would double the set-up.
        app = create_app({"SECRET_KEY": SECRET_KEY, "SQLALCHEMY_DATABASE_URI": database_url})
        with app.app_context():
            flask_migrate.upgrade(revision="heads")
        PostFactory(app).create(POSTS, topics=("Databases", "Operations"))
        created = app.test_cli_runner().invoke(
            args=["editors", "create", EDITOR_EMAIL, "--name", "Deploy Editor", "--password-stdin"],
            input=EDITOR_PASSWORD + "\n",
        )
        assert created.exit_code == 0, created.output
        try:
            stack.up(prepare=False)
        except StackError as error:
            shutil.rmtree(state, ignore_errors=True)
            pytest.fail(f"the stack did not come up: {error}", pytrace=False)
        try:
            yield RunningStack(stack, database_url, app, [])
        finally:
            stack.down(quiet=True)
            with app.app_context():
                from blog.extensions import db

                db.engine.dispose()
            shutil.rmtree(state, ignore_errors=True)


def wait_until(condition, timeout: float = 10, step: float = 0.05) -> bool:
    """Poll `condition` until it holds or `timeout` seconds pass; return whether it held."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return False
