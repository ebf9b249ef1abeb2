"""Writing to the post store: the one path every post takes in, whoever saves it."""

from __future__ import annotations

import re
from datetime import datetime

import sqlalchemy as sa
from flask import current_app
from slugify import slugify

from blog import markup
from blog.extensions import db
from blog.models import DRAFT, PUBLISHED, Author, Post, Topic


# C0 control characters other than tab, newline and carriage return: PostgreSQL refuses NUL
# in text, and none of them belongs in a post.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean_text(value: str | None) -> str:
    """Text as the store keeps it: control characters removed."""
    return _CONTROL.sub("", value or "")


def author_named(name: str) -> Author:
    """The author with this name, created when missing."""
    name = clean_text(name).strip()
    author = db.session.scalar(sa.select(Author).where(Author.name == name))
    if author is None:
        author = Author(name=name, slug=slugify(name, max_length=120) or "author")
        db.session.add(author)
    return author


def topic_named(name: str, slug: str | None = None) -> Topic:
    """The topic with this name, created at the end of the filter when missing."""
    name = clean_text(name).strip()
    topic = db.session.scalar(sa.select(Topic).where(Topic.name == name))
    if topic is None:
        last = db.session.scalar(sa.select(sa.func.max(Topic.position))) or 0
        topic = Topic(name=name, slug=slug or slugify(name, max_length=80), position=last + 1)
        db.session.add(topic)
        db.session.flush()
    return topic


def set_body(post: Post, markdown_text: str) -> None:
    """Store the Markdown with its sanitized render, reading time and card excerpt."""
    markdown_text = clean_text(markdown_text)
    rendered = markup.render(markdown_text, nofollow=current_app.config["LINK_NOFOLLOW"])
    post.body_markdown = markdown_text
    post.body_html = rendered.html
    post.reading_minutes = rendered.reading_minutes
    post.toc = (
        [[entry.level, entry.id, entry.title] for entry in rendered.toc]
        if rendered.show_toc
        else []
    )
    post.render_version = markup.PIPELINE_VERSION
    post.excerpt = post.summary.strip() or rendered.summary


def new_post(
    *,
    title: str,
    body: str,
    author: Author,
    topics: list[Topic],
    summary: str = "",
    slug: str | None = None,
    published_at: datetime | None = None,
    updated_at: datetime | None = None,
    featured: bool = False,
    editors_pick: bool = False,
    image_alt: str | None = None,
) -> Post:
    """Add a post to the session: published when it has a date, a draft otherwise."""
    post = Post(
        title=clean_text(title).strip(),
        slug=slug or slugify(title, max_length=200),
        summary=clean_text(summary).strip(),
        author=author,
        status=PUBLISHED if published_at else DRAFT,
        published_at=published_at,
        updated_at=updated_at,
        featured=featured,
        editors_pick=editors_pick,
        image_alt=clean_text(image_alt).strip() or None,
    )
    post.set_topics(topics)
    set_body(post, body)
    db.session.add(post)
    return post
