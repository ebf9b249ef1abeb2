"""The state row every reader reads: data version, live count, next publish time, topic filter.

Every write to reader-visible rows moves the row on in its own transaction (blog/caching.py),
so one primary-key read tells any server process whether what it rendered is still current;
the write stores the topic filter on it too. The listing reads the row in the same statement
as its cards (blog/listing.py); the kept-page front (blog/pagecache.py) and the other views
read it alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.ext.compiler import compiles

from blog.models import SiteState, Topic

# Where a state row already read for this request waits (see blog/pagecache.py).
ENVIRON_KEY = "fieldnotes.state"


@dataclass(frozen=True)
class Snapshot:
    """What every cached response depends on, read from the state row in one statement."""

    version: int
    changed_at: datetime | None
    live_count: int
    # Topics with live posts, as [id, name, slug, live count, position] lists (any order).
    topics: tuple[Sequence[Any], ...] = ()

    @property
    def last_modified(self) -> datetime | None:
        """When readers' view of the blog last changed."""
        return self.changed_at


EMPTY = Snapshot(0, None, 0)


class StateRead(NamedTuple):
    """The state row as read, with the time the next scheduled post goes live."""

    state: Snapshot
    next_publish_at: datetime | None


class TopicFilter(sa.sql.functions.FunctionElement):
    """The topics that have live posts, as one JSON array: what every write stores in
    site_state.topic_filter (the aggregate is spelled differently by each database)."""

    type = sa.JSON()
    inherit_cache = True
    name = "topic_filter"


_FILTER_COLUMNS = (Topic.id, Topic.name, Topic.slug, Topic.live_count, Topic.position)


def _live_topics(rows: sa.ColumnElement, compiler: Any, **kw: Any) -> str:
    """The JSON aggregate `rows` over the topics that have live posts, as SQL."""
    return compiler.process(sa.select(rows).where(Topic.live_count > 0).scalar_subquery(), **kw)


@compiles(TopicFilter)
def _topic_filter_sqlite(_element: TopicFilter, compiler: Any, **kw: Any) -> str:
    return _live_topics(
        sa.func.json_group_array(sa.func.json_array(*_FILTER_COLUMNS)), compiler, **kw
    )


@compiles(TopicFilter, "postgresql")
def _topic_filter_postgresql(_element: TopicFilter, compiler: Any, **kw: Any) -> str:
    return _live_topics(
        sa.func.json_agg(sa.func.json_build_array(*_FILTER_COLUMNS)), compiler, **kw
    )


_STATE = SiteState.__table__.c
# The state row's columns as readers read them, in the order `from_row` takes them.
COLUMNS = (
    _STATE.version,
    _STATE.changed_at,
    _STATE.live_count,
    _STATE.next_publish_at,
    _STATE.topic_filter,
)
READ = sa.select(*COLUMNS).where(_STATE.id == 1)


def from_row(row: Sequence[Any] | None) -> StateRead:
    """A snapshot and the next scheduled publish time from the COLUMNS of a row (None when
    the row does not exist yet: nothing was ever written)."""
    if row is None:
        return StateRead(EMPTY, None)
    version, changed_at, live_count, next_publish_at, topics = row[: len(COLUMNS)]
    return StateRead(
        Snapshot(version, changed_at, live_count, tuple(topics or ())), next_publish_at
    )
