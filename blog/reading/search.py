"""Full-text search over live posts: one query function for both stores, and the /search page.

SQLite searches the FTS5 table `post_search`, PostgreSQL the `posts.search_vector` column;
migration 0004_search creates both and the triggers that keep them current on every write.
The reader's text never reaches either engine's query syntax: it is split into terms here,
and each term is passed as a quoted string (FTS5) or as bound text (PostgreSQL). At most
MAX_WORDS distinct words are searched, and excerpts are cut here from the first
SNIPPET_WINDOW characters of each body shown, never by an engine over a whole body.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import Blueprint, abort, current_app, request, url_for
from flask.wrappers import Response
from markupsafe import Markup, escape
from sqlalchemy.dialects import postgresql as pg

from blog.extensions import db
from blog.models import PUBLISHED, Post, PostTopic, Topic, live, scheduled
from blog.reading import listing
from blog.web import headers, htmx, validators
from blog.web.params import page_number

bp = Blueprint("search", __name__)

MAX_QUERY_LENGTH = 200
# Distinct words a search looks for. Each word costs the engines a pass over its index
# entries (and FTS5 scores every term as a phrase of its own), so a search of 200 characters
# of common words would cost many times one of a few words.
MAX_WORDS = 8
# Excerpts wrap matched words in these private-use characters (taken out of the post's text
# first); only after the excerpt is escaped do they become <mark> tags, so a post's own text
# can never open a tag.
MARK_OPEN, MARK_CLOSE = "\ue000", "\ue001"
ELLIPSIS = "\u2026"
SNIPPET_WORDS = 28
# Words of context before the first marked word of an excerpt.
SNIPPET_LEAD_WORDS = 6
# How much of a body an excerpt is cut from: a match further in shows the card alone.
SNIPPET_WINDOW = 20_000

# Swap targets on the search page and the blocks of public/search.html that fill them.
SEARCH_FRAGMENTS = {
    "main": "search_main",
    "search-results": "results",
    "result-list": "more_results",
}

# bm25() column weights on SQLite, in the FTS table's column order: title, summary, body, topics.
BM25_WEIGHTS = (10.0, 4.0, 1.0, 2.0)
FTS_TABLE = sa.table("post_search", sa.column("rowid", sa.Integer))
FTS_NAME: sa.ColumnElement[str] = sa.literal_column("post_search")
# Post ids and publish dates read through ix_posts_search_live (SQLAlchemy has no SQLite
# index hints, so the hinted select is written out).
SQLITE_LIVE = (
    sa.text("SELECT id, published_at FROM posts INDEXED BY ix_posts_search_live")
    .columns(sa.column("id", sa.Integer), sa.column("published_at", sa.DateTime))
    .subquery("live")
)
# A query matching more posts than this ranks the most recently added this many of them (the
# count still covers all): ranking is the costly part, and grows with the number of matches.
RANKED_MATCHES = 1000
# The last word grows as a prefix from this length: one letter would match half the index.
MIN_PREFIX = 2

PG_CONFIG: sa.ColumnElement[str] = sa.literal_column("'english'::regconfig")
PG_VECTOR = sa.literal_column("posts.search_vector", pg.TSVECTOR)

# The unmapped objects that hold the index: kept out of model-vs-schema comparisons.
INDEX_TABLES = frozenset(
    ["post_search"]
    + [f"post_search_{part}" for part in ("data", "idx", "content", "docsize", "config")]
)
INDEX_COLUMN = ("posts", "search_vector")
INDEX_NAMES = frozenset({"ix_posts_search_vector", "ix_posts_search_live"})

_TERMS = re.compile(r'"([^"]*)("?)|([^\s"]+)')
_WORDS = re.compile(r"[^\W_]+")
_LAST_WORD = re.compile(r"[^\W_]+[\W_]*$")
_HEADING = re.compile(r"(^|\s)#{1,6}(?=\s)")
_FENCE = re.compile(r"`{3,}\w*|~{3,}\w*")


# --- The reader's text -------------------------------------------------------------------


def clean_query(raw: str) -> tuple[str, bool]:
    """The text to search: control characters and runs of space gone, cut to 200 characters.

    Returns the text and whether it had to be cut.
    """
    visible = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in raw)
    text = " ".join(visible.split())
    if len(text) <= MAX_QUERY_LENGTH:
        return text, False
    return text[:MAX_QUERY_LENGTH].rstrip(), True


def _searchable(text: str) -> bool:
    """True when the text holds a letter or digit, the only characters the engines index."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in text)


@dataclass(frozen=True)
class Term:
    """Something every result must contain: a word, or words in a row (a quoted phrase).

    `prefix` marks the last term the reader is still typing: its last word (from two
    characters on) also matches longer words that start with it.
    """

    text: str
    prefix: bool = False

    @property
    def words(self) -> list[str]:
        """The term's letters-and-digits runs."""
        return _WORDS.findall(self.text)


def parse_query(text: str) -> list[Term]:
    """Split the reader's text into terms; quotes make phrases, everything else is literal."""
    terms: list[tuple[str, bool]] = []
    for phrase, closing, word in _TERMS.findall(text):
        body = word or phrase
        if _searchable(body):
            # A closed phrase is finished; a bare word or an open quote may still be growing.
            terms.append((body.strip(), bool(word) or not closing))
    if not terms:
        return []
    *done, (last, growing) = terms
    words = _WORDS.findall(last)
    if growing and (not words or len(words[-1]) < MIN_PREFIX):
        # One letter of a new word says too little to search on: leave it out until the
        # next keystroke, unless it is all there is.
        shorter = _LAST_WORD.sub("", last).strip()
        if _searchable(shorter):
            return [Term(body) for body, _ in done] + [Term(shorter)]
        if done:
            return [Term(body) for body, _ in done]
        return [Term(last)]
    return [Term(body) for body, _ in done] + [Term(last, prefix=growing)]


@dataclass(frozen=True)
class Query:
    """The terms a search looks for, and the words of the reader's text it leaves out."""

    terms: tuple[Term, ...]
    left_out: tuple[str, ...] = ()


def _key(words: Iterable[str]) -> tuple[str, ...]:
    """What makes two terms the same search, whatever their case or punctuation."""
    return tuple(word.casefold() for word in words)


def limit_terms(terms: Sequence[Term]) -> Query:
    """The terms with repeats dropped and at most MAX_WORDS words in all, in the reader's order.

    A repeat changes no result, so it goes silently (a repeated word while typing is also
    one the reader finished before: that one stays). Words past the limit are named in
    `left_out`, a phrase that crosses it is cut there, so the page can say what was not
    searched.
    """
    kept: list[Term] = []
    seen: set[tuple[str, ...]] = set()
    left_out: list[str] = []
    room = MAX_WORDS
    for term in terms:
        words = term.words
        if _key(words) in seen:
            continue
        if room == 0:
            left_out.append(" ".join(words))
            continue
        if len(words) > room:
            cut = [match.end() for match in _WORDS.finditer(term.text)][room - 1]
            left_out.append(" ".join(words[room:]))
            term = Term(term.text[:cut])
            words = term.words
            if _key(words) in seen:
                continue
        seen.add(_key(words))
        kept.append(term)
        room -= len(words)
    return Query(tuple(kept), tuple(left_out))


# --- Queries on each engine --------------------------------------------------------------


def _fts5_match(terms: Sequence[Term]) -> str:
    """An FTS5 query: every term as a quoted string (so no operator survives), ANDed."""
    parts = []
    for term in terms:
        quoted = '"' + term.text.replace('"', '""') + '"'
        parts.append(f"{quoted} *" if term.prefix else quoted)
    return " AND ".join(parts)


def _tsquery_lexeme(word: str) -> str:
    """A word as a quoted to_tsquery lexeme."""
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def _tsquery(terms: Sequence[Term]) -> sa.ColumnElement:
    """A PostgreSQL tsquery for the terms; the reader's text only ever travels as bound text."""
    query: sa.ColumnElement | None = None
    for term in terms:
        part: sa.ColumnElement = sa.func.phraseto_tsquery(PG_CONFIG, term.text, type_=pg.TSQUERY)
        words = term.words
        if term.prefix and words:
            lexemes = " <-> ".join(_tsquery_lexeme(word) for word in words) + ":*"
            prefix = sa.func.to_tsquery(PG_CONFIG, lexemes, type_=pg.TSQUERY)
            part = part.op("||", return_type=pg.TSQUERY)(prefix)
        query = part if query is None else query.op("&&", return_type=pg.TSQUERY)(part)
    assert query is not None
    return query


def _in_topic(
    post_id: sa.ColumnElement[int] | so.InstrumentedAttribute[int], topic: Topic
) -> sa.ColumnElement[bool]:
    """The post is filed under the topic.

    A correlated EXISTS (one primary-key probe per match), not `rowid IN (...)`: SQLite
    would hand an IN list to FTS5 as rowid lookups and rerun the MATCH once per listed post.
    """
    link = sa.select(PostTopic.post_id).where(
        PostTopic.post_id == post_id, PostTopic.topic_id == topic.id
    )
    return link.exists()


@dataclass(frozen=True)
class Ranked:
    """One page of matching post ids, best first, and how many posts match in all."""

    ids: list[int]
    ranked: int
    total: int


class _Engine:
    """How one database finds, ranks and counts matches."""

    def ranked_page(
        self, terms: Sequence[Term], topic: Topic | None, limit: int, offset: int
    ) -> Ranked:
        """One page of matches ranked by relevance, newest first among equals."""
        raise NotImplementedError


class _SQLite(_Engine):
    """SQLite FTS5 over published posts, ranked with bm25()."""

    def _conditions(self, terms: Sequence[Term], topic: Topic | None) -> list:
        # The index holds published posts only; hide those whose publish time is still ahead
        # (two index ranges: an OR here would make SQLite walk every published post).
        hidden = sa.union_all(
            sa.select(Post.id).where(scheduled()),
            sa.select(Post.id).where(Post.status == PUBLISHED, Post.published_at.is_(None)),
        )
        conditions: list[sa.ColumnElement[bool]] = [
            FTS_NAME.op("MATCH")(_fts5_match(terms)),
            FTS_TABLE.c.rowid.not_in(hidden),
        ]
        if topic is not None:
            conditions.append(_in_topic(FTS_TABLE.c.rowid, topic))
        return conditions

    def ranked_page(
        self, terms: Sequence[Term], topic: Topic | None, limit: int, offset: int
    ) -> Ranked:
        conditions = self._conditions(terms, topic)
        # bm25() only works in the statement that runs the MATCH, so matches are scored in a
        # CTE, latest added first up to the cap. MATERIALIZED makes SQLite run the full-text query
        # once; left free, its planner may walk the posts and run the MATCH once per post.
        matches = (
            sa.select(
                FTS_TABLE.c.rowid.label("post_id"),
                sa.func.bm25(FTS_NAME, *BM25_WEIGHTS).label("score"),
            )
            .where(*conditions)
            .order_by(FTS_TABLE.c.rowid.desc())
            .limit(RANKED_MATCHES)
            .cte("matches")
            .prefix_with("MATERIALIZED")
        )
        size = sa.select(sa.func.count()).select_from(matches).scalar_subquery()
        # Each match's publish date (the tie-break) comes from the narrow index: by rowid,
        # SQLite would read the post's row, body and all, overflow pages included.
        live = SQLITE_LIVE
        query = (
            sa.select(live.c.id, size)
            .join(matches, matches.c.post_id == live.c.id)
            .order_by(matches.c.score, live.c.published_at.desc(), live.c.id.desc())
            .limit(limit)
            .offset(offset)
        )
        rows = db.session.execute(query).all()
        ranked: int = rows[0][1] if rows else db.session.scalar(sa.select(size)) or 0
        total = ranked
        if ranked >= RANKED_MATCHES:  # capped: count every match (cheap without bm25)
            count = sa.select(sa.func.count()).select_from(FTS_TABLE).where(*conditions)
            total = db.session.scalar(count) or 0
        return Ranked([row[0] for row in rows], ranked, total)


# Planner switches for the PostgreSQL ranking statement (see _through_the_gin_index).
_PLANNER_SETTINGS = "('enable_seqscan', 'enable_indexscan')"
_PLANNER_GIN_ONLY = sa.text(
    f"SELECT set_config(name, 'off', true) FROM pg_settings WHERE name IN {_PLANNER_SETTINGS}"
)
_PLANNER_DEFAULTS = sa.text(
    f"SELECT set_config(name, reset_val, true) FROM pg_settings WHERE name IN {_PLANNER_SETTINGS}"
)


@contextmanager
def _through_the_gin_index() -> Iterator[None]:
    """Make PostgreSQL's planner find matches through the GIN index, for one statement.

    Its cost model does not count the work of unpacking each post's stored tsvector, so for
    a common word it prefers to scan the table and test every row, which is many times
    slower than the index (a second, against ten milliseconds, at 100,000 posts). The
    switches are local to the transaction and put back right after the statement.
    """
    db.session.execute(_PLANNER_GIN_ONLY)
    try:
        yield
    finally:
        db.session.execute(_PLANNER_DEFAULTS)


class _PostgreSQL(_Engine):
    """PostgreSQL: the GIN-indexed tsvector, ranked with ts_rank_cd()."""

    def ranked_page(
        self, terms: Sequence[Term], topic: Topic | None, limit: int, offset: int
    ) -> Ranked:
        query = _tsquery(terms)
        conditions: list[sa.ColumnElement[bool]] = [PG_VECTOR.op("@@")(query), live()]
        if topic is not None:
            conditions.append(_in_topic(Post.id, topic))
        # Every matching id (for the count), then the latest added up to the cap (to rank).
        found = (
            sa.select(Post.id.label("post_id"))
            .where(*conditions)
            .cte("found")
            .prefix_with("MATERIALIZED")
        )
        candidates = (
            sa.select(found.c.post_id)
            .order_by(found.c.post_id.desc())
            .limit(RANKED_MATCHES)
            .cte("candidates")
            .prefix_with("MATERIALIZED")
        )
        total = sa.select(sa.func.count()).select_from(found).scalar_subquery()
        ranked = sa.select(sa.func.count()).select_from(candidates).scalar_subquery()
        # Normalisation 1 divides by the log of the length: long posts do not win by size.
        score = sa.func.ts_rank_cd(PG_VECTOR, query, 1)
        page = (
            sa.select(Post.id, ranked, total)
            .join(candidates, candidates.c.post_id == Post.id)
            .order_by(score.desc(), Post.published_at.desc(), Post.id.desc())
            .limit(limit)
            .offset(offset)
        )
        with _through_the_gin_index():
            rows = db.session.execute(page).all()
            counts = rows[0][1:] if rows else db.session.execute(sa.select(ranked, total)).one()
        return Ranked([row[0] for row in rows], *counts)


def _engine() -> _Engine:
    """The search engine of the database the app talks to."""
    dialect = db.session.get_bind().dialect.name
    if dialect == "sqlite":
        return _SQLite()
    if dialect == "postgresql":
        return _PostgreSQL()
    raise RuntimeError(f"Full-text search supports SQLite and PostgreSQL, not {dialect}.")


# --- Snippets ----------------------------------------------------------------------------

# Endings a word may have or lack and still be the reader's word ("checkpointing" marks
# "checkpoint", "latency" marks "latencies"): close to what the engines' stemmers fold
# together, for marking only (which posts match is the engines' business).
_ENDINGS = sorted(
    "s es ies ied ed d e y er ers ly ing ings ion ions ation ations ment ments ness".split(),  # noqa: SIM905
    key=len,
    reverse=True,
)
_ENDING = "(?:" + "|".join(_ENDINGS) + ")?"
_STEM_FLOOR = 3  # an ending is taken off only when this many letters stay
_AFTER_WORD = r"(?![^\W_])"
_SPACED = re.compile(r"\S+")


def _stem(word: str) -> str:
    """The word without the longest ending that leaves it at least three letters long."""
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= _STEM_FLOOR:
            return word[: -len(ending)]
    return word


def _term_pattern(term: Term) -> str:
    """A regular expression for the term in lower-cased text: its words in a row, each with
    or without an ending (the last word of a prefix with any ending)."""
    words = [word.lower() for word in term.words]
    parts = [re.escape(_stem(word)) + _ENDING for word in words]
    if term.prefix:  # the word typed so far, finished or not
        parts[-1] = f"(?:{re.escape(words[-1])}[^\\W_]*|{parts[-1]})"
    return r"[\W_]+".join(parts) + _AFTER_WORD


def marker(terms: Sequence[Term]) -> re.Pattern[str] | None:
    """One pattern that finds any of the terms in lower-cased text (None without terms).

    It starts with the words' own letters and has no groups, so the regular expression
    engine skips to likely places instead of trying every position.
    """
    patterns = [_term_pattern(term) for term in terms if term.words]
    return re.compile("|".join(patterns)) if patterns else None


def _lower(text: str) -> str:
    """The text in lower case, character for character (offsets stay valid)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(low if len(low := ch.lower()) == 1 else ch for ch in text)


def _found(pattern: re.Pattern[str], text: str, lowered: str, start: int, end: int):
    """The pattern's matches in text[start:end] that begin a word."""
    for match in pattern.finditer(lowered, start, end):
        at = match.start()
        if at == 0 or not text[at - 1].isalnum():
            yield match


def excerpt(window: str, pattern: re.Pattern[str], cut: bool) -> Markup | None:
    """A one-line excerpt around the first match in `window` (the start of a body; `cut`
    when the body goes on), its matches marked, or None when nothing in it matches.

    The window is read once for its first match; the excerpt is cut from the few hundred
    characters around it, so its cost does not grow with the body.
    """
    text = window.replace(MARK_OPEN, " ").replace(MARK_CLOSE, " ")
    lowered = _lower(text)
    first = next(_found(pattern, text, lowered, 0, len(text)), None)
    if first is None:
        return None
    # A few words of context before the match (none cut in two), then SNIPPET_WORDS words.
    before = max(0, first.start() - 120)
    starts = [word.start() for word in _SPACED.finditer(text, before, first.start())]
    if before > 0 and not text[before - 1].isspace():
        starts = starts[1:]
    start = starts[-SNIPPET_LEAD_WORDS:][0] if starts else first.start()
    words = _SPACED.finditer(text, start, start + 600)
    ends = [word.end() for _, word in zip(range(SNIPPET_WORDS), words, strict=False)]
    end = max(ends[-1] if ends else first.end(), first.end())
    parts: list[str] = []
    at = start
    for match in _found(pattern, text, lowered, start, end):
        parts += [text[at : match.start()], MARK_OPEN, text[match.start() : match.end()]]
        parts.append(MARK_CLOSE)
        at = match.end()
    parts.append(text[at:end])
    body = _tidy("".join(parts))
    before = f"{ELLIPSIS} " if start > 0 else ""
    after = f" {ELLIPSIS}" if end < len(text) or cut else ""
    return highlighted(before + body + after)


def highlighted(snippet: str) -> Markup:
    """Escape a snippet and turn its markers into balanced <mark> tags."""
    parts: list[str] = []
    inside = False
    for piece in re.split(f"([{MARK_OPEN}{MARK_CLOSE}])", snippet):
        if piece in (MARK_OPEN, MARK_CLOSE):
            opening = piece == MARK_OPEN
            if opening != inside:
                parts.append("<mark>" if opening else "</mark>")
                inside = opening
        else:
            parts.append(str(escape(piece)))
    if inside:
        parts.append("</mark>")
    return Markup("".join(parts))


def _tidy(snippet: str) -> str:
    """Drop the Markdown that reads as noise in a one-line excerpt (heading marks, fences)."""
    return " ".join(_HEADING.sub(r"\1", _FENCE.sub(" ", snippet)).split())


# --- The one query function ------------------------------------------------------------------


@dataclass(frozen=True)
class Results:
    """One page of search results, with a highlighted excerpt for each post that has one.

    `page.total` counts the results a reader can page through: all matches, or the latest
    RANKED_MATCHES of them when more match. `matched` counts every match. `left_out` names
    the words of the text past MAX_WORDS, which were not searched.
    """

    page: listing.Page
    matched: int = 0
    snippets: dict[int, Markup] = field(default_factory=dict)
    searchable: bool = True
    left_out: tuple[str, ...] = ()

    @property
    def capped(self) -> bool:
        """True when more posts match than are ranked."""
        return self.matched > self.page.total


@functools.cache
def _cards_statement() -> sa.Select:
    """The cards of the posts `ids`, each with the start of its body for the excerpt (one
    character more than the window, to tell whether the body goes on). PostgreSQL
    decompresses a stored body only as far as substr() reads."""
    window = sa.func.substr(Post.body_markdown, 1, SNIPPET_WINDOW + 1)
    cards = (*listing.CARD_OPTIONS, so.joinedload(Post.primary_topic))
    ids = sa.bindparam("ids", expanding=True, type_=sa.Integer)
    return sa.select(Post, window).where(Post.id.in_(ids)).options(*cards)


def search_posts(
    text: str, *, topic: Topic | None = None, number: int = 1, per_page: int = 12
) -> Results:
    """One page of the live posts that contain every term of `text`, best match first.

    At most MAX_WORDS distinct words are searched (`left_out` names the others). Ties in
    relevance go to the newest post. When more than RANKED_MATCHES posts match, the
    RANKED_MATCHES most recently added of them are ranked (so a one-word query on a large blog stays
    fast); the count still covers them all. A text with nothing to search (no letter or
    digit) has no results and `searchable` False.
    """
    query = limit_terms(parse_query(text))
    terms = query.terms
    if not terms:
        return Results(listing.Page([], number, per_page, 0), searchable=False)
    engine = _engine()
    found = engine.ranked_page(terms, topic, per_page, (number - 1) * per_page)
    if not found.ids:
        empty = listing.Page([], number, per_page, found.ranked)
        return Results(empty, found.total, left_out=query.left_out)
    pattern = marker(query.terms)
    by_id: dict[int, Post] = {}
    snippets: dict[int, Markup] = {}
    for post, start in db.session.execute(_cards_statement(), {"ids": found.ids}):
        by_id[post.id] = post
        if start and pattern is not None:
            snippet = excerpt(start[:SNIPPET_WINDOW], pattern, len(start) > SNIPPET_WINDOW)
            if snippet is not None:
                snippets[post.id] = snippet
    posts = [by_id[post_id] for post_id in found.ids if post_id in by_id]
    page = listing.Page(posts, number, per_page, found.ranked)
    return Results(page, found.total, snippets, left_out=query.left_out)


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


def _topic() -> Topic | None:
    """The `topic` query parameter as a topic (none when empty; 404 when unknown)."""
    slug = request.args.get("topic", "").strip()
    if not slug:
        return None
    # No slug holds a NUL, and PostgreSQL refuses one in a query.
    topic = listing.topic_by_slug(slug) if "\x00" not in slug else None
    if topic is None:
        abort(404, description="There is no topic by that name to search in.")
    return topic


def search_url(text: str, topic: Topic | None, page: int = 1) -> str:
    """The address of a search state (page 1 and no topic leave their parameters out)."""
    args: dict[str, Any] = {"q": text}
    if topic is not None:
        args["topic"] = topic.slug
    if page > 1:
        args["page"] = page
    return url_for("search.search_page", **args)


def notices(was_cut: bool, results: Results | None) -> list[str]:
    """What the page says about the search itself: text it cut or left out. Shown above the
    results and announced with them."""
    said = []
    if was_cut:
        said.append(
            f"Searches are limited to {MAX_QUERY_LENGTH} characters: "
            f"only the first {MAX_QUERY_LENGTH} were used."
        )
    if results is not None and results.left_out:
        left = " ".join(results.left_out)
        verb = "was" if len(left.split()) == 1 else "were"
        said.append(
            f"Searches are limited to {MAX_WORDS} different words: "
            f"\u201c{left}\u201d {verb} not searched."
        )
    return said


def _status(text: str, results: Results | None, said: list[str]) -> str:
    """What the header's live region announces after a search swaps in."""
    if results is None:
        return ""
    total = results.matched
    if total == 0:
        status = f"No results for \u201c{text}\u201d"
    else:
        status = f"{total:,} result{'s' if total != 1 else ''} for \u201c{text}\u201d"
    return f"{status}. {' '.join(said)}" if said else status


def _topics_for_select(chosen: Topic | None) -> list[Topic]:
    """The select's topics, including the chosen one even when it has no live posts."""
    topics = listing.topics_with_posts()
    if chosen is not None and all(topic.id != chosen.id for topic in topics):
        topics.append(chosen)
    return topics


@bp.get("/search")
def search_page() -> Response:
    """Search results as a whole page, or the fragment an htmx swap asks for."""
    text, was_cut = clean_query(request.args.get("q", ""))
    number = page_number()
    topic = _topic()
    block = htmx.fragment_for(SEARCH_FRAGMENTS)
    check = validators.validator(
        "search", text, was_cut, topic.slug if topic else None, number, block
    )
    early = validators.not_modified(check, vary=htmx.VARY, personal=True)
    if early is not None:
        return early
    per_page = current_app.config["POSTS_PER_PAGE"]
    results = None
    if text:
        results = search_posts(text, topic=topic, number=number, per_page=per_page)
        if number > results.page.pages:
            abort(404, description="That page is past the end of the results.")
    said = notices(was_cut, results)
    title = f"\u201c{text}\u201d \u00b7 Search" if text else "Search"
    response = htmx.render(
        "public/search.html",
        block,
        search_query=text,
        notices=said,
        topic=topic,
        topics=_topics_for_select(topic) if block in (None, "search_main") else [],
        results=results,
        status_text=_status(text, results, said),
        page_title=f"{title} \u00b7 {current_app.config['SITE_NAME']}",
        page_url=lambda page: search_url(text, topic, page),
        all_topics_url=search_url(text, None),
    )
    return headers.cacheable(response, check, personal=True)
