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

from blog import cards, hotreads, sitestate
from blog.cards import Card, Named
from blog.extensions import db
from blog.models import (
    PUBLISHED,
    ListingAnchor,
    ListingSlot,
    Post,
    PostTopic,
    SiteState,
    Topic,
    utcnow,
)
from blog.sitestate import Snapshot


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
    position] lists (see blog/sitestate.py)."""
    ordered = sorted(topics, key=lambda row: (row[4], row[1]))
    return [TopicCount(Named(id_, name, slug), count) for id_, name, slug, count, _ in ordered]


def _topics_by_id(topics: Iterable[Sequence[Any]]) -> dict[int, Named]:
    """The state row's topic filter lists, as names by id."""
    return {row[0]: Named(row[0], row[1], row[2]) for row in topics}


def last_page(total: int, per_page: int) -> int:
    """The number of the last page for `total` cards (1 for an empty listing)."""
    return max(1, math.ceil(total / per_page))


FEATURED_SLOT = 0  # ListingSlot: the featured post; picks take slots 1 up


def shown_slots(featured: bool, picks: int) -> tuple[int, int]:
    """The first and last ListingSlot to read: the featured post's, the picks' (none when
    the first is past the last)."""
    return (FEATURED_SLOT if featured else FEATURED_SLOT + 1, FEATURED_SLOT + picks)


@dataclass(frozen=True)
class ListingRead:
    """What one listing request reads, in one statement: the state row, one page of cards,
    and the featured post and picks it shows."""

    state: Snapshot
    next_publish_at: datetime | None
    cards: list[Card]  # newest first; empty for an unknown topic or a page past the end
    shown: dict[int, Card]  # by ListingSlot

    @property
    def featured(self) -> Card | None:
        """The featured post, when it was asked for and there is one."""
        return self.shown.get(FEATURED_SLOT)

    @property
    def picks(self) -> list[Card]:
        """The editor's picks that were asked for, in their order."""
        return [card for slot, card in sorted(self.shown.items()) if slot != FEATURED_SLOT]


# Parts of the read statement, in its `part` column: the state row, a card on the page,
# a card shown off the page (a ListingSlot's; the `slot` column says which).
_STATE_PART, _PAGE_PART, _SHOWN_PART = 0, 1, 2
# Column positions in its rows: the card's columns, the slot, the part, the state row's.
_SLOT = len(cards.COLUMNS)
_PART = _SLOT + 1
_STATE_AT = _PART + 1


def _nulls(columns: Iterable[sa.ColumnElement]) -> list[sa.ColumnElement]:
    """NULLs standing in for `columns` in a part of a UNION that has no value for them,
    cast to their types (PostgreSQL types an untyped NULL as text)."""
    return [sa.cast(sa.null(), c.type).label(f"none_{n}") for n, c in enumerate(columns)]


@functools.cache
def _read_statement(in_topic: bool) -> sa.CompoundSelect:
    """The state row, then the cards of one page and of the ListingSlot posts asked for,
    in one UNION; each row's `part` and `slot` columns say where it goes.

    One statement, so the page always matches the state row it is cached under, and
    PostgreSQL answers in one round trip. The page is an index range from its kept anchor,
    never an OFFSET: (published_at, id) compared as a row value, which both databases answer
    from the listing index. Built once; the values are bound parameters: `topic_slug` (in a
    topic), `page`, `now`, `per_page`, `first_slot` and `last_slot`.
    """
    part = lambda number: sa.literal_column(str(number), sa.Integer)  # noqa: E731
    no_slot = sa.cast(sa.null(), sa.Integer)
    no_state = _nulls(sitestate.COLUMNS)
    state = sa.select(*_nulls(cards.COLUMNS), no_slot, part(_STATE_PART), *sitestate.COLUMNS)
    state = state.where(SiteState.__table__.c.id == 1)

    topic_id: sa.ColumnElement[int] = sa.literal_column("0", sa.Integer)  # anchors of "all"
    if in_topic:
        topic_id = (
            sa.select(Topic.id).where(Topic.slug == sa.bindparam("topic_slug")).scalar_subquery()
        )
    anchor = ListingAnchor.__table__.c
    at = sa.and_(anchor.topic_id == topic_id, anchor.page == sa.bindparam("page"))
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
        page_ids = page_ids.where(
            Post.id.in_(sa.select(PostTopic.post_id).where(PostTopic.topic_id == topic_id))
        )
    page = _newest(page_ids).limit(sa.bindparam("per_page")).cte("page")
    slot = ListingSlot.__table__.c
    # Cards name their primary topic from the state row's topic filter: a live post's topics
    # all have live posts, so the filter holds it and topics need no join. A post on the
    # page that also fills a slot comes once for each: a row more is cheaper than the work
    # that would tell them apart.
    on_page = cards.select(no_slot, part(_PAGE_PART), *no_state, topic_names=False)
    on_page = on_page.join(page, page.c.id == Post.id)
    in_slots = cards.select(slot.slot, part(_SHOWN_PART), *no_state, topic_names=False)
    in_slots = in_slots.join(ListingSlot.__table__, slot.post_id == Post.id).where(
        slot.slot.between(sa.bindparam("first_slot"), sa.bindparam("last_slot"))
    )
    return sa.union_all(state, on_page, in_slots)


def read(topic_slug: str | None, number: int, per_page: int, slots: tuple[int, int]) -> ListingRead:
    """The state row, page `number` of the listing (of one topic, by slug) and the
    ListingSlot posts from `slots[0]` to `slots[1]`, in one statement."""
    values: dict[str, Any] = {
        "page": number,
        "now": utcnow(),
        "per_page": per_page,
        "first_slot": slots[0],
        "last_slot": slots[1],
    }
    if topic_slug is not None:
        values["topic_slug"] = topic_slug
    rows = hotreads.fetch(_read_statement(topic_slug is not None), values)
    state_row = next((row[_STATE_AT:] for row in rows if row[_PART] == _STATE_PART), None)
    found = sitestate.from_row(state_row)
    topics = _topics_by_id(found.state.topics)
    page: list[Card] = []
    shown: dict[int, Card] = {}
    for row in rows:
        if row[_PART] == _STATE_PART:
            continue
        card = cards.from_row(row, topics)
        if row[_PART] == _PAGE_PART:
            page.append(card)
        else:
            shown[row[_SLOT]] = card
    page.sort(key=cards.recency, reverse=True)
    return ListingRead(found.state, found.next_publish_at, page, shown)


# --- Keeping the listing's counts and anchors current -------------------------------------


def _numbered(query: sa.Select, partition: sa.ColumnElement | None = None) -> sa.Subquery:
    """Live posts numbered newest first (within each partition)."""
    number = sa.func.row_number().over(
        partition_by=partition, order_by=(Post.published_at.desc(), Post.id.desc())
    )
    return query.add_columns(number.label("n")).subquery()


def refresh(connection: sa.Connection, now: datetime, per_page: int, picks: int) -> None:
    """Rebuild the kept counts, featured post, picks (ListingSlot) and page anchors as of
    `now`.

    Run on the writer's connection inside every writing transaction (blog/caching.py), so
    readers never count posts or skip over pages.
    """
    published = Post.status == PUBLISHED
    is_live = sa.and_(published, Post.published_at <= now)
    state, anchors, topics = SiteState.__table__, ListingAnchor.__table__, Topic.__table__
    newest = (Post.published_at.desc(), Post.id.desc())
    flagged = sa.select(Post.id).where(is_live).order_by(*newest)
    featured_id = connection.scalar(flagged.where(Post.featured.is_(True)).limit(1))
    pick_ids = connection.scalars(flagged.where(Post.editors_pick.is_(True)).limit(picks))
    slots = [(FEATURED_SLOT, featured_id)] if featured_id is not None else []
    slots += list(enumerate(pick_ids, FEATURED_SLOT + 1))
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
        sa.update(topics).values(live_count=topic_live),
        sa.update(state)
        .where(state.c.id == 1)
        .values(
            live_count=sa.select(sa.func.count(Post.id)).where(is_live).scalar_subquery(),
            next_publish_at=sa.select(sa.func.min(Post.published_at))
            .where(published, Post.published_at > now)
            .scalar_subquery(),
            topic_filter=sitestate.TopicFilter(),  # from the topic counts just kept
        ),
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
    slot_table = ListingSlot.__table__
    connection.execute(sa.delete(slot_table))
    if slots:
        rows = [{"slot": slot, "post_id": post_id} for slot, post_id in slots]
        connection.execute(sa.insert(slot_table), rows)


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
