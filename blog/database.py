"""Connection settings for the embedded SQLite store, and the start of write transactions."""

from __future__ import annotations

import sqlite3
from collections.abc import MutableMapping
from typing import Any

import sqlalchemy as sa
from flask import Flask, request

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


# Posts that never write: a login checks a password (slow on purpose), a preview renders
# Markdown. Holding the write lock through them would stall every editor's save.
READ_ONLY_POSTS = frozenset({"auth.login", "editor.preview"})


def _writes_take_the_lock_first() -> None:
    """Requests that change things start their transaction as writers.

    The body is read first (within MAX_CONTENT_LENGTH): a slow upload must not hold the
    write lock, or every other writer would wait on one client's connection.
    """
    if request.method in {"GET", "HEAD", "OPTIONS"} or request.endpoint in READ_ONLY_POSTS:
        return
    request.get_data(cache=True, parse_form_data=True)
    begin_write()


def init_app(app: Flask) -> None:
    """Make every state-changing request a write transaction from its first statement."""
    app.before_request(_writes_take_the_lock_first)
