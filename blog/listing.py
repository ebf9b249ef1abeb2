"""The queries behind the public listing: featured post, picks, topic filter and pages."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
import sqlalchemy.orm as so

from blog.extensions import db
from blog.models import PUBLISHED, Post, PostTopic, Topic, utcnow

# Cards show these columns only; bodies stay in the database.
CARD_COLUMNS = (
    Post.id,
    Post.slug,
    Post.title,
    Post.excerpt,
    Post.published_at,
    Post.updated_at,
    Post.reading_minutes,
    Post.image_alt,
    Post.author_id,
    Post.primary_topic_id,
)


@dataclass(frozen=True)
class TopicCount:
    """A topic in the filter with the number of published posts that carry it."""

    topic: Topic
    count: int


@dataclass(frozen=True)
class Page:
    """One page of cards and the numbers the counter and "read more" need."""

    posts: list[Post]
    number: int
    per_page: int
    total: int

    @property
    def pages(self) -> int:
        """How many pages the listing has (at least one, even when empty)."""
        return max(1, math.ceil(self.total / self.per_page))

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


def _cards() -> sa.Select:
    """A select of posts with just the card columns, author and primary topic."""
    return sa.select(Post).options(
        so.load_only(*CARD_COLUMNS),
        so.joinedload(Post.author),
        so.joinedload(Post.primary_topic),
    )


def _newest(query: sa.Select) -> sa.Select:
    """Order newest first, with the id as a stable tie-break."""
    return query.order_by(Post.published_at.desc(), Post.id.desc())


def featured_post() -> Post | None:
    """The newest live post flagged as featured."""
    query = _newest(_cards().where(live(), Post.featured.is_(True))).limit(1)
    return db.session.scalars(query).first()


def editors_picks(limit: int) -> list[Post]:
    """The newest live posts flagged as editor's picks."""
    query = _newest(_cards().where(live(), Post.editors_pick.is_(True))).limit(limit)
    return list(db.session.scalars(query))


def topic_counts() -> list[TopicCount]:
    """Every topic that has live posts, in filter order, with its count."""
    count = sa.func.count(PostTopic.post_id)
    query = (
        sa.select(Topic, count)
        .join(PostTopic, PostTopic.topic_id == Topic.id)
        .join(Post, Post.id == PostTopic.post_id)
        .where(live())
        .group_by(Topic.id)
        .order_by(Topic.position, Topic.name)
    )
    return [TopicCount(topic, n) for topic, n in db.session.execute(query)]


def live_count() -> int:
    """How many posts a reader can see."""
    return db.session.scalar(sa.select(sa.func.count(Post.id)).where(live())) or 0


def last_page(total: int, per_page: int) -> int:
    """The number of the last page for `total` cards (1 for an empty listing)."""
    return max(1, math.ceil(total / per_page))


def page_of_posts(topic: Topic | None, number: int, per_page: int, total: int) -> Page:
    """Cards for one page of the listing, newest first; `total` is the listing's size."""
    query = _cards().where(live())
    if topic is not None:
        query = query.where(
            Post.id.in_(sa.select(PostTopic.post_id).where(PostTopic.topic_id == topic.id))
        )
    query = _newest(query).limit(per_page).offset((number - 1) * per_page)
    return Page(list(db.session.scalars(query)), number, per_page, total)


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
