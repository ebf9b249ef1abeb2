"""Connection settings for the embedded SQLite store."""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa


@sa.event.listens_for(sa.Engine, "connect")
def _configure_sqlite(dbapi_connection: object, _record: object) -> None:
    """Enforce foreign keys and let concurrent readers and writers wait instead of failing."""
    if not isinstance(dbapi_connection, sqlite3.Connection):
        return
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "memory":
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
