"""The reader path's few statements, run straight on the database driver.

A listing request reads the state row (with the topic filter) and one page of cards.
Through the ORM session each statement costs several times what the database spends on
it, which would make the data cost more than the page's render. Here SQLAlchemy still
writes every statement (compiled once per dialect, with its own parameter and result
conversions); only the execution goes straight to a driver connection kept in autocommit
mode, so every read sees every committed write. The engine's statement listeners still
hear of each statement, so counts stay honest.

On PostgreSQL the statements go one layer lower still, to psycopg's libpq wrapper: each is
prepared once per connection under its own name and then executed by name, its values
dumped and its rows loaded by psycopg's own adapters. That is what a psycopg cursor does
for a prepared statement, without the cursor's per-call Python bookkeeping (about an eighth
of a cold listing read's client CPU).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import psycopg
import sqlalchemy as sa
from flask import Flask, current_app
from psycopg import pq
from psycopg.adapt import PyFormat, Transformer

from blog.extensions import db

EXTENSION = "fieldnotes_hotreads"
# Idle reader connections a process keeps; more than this after a burst are closed.
MAX_IDLE = 8
# Where a PostgreSQL reader connection's info dict keeps its _Prepares.
PREPARED_HERE = "fieldnotes_prepared"
# Numbers for the names statements are prepared under (next() on a count is atomic).
_numbers = itertools.count(1)


@dataclass(frozen=True)
class Prepared:
    """A statement compiled for one dialect, with its parameter and column conversions."""

    sql: str
    defaults: dict[str, Any]  # every parameter, with the values fixed at compile time
    positional: tuple[str, ...] | None  # parameter order, for drivers that take a list
    binds: dict[str, Callable[[Any], Any]]
    results: tuple[tuple[int, Callable[[Any], Any]], ...]  # (column, conversion)
    # PostgreSQL: the statement's name, and its text with $1, $2, ... in `positional` order.
    name: bytes = b""
    numbered: bytes = b""

    @classmethod
    def build(cls, statement: sa.Executable, dialect: sa.Dialect) -> Prepared:
        """Compile `statement` once; later executions only fill in values."""
        compiled = statement.compile(dialect=dialect)
        binds = {}
        for bind, name in compiled.bind_names.items():
            convert = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if convert is not None:
                binds[name] = convert
        columns = statement.selected_columns  # type: ignore[attr-defined]
        results = []
        for index, column in enumerate(columns):
            convert = column.type.dialect_impl(dialect).result_processor(dialect, None)
            if convert is not None:
                results.append((index, convert))
        positional = tuple(compiled.positiontup) if compiled.positiontup else None
        defaults = compiled.construct_params(_check=False)
        prepared = cls(compiled.string, defaults, positional, binds, tuple(results))
        if dialect.name != "postgresql":
            return prepared
        # Prepared by name: SQLAlchemy writes the same statement with $1, $2, ... instead.
        numbered = statement.compile(dialect=type(dialect)(paramstyle="numeric_dollar"))
        return dataclasses.replace(
            prepared,
            positional=tuple(numbered.positiontup or ()),
            name=f"fieldnotes_read_{next(_numbers)}".encode(),
            numbered=numbered.string.encode(),
        )

    def parameters(self, values: Mapping[str, Any]) -> Any:
        """The driver's parameters for these values, converted as SQLAlchemy would."""
        params = {**self.defaults, **values}
        for name, convert in self.binds.items():
            params[name] = convert(params[name])
        if self.positional is not None:
            return [params[name] for name in self.positional]
        return params

    def rows(self, raw: list[tuple[Any, ...]]) -> list[Any]:
        """Driver rows with each column converted as SQLAlchemy would."""
        if not self.results:
            return raw
        converted = []
        for row in raw:
            values = list(row)
            for index, convert in self.results:
                value = values[index]
                if value is not None:  # NULL is None to every conversion: skip the call
                    values[index] = convert(value)
            converted.append(values)
        return converted


class Reads:
    """One app's reader-path statements, each prepared once, and the driver connections they
    run on: taken out of SQLAlchemy's pool for good, kept in autocommit mode, shared by
    threads one at a time (so a threaded server holds as many as it runs requests at once)."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.engine: sa.Engine | None = None
        self.prepared: dict[object, Prepared] = {}
        # (process id, connection) pairs; append and pop are atomic, so threads share it.
        self.idle: list[tuple[int, Any]] = []

    def _engine(self) -> sa.Engine:
        if self.engine is None:
            with self.app.app_context():
                self.engine = db.engine
        return self.engine

    def _connection(self, engine: sa.Engine) -> Any:
        """An idle connection of this process, or a new one."""
        pid = os.getpid()
        while self.idle:
            try:
                owner, connection = self.idle.pop()
            except IndexError:  # another thread took the last one
                break
            if owner == pid:
                return connection
            # Opened before a fork: the parent owns it; forget it without closing it.
        connection = engine.raw_connection()
        if engine.dialect.name == "postgresql":  # SQLite connections run in autocommit already
            driver = connection.driver_connection
            driver.autocommit = True
            # These statements seek by index whatever the values, so one plan fits every
            # call: without this, PostgreSQL re-plans the page query on each call (~3x slower).
            driver.execute("SET plan_cache_mode = force_generic_plan")
        connection.detach()  # ours from now on: no pre-ping or reset on each use
        return connection

    def _release(self, connection: Any) -> None:
        """Keep a connection for the next read, or close it if enough are idle already."""
        if len(self.idle) < MAX_IDLE:
            self.idle.append((os.getpid(), connection))
        else:
            with contextlib.suppress(Exception):
                connection.close()

    def fetch(self, statement: sa.Executable, values: Mapping[str, Any] | None = None) -> list[Any]:
        """Every row of a Core statement (built once and reused: it is the cache key)."""
        engine = self._engine()
        prepared = self.prepared.get(statement)
        if prepared is None:
            prepared = self.prepared[statement] = Prepared.build(statement, engine.dialect)
        params = prepared.parameters(values or {})
        for attempt in (1, 2):
            connection = self._connection(engine)
            try:
                if engine.dispatch.before_cursor_execute:
                    engine.dispatch.before_cursor_execute(
                        None, None, prepared.sql, params, None, False
                    )
                if prepared.name:
                    raw = _run_prepared(connection, prepared, params)
                else:
                    cursor = connection.dbapi_connection.cursor()  # not through the proxy
                    try:
                        cursor.execute(prepared.sql, params)
                        raw = cursor.fetchall()
                    finally:
                        cursor.close()
            except engine.dialect.loaded_dbapi.Error as error:
                # A connection the server dropped (a restart) is retried once on a new one:
                # a read is safe to repeat.
                dropped = engine.dialect.is_disconnect(error, connection.dbapi_connection, None)
                with contextlib.suppress(Exception):
                    connection.close()
                if attempt == 1 and dropped:
                    continue
                raise sa.exc.DBAPIError.instance(
                    prepared.sql, params, error, engine.dialect.loaded_dbapi.Error
                ) from error
            self._release(connection)
            return prepared.rows(raw)
        raise AssertionError("unreachable")  # the loop returns or raises


class _Prepares:
    """What a PostgreSQL reader connection keeps between reads: the statements prepared on
    it so far, and psycopg's adapters for its values and rows."""

    def __init__(self, driver: Any) -> None:
        self.names: set[bytes] = set()
        self.transformer = Transformer(driver)


def _run_prepared(connection: Any, prepared: Prepared, params: list[Any]) -> list[Any]:
    """Run a statement by name on a PostgreSQL connection, preparing it there first if it
    is new to it; its rows as tuples."""
    driver = connection.dbapi_connection
    pgconn = driver.pgconn
    kept = connection.info.get(PREPARED_HERE)
    if kept is None:
        kept = connection.info[PREPARED_HERE] = _Prepares(driver)
    transformer = kept.transformer
    # Values go as text, and the statement is prepared without parameter types: the server
    # takes them from the statement's casts, so one prepared statement fits every value
    # (psycopg's binary dumpers would pick int2, int4 or int8 by the value's size).
    values = transformer.dump_sequence(params, [PyFormat.TEXT] * len(params))
    if prepared.name not in kept.names:
        _check(pgconn.prepare(prepared.name, prepared.numbered), driver)
        kept.names.add(prepared.name)
    result = pgconn.exec_prepared(prepared.name, values)
    _check(result, driver)
    transformer.set_pgresult(result)
    return transformer.load_rows(0, result.ntuples, tuple)


def _check(result: Any, driver: Any) -> None:
    """Raise the driver's own error for a result that failed."""
    if result.status not in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK):
        raise psycopg.errors.error_from_result(result, encoding=driver.info.encoding)


def reads(app: Flask | None = None) -> Reads:
    """The app's reader-path reads."""
    if app is None:
        app = current_app._get_current_object()  # kept past this request: not the proxy
    found = app.extensions.get(EXTENSION)
    if found is None:
        found = app.extensions[EXTENSION] = Reads(app)
    return found


def fetch(statement: sa.Executable, values: Mapping[str, Any] | None = None) -> list[Any]:
    """Every row of a prebuilt Core statement, read on the driver (see the module docstring)."""
    return reads().fetch(statement, values)
