"""The data version every cached page depends on, moved on by writes and by scheduled posts.

Every write to reader-visible rows bumps one counter (`site_state.version`) in the writing
transaction, so all server processes agree on it. The same row records when the next
scheduled post (or scheduled draft change of a live post) goes live; the first request after
that moment moves the version on, and runs the work registered for that moment (DUE_WORK:
applying the scheduled changes), so a page that should show it is never served from a cache.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import Flask, current_app
from flask_sqlalchemy.session import Session as AppSession

from blog.database import WRITE_OPTION
from blog.extensions import db
from blog.models import PendingChange, Post, SiteState, scheduled, utcnow

# Tables whose rows readers see (directly or through a page, feed or sitemap): a write to
# any of them changes the data version.
WATCHED_TABLES = frozenset(
    {
        "posts",
        "topics",
        "authors",
        "post_topics",
        "post_authors",
        "images",
        "slug_redirects",
        "topic_redirects",
    }
)
CHANGED = "fieldnotes_changed"  # session.info flag: this transaction wrote watched rows
# The app's list of what falls due with the clock besides scheduled posts, each given the
# time: registered by the area that owns it (authoring puts scheduled draft changes live),
# run once per due moment by the process that moves the version on.
DUE_WORK = "fieldnotes.due_work"

_STATE = cast(sa.Table, SiteState.__table__)
READ = sa.select(_STATE.c.version, _STATE.c.changed_at, _STATE.c.next_publish_at).where(
    _STATE.c.id == 1
)


@dataclass(frozen=True)
class State:
    """The state row as read: what every cached response depends on."""

    version: int
    changed_at: datetime | None
    next_publish_at: datetime | None = None

    @property
    def stamp(self) -> tuple[int, datetime | None]:
        """What tells two states apart: with the version, the time of the last change tells
        a recreated database apart."""
        return (self.version, self.changed_at)

    @property
    def publish_due(self) -> bool:
        """True when a scheduled post's time has come and the version has not moved yet."""
        return self.next_publish_at is not None and self.next_publish_at <= utcnow()


EMPTY = State(0, None)


def read_state(connection: sa.Connection) -> State:
    """The state row (one primary-key read); EMPTY before the first write."""
    row = connection.execute(READ).first()
    return State(*row) if row is not None else EMPTY


# The same read as READ, on a driver cursor.
STATE_SQL = "SELECT version, changed_at, next_publish_at FROM site_state WHERE id = 1"


def _as_time(value: datetime | str | None) -> datetime | None:
    """A stored time as the driver gives it: SQLite's drivers hand back text."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value


class StateReader:
    """Reads the state row for cached pages, whose only statement it is: one round trip.

    Through the app's pool the read cost four round trips to a database server (the ping
    on checkout, BEGIN, the read, ROLLBACK): about 1.1 ms against 0.27 ms on this pool, in
    autocommit and unpinged. A connection that fails is thrown away and the read tried once
    more on a new one, so a restarted server costs no reader a page. On a driver cursor, not
    a Core execution, whose bookkeeping costs more than the read; the app engine's statement
    listeners still hear of it, so counts stay honest.
    """

    def __init__(self, engine: sa.Engine) -> None:
        self.listeners = engine.dispatch
        if engine.url.database in (None, "", ":memory:"):
            self.engine = engine  # an in-memory database exists on the app's pool only
            return
        self.engine = sa.create_engine(
            engine.url,
            isolation_level="AUTOCOMMIT",
            pool_pre_ping=False,
            pool_reset_on_return=None,  # nothing to roll back outside a transaction
        )
        sa.event.listen(engine, "engine_disposed", lambda _engine: self.engine.dispose())

    def read(self) -> State:
        """The state row; driver errors are the caller's when a second try fails too."""
        try:
            return self._read()
        except self.engine.dialect.loaded_dbapi.Error:
            return self._read()

    def _read(self) -> State:
        connection = self.engine.raw_connection()
        try:
            cursor = connection.cursor()
            self.listeners.before_cursor_execute(None, cursor, STATE_SQL, (), None, False)
            cursor.execute(STATE_SQL)
            row = cursor.fetchone()
            cursor.close()
        except BaseException:
            connection.invalidate()  # a broken connection is not handed out again
            raise
        finally:
            connection.close()
        if row is None:
            return EMPTY
        version, changed_at, next_publish_at = row
        return State(version, _as_time(changed_at), _as_time(next_publish_at))


def _bump_statement(dialect: str, now: datetime) -> sa.Executable:
    """One statement that adds 1 to the version, creating the row when it is missing."""
    from sqlalchemy.dialects import postgresql, sqlite

    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(_STATE).values(id=1, version=1, changed_at=now)
    return stmt.on_conflict_do_update(
        index_elements=[_STATE.c.id],
        set_={"version": _STATE.c.version + 1, "changed_at": stmt.excluded.changed_at},
    )


def bump(session: so.Session) -> None:
    """Add 1 to the data version inside the session's current transaction."""
    connection = session.connection()
    connection.execute(_bump_statement(connection.dialect.name, utcnow()))
    session.info[CHANGED] = True


def _record_next_publish(connection: sa.Connection) -> None:
    """Note when the next scheduled post or scheduled draft change goes live, in one
    statement: a seek on the listing index, and one on the (few) draft changes."""
    next_post = sa.select(sa.func.min(Post.published_at)).where(scheduled(utcnow()))
    next_change = sa.select(sa.func.min(PendingChange.go_live_at))
    due = sa.union_all(
        sa.select(next_post.scalar_subquery().label("at")),
        sa.select(next_change.scalar_subquery().label("at")),
    ).subquery("due")
    next_at = sa.select(sa.func.min(due.c.at)).scalar_subquery()
    connection.execute(sa.update(_STATE).where(_STATE.c.id == 1).values(next_publish_at=next_at))


def record_next_publish(session: so.Session | so.scoped_session[Any]) -> None:
    """Note the next time something goes live, after a write this module does not watch (a
    draft change scheduled, its schedule cancelled)."""
    _record_next_publish(session.connection())


def _table_name(instance: object) -> str | None:
    """The table a mapped instance is stored in."""
    table = getattr(type(instance), "__table__", None)
    return getattr(table, "name", None)


def _touches_watched(session: so.Session) -> bool:
    """True when the pending flush adds, changes or deletes a watched row."""
    for instance in (*session.new, *session.deleted):
        if _table_name(instance) in WATCHED_TABLES:
            return True
    return any(
        _table_name(instance) in WATCHED_TABLES and session.is_modified(instance)
        for instance in session.dirty
    )


def _before_flush(session: so.Session, _context: object, _instances: object) -> None:
    """Bump the version before the flush writes, so the row lock is always taken first."""
    if _touches_watched(session):
        bump(session)


def _on_execute(state: so.ORMExecuteState) -> None:
    """Bump the version for bulk INSERT, UPDATE or DELETE statements on watched tables."""
    if not (state.is_insert or state.is_update or state.is_delete):
        return
    table = getattr(state.statement, "table", None)
    if getattr(table, "name", None) in WATCHED_TABLES:
        bump(state.session)


def _before_commit(session: so.Session) -> None:
    """Once per writing transaction, record when the next scheduled post goes live."""
    session.flush()  # commit flushes after this hook runs; the flush may be what changes
    if session.info.pop(CHANGED, False):
        _record_next_publish(session.connection())


def _forget_changes(session: so.Session, *_args: object) -> None:
    """A rolled-back transaction wrote nothing."""
    session.info.pop(CHANGED, None)


def _publish_due_posts() -> None:
    """A scheduled post's (or draft change's) time has come: move the version on, once,
    whichever process notices, and let that process do the work that falls due."""
    now = utcnow()
    with db.engine.connect() as connection:
        connection = connection.execution_options(**{WRITE_OPTION: True})
        with connection.begin():
            moved = connection.execute(
                sa.update(_STATE)
                .where(_STATE.c.id == 1, _STATE.c.next_publish_at <= now)
                .values(version=_STATE.c.version + 1, changed_at=now)
            )
            if moved.rowcount:
                _record_next_publish(connection)
    db.session.rollback()  # end any read transaction begun before, so the next read sees it
    if moved.rowcount:
        for work in current_app.extensions.get(DUE_WORK, ()):
            work(now)


def on_due(app: Flask, work: Callable[[datetime], None]) -> None:
    """Run `work(now)` whenever something scheduled falls due (see DUE_WORK)."""
    app.extensions.setdefault(DUE_WORK, []).append(work)


def current() -> State:
    """The state row as readers must see it: a scheduled post that has come due is
    published (the version moves on) before anything is rendered from it."""
    state = read_state(db.session.connection())
    if state.publish_due:
        _publish_due_posts()
        state = read_state(db.session.connection())
    return state


def data_version() -> int:
    """The current data version (0 before the first write)."""
    return read_state(db.session.connection()).version


def _listen_once(target: Any, name: str, fn: Any) -> None:
    """Attach a session event listener once, however many apps the process builds."""
    if not sa.event.contains(target, name, fn):
        sa.event.listen(target, name, fn)


def init_app(_app: Flask) -> None:
    """Make every write to reader-visible rows move the data version on."""
    _listen_once(AppSession, "before_flush", _before_flush)
    _listen_once(AppSession, "do_orm_execute", _on_execute)
    _listen_once(AppSession, "before_commit", _before_commit)
    _listen_once(AppSession, "after_soft_rollback", _forget_changes)
