"""Fixtures: a throwaway database per run: SQLite, or PostgreSQL with TEST_DATABASE."""

from __future__ import annotations

import dataclasses
import os
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import flask_migrate
import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog import create_app, markup
from blog.authoring import store
from blog.extensions import db
from blog.models import Post, Topic, utcnow
from blog.web import pagecache

DATABASE = os.environ.get("TEST_DATABASE", "sqlite")
POSTGRES_SERVER = os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require(condition: bool, message: str) -> None:
    """Fail in CI, skip elsewhere, when something a test needs is missing."""
    if condition:
        return
    if IN_CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--screenshots`: the browser suite saves its page captures (`make screenshots`)."""
    parser.addoption(
        "--screenshots",
        action="store_true",
        help="save full-page screenshots of the browser suite's pages in artifacts/screenshots",
    )


def uses_database(item: pytest.Item) -> bool:
    """Whether a test reaches the test database: it uses `app` or a `*database_url` fixture,
    directly or through another fixture (`client`, `posts`...)."""
    names = getattr(item, "fixturenames", ())
    return any(name == "app" or name.endswith("database_url") for name in names)


BROWSER_TESTS = Path(__file__).resolve().parent / "browser"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that use the database `database`, so the PostgreSQL pass can run only
    those (`-m database`) without anyone having to remember a marker; refuse a browser test
    outside tests/browser/, which no pass would run."""
    for item in items:
        if uses_database(item):
            item.add_marker(pytest.mark.database)
        if item.get_closest_marker("browser") and BROWSER_TESTS not in item.path.parents:
            raise pytest.UsageError(f"{item.nodeid}: browser tests belong in tests/browser/")


def _postgres_admin() -> sa.Engine:
    """An autocommit engine on the server's maintenance database (fails loudly in CI)."""
    engine = sa.create_engine(POSTGRES_SERVER, isolation_level="AUTOCOMMIT")
    try:
        engine.connect().close()
    except sa.exc.OperationalError as error:
        if IN_CI:
            pytest.fail(f"PostgreSQL is required in CI and unreachable: {error}", pytrace=False)
        pytest.skip(f"PostgreSQL unreachable at {POSTGRES_SERVER}")
    return engine


@contextmanager
def postgres_database(prefix: str) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database named `prefix` + a random suffix,
    dropped (open connections and all) when the block ends."""
    admin = _postgres_admin()
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
        # A throwaway database needs no durability: commits stop waiting for the disk.
        connection.execute(sa.text(f'ALTER DATABASE "{name}" SET synchronous_commit = off'))
    try:
        yield sa.make_url(POSTGRES_SERVER).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Create the run's throwaway database and drop it afterwards."""
    if DATABASE == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'test.sqlite3'}"
        return
    if DATABASE != "postgresql":
        raise pytest.UsageError(f"TEST_DATABASE must be sqlite or postgresql, not {DATABASE!r}")
    with postgres_database("fieldnotes_test") as url:
        yield url


@pytest.fixture
def redis_client():
    """A client on the test Redis (TEST_REDIS_URL); skips when unreachable, fails in CI."""
    redis = pytest.importorskip("redis")
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.exceptions.ConnectionError as error:
        if IN_CI:
            pytest.fail(f"Redis is required in CI and unreachable: {error}", pytrace=False)
        pytest.skip(f"Redis unreachable at {REDIS_URL}")
    yield client
    client.close()


@pytest.fixture(scope="session")
def app(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Flask:
    """The app on the throwaway database, its schema built by the migrations, keeping what
    it writes to its instance folder (the PNG previews) in a folder of the run's own."""
    # Kept pages read the state row on every hit, so that a test sees each write at once
    # and can count that read (tests/web/test_pagecache.py tries the interval itself).
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "test-secret",
            "SQLALCHEMY_DATABASE_URI": database_url,
            "PAGE_CACHE_RECHECK_MS": 0,
        }
    )
    app.instance_path = str(tmp_path_factory.mktemp("instance"))
    with app.app_context():
        flask_migrate.upgrade(revision="heads")
    return app


@pytest.fixture(autouse=True)
def _empty_tables(request: pytest.FixtureRequest) -> Iterator[None]:
    """Leave every table empty after each test that used the app."""
    yield
    if "app" not in request.fixturenames:
        return
    app: Flask = request.getfixturevalue("app")
    pagecache.clear()
    with app.app_context():
        db.session.remove()
        tables = reversed(db.metadata.sorted_tables)
        with db.engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                # One round trip for every table (psycopg sends a statement list without
                # parameters as one simple query): 0.5 ms of CPU here against 1.9 ms.
                connection.exec_driver_sql("; ".join(f'DELETE FROM "{t.name}"' for t in tables))
            else:
                for table in tables:
                    connection.execute(table.delete())


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client for the app."""
    return app.test_client()


@pytest.fixture
def runner(app: Flask):
    """A runner for the app's CLI commands."""
    return app.test_cli_runner()


# The number a factory body is first rendered with, to stand for each post's own (see below).
SHAPE_NUMBER = 987654321
# The store's and the pipeline's own renders, to tell when a test has put its own in their place.
REAL_RENDERS = (store.render_body, markup.render)


class PostFactory:
    """Makes published posts through the store, newest first in creation order."""

    # For each factory class, the render of its default body with SHAPE_NUMBER in it, or None
    # where the number cannot simply be swapped (see rendered_like).
    shapes: dict[type, markup.Rendered | None] = {}

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.made = 0

    def rendered_like(self, n: int) -> markup.Rendered | None:
        """What the store's render makes of body(n), from one real render of the body with
        SHAPE_NUMBER for its number: the default bodies differ only in it, and the pipeline
        copies it through as text. Checked against real renders of two other numbers on first
        use; None where they differ, or where a test replaced the render: those are rendered.

        Rendering the same few words again for each of the thousands of posts the tests make
        was about half the factory's time (as tests/authoring/test_post_list.py found)."""
        if (store.render_body, markup.render) != REAL_RENDERS:
            return None
        kind = type(self)
        if kind not in self.shapes:
            shape = store.render_body(self.body(SHAPE_NUMBER))
            same = all(
                swapped(shape, number) == store.render_body(self.body(number))
                for number in (7, 2026)
            )
            self.shapes[kind] = shape if same else None
        shape = self.shapes[kind]
        return None if shape is None else swapped(shape, n)

    def new_post(self, n: int, values: dict) -> Post:
        """store.new_post with these values; a default body is not rendered again (see
        rendered_like)."""
        rendered = self.rendered_like(n) if values["body"] == self.body(n) else None
        if rendered is None:
            return store.new_post(**values)
        real, caller, body = store.render_body, threading.get_ident(), values["body"]

        def render_body(text: str) -> markup.Rendered:
            mine = threading.get_ident() == caller and text == body
            return rendered if mine else real(text)

        store.render_body = render_body
        try:
            return store.new_post(**values)
        finally:
            store.render_body = real

    def topics(self, *names: str) -> list[str]:
        """Create topics in filter order; returns their slugs."""
        with self.app.app_context():
            slugs = [store.topic_named(name).slug for name in names]
            db.session.commit()
        return slugs

    def body(self, n: int) -> str:
        """The Markdown of the `n`th post made."""
        return f"Body of post {n}.\n\n## Part one\n\nSome text."

    def create(
        self, count: int = 1, *, topics: tuple[str, ...] = ("Databases",), **fields
    ) -> list[str]:
        """Create `count` posts carrying `topics`; each is an hour older than the last.
        `author` may be an author's name."""
        slugs = []
        with self.app.app_context():
            topic_rows = [store.topic_named(name) for name in topics]
            author = fields.pop("author", "Ada Example")
            if isinstance(author, str):  # a name: the author by that name
                author = store.author_named(author)
            now = utcnow().replace(microsecond=0)
            for _ in range(count):
                self.made += 1
                n = self.made
                values = {
                    "title": f"Post number {n}",
                    "body": self.body(n),
                    "summary": f"Summary of post {n}.",
                    "published_at": now - timedelta(days=1, hours=n),
                    "author": author,
                    "topics": topic_rows,
                } | fields
                slugs.append(self.new_post(n, values).slug)
            db.session.commit()
        return slugs


def swapped(shape: markup.Rendered, n: int) -> markup.Rendered:
    """A render of a factory body with SHAPE_NUMBER in it, with `n` in its place."""
    number = str(SHAPE_NUMBER)
    return dataclasses.replace(
        shape,
        html=shape.html.replace(number, str(n)),
        summary=shape.summary.replace(number, str(n)),
    )


@pytest.fixture
def posts(app: Flask) -> PostFactory:
    """The post factory."""
    return PostFactory(app)


@contextmanager
def count_queries(app: Flask, *, transaction_control: bool = False) -> Iterator[list[str]]:
    """Collect the SQL statements the app runs inside the block (with BEGIN, COMMIT and
    ROLLBACK too when `transaction_control` is set)."""
    statements: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        control = statement.split(None, 1)[0].upper() in {"BEGIN", "COMMIT", "ROLLBACK"}
        if transaction_control or not control:
            statements.append(statement)

    with app.app_context():
        engine = db.engine
    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)


__all__ = ["Post", "PostFactory", "Topic", "count_queries"]
