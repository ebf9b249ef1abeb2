"""The editor's search: the posts of every state an editor may see that hold the words typed,
in their title, summary, body or topics.

The text is read as the readers' search reads it (blog/fulltext.py): the same terms, phrases
and prefix, at most MAX_WORDS words, and at most the RANKED_MATCHES most recently added posts
holding them (`more` says when there were others), so one search costs the same however large
the blog. The indexes are the readers' ones: on SQLite `post_search` (published posts) and
`draft_search` (the others, migration 0028_draft_search), on PostgreSQL `posts.search_vector`
(every post). Which posts an editor may see, and any topic or author the list is narrowed to,
come in as SQL conditions on posts, so the newest matches are taken among those alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg

from blog import database
from blog.extensions import db
from blog.fulltext import (
    RANKED_MATCHES,
    Query,
    fts5_match,
    prefix_shape,
    tsquery,
    tsquery_values,
)
from blog.models import Post

# The SQLite tables that together hold every post once (a post is in one or the other).
FTS_TABLES = ("post_search", "draft_search")
PG_VECTOR = sa.literal_column("posts.search_vector", pg.TSVECTOR)
# PostgreSQL reads this many of the newest posts (meeting the conditions) one by one, testing
# each one's vector; words too rare to be found among them are looked up in the GIN index.
WALK = 300


@dataclass(frozen=True)
class Found:
    """The ids of the posts holding the words, newest first, and whether more held them."""

    ids: tuple[int, ...]
    more: bool


def matching_posts(
    query: Query,
    conditions: Sequence[sa.ColumnElement[bool]] = (),
    *,
    made_by: int | None = None,
) -> Found:
    """The newest posts meeting `conditions` (and made by the account `made_by`, for a
    writer) that hold every term of `query`: RANKED_MATCHES at most, `more` when there were
    others. No terms, no posts."""
    if not query.terms:
        return Found((), False)
    scope = list(conditions)
    dialect = db.session.get_bind().dialect.name
    if dialect == "sqlite":
        ids = _sqlite(fts5_match(query.terms), scope, made_by)
    elif dialect == "postgresql":
        if made_by is not None:
            scope.append(Post.created_by_id == made_by)
        ids = _postgresql(query, scope)
    else:
        raise RuntimeError(f"Full-text search supports SQLite and PostgreSQL, not {dialect}.")
    return Found(tuple(ids[:RANKED_MATCHES]), len(ids) > RANKED_MATCHES)


def _sqlite(
    words: str, conditions: Sequence[sa.ColumnElement[bool]], made_by: int | None
) -> list[int]:
    """Each table's newest matches of the FTS5 query `words` (FTS5 reads its matches newest
    first and stops at the cap), then the newest of both."""
    probe = RANKED_MATCHES + 1
    found: list[int] = []
    for name in FTS_TABLES:
        table = sa.table(name, sa.column("rowid", sa.Integer))
        held = sa.literal_column(name).op("MATCH")(sa.bindparam("words", type_=sa.Text))
        statement = sa.select(table.c.rowid).where(held)
        if made_by is not None:
            # A writer's posts, handed to FTS5 as a list ("+" keeps them out of its plan):
            # its matches are checked against it, newest first.
            rowid = sa.literal_column(f"+{name}.rowid", sa.Integer)
            mine = sa.select(Post.id).where(Post.created_by_id == made_by)
            statement = statement.where(rowid.in_(mine))
        if conditions:
            # Each match, newest first, is checked against its post until enough are found.
            statement = statement.join(Post, Post.id == table.c.rowid).where(*conditions)
        statement = statement.order_by(table.c.rowid.desc()).limit(probe)
        found += database.read(statement, {"words": words}).scalars()
    return sorted(found, reverse=True)[:probe]


def _postgresql(query: Query, conditions: Sequence[sa.ColumnElement[bool]]) -> list[int]:
    """The newest posts meeting the conditions, read one by one; when the words are too rare
    for enough of them to be there, older ones from the GIN index."""
    probe = RANKED_MATCHES + 1
    values = tsquery_values(query.terms, "term") | tsquery_values(
        query.words, "word", in_a_row=False
    )
    terms = sa.select(tsquery(prefix_shape(query.terms), "term")).scalar_subquery()
    words = tsquery(prefix_shape(query.words), "word", in_a_row=False)
    # Words PostgreSQL does not index (stop words like "the") leave an empty query: nothing
    # is read then.
    searchable = sa.func.numnode(sa.select(words).scalar_subquery()) > 0
    recent = (
        sa.select(Post.id, PG_VECTOR.label("vector"))
        .where(*conditions, searchable)
        .order_by(Post.id.desc())
        .limit(WALK)
        .cte("recent")
        .prefix_with("MATERIALIZED")
    )
    walked = sa.select(
        recent.c.id,
        recent.c.vector.op("@@")(terms).label("held"),
    ).order_by(recent.c.id.desc())
    rows = list(database.read(walked, values))
    found = [row.id for row in rows if row.held]
    if len(found) >= probe or len(rows) < WALK:
        return found[:probe]
    # Rare words: the index finds the older posts holding them, and only those are read.
    hits = sa.select(Post.id).where(PG_VECTOR.op("@@")(words)).cte("hits")
    older = (
        sa.select(Post.id)
        .join(hits.prefix_with("MATERIALIZED"), hits.c.id == Post.id)
        .where(*conditions, Post.id < rows[-1].id, PG_VECTOR.op("@@")(terms))
        .order_by(Post.id.desc())
        .limit(probe - len(found))
    )
    return found + list(database.read(older, values).scalars())
