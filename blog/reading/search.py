"""Full-text search over live posts: one query function for both stores, and the /search page.

SQLite searches the FTS5 table `post_search`, PostgreSQL the `posts.search_vector` column;
migration 0004_search creates both and the triggers that keep them current on every write.
The reader's text is read by blog/fulltext.py, as the editor's search reads it: it never
reaches either engine's query syntax.

Every search costs a bounded amount of work, whatever the text and however long the posts:
- at most MAX_WORDS distinct words are searched (repeats are dropped, the rest named);
- the candidates are the RANKED_MATCHES most recently added live posts that hold every
  word (found newest first: FTS5 from its index, PostgreSQL by reading the newest posts
  and asking its GIN index for older ones when the words are rare); only they are ranked,
  by where the words are, and checked for the order of a phrase's words;
- excerpts are cut (blog/fulltext.py) from the text of the first SNIPPET_WINDOW characters
  of each rendered body shown, never by an engine over a whole body.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import Blueprint, abort, current_app, request, url_for
from flask.wrappers import Response
from markupsafe import Markup
from sqlalchemy.dialects import postgresql as pg

from blog import database
from blog.extensions import db
from blog.fulltext import (
    PG_CONFIG,
    RANKED_MATCHES,
    SNIPPET_WINDOW,
    Query,
    Term,
    body_excerpt,
    clean_query,
    fts5_match,
    limit_terms,
    marker,
    more_notice,
    parse_query,
    prefix_shape,
    tsquery,
    tsquery_lexeme,
    tsquery_values,
)
from blog.fulltext import notices as text_notices
from blog.models import PUBLISHED, Post, PostTopic, live, scheduled, utcnow
from blog.reading import listing
from blog.reading.listing import NOW, ListedTopic, TopicCount, TopicFilter
from blog.web import htmx, paging, validators
from blog.web.paging import page_number

bp = Blueprint("search", __name__)

# Swap targets on the search page and the blocks of public/search.html that fill them.
SEARCH_FRAGMENTS = {
    "main": "search_main",
    "search-results": "results",
    "result-list": "more_results",
}

# Where its words are ranks a candidate: in the title first, then in the summary, then in
# the topics' names, then in the body alone (every candidate has them somewhere). bm25()
# would also weigh how often each word occurs, but it first counts every post that holds
# each word, a pass over the whole index per word on every search.
COLUMN_RANKS = {"title": 3, "summary": 2, "topics": 1}
# A topic with at most this many live posts is searched post by post (FTS5 looks each one
# up), unless a word is a prefix; a topic with a twentieth of the posts or more is checked
# for each match, newest first, until enough are found; otherwise the matches are filtered
# by the topic's posts.
LISTED_TOPIC = 8
SHARED_TOPIC = 20
# The prefix lengths the FTS5 table keeps an index for (migration 0004_search).
FTS_PREFIXES = (2, 3)
FTS_TABLE = sa.table("post_search", sa.column("rowid", sa.Integer))
FTS_NAME: sa.ColumnElement[str] = sa.literal_column("post_search")
# Post ids and publish dates read through ix_posts_search_live (SQLAlchemy has no SQLite
# index hints, so the hinted select is written out).
SQLITE_LIVE = (
    sa.text("SELECT id, published_at FROM posts INDEXED BY ix_posts_search_live")
    .columns(sa.column("id", sa.Integer), sa.column("published_at", sa.DateTime))
    .subquery("live")
)
PG_VECTOR = sa.literal_column("posts.search_vector", pg.TSVECTOR)

# The unmapped objects that hold the indexes (the readers' and, on SQLite, the editor's of
# posts readers cannot find, migration 0028_draft_search): kept out of model-vs-schema
# comparisons.
INDEX_TABLES = frozenset(
    name
    for table in ("post_search", "draft_search")
    for name in [table]
    + [f"{table}_{part}" for part in ("data", "idx", "content", "docsize", "config")]
)
INDEX_COLUMN = ("posts", "search_vector")
INDEX_NAMES = frozenset({"ix_posts_search_vector", "ix_posts_search_live"})


# The statements are built once per form, their values bound: building them anew took as
# long as running them (SQLAlchemy then also caches their compiled form).
_PROBE = sa.bindparam("probe", type_=sa.Integer)  # RANKED_MATCHES + 1
_TOPIC = sa.bindparam("topic_id", type_=sa.Integer)


def _in_topic(post_id: sa.ColumnElement[int] | so.InstrumentedAttribute[int]) -> sa.Exists:
    """The post is filed under the topic `topic_id` (a primary-key probe per post)."""
    link = sa.select(PostTopic.post_id).where(
        PostTopic.post_id == post_id, PostTopic.topic_id == _TOPIC
    )
    return link.exists()


@dataclass(frozen=True)
class Ranked:
    """One page of matching post ids, best first; how many matches were ranked, and whether
    more posts hold the words than were looked at."""

    ids: list[int]
    ranked: int
    more: bool


@dataclass(frozen=True)
class Candidate:
    """A post holding every word: when it was published, how well placed its words are,
    and whether it has the phrases (their words in a row)."""

    post_id: int
    published_at: datetime
    score: int
    in_a_row: bool


class _Engine:
    """How one database finds the candidates of a search."""

    def candidates(self, query: Query, topic: TopicCount | None, total: int) -> list[Candidate]:
        """The RANKED_MATCHES + 1 most recently added live posts (in `topic`, of `total`
        live posts) holding every word of `query`, newest first; fewer when fewer do."""
        raise NotImplementedError

    def ranked_page(
        self, query: Query, topic: TopicCount | None, total: int, limit: int, offset: int
    ) -> Ranked:
        """One page of matches best first: words in the title, then in the summary or the
        topics, then anywhere; the newest first among equals."""
        found = self.candidates(query, topic, total)
        matches = [candidate for candidate in found[:RANKED_MATCHES] if candidate.in_a_row]
        matches.sort(key=lambda m: (m.score, m.published_at, m.post_id), reverse=True)
        ids = [match.post_id for match in matches[offset : offset + limit]]
        return Ranked(ids, len(matches), len(found) > RANKED_MATCHES)


def _values(**values: Any) -> dict[str, Any]:
    """Values every search statement binds, and these."""
    return {"probe": RANKED_MATCHES + 1, "now": utcnow()} | values


def _fts5_any(terms: Sequence[Term], column: str) -> str:
    """An FTS5 query for any of the terms' words, as typed, in one column."""
    words = (word.replace('"', '""') for term in terms for word in term.words)
    return f"{{{column}}} : (" + " OR ".join(f'"{word}"' for word in words) + ")"


def _topic_mode(count: int, total: int, grows: bool) -> str:
    """How SQLite narrows a search to a topic of `count` live posts out of `total`; `grows`
    when a word is a prefix of a length FTS5 keeps no index for (it would then gather all
    the longer words for each post it is handed)."""
    if count <= LISTED_TOPIC and not grows:
        return "listed"
    if count * SHARED_TOPIC >= total:
        return "checked"
    return "filtered"


def _sqlite_hidden() -> sa.CompoundSelect:
    """Published posts whose publish time is still ahead: the FTS index holds them.

    Two index ranges: an OR here would make SQLite walk every published post.
    """
    return sa.union_all(
        sa.select(Post.id).where(scheduled(NOW)),
        sa.select(Post.id).where(Post.status == PUBLISHED, Post.published_at.is_(None)),
    )


def _sqlite_probe(topic: str | None) -> sa.Select:
    """The latest live posts (up to `probe`) holding the words `words` (an FTS5 query text),
    newest first; `topic` is a `_topic_mode`, or None for every topic.

    They come from the index's lists of posts per word, newest first, so FTS5 stops at the
    cap. The index holds published posts only; those whose time is still ahead are hidden.
    """
    conditions: list[sa.ColumnElement[bool]] = [
        FTS_NAME.op("MATCH")(sa.bindparam("words", type_=sa.Text)),
        FTS_TABLE.c.rowid.not_in(_sqlite_hidden()),
    ]
    filed = sa.select(PostTopic.post_id).where(PostTopic.topic_id == _TOPIC)
    if topic == "listed":  # FTS5 is handed the posts and looks each one up
        conditions.append(FTS_TABLE.c.rowid.in_(filed))
    elif topic == "filtered":  # "+" keeps the list from FTS5: a filter on its matches
        conditions.append(sa.literal_column("+post_search.rowid", sa.Integer).in_(filed))
    elif topic == "checked":  # most matches are in the topic: check each, newest first
        conditions.append(_in_topic(FTS_TABLE.c.rowid))
    return (
        sa.select(FTS_TABLE.c.rowid.label("post_id"))
        .where(*conditions)
        .order_by(FTS_TABLE.c.rowid.desc())
        .limit(_PROBE)
    )


@functools.cache
def _sqlite_statement(phrased: bool, topic: str | None) -> sa.Select:
    """SQLite's candidates: the query's words in `words`, its phrases in `terms` and any of
    its words in `title`, `summary` and `topics` (FTS5 query texts); `topic` is a
    `_topic_mode`, or None for every topic."""
    # MATERIALIZED makes SQLite run the MATCH once; left free, its planner may walk the
    # posts and rerun it per post.
    probe = _sqlite_probe(topic).cte("probe").prefix_with("MATERIALIZED")
    oldest = sa.select(sa.func.min(probe.c.post_id)).scalar_subquery()

    def found(name: str) -> sa.ColumnElement[bool]:
        """The candidate matches the FTS5 query text `name`, looked up from the oldest
        candidate on (a rowid range FTS5 honours): this costs no more than the candidates,
        however many posts hold the words."""
        match = FTS_NAME.op("MATCH")(sa.bindparam(name, type_=sa.Text))
        since = sa.select(FTS_TABLE.c.rowid).where(match, FTS_TABLE.c.rowid >= oldest)
        return probe.c.post_id.in_(since)

    score = sa.case(*((found(column), rank) for column, rank in COLUMN_RANKS.items()), else_=0)
    in_a_row = found("terms") if phrased else sa.true()
    # Each candidate's publish date comes from the narrow index: by rowid, SQLite would read
    # the post's row, body and all, overflow pages included.
    live_posts = SQLITE_LIVE
    return (
        sa.select(live_posts.c.id, live_posts.c.published_at, score, in_a_row)
        .join(probe, probe.c.post_id == live_posts.c.id)
        .order_by(live_posts.c.id.desc())
    )


@functools.cache
def _sqlite_held(topic: str | None) -> sa.Select:
    """How many of the latest posts (up to `probe`, in the topic) hold the words `words`."""
    return sa.select(sa.func.count()).select_from(_sqlite_probe(topic).subquery())


class _SQLite(_Engine):
    """SQLite FTS5 over published posts."""

    def candidates(self, query: Query, topic: TopicCount | None, total: int) -> list[Candidate]:
        topic_id = topic.topic.id if topic is not None else None
        words = query.words
        if any(term.prefix for term in words):
            # FTS5 gathers every post of every word a prefix begins before the first match:
            # when the words as typed already fill the candidates, or are in every post
            # searched, the prefix can add nothing.
            typed = tuple(Term(term.text) for term in words)
            mode = None if topic is None else _topic_mode(topic.count, total, grows=False)
            exact = _values(words=fts5_match(typed), topic_id=topic_id)
            held = database.read(_sqlite_held(mode), exact).scalar() or 0
            searched = topic.count if topic is not None else total
            if held > RANKED_MATCHES or 0 < searched <= held:
                words = typed
        grows = any(term.prefix and len(term.text) not in FTS_PREFIXES for term in words)
        mode = None if topic is None else _topic_mode(topic.count, total, grows)
        values = _values(
            words=fts5_match(words),
            terms=fts5_match(query.terms),
            topic_id=topic_id,
            **{column: _fts5_any(query.terms, column) for column in COLUMN_RANKS},
        )
        rows = database.read(_sqlite_statement(query.phrased, mode), values)
        return [Candidate(*row) for row in rows]


# PostgreSQL reads the newest posts first, this many at a time, testing each one's vector;
# a search whose words are in too few of them for the rest to be found that way soon is
# looked up in the GIN index for the older posts. (The app's statements run with generic
# plans, blog/database.py, which cannot tell a common word from a rare one.)
WALK = 300
WALK_LIMIT = 3000  # the most posts read one by one before the index is asked
WALK_COST = 6  # reading a post's vector costs this many index hits, about
_WALK = sa.bindparam("walk", type_=sa.Integer)
_LAST = sa.bindparam("last", type_=sa.Integer)  # the newest post id still to be looked at
_NEED = sa.bindparam("need", type_=sa.Integer)
_ID_LIMIT = 2_147_483_647  # the largest id an INTEGER column holds


def _once(query: sa.ColumnElement) -> sa.ScalarSelect:
    """A tsquery made once per statement: to_tsquery() is only STABLE, so written in a
    condition PostgreSQL would parse and stem the reader's text again for every post it
    tests (the walk back's statement took three times as long)."""
    return sa.select(query).scalar_subquery()


def _postgresql_columns(vector: sa.ColumnElement, terms: tuple[bool, ...], phrased: bool):
    """The score and the phrase test of a candidate, from its vector.

    Ranked like SQLite, by where the words are: the vector's weights mark the title (A) and
    the summary and topic names together (B). The second look-up is made only when the
    first fails.
    """

    def found(name: str) -> sa.ColumnElement[bool]:
        query = sa.func.to_tsquery(PG_CONFIG, sa.bindparam(name, type_=sa.Text))
        return vector.op("@@")(_once(query))

    ranks = ((found("title"), COLUMN_RANKS["title"]), (found("summary"), COLUMN_RANKS["summary"]))
    score = sa.case(*ranks, else_=0)
    in_a_row = vector.op("@@")(_once(tsquery(terms, "term"))) if phrased else sa.true()
    return score, in_a_row


def _postgresql_walk_posts(in_topic: bool) -> sa.Select:
    """Posts up to `last` (in the topic `topic_id`), newest first, with their vectors and
    whether they are live: down the primary key, or the topic's own index of posts.

    Liveness is a column, not a condition: as one, it would let the planner walk the index
    of live posts by date instead, and sort all of them by id.
    """
    columns = (
        Post.id.label("post_id"),
        Post.published_at,
        live(NOW).label("live"),
        PG_VECTOR.label("vector"),
    )
    if not in_topic:
        return sa.select(*columns).where(Post.id <= _LAST).order_by(Post.id.desc())
    posts = sa.select(*columns).join(PostTopic, PostTopic.post_id == Post.id)
    posts = posts.where(PostTopic.topic_id == _TOPIC, PostTopic.post_id <= _LAST)
    return posts.order_by(PostTopic.post_id.desc())


@functools.lru_cache(maxsize=512)
def _postgresql_walk(
    terms: tuple[bool, ...], words: tuple[bool, ...], phrased: bool, in_topic: bool
) -> sa.Select:
    """The `walk` newest posts up to `last`: the live ones holding every word, newest first,
    with, on every row, the oldest id read and how many posts were read (one row of those
    alone when none holds the words)."""
    words_query = tsquery(words, "word", in_a_row=False)
    # Words PostgreSQL does not index (stop words like "the") leave an empty query, which
    # no post matches: then nothing is read at all (a test made once, before the walk).
    posts = _postgresql_walk_posts(in_topic).where(sa.func.numnode(words_query) > 0)
    # MATERIALIZED: the walk back is a plan of its own, which no estimate of the words can
    # turn into fetching every match from the index.
    recent = posts.limit(_WALK).cte("recent").prefix_with("MATERIALIZED")
    score, in_a_row = _postgresql_columns(recent.c.vector, terms, phrased)
    held = recent.c.vector.op("@@")(_once(words_query))
    matches = (
        sa.select(
            recent.c.post_id,
            recent.c.published_at,
            score.label("score"),
            in_a_row.label("in_a_row"),
        )
        .where(recent.c.live, held)
        .subquery("matches")
    )
    edge = sa.select(
        sa.func.min(recent.c.post_id).label("oldest"), sa.func.count().label("read")
    ).subquery("edge")
    return (
        sa.select(*matches.c, edge.c.oldest, edge.c.read)
        .select_from(edge.outerjoin(matches, sa.true()))
        .order_by(matches.c.post_id.desc().nulls_last())
    )


@functools.lru_cache(maxsize=512)
def _postgresql_index(
    terms: tuple[bool, ...], words: tuple[bool, ...], phrased: bool, in_topic: bool
) -> sa.Select:
    """The `need` newest live posts up to `last` that hold every word, newest first, found
    through the GIN index. The index is the statement's only way to the words: the app's
    generic plans rate a bound tsquery as rare (PostgreSQL's default), and it is rare here,
    since the walk back found it in few posts."""
    held = PG_VECTOR.op("@@")(tsquery(words, "word", in_a_row=False))
    # Only the words here: a condition another index serves (a live post's state and date)
    # could draw the planner to that index, and to reading every live post's vector.
    hits = sa.select(Post.id).where(held).cte("hits").prefix_with("MATERIALIZED")
    columns = (Post.id.label("post_id"), Post.published_at, PG_VECTOR.label("vector"))
    conditions = [live(NOW), Post.id <= _LAST]
    if in_topic:
        conditions.append(_in_topic(Post.id))
    newest = (
        sa.select(*columns)
        .join(hits, hits.c.id == Post.id)
        .where(*conditions)
        .order_by(Post.id.desc())
        .limit(_NEED)
        .subquery("newest")
    )
    score, in_a_row = _postgresql_columns(newest.c.vector, terms, phrased)
    return sa.select(newest.c.post_id, newest.c.published_at, score, in_a_row).order_by(
        newest.c.post_id.desc()
    )


class _PostgreSQL(_Engine):
    """PostgreSQL: the tsvector column and its GIN index."""

    def candidates(self, query: Query, topic: TopicCount | None, total: int) -> list[Candidate]:
        form = (
            prefix_shape(query.terms),
            prefix_shape(query.words),
            query.phrased,
            topic is not None,
        )
        values = _values(topic_id=topic.topic.id if topic is not None else None)
        values |= tsquery_values(query.terms, "term")
        values |= tsquery_values(query.words, "word", in_a_row=False)
        for name, weight in (("title", "A"), ("summary", "B")):
            values[name] = " | ".join(
                tsquery_lexeme(term.text) + (":*" if term.prefix else ":") + weight
                for term in query.words
            )
        want = RANKED_MATCHES + 1
        found: list[Candidate] = []
        walk, last, read = WALK, _ID_LIMIT, 0
        while True:
            rows = list(
                database.read(_postgresql_walk(*form), values | {"walk": walk, "last": last})
            )
            oldest, count = rows[0][4], rows[0][5]
            found += [Candidate(*row[:4]) for row in rows if row[0] is not None]
            read += count
            if len(found) >= want or count < walk or oldest is None:
                return found[:want]  # enough, or no older post
            last, need = oldest - 1, want - len(found)
            share = len(found) / read  # of the posts read, those holding the words
            to_read = need / share if share else math.inf
            # Reading a post costs about WALK_COST of the index's hits, and the index would
            # hit about `share` of the older posts (ids count them, roughly).
            if read + to_read > WALK_LIMIT or to_read * WALK_COST > share * last:
                index = _postgresql_index(*form)
                rows = list(database.read(index, values | {"need": need, "last": last}))
                return found + [Candidate(*row) for row in rows]
            walk = min(WALK_LIMIT - read, math.ceil(to_read * 1.25))


def _engine() -> _Engine:
    """The search engine of the database the app talks to."""
    dialect = db.session.get_bind().dialect.name
    if dialect == "sqlite":
        return _SQLite()
    if dialect == "postgresql":
        return _PostgreSQL()
    raise RuntimeError(f"Full-text search supports SQLite and PostgreSQL, not {dialect}.")


# --- The one query function ------------------------------------------------------------------


@dataclass(frozen=True)
class Results:
    """One page of search results, with a highlighted excerpt for each post that has one.

    `page.total` counts the results a reader can page through: the matches among the
    RANKED_MATCHES latest posts that hold every word. `more` says that more posts hold them.
    `left_out` names the words of the text past MAX_WORDS, which were not searched.
    """

    page: paging.Page[listing.Card]
    snippets: dict[int, Markup] = field(default_factory=dict)
    searchable: bool = True
    more: bool = False
    left_out: tuple[str, ...] = ()


@functools.cache
def _cards_statement() -> sa.Select:
    """The cards of the posts `ids` (the listing's columns), each with the start of its body
    for the excerpt (one character more than the window, to tell whether the body goes on).
    PostgreSQL decompresses a stored body only as far as substr() reads."""
    window = sa.func.substr(Post.body_html, 1, SNIPPET_WINDOW + 1)
    ids = sa.bindparam("ids", expanding=True, type_=sa.Integer)
    # Read as the listing reads its cards, so both show the same card.
    return listing.card_select(window).where(Post.id.in_(ids))


def search_posts(
    text: str,
    *,
    topic: ListedTopic | None = None,
    number: int = 1,
    per_page: int = 12,
    counts: TopicFilter | None = None,
) -> Results:
    """One page of the live posts that contain every term of `text`, best match first: the
    words in the title, then in the summary or the topics, then anywhere; among equals the
    newest post first.

    At most MAX_WORDS distinct words are searched (`left_out` names the others). Only the
    RANKED_MATCHES most recently added posts holding every word are looked at (so a search
    costs the same on a large blog); `more` says when there were others. A text with
    nothing to search (no letter or digit) has no results and `searchable` False.
    `counts`, the topic filter when the caller has read it, saves reading it again.
    """
    query = limit_terms(parse_query(text))
    if not query.terms:
        return Results(paging.Page([], number, per_page, 0), searchable=False)
    if topic is not None and counts is None:
        counts = listing.topic_filter()
    entry = counts.of(topic.slug) if topic is not None and counts is not None else None
    if topic is not None and entry is None:  # no live post is filed under it
        return Results(paging.Page([], number, per_page, 0), left_out=query.left_out)
    total = counts.total if counts is not None else 0
    offset = (number - 1) * per_page
    found = _engine().ranked_page(query, entry, total, per_page, offset)
    empty: paging.Page[listing.Card] = paging.Page([], number, per_page, found.ranked)
    if not found.ids:
        return Results(empty, more=found.more, left_out=query.left_out)
    pattern = marker(query.terms)
    by_id: dict[int, listing.Card] = {}
    snippets: dict[int, Markup] = {}
    for row in database.read(_cards_statement(), {"ids": found.ids}):
        card, start = listing.card_from(row), row[-1]
        by_id[card.id] = card
        if start and pattern is not None:
            snippet = body_excerpt(start, pattern)
            if snippet is not None:
                snippets[card.id] = snippet
    posts = [by_id[post_id] for post_id in found.ids if post_id in by_id]
    page = paging.Page(posts, number, per_page, found.ranked)
    return Results(page, snippets, more=found.more, left_out=query.left_out)


def include_object(
    obj: object, name: str | None, type_: str, reflected: bool, compare_to: object
) -> bool:
    """Alembic filter: leave the search index (unmapped, made by migration 0004) out of diffs."""
    if type_ == "table":
        return name not in INDEX_TABLES
    if type_ == "column" and compare_to is None:
        table = getattr(getattr(obj, "table", None), "name", None)
        return (table, name) != INDEX_COLUMN
    if type_ == "index":
        return name not in INDEX_NAMES
    return True


# --- The page ----------------------------------------------------------------------------


def _topics(slug: str, shown: bool) -> tuple[ListedTopic | None, TopicFilter | None]:
    """The topic named by the `topic` parameter (none when empty; 404 when no live post is
    filed under it), and the topic filter with its counts when the page shows the topics
    or searches in one: one statement, or none."""
    if not slug and not shown:
        return None, None
    found = listing.topic_filter()
    if not slug:
        return None, found
    entry = found.of(slug)
    if entry is None:
        abort(404, description="There is no topic by that name to search in.")
    return entry.topic, found


def search_url(text: str, topic: ListedTopic | None, page: int = 1) -> str:
    """The address of a search state (page 1 and no topic leave their parameters out)."""
    args: dict[str, Any] = {"q": text}
    if topic is not None:
        args["topic"] = topic.slug
    if page > 1:
        args["page"] = page
    return url_for("search.search_page", **args)


def notices(was_cut: bool, results: Results | None) -> list[str]:
    """What the page says about the text searched: what it cut and what it left out. Shown
    above the results and announced with them."""
    return text_notices(was_cut, results.left_out if results is not None else ())


def _status(text: str, results: Results | None, said: list[str]) -> str:
    """What the header's live region announces after a search swaps in."""
    if results is None:
        return ""
    total = results.page.total
    if total == 0:
        status = f"No results for \u201c{text}\u201d"
    else:
        status = f"{total:,} result{'s' if total != 1 else ''} for \u201c{text}\u201d"
    if results.more:
        said = [more_notice(RANKED_MATCHES), *said]
    return f"{status}. {' '.join(said)}" if said else status


@bp.get("/search")
def search_page() -> Response:
    """Search results as a whole page, or the fragment an htmx swap asks for.

    It reads only `q`, `topic`, `page` and the swap target: the page cache keys on them
    (CACHED_ROUTES in blog/reading/views.py).
    """
    text, was_cut = clean_query(request.args.get("q", ""))
    number = page_number()
    block = htmx.fragment_for(SEARCH_FRAGMENTS)
    slug = request.args.get("topic", "").strip()
    # No slug holds a NUL, and PostgreSQL refuses one in a query.
    if "\x00" in slug:
        abort(404, description="There is no topic by that name to search in.")
    shown = block in (None, "search_main")
    topic, counts = _topics(slug, shown)
    check = validators.validator(
        "search",
        text,
        was_cut,
        topic.slug if topic else None,
        number,
        block,
        state=counts.state if counts is not None else None,
    )
    early = validators.not_modified(check, vary=htmx.VARY, personal=True)
    if early is not None:
        return early
    per_page = current_app.config["POSTS_PER_PAGE"]
    results = None
    if text:
        results = search_posts(text, topic=topic, number=number, per_page=per_page, counts=counts)
        if number > results.page.pages:
            abort(404, description="That page is past the end of the results.")
    said = notices(was_cut, results)
    title = f"\u201c{text}\u201d \u00b7 Search" if text else "Search"
    response = htmx.render(
        "public/search.html",
        block,
        search_query=text,
        notices=said,
        more_notice=more_notice(RANKED_MATCHES),
        topic=topic,
        topics=[entry.topic for entry in counts.topics] if shown and counts else [],
        footer_topics=counts.topics if counts else [],
        results=results,
        status_text=_status(text, results, said),
        page_title=f"{title} \u00b7 {current_app.config['SITE_NAME']}",
        page_url=lambda page: search_url(text, topic, page),
        all_topics_url=search_url(text, None),
    )
    return validators.cacheable(response, check, vary=htmx.VARY, personal=True)
