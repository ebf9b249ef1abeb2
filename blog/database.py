"""Connection settings for the embedded SQLite store, the start of write transactions, how
readers run their statements, and whether the schema the migrations build is in place."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, MutableMapping
from typing import Any

import sqlalchemy as sa
from flask import Flask, current_app, request

from blog.extensions import db

WRITE_OPTION = "fieldnotes_write"


@sa.event.listens_for(sa.Engine, "connect")
def _configure_sqlite(dbapi_connection: object, _record: object) -> None:
    """Enforce foreign keys, use WAL, and let waiting writers wait instead of failing."""
    if not isinstance(dbapi_connection, sqlite3.Connection):
        return
    # SQLAlchemy emits BEGIN itself (below), so writers can take the write lock up front.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "memory":
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


@sa.event.listens_for(sa.Engine, "connect")
def _configure_postgresql(dbapi_connection: Any, _record: object) -> None:
    """Let PostgreSQL reuse one plan for each prepared statement.

    psycopg prepares a statement the app runs often, but PostgreSQL went on planning the
    listing's statements for every execution (a custom plan for each `now`): planning took
    twice as long as running them (0.75 ms against 0.38 ms for the cards). Their plans are
    index walks whatever the values, so one generic plan serves every execution.
    """
    if type(dbapi_connection).__module__.split(".")[0] != "psycopg":
        return
    dbapi_connection.execute("SET plan_cache_mode = force_generic_plan")
    dbapi_connection.commit()


@sa.event.listens_for(sa.Engine, "begin")
def _begin_sqlite(connection: sa.Connection) -> None:
    """Start SQLite transactions: IMMEDIATE for writers, so concurrent writers queue on the
    busy timeout instead of failing with "database is locked" when a read turns into a write."""
    if connection.dialect.name != "sqlite":
        return
    immediate = connection.get_execution_options().get(WRITE_OPTION, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def settle_engine_options(config: MutableMapping[str, Any]) -> None:
    """Ping pooled connections before use only where a server can drop them: SQLite is a
    file, so a ping there would only add a statement to every request."""
    if str(config.get("SQLALCHEMY_DATABASE_URI", "")).startswith("sqlite"):
        config["SQLALCHEMY_ENGINE_OPTIONS"] = {
            **config.get("SQLALCHEMY_ENGINE_OPTIONS", {}),
            "pool_pre_ping": False,
        }


def begin_write() -> None:
    """Open the session's transaction as a write transaction (call before any query)."""
    db.session.connection(execution_options={WRITE_OPTION: True})


def read(statement: sa.Executable, values: Mapping[str, Any] | None = None) -> sa.CursorResult:
    """Rows of a reader's select of columns, run on the session's connection.

    Through the session, a select of mapped columns pays the ORM's set-up on every run:
    the listing's cards cost 0.91 ms of the app's CPU that way on PostgreSQL, 0.47 ms here.
    Only for selects: writes go through the session, whose hooks move the data version.
    """
    return db.session.connection().execute(statement, dict(values or {}))


# Posts that never write: a login checks a password (slow on purpose), a preview renders
# Markdown. Holding the write lock through them would stall every editor's save. Fetching
# another site's image waits on that site, and accepting an invitation or resetting a
# password hashes one first: each takes the write lock itself to store what it made.
READ_ONLY_POSTS = frozenset(
    {"auth.login", "editor.preview", "body_images.fetch", "account.welcome", "account.reset"}
)
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def _read_in_autocommit() -> None:
    """A reader on PostgreSQL runs each statement on its own, outside a transaction.

    Under READ COMMITTED every statement takes its own snapshot anyway, so a transaction
    buys a reader nothing; it costs BEGIN and ROLLBACK, and psycopg forgets its prepared
    statements on every ROLLBACK, so each request parsed and planned its queries again.
    SQLite keeps its transaction: there it is what holds one snapshot for the request.
    """
    if db.engine.dialect.name != "sqlite":
        db.session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})


def _start_transaction() -> None:
    """Requests that change things start their transaction as writers.

    The body is read first (within MAX_CONTENT_LENGTH): a slow upload must not hold the
    write lock, or every other writer would wait on one client's connection.
    """
    if request.method in READ_METHODS:
        if request.endpoint not in (None, "static"):
            _read_in_autocommit()
        return
    if request.endpoint in READ_ONLY_POSTS:
        return
    request.get_data(cache=True, parse_form_data=True)
    begin_write()


# How the database's schema stands against the migrations in migrations/.
SCHEMA_MISSING = "missing"  # no migration applied: `db upgrade` has never run here
SCHEMA_BEHIND = "behind"  # some migrations are not applied yet
SCHEMA_AHEAD = "ahead"  # applied by a newer version of the code: revisions unknown here
SCHEMA_CURRENT = "current"


def schema_state() -> str:
    """Where the database's schema stands: one of the SCHEMA_* values, from the revisions
    Alembic recorded in it and the ones in migrations/ (one query, no write)."""
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory

    config = current_app.extensions["migrate"].migrate.get_config()
    script = ScriptDirectory.from_config(config)
    with db.engine.connect() as connection:
        applied = set(MigrationContext.configure(connection).get_current_heads())
    if not applied:
        return SCHEMA_MISSING
    if applied == set(script.get_heads()):
        return SCHEMA_CURRENT
    known = {revision.revision for revision in script.walk_revisions()}
    return SCHEMA_BEHIND if applied <= known else SCHEMA_AHEAD


def init_app(app: Flask) -> None:
    """Start every request's transaction as what it is: a reader or a writer."""
    app.before_request(_start_transaction)
