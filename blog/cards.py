"""What a post card shows, read in one Core statement into plain tuples.

Listing pages are the hottest read: building ORM instances for a dozen cards would cost
more than rendering them, so cards are light, read-only rows with the attribute names the
templates and blog/seo.py use on posts (`post.author.name`, `post.primary_topic.slug`, ...).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

import sqlalchemy as sa
import sqlalchemy.orm as so

from blog.models import Author, Image, Post, Topic, was_revised


class Named(NamedTuple):
    """An author or topic as a card names it."""

    id: int
    name: str
    slug: str


class CardImage(NamedTuple):
    """What an <img> and a preview need of an uploaded image (never its bytes)."""

    sha256: str
    content_type: str
    width: int
    height: int


class Card(NamedTuple):
    """One post as cards, feeds of cards and listing metadata show it."""

    id: int
    slug: str
    title: str
    excerpt: str
    published_at: datetime | None
    updated_at: datetime | None
    reading_minutes: int
    image_alt: str | None
    author: Named
    primary_topic: Named | None
    image: CardImage | None

    @property
    def was_updated(self) -> bool:
        """True when the post was revised after it was first published."""
        return was_revised(self.published_at, self.updated_at)


_topic = so.aliased(Topic, name="primary_topic")
_POST_COLUMNS = (
    Post.id,
    Post.slug,
    Post.title,
    Post.excerpt,
    Post.published_at,
    Post.updated_at,
    Post.reading_minutes,
    Post.image_alt,
)
_AUTHOR_COLUMNS = (Author.id, Author.name, Author.slug)
_TOPIC_COLUMNS = (_topic.id, _topic.name, _topic.slug)
_IMAGE_COLUMNS = (Image.sha256, Image.content_type, Image.width, Image.height)
COLUMNS = (*_POST_COLUMNS, *_AUTHOR_COLUMNS, *_TOPIC_COLUMNS, *_IMAGE_COLUMNS)


def select(*extra: sa.ColumnElement, topic_names: bool = True) -> sa.Select:
    """A select of the card columns (plus `extra` ones after them).

    Without `topic_names`, the primary topic's name and slug are left out (NULL) and its
    table is not joined: for callers that know every topic already (`from_row`'s `topics`).
    """
    columns: tuple[sa.ColumnElement, ...] = COLUMNS
    if not topic_names:
        no_text = sa.cast(sa.null(), sa.String)  # cast: PostgreSQL types a bare NULL as text
        topic = (Post.primary_topic_id, no_text, no_text)
        columns = (*_POST_COLUMNS, *_AUTHOR_COLUMNS, *topic, *_IMAGE_COLUMNS)
    query = sa.select(*columns, *extra).join(Author, Author.id == Post.author_id)
    if topic_names:
        query = query.outerjoin(_topic, _topic.id == Post.primary_topic_id)
    return query.outerjoin(Image, Image.id == Post.image_id)


def recency(card: Card) -> tuple[datetime, int]:
    """Sort key for listing order (sort with reverse=True): publish time, then id."""
    return (card.published_at or datetime.min, card.id)


def from_row(row: Sequence[Any], topics: Mapping[int, Named] | None = None) -> Card:
    """A card from a row of `select()`; with `topics` (by id), the primary topic comes
    from there instead of the row."""
    (
        post_id, slug, title, excerpt, published, updated, minutes, alt,
        author_id, author_name, author_slug, topic_id, topic_name, topic_slug,
        sha256, content_type, width, height,
    ) = row[: len(COLUMNS)]  # fmt: skip
    topic: Named | None = None
    if topic_id is not None:
        topic = (
            topics.get(topic_id) if topics is not None else Named(topic_id, topic_name, topic_slug)
        )
    return Card(
        post_id,
        slug,
        title,
        excerpt,
        published,
        updated,
        minutes,
        alt,
        Named(author_id, author_name, author_slug),
        topic,
        CardImage(sha256, content_type, width, height) if sha256 is not None else None,
    )


def by_ids(connection: sa.Connection, ids: Iterable[int]) -> dict[int, Card]:
    """The cards of these posts, by id."""
    rows = connection.execute(select().where(Post.id.in_(list(ids))))
    return {card.id: card for card in map(from_row, rows)}
