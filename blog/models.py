"""The post store: posts, their topics and authors."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
import sqlalchemy.orm as so

from blog.extensions import db

DRAFT = "draft"
PUBLISHED = "published"
STATUSES = (DRAFT, PUBLISHED)


def utcnow() -> datetime:
    """Naive UTC now: every timestamp in the store is naive UTC."""
    return datetime.now(UTC).replace(tzinfo=None)


class Author(db.Model):
    """A person credited on posts."""

    __tablename__ = "authors"

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    name: so.Mapped[str] = so.mapped_column(sa.String(120))
    slug: so.Mapped[str] = so.mapped_column(sa.String(120), unique=True)

    def __repr__(self) -> str:
        return f"<Author {self.slug}>"


class Topic(db.Model):
    """A subject posts are filed under; `position` orders the topic filter."""

    __tablename__ = "topics"

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    name: so.Mapped[str] = so.mapped_column(sa.String(80), unique=True)
    slug: so.Mapped[str] = so.mapped_column(sa.String(80), unique=True)
    position: so.Mapped[int] = so.mapped_column(default=0)

    def __repr__(self) -> str:
        return f"<Topic {self.slug}>"


class PostTopic(db.Model):
    """Links a post to a topic; position 0 is the post's primary topic."""

    __tablename__ = "post_topics"
    __table_args__ = (sa.Index("ix_post_topics_topic_post", "topic_id", "post_id"),)

    post_id: so.Mapped[int] = so.mapped_column(
        sa.ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    topic_id: so.Mapped[int] = so.mapped_column(
        sa.ForeignKey("topics.id", ondelete="CASCADE"), primary_key=True
    )
    position: so.Mapped[int] = so.mapped_column(default=0)

    topic: so.Mapped[Topic] = so.relationship(lazy="joined")


class Post(db.Model):
    """A blog post: Markdown source, its stored render, and listing flags."""

    __tablename__ = "posts"
    __table_args__ = (
        sa.CheckConstraint(f"status IN {STATUSES!r}", name="status"),
        # The listing and its topic pages walk published posts newest first.
        sa.Index("ix_posts_listing", "status", "published_at", "id"),
        sa.Index("ix_posts_featured", "featured", "status", "published_at"),
        sa.Index("ix_posts_pick", "editors_pick", "status", "published_at"),
    )

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    slug: so.Mapped[str] = so.mapped_column(sa.String(200), unique=True)
    title: so.Mapped[str] = so.mapped_column(sa.String(300))
    # `summary` is what the editor wrote (maybe nothing); `excerpt` is what cards show:
    # that summary, or one derived from the body's first paragraph.
    summary: so.Mapped[str] = so.mapped_column(sa.Text, default="")
    excerpt: so.Mapped[str] = so.mapped_column(sa.Text, default="")
    body_markdown: so.Mapped[str] = so.mapped_column(sa.Text, default="")
    body_html: so.Mapped[str] = so.mapped_column(sa.Text, default="")
    render_version: so.Mapped[int] = so.mapped_column(default=0)
    reading_minutes: so.Mapped[int] = so.mapped_column(default=1)
    # Table of contents of the stored render: [[level, id, title], ...]; shown for 3+ sections.
    toc: so.Mapped[list] = so.mapped_column(sa.JSON, default=list)
    status: so.Mapped[str] = so.mapped_column(sa.String(16), default=DRAFT)
    published_at: so.Mapped[datetime | None] = so.mapped_column(sa.DateTime)
    updated_at: so.Mapped[datetime | None] = so.mapped_column(sa.DateTime)
    featured: so.Mapped[bool] = so.mapped_column(default=False)
    editors_pick: so.Mapped[bool] = so.mapped_column(default=False)
    image_alt: so.Mapped[str | None] = so.mapped_column(sa.String(500))
    author_id: so.Mapped[int] = so.mapped_column(sa.ForeignKey("authors.id"), index=True)
    primary_topic_id: so.Mapped[int | None] = so.mapped_column(
        sa.ForeignKey("topics.id"), index=True
    )
    created_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)
    modified_at: so.Mapped[datetime] = so.mapped_column(default=utcnow, onupdate=utcnow)

    author: so.Mapped[Author] = so.relationship()
    primary_topic: so.Mapped[Topic | None] = so.relationship()
    topic_links: so.Mapped[list[PostTopic]] = so.relationship(
        order_by=PostTopic.position, cascade="all, delete-orphan", passive_deletes=True
    )

    def __repr__(self) -> str:
        return f"<Post {self.slug}>"

    @property
    def topics(self) -> list[Topic]:
        """Topics in order; the first is the primary one."""
        return [link.topic for link in self.topic_links]

    def set_topics(self, topics: list[Topic]) -> None:
        """Replace the post's topics, keeping the primary-topic shortcut in step."""
        if not topics:
            raise ValueError("a post needs at least one topic")
        self.topic_links = [
            PostTopic(topic=topic, position=index) for index, topic in enumerate(topics)
        ]
        self.primary_topic = topics[0]

    @property
    def was_updated(self) -> bool:
        """True when the post was revised after it was first published."""
        return bool(self.updated_at and self.published_at and self.updated_at > self.published_at)


class SiteState(db.Model):
    """One row whose version every write to the post store bumps (for caches and ETags)."""

    __tablename__ = "site_state"

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    version: so.Mapped[int] = so.mapped_column(sa.BigInteger, default=1)
    changed_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)
