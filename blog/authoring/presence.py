"""Who else has a post open in the editor, from the editor page's heartbeat.

Each heartbeat upserts one row (post, editor) with the time; an editor counts as present for
PRESENT_FOR seconds after their last one. A heartbeat after a longer gap starts a new visit,
so "since" is when this visit began. Rows live in the database, the one thing every server of
a deployment shares; a heartbeat deletes the stale rows of its post and of its editor.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from blog.extensions import db
from blog.models import Editor, EditorPresence, utcnow

PRESENT_FOR = timedelta(seconds=60)  # three missed heartbeats (every 20 s) and they are gone


@dataclass(frozen=True)
class Present:
    """Another editor with the post open, and since when (UTC)."""

    name: str
    since: datetime


def here(post_id: int, editor_id: int, now: datetime | None = None) -> None:
    """Record that this editor has the post open now (the caller commits)."""
    now = now or utcnow()
    table = EditorPresence.__table__
    dialect = postgresql if db.engine.dialect.name == "postgresql" else sqlite
    insert = dialect.insert(table).values(
        post_id=post_id, editor_id=editor_id, opened_at=now, seen_at=now
    )
    gone = table.c.seen_at < now - PRESENT_FOR  # the last visit ended: this is a new one
    db.session.execute(
        insert.on_conflict_do_update(
            index_elements=[table.c.post_id, table.c.editor_id],
            set_={
                "seen_at": insert.excluded.seen_at,
                "opened_at": sa.case((gone, insert.excluded.opened_at), else_=table.c.opened_at),
            },
        )
    )
    # The stale rows of this post, and this editor's on other posts they have left: the
    # table holds little more than the editors at work now, so the scan is of a few rows.
    db.session.execute(
        sa.delete(EditorPresence).where(
            sa.or_(EditorPresence.post_id == post_id, EditorPresence.editor_id == editor_id),
            EditorPresence.seen_at < now - PRESENT_FOR,
        )
    )


def others(post_id: int, editor_id: int, now: datetime | None = None) -> list[Present]:
    """The other editors who have the post open, longest first."""
    now = now or utcnow()
    query = (
        sa.select(Editor.name, EditorPresence.opened_at)
        .join(Editor, Editor.id == EditorPresence.editor_id)
        .where(
            EditorPresence.post_id == post_id,
            EditorPresence.editor_id != editor_id,
            EditorPresence.seen_at >= now - PRESENT_FOR,
        )
        .order_by(EditorPresence.opened_at, Editor.name)
    )
    return [Present(name, since) for name, since in db.session.execute(query)]
