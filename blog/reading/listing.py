"""The queries behind what readers list: the listing's pages (of all posts, a topic's or an
author's), featured post and picks, the topic filter, feeds and the sitemap. Each is one
plain SQLAlchemy query over live posts."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import abort, current_app
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler

from blog import catalog, database
from blog.catalog import has_live_posts, in_topic
from blog.extensions import db
from blog.models import (
    Author,
    Image,
    Post,
    PostAuthor,
    PostTopic,
    SiteState,
    Topic,
    live,
    max_length,
    scheduled,
    utcnow,
    was_revised,
)
from blog.web import paging, versions
from blog.web.versions import State


@dataclass(frozen=True, slots=True)
class ListedTopic:
    """A topic with live posts as the filter, the footer and its own listing show it, read
    as plain columns like a Card: the filter runs on every page, and loading ORM instances
    for it cost more than running its statement."""

    id: int
    name: str
    slug: str
    description: str


@dataclass(frozen=True)
class TopicCount:
    """A topic in the filter with the number of live posts that carry it."""

    topic: ListedTopic
    count: int


@dataclass(frozen=True)
class TopicFilter:
    """The topic filter: how many live posts there are, in all and in each topic that has
    some (in filter order), and the site's state they were read at (for the page's ETag)."""

    total: int
    topics: list[TopicCount]
    state: State

    def of(self, slug: str) -> TopicCount | None:
        """The entry of the topic with this slug, or None when it has no live posts."""
        return next((entry for entry in self.topics if entry.topic.slug == slug), None)


@dataclass(frozen=True)
class AuthorCount:
    """An author with the number of their live posts."""

    author: Author
    count: int


@dataclass(frozen=True, slots=True)
class CardImage:
    """An uploaded image as a card shows it."""

    sha256: str
    content_type: str
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class Label:
    """A topic or an author as a card names it."""

    name: str
    slug: str


@dataclass(frozen=True, slots=True)
class Card:
    """A live post as a listing card shows it, read as plain columns: loading ORM instances
    for a page of cards cost more than running its statement."""

    id: int
    slug: str
    title: str
    excerpt: str
    published_at: datetime | None
    updated_at: datetime | None
    reading_minutes: int
    image_alt: str | None
    featured: bool
    editors_pick: bool
    illustration: str  # the drawing's spec, when chosen by hand
    authors: tuple[Label, ...]  # in the byline's order
    primary_topic: Label | None
    image: CardImage | None

    @property
    def author(self) -> Label:
        """The first author."""
        return self.authors[0]

    @property
    def was_updated(self) -> bool:
        """True when the post was revised after it was first published."""
        return was_revised(self.published_at, self.updated_at)


class rows_as_json(sa.sql.functions.FunctionElement[Any]):
    """An aggregate: the rows its arguments make, as a JSON array of arrays, in no set order
    (SQLite before 3.44 cannot order an aggregate: put the order in the rows)."""

    type = sa.JSON()
    inherit_cache = True


@compiles(rows_as_json, "sqlite")
def _rows_as_json_sqlite(element: rows_as_json, compiler: SQLCompiler, **kw: Any) -> str:
    """SQLite's spelling."""
    return f"json_group_array(json_array({compiler.process(element.clauses, **kw)}))"


@compiles(rows_as_json, "postgresql")
def _rows_as_json_postgresql(element: rows_as_json, compiler: SQLCompiler, **kw: Any) -> str:
    """PostgreSQL's spelling."""
    return f"json_agg(json_build_array({compiler.process(element.clauses, **kw)}))"


NEWEST_FIRST = (Post.published_at.desc(), Post.id.desc())
_PRIMARY = so.aliased(Topic, name="primary_topic")
_COAUTHOR = so.aliased(Author, name="coauthor")
# A card's authors after the first, read in the card's own row: [[position, name, slug], ...]
# (an empty array, or NULL on PostgreSQL, for the many posts with one author). A probe of
# post_authors' primary key per card, never a query per card.
_COAUTHORS = (
    sa.select(rows_as_json(PostAuthor.position, _COAUTHOR.name, _COAUTHOR.slug))
    .join(_COAUTHOR, _COAUTHOR.id == PostAuthor.author_id)
    .where(PostAuthor.post_id == Post.id, PostAuthor.position > 0)
    .scalar_subquery()
)
# What a card shows, in Card's order: the post's columns, its authors, topic and image.
CARD_COLUMNS = (
    Post.id,
    Post.slug,
    Post.title,
    Post.excerpt,
    Post.published_at,
    Post.updated_at,
    Post.reading_minutes,
    Post.image_alt,
    Post.featured,
    Post.editors_pick,
    Post.illustration,
    Author.name,
    Author.slug,
    _COAUTHORS,
    _PRIMARY.name,
    _PRIMARY.slug,
    Image.sha256,
    Image.content_type,
    Image.width,
    Image.height,
)


# The listing's statements are built once, with the time and the page as bound values: building
# them anew took as long as running them (SQLAlchemy then also caches their compiled form).


NOW = sa.bindparam("now", type_=sa.DateTime)


def _waiting() -> sa.ColumnElement[bool]:
    """Published posts readers cannot see yet: their time has not come (a few at most, found
    by one range of the listing index). Publishing always sets the date."""
    return scheduled(NOW)


@functools.cache
def _filter_statement() -> sa.Select:
    """The topics with live posts, each with its count, and the count of all (`now`)."""
    waiting = (
        sa.select(PostTopic.topic_id, sa.func.count().label("posts"))
        .join(Post, Post.id == PostTopic.post_id)
        .where(_waiting())
        .group_by(PostTopic.topic_id)
        .subquery("waiting")
    )
    live_in_topic = Topic.published_count - sa.func.coalesce(waiting.c.posts, 0)
    waiting_in_all = sa.select(sa.func.count(Post.id)).where(_waiting()).scalar_subquery()
    total = (
        sa.select(SiteState.published_count - waiting_in_all)
        .where(SiteState.id == 1)
        .scalar_subquery()
    )
    # The state row rides along: the page's validator needs it before anything renders, and
    # here it costs no round trip of its own (versions.READ alone was one in three).
    state = versions.READ.subquery("state")
    return (
        sa.select(Topic.id, Topic.name, Topic.slug, Topic.description)
        .add_columns(live_in_topic, total, *state.c)
        .join(state, sa.true())
        .outerjoin(waiting, waiting.c.topic_id == Topic.id)
        .where(live_in_topic > 0)
        .order_by(Topic.position, Topic.name)
    )


def topic_filter() -> TopicFilter:
    """The topic filter, the counts a listing shows and the site's state, in one statement
    (a second only when a scheduled post has come due, or before any topic has posts).

    The triggers of migration 0010 count published posts on every write, at a cost that
    does not grow with the blog; the few published posts still waiting for their time are
    counted here and taken off.
    """
    rows = database.read(_filter_statement(), {"now": utcnow()}).all()
    if rows and State(*rows[0][6:]).publish_due:
        versions.current()  # a scheduled post's time has come: publish it, then read again
        rows = database.read(_filter_statement(), {"now": utcnow()}).all()
    state = State(*rows[0][6:]) if rows else versions.current()
    if not rows:
        return TopicFilter(0, [], state)
    entries = [TopicCount(ListedTopic(*row[:4]), row[4]) for row in rows]
    return TopicFilter(rows[0][5], entries, state)


@dataclass(frozen=True)
class Cards:
    """The posts a listing shows as cards: its page, and the featured post and picks."""

    page: list[Card]
    featured: Card | None = None
    picks: list[Card] = field(default_factory=list)


@functools.cache
def _cards_statement(in_topic: bool, flagged: bool, by_author: bool = False) -> sa.Select:
    """The cards of one page (`now`, `offset`, `limit`; `topic_id` when `in_topic`,
    `author_id` when `by_author`), with the newest featured post
    and the `picks` newest picks when `flagged`, newest first.

    The page's ids come from the listing index alone (an OFFSET over it, never a sort of the
    table; an author's page from the author's indexes, see _credited), and only the posts
    shown are joined to what their cards show. Each row says whether its post is on the page.
    """
    ids = sa.select(Post.id).where(live(NOW))
    if in_topic:  # walking the listing index, a post's topic is one primary-key probe
        filed = sa.select(PostTopic.post_id).where(
            PostTopic.post_id == Post.id, PostTopic.topic_id == sa.bindparam("topic_id")
        )
        ids = ids.where(filed.exists())
    ordered: sa.Select | sa.CompoundSelect = ids.order_by(*NEWEST_FIRST)
    if by_author:
        ordered = _credited(sa.bindparam("author_id"), NOW)
    # A CTE, read twice below but worked out once.
    page_ids = ordered.offset(sa.bindparam("offset")).limit(sa.bindparam("limit")).cte("page_ids")
    on_page = Post.id.in_(sa.select(page_ids.c.id))
    shown_ids: sa.Select | sa.CompoundSelect = sa.select(page_ids.c.id)
    if flagged:
        newest_live = sa.select(Post.id).where(live(NOW)).order_by(*NEWEST_FIRST)
        # A topic's page features a post of that topic, or none.
        featured = newest_live.where(Post.featured.is_(True))
        if in_topic:
            featured = featured.where(filed.exists())
        featured_id = featured.limit(1).subquery("featured")
        pick_ids = newest_live.where(Post.editors_pick.is_(True)).limit(sa.bindparam("picks"))
        picked = pick_ids.subquery("picks")
        shown_ids = sa.union(shown_ids, sa.select(featured_id.c.id), sa.select(picked.c.id))
    # Joined to the ids shown, not filtered by an OR of them: PostgreSQL would read every
    # post to test the OR.
    shown = shown_ids.subquery("shown")
    return (
        card_select(on_page.label("on_page"))
        .join(shown, shown.c.id == Post.id)
        .order_by(*NEWEST_FIRST)
    )


def _credited(
    author_id: int | sa.BindParameter[int], now: datetime | sa.BindParameter[datetime]
) -> sa.CompoundSelect:
    """The live posts that credit the author (`id`, `published_at`), newest first: add the
    page's offset and limit.

    Two branches, each post in one of them: the posts they wrote first, from
    ix_posts_author_listing in order (the post holds its first author), and those they
    co-wrote, from ix_post_authors_author, sorted (a few, for most authors). SQLite merges
    the two in order and stops at the page's end; PostgreSQL appends them and keeps the
    page's top rows. Measured on 100,000 posts, for an author with 8,400 who co-wrote none:
    page 700 took 1.0 ms on SQLite (0.5 before co-authors), every page 2.1 ms on PostgreSQL
    (0.4 to 1.1 before). A LIMIT on each branch instead made SQLite sort every row up to
    the page (3.8 ms at page 700) and PostgreSQL walk the whole listing to find the posts
    the author co-wrote (74 ms at page 1).
    """
    first = sa.select(Post.id, Post.published_at).where(Post.author_id == author_id, live(now))
    cowritten = (
        sa.select(Post.id, Post.published_at)
        .join(PostAuthor, PostAuthor.post_id == Post.id)
        .where(PostAuthor.author_id == author_id, PostAuthor.position > 0, live(now))
    )
    credited = sa.union_all(first, cowritten)
    return credited.order_by(
        credited.selected_columns.published_at.desc(), credited.selected_columns.id.desc()
    )


def card_select(*extra: sa.ColumnElement[Any]) -> sa.Select:
    """The columns of a card (then `extra`) from posts joined to their authors, primary
    topics and images: filter it to the posts to show, and read each row with card_from."""
    return (
        sa.select(*CARD_COLUMNS, *extra)
        .join(Author, Author.id == Post.author_id)
        .outerjoin(_PRIMARY, _PRIMARY.id == Post.primary_topic_id)
        .outerjoin(Image, Image.id == Post.image_id)
    )


def card_from(row: sa.Row) -> Card:
    """A card from one row of a card_select() statement."""
    (id_, slug, title, excerpt, published, updated, minutes, alt, featured, pick, spec) = row[:11]
    author_name, author_slug, coauthors = row[11:14]
    topic_name, topic_slug, sha256, kind, width, height = row[14:20]
    authors: tuple[Label, ...] = (Label(author_name, author_slug),)
    if coauthors:
        authors += tuple(Label(name, slug) for _, name, slug in sorted(coauthors))
    return Card(
        id_,
        slug,
        title,
        excerpt,
        published,
        updated,
        minutes,
        alt,
        featured,
        pick,
        spec,
        authors,
        Label(topic_name, topic_slug) if topic_name is not None else None,
        CardImage(sha256, kind, width, height) if sha256 is not None else None,
    )


def cards(
    topic: ListedTopic | None,
    number: int,
    per_page: int,
    *,
    author: Author | None = None,
    featured: bool = False,
    picks: int = 0,
) -> Cards:
    """Page `number` of the listing (of one topic, of one author's posts), with the featured
    post when `featured` and the `picks` newest editor's picks, in one statement."""
    flagged = featured or picks > 0
    values: dict[str, object] = {
        "now": utcnow(),
        "offset": (number - 1) * per_page,
        "limit": per_page,
        "picks": picks,
    }
    if topic is not None:
        values["topic_id"] = topic.id
    if author is not None:
        values["author_id"] = author.id
    statement = _cards_statement(topic is not None, flagged, author is not None)
    rows = database.read(statement, values).all()
    shown = [(card_from(row), row[-1]) for row in rows]
    page = [card for card, on_page in shown if on_page]
    if not flagged:
        return Cards(page)
    # Newest first, so the first flagged post is the featured one and the first picks are
    # the picks (a featured post older than them can be among them too).
    first_featured = next((card for card, _ in shown if card.featured), None)
    chosen = [card for card, _ in shown if card.editors_pick][:picks]
    return Cards(page, first_featured if featured else None, chosen)


def listing_title(of: ListedTopic | Author | None, number: int) -> str:
    """A listing state's title (all posts, a topic's, an author's), as <title> shows it."""
    title = current_app.config["SITE_NAME"]
    if of is not None:
        title = f"{of.name} · {title}"
    return f"{title} · page {number}" if number > 1 else title


@dataclass(frozen=True)
class Listing:
    """One state of a listing page: whose posts (all, a topic's or an author's), the page
    of cards, the featured post and picks where shown, and the topic filter."""

    found: TopicFilter
    topic: ListedTopic | None
    author: Author | None
    page: paging.Page[Card]
    featured: Card | None
    picks: list[Card]

    @property
    def title(self) -> str:
        """The state's <title>."""
        return listing_title(self.author or self.topic, self.page.number)


@dataclass(frozen=True)
class Moved:
    """A topic renamed or merged away: its present slug."""

    slug: str


def listing_of(
    found: TopicFilter,
    number: int,
    block: str | None,
    topic_slug: str | None,
    author_slug: str | None,
) -> Listing | Moved:
    """Page `number` of all posts, of a topic's (or where a renamed topic went) or of an
    author's; 404 for an unknown topic or author and for a page past the end. `block` names
    the fragment asked for (None: the whole page), so only what is shown is read."""
    topic, author, listed = None, None, found.total
    if topic_slug is not None:
        entry = found.of(topic_slug)
        if entry is None:
            # An old address leads to the topic's present one when that has live posts.
            current = catalog.current_topic_slug(topic_slug) if topic_slug.isprintable() else None
            if current is not None and found.of(current) is not None:
                return Moved(current)
            abort(404, description="There is no topic by that name.")
        topic, listed = entry.topic, entry.count
    if author_slug is not None:
        profile = author_by_slug(author_slug)
        if profile is None:
            abort(404, description="There is no author by that name.")
        author, listed = profile.author, profile.count
    per_page = current_app.config["POSTS_PER_PAGE"]
    if number > paging.last_page(listed, per_page):
        abort(404, description="That page is past the end of the list.")
    # Featured and picks open the first page only (deeper pages go straight to the list), and
    # a topic swap sends them along with the list: read them only then. The picks are the
    # site's, on the home page; a topic features its own post; an author's page neither.
    opening = number == 1 and block in (None, "all_posts")
    picks = current_app.config["PICKS_COUNT"] if opening and topic is None and author is None else 0
    featured = opening and author is None
    shown = cards(topic, number, per_page, author=author, featured=featured, picks=picks)
    page = paging.Page(shown.page, number, per_page, listed)
    return Listing(found, topic, author, page, shown.featured, shown.picks)


RELATED_COUNT = 3


def related(post: Post, limit: int = RELATED_COUNT) -> list[Card]:
    """The newest live posts that share a topic with `post` (itself left out)."""
    topics = sa.select(PostTopic.topic_id).where(PostTopic.post_id == post.id)
    shared = sa.select(PostTopic.post_id).where(PostTopic.topic_id.in_(topics))
    query = card_select().where(live(), Post.id != post.id, Post.id.in_(shared))
    return [card_from(row) for row in database.read(query.order_by(*NEWEST_FIRST).limit(limit))]


def neighbours(post: Post) -> tuple[Card | None, Card | None]:
    """The live posts just newer and just older than `post`, in the listing's order."""
    at, post_id = post.published_at, post.id
    newer = sa.or_(Post.published_at > at, sa.and_(Post.published_at == at, Post.id > post_id))
    older = sa.or_(Post.published_at < at, sa.and_(Post.published_at == at, Post.id < post_id))
    oldest_first = (Post.published_at.asc(), Post.id.asc())
    found = []
    for side, order in ((newer, oldest_first), (older, NEWEST_FIRST)):
        row = database.read(card_select().where(live(), side).order_by(*order).limit(1)).first()
        found.append(card_from(row) if row is not None else None)
    return found[0], found[1]


def post_by_slug(slug: str) -> Post | None:
    """A live post with its authors (and their avatars) and topics, or None."""
    query = (
        sa.select(Post)
        .options(
            so.joinedload(Post.author).joinedload(Author.avatar),
            # Joined, in the post's own statement: the page names every author.
            so.joinedload(Post.author_links)
            .joinedload(PostAuthor.author)
            .joinedload(Author.avatar),
            so.selectinload(Post.topic_links),
        )
        .where(Post.slug == slug, live())
    )
    return db.session.scalars(query).unique().first()


def author_by_slug(slug: str) -> AuthorCount | None:
    """The author with this slug (and avatar) and the count of the live posts they wrote or
    co-wrote, when they have some: an author with none is not public."""
    # No slug holds a NUL (PostgreSQL refuses one) or runs past the column.
    if not slug.isprintable() or len(slug) > max_length(Author.__table__.c.slug):
        return None
    first = sa.select(sa.func.count(Post.id)).where(Post.author_id == Author.id, live())
    cowritten = (
        sa.select(sa.func.count(Post.id))
        .join(PostAuthor, PostAuthor.post_id == Post.id)
        .where(PostAuthor.author_id == Author.id, PostAuthor.position > 0, live())
    )
    query = (
        sa.select(Author, first.scalar_subquery() + cowritten.scalar_subquery())
        .options(so.joinedload(Author.avatar))
        .where(Author.slug == slug)
    )
    row = db.session.execute(query).first()
    if row is None or not row[1]:
        return None
    return AuthorCount(row[0], row[1])


def topics_with_posts() -> list[Topic]:
    """Topics that have live posts, in filter order."""
    query = sa.select(Topic).where(has_live_posts()).order_by(Topic.position, Topic.name)
    return list(db.session.scalars(query))


# --- Feeds and sitemap ------------------------------------------------------------------


@dataclass(frozen=True)
class Dated:
    """A slug and when the page behind it last changed, for the sitemap."""

    slug: str
    lastmod: datetime


def newest_posts(
    limit: int, topic: Topic | None = None, author: Author | None = None
) -> list[Post]:
    """The newest live posts (of a topic, of an author, co-written ones included) with
    bodies, authors and topics, for a feed."""
    query = sa.select(Post).options(
        so.joinedload(Post.author),
        so.selectinload(Post.author_links),
        so.selectinload(Post.topic_links),
    )
    query = query.where(live())
    if topic is not None:
        query = query.where(in_topic(topic))
    if author is not None:
        newest = _credited(author.id, utcnow()).limit(limit).subquery("newest")
        query = query.where(Post.id.in_(sa.select(newest.c.id)))
    return list(db.session.scalars(query.order_by(*NEWEST_FIRST).limit(limit)))


def _latest(published: datetime | None, updated: datetime | None) -> datetime:
    """The later of a publish date and a revision date (a live post has a publish date)."""
    assert published is not None
    return max(published, updated) if updated else published


def sitemap_posts() -> list[Dated]:
    """Every live post's slug and last change, newest first."""
    query = sa.select(Post.slug, Post.published_at, Post.updated_at).where(live())
    rows = db.session.execute(query.order_by(*NEWEST_FIRST))
    return [Dated(slug, _latest(published, updated)) for slug, published, updated in rows]


def sitemap_topics() -> list[Dated]:
    """Every topic with live posts, in filter order, with its newest post's last change."""
    query = (
        sa.select(Topic.slug, sa.func.max(Post.published_at), sa.func.max(Post.updated_at))
        .join(PostTopic, PostTopic.topic_id == Topic.id)
        .join(Post, Post.id == PostTopic.post_id)
        .where(live())
        .group_by(Topic.id, Topic.slug, Topic.position, Topic.name)
        .order_by(Topic.position, Topic.name)
    )
    rows = db.session.execute(query)
    return [Dated(slug, _latest(published, updated)) for slug, published, updated in rows]


def sitemap_authors() -> list[Dated]:
    """Every author with live posts (co-written ones too), by name, with their newest post's
    last change."""
    credits = sa.union_all(
        sa.select(Post.author_id.label("author_id"), Post.id.label("post_id")),
        sa.select(PostAuthor.author_id, PostAuthor.post_id).where(PostAuthor.position > 0),
    ).subquery("credits")
    query = (
        sa.select(Author.slug, sa.func.max(Post.published_at), sa.func.max(Post.updated_at))
        .join(credits, credits.c.author_id == Author.id)
        .join(Post, Post.id == credits.c.post_id)
        .where(live())
        .group_by(Author.id, Author.slug, Author.name)
        .order_by(Author.name, Author.slug)
    )
    rows = db.session.execute(query)
    return [Dated(slug, _latest(published, updated)) for slug, published, updated in rows]
