"""What a post card shows, read in one Core statement into plain tuples.

Listing pages are the hottest read: building ORM instances for a dozen cards would cost
more than rendering them, so cards are light, read-only rows with the attribute names the
templates and blog/seo.py use on posts (`post.author.name`, `post.primary_topic.slug`, ...).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import NamedTuple

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
COLUMNS = (
    Post.id,
    Post.slug,
    Post.title,
    Post.excerpt,
    Post.published_at,
    Post.updated_at,
    Post.reading_minutes,
    Post.image_alt,
    Author.id,
    Author.name,
    Author.slug,
    _topic.id,
    _topic.name,
    _topic.slug,
    Image.sha256,
    Image.content_type,
    Image.width,
    Image.height,
)


def select(*extra: sa.ColumnElement) -> sa.Select:
    """A select of the card columns (plus `extra` ones after them)."""
    return (
        sa.select(*COLUMNS, *extra)
        .join(Author, Author.id == Post.author_id)
        .outerjoin(_topic, _topic.id == Post.primary_topic_id)
        .outerjoin(Image, Image.id == Post.image_id)
    )


def recency(card: Card) -> tuple[datetime, int]:
    """Sort key for listing order (sort with reverse=True): publish time, then id."""
    return (card.published_at or datetime.min, card.id)


def from_row(row: sa.Row) -> Card:
    """A card from a row of `select()`."""
    (
        post_id, slug, title, excerpt, published, updated, minutes, alt,
        author_id, author_name, author_slug, topic_id, topic_name, topic_slug,
        sha256, content_type, width, height,
    ) = row[: len(COLUMNS)]  # fmt: skip
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
        Named(topic_id, topic_name, topic_slug) if topic_id is not None else None,
        CardImage(sha256, content_type, width, height) if sha256 is not None else None,
    )


def by_ids(connection: sa.Connection, ids: Iterable[int]) -> dict[int, Card]:
    """The cards of these posts, by id."""
    rows = connection.execute(select().where(Post.id.in_(list(ids))))
    return {card.id: card for card in map(from_row, rows)}
