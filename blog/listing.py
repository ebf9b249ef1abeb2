"""The queries behind the public listing: featured post, picks, topic filter and pages."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import current_app

from blog import cards, hotreads
from blog.cards import Card, Named
from blog.extensions import db
from blog.models import PUBLISHED, ListingAnchor, Post, PostTopic, SiteState, Topic, utcnow


class TopicCount(NamedTuple):
    """A topic in the filter with the number of published posts that carry it."""

    topic: Named
    count: int


@dataclass(frozen=True)
class Page:
    """One page of cards and the numbers the counter and "read more" need."""

    posts: list[Card]
    number: int
    per_page: int
    total: int

    @property
    def pages(self) -> int:
        """How many pages the listing has (at least one, even when empty)."""
        return last_page(self.total, self.per_page)

    @property
    def first(self) -> int:
        """1-based position of the page's first card."""
        return (self.number - 1) * self.per_page + 1

    @property
    def last(self) -> int:
        """1-based position of the page's last card."""
        return self.first + len(self.posts) - 1

    @property
    def next_number(self) -> int | None:
        """The next page's number, or None on the last page."""
        return self.number + 1 if self.number < self.pages else None


def live() -> sa.ColumnElement[bool]:
    """Published posts whose publish date has passed (scheduled ones appear by themselves)."""
    return sa.and_(Post.status == PUBLISHED, Post.published_at <= utcnow())


def _newest(query: sa.Select) -> sa.Select:
    """Order newest first, with the id as a stable tie-break."""
    return query.order_by(Post.published_at.desc(), Post.id.desc())


def topic_counts(topics: Iterable[Sequence[Any]]) -> list[TopicCount]:
    """The topic filter, in its order, from the state row's [id, name, slug, count,
    position] lists (see blog/caching.py)."""
    ordered = sorted(topics, key=lambda row: (row[4], row[1]))
    return [TopicCount(Named(id_, name, slug), count) for id_, name, slug, count, _ in ordered]


def last_page(total: int, per_page: int) -> int:
    """The number of the last page for `total` cards (1 for an empty listing)."""
    return max(1, math.ceil(total / per_page))


@dataclass(frozen=True)
class Listing:
    """What a listing page shows: its page of cards, and the home page's featured and picks."""

    page: Page
    featured: Card | None
    picks: list[Card]


@functools.cache
def _page_statement(in_topic: bool, shown_slots: int) -> sa.CompoundSelect:
    """One page of cards, then the posts asked for by id that are not on it (featured,
    picks), in one statement; the last column says which part a row came from.

    The page is an index range from its kept anchor, never an OFFSET: (published_at, id)
    compared as a row value, which both databases answer from the listing index. Built once;
    the values are bound parameters (`topic_id`, `page`, `now`, `per_page`, and `shown_0`
    up to `shown_<shown_slots - 1>`, with 0 in the unused ones: no post has id 0).
    """
    anchor = ListingAnchor.__table__.c
    at = sa.and_(anchor.topic_id == sa.bindparam("topic_id"), anchor.page == sa.bindparam("page"))
    anchor_key = sa.tuple_(
        sa.select(anchor.published_at).where(at).scalar_subquery(),
        sa.select(anchor.post_id).where(at).scalar_subquery(),
    )
    page_ids = sa.select(Post.id).where(
        Post.status == PUBLISHED,
        Post.published_at <= sa.bindparam("now"),
        sa.tuple_(Post.published_at, Post.id) <= anchor_key,
    )
    if in_topic:
        in_topic_ids = sa.select(PostTopic.post_id).where(
            PostTopic.topic_id == sa.bindparam("topic_id")
        )
        page_ids = page_ids.where(Post.id.in_(in_topic_ids))
    page = _newest(page_ids).limit(sa.bindparam("per_page")).cte("page")
    listed = cards.select(sa.literal(1).label("on_page")).join(page, page.c.id == Post.id)
    shown = cards.select(sa.literal(0).label("on_page")).where(
        Post.id.in_([sa.bindparam(f"shown_{slot}") for slot in range(shown_slots)]),
        Post.id.not_in(sa.select(page.c.id)),
    )
    return sa.union_all(listed, shown)


def listing_page(
    topic: Named | None,
    number: int,
    per_page: int,
    total: int,
    shown_ids: tuple[int, ...] = (),
) -> Listing:
    """One page of cards plus the posts in `shown_ids` (featured, picks), in one statement."""
    slots = max(len(shown_ids), current_app.config["PICKS_COUNT"] + 1)
    values = {
        "topic_id": topic.id if topic else 0,
        "page": number,
        "now": utcnow(),
        "per_page": per_page,
        **{f"shown_{slot}": 0 for slot in range(slots)},
        **{f"shown_{slot}": post_id for slot, post_id in enumerate(shown_ids)},
    }
    rows = hotreads.fetch(_page_statement(topic is not None, slots), values)
    page: list[Card] = []
    by_id: dict[int, Card] = {}
    for row in rows:
        card = by_id[row[0]] = cards.from_row(row)
        if row[-1]:
            page.append(card)
    page.sort(key=cards.recency, reverse=True)
    featured = by_id.get(shown_ids[0]) if shown_ids else None
    picks = [by_id[i] for i in shown_ids[1:] if i in by_id]
    return Listing(Page(page, number, per_page, total), featured, picks)


# --- Keeping the listing's counts and anchors current -------------------------------------


def _numbered(query: sa.Select, partition: sa.ColumnElement | None = None) -> sa.Subquery:
    """Live posts numbered newest first (within each partition)."""
    number = sa.func.row_number().over(
        partition_by=partition, order_by=(Post.published_at.desc(), Post.id.desc())
    )
    return query.add_columns(number.label("n")).subquery()


def refresh(connection: sa.Connection, now: datetime, per_page: int, picks: int) -> None:
    """Rebuild the kept counts, featured post, picks and page anchors as of `now`.

    Run on the writer's connection inside every writing transaction (blog/caching.py), so
    readers never count posts or skip over pages.
    """
    published = Post.status == PUBLISHED
    is_live = sa.and_(published, Post.published_at <= now)
    state, anchors, topics = SiteState.__table__, ListingAnchor.__table__, Topic.__table__
    newest = (Post.published_at.desc(), Post.id.desc())
    flagged = sa.select(Post.id).where(is_live).order_by(*newest)
    pick_ids = connection.scalars(flagged.where(Post.editors_pick.is_(True)).limit(picks))
    everything = _numbered(sa.select(Post.id, Post.published_at).where(is_live))
    by_topic = _numbered(
        sa.select(PostTopic.topic_id, Post.id, Post.published_at)
        .join(Post, Post.id == PostTopic.post_id)
        .where(is_live),
        partition=PostTopic.topic_id,
    )
    first_of_page = lambda numbered: (numbered.c.n - 1) % per_page == 0  # noqa: E731
    page_of = lambda numbered: (numbered.c.n - 1) // per_page + 1  # noqa: E731
    topic_live = (
        sa.select(sa.func.count(PostTopic.post_id))
        .join(Post, Post.id == PostTopic.post_id)
        .where(PostTopic.topic_id == topics.c.id, is_live)
        .scalar_subquery()
    )
    statements = [
        sa.update(state)
        .where(state.c.id == 1)
        .values(
            live_count=sa.select(sa.func.count(Post.id)).where(is_live).scalar_subquery(),
            next_publish_at=sa.select(sa.func.min(Post.published_at))
            .where(published, Post.published_at > now)
            .scalar_subquery(),
            featured_id=flagged.where(Post.featured.is_(True)).limit(1).scalar_subquery(),
            pick_ids=",".join(str(i) for i in pick_ids),
        ),
        sa.update(topics).values(live_count=topic_live),
        sa.delete(anchors),
        sa.insert(anchors).from_select(
            ["topic_id", "page", "published_at", "post_id"],
            sa.select(
                sa.literal(0),
                sa.cast(page_of(everything), sa.Integer),
                everything.c.published_at,
                everything.c.id,
            ).where(first_of_page(everything)),
        ),
        sa.insert(anchors).from_select(
            ["topic_id", "page", "published_at", "post_id"],
            sa.select(
                by_topic.c.topic_id,
                sa.cast(page_of(by_topic), sa.Integer),
                by_topic.c.published_at,
                by_topic.c.id,
            ).where(first_of_page(by_topic)),
        ),
    ]
    for statement in statements:
        connection.execute(statement)


def post_by_slug(slug: str) -> Post | None:
    """A live post with its author and topics, or None."""
    query = (
        sa.select(Post)
        .options(so.joinedload(Post.author), so.selectinload(Post.topic_links))
        .where(Post.slug == slug, live())
    )
    return db.session.scalars(query).first()


# --- Feeds and sitemap ------------------------------------------------------------------


@dataclass(frozen=True)
class Dated:
    """A slug and when the page behind it last changed, for the sitemap."""

    slug: str
    lastmod: datetime


def topic_by_slug(slug: str) -> Topic | None:
    """The topic with this slug, whether or not it has live posts."""
    return db.session.scalars(sa.select(Topic).where(Topic.slug == slug)).first()


def newest_posts(limit: int, topic: Topic | None = None) -> list[Post]:
    """The newest live posts with bodies, authors and topics, for a feed."""
    query = sa.select(Post).options(so.joinedload(Post.author), so.selectinload(Post.topic_links))
    query = query.where(live())
    if topic is not None:
        query = query.where(
            Post.id.in_(sa.select(PostTopic.post_id).where(PostTopic.topic_id == topic.id))
        )
    return list(db.session.scalars(_newest(query).limit(limit)))


def _latest(published: datetime, updated: datetime | None) -> datetime:
    """The later of a publish date and a revision date."""
    return max(published, updated) if updated else published


def sitemap_posts() -> list[Dated]:
    """Every live post's slug and last change, newest first."""
    query = _newest(sa.select(Post.slug, Post.published_at, Post.updated_at).where(live()))
    return [Dated(slug, _latest(pub, upd)) for slug, pub, upd in db.session.execute(query)]


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
    return [Dated(slug, _latest(pub, upd)) for slug, pub, upd in db.session.execute(query)]
