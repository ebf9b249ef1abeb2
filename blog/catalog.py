"""What readers and editors both look up: a topic by its slug or an old one, a post by an old
slug or an old path, the posts of a topic or of an author, and which state a post is in for
readers.

Each rule is written here once; `blog.models.live` and `scheduled` are the live-post rule as
SQL. Imports only `models` and `extensions`.
"""

from __future__ import annotations

import posixpath
import re
from datetime import datetime
from urllib.parse import unquote, urlsplit

import sqlalchemy as sa
import sqlalchemy.orm as so

from blog.extensions import db
from blog.models import (
    DRAFT,
    PUBLISHED,
    Author,
    OldAddress,
    Post,
    PostAuthor,
    PostTopic,
    SlugRedirect,
    Topic,
    TopicRedirect,
    live,
    utcnow,
)

SCHEDULED = "scheduled"


def state_of(post: Post, now: datetime | None = None) -> str:
    """What readers get: `draft`, `scheduled` (published with a future date) or `published`.

    The rule of `blog.models.live` and `scheduled`, for one post already loaded.
    """
    if post.status != PUBLISHED or post.published_at is None:
        return DRAFT
    if post.published_at > (now or utcnow()):
        return SCHEDULED
    return PUBLISHED


def has_live_posts() -> sa.Exists:
    """The topic (of the enclosing query) has a live post: stops at the first one."""
    return (
        sa.select(PostTopic.post_id)
        .join(Post, Post.id == PostTopic.post_id)
        .where(PostTopic.topic_id == Topic.id, live())
        .exists()
    )


def in_topic(topic: Topic) -> sa.ColumnElement[bool]:
    """Posts filed under the topic."""
    return Post.id.in_(sa.select(PostTopic.post_id).where(PostTopic.topic_id == topic.id))


def credits(author: Author) -> sa.ColumnElement[bool]:
    """Posts that credit the author, first or as a co-author (a post written outside the
    store, with no author links, by its first author)."""
    credited = sa.select(PostAuthor.post_id).where(PostAuthor.author_id == author.id)
    return sa.or_(Post.author_id == author.id, Post.id.in_(credited))


def topic_by_slug(slug: str) -> Topic | None:
    """The topic with this slug when it has live posts: others are not public yet."""
    query = sa.select(Topic).where(Topic.slug == slug, has_live_posts())
    return db.session.scalars(query).first()


def old_addresses(topic: Topic) -> list[str]:
    """The old slugs that lead to the topic, oldest first."""
    query = (
        sa.select(TopicRedirect.old_slug)
        .where(TopicRedirect.topic_id == topic.id)
        .order_by(TopicRedirect.id)
    )
    return list(db.session.scalars(query))


def current_topic_slug(old_slug: str) -> str | None:
    """The present slug of the topic that `old_slug` named before a rename or a merge."""
    query = (
        sa.select(Topic.slug)
        .join(TopicRedirect, TopicRedirect.topic_id == Topic.id)
        .where(TopicRedirect.old_slug == old_slug)
    )
    return db.session.scalar(query)


def current_slug_for(old_slug: str) -> str | None:
    """The present slug of the live post that `old_slug` once named, or None: an old address
    never leads to a draft or a scheduled post (the redirect would give its new one away)."""
    query = (
        sa.select(Post.slug)
        .join(SlugRedirect, SlugRedirect.post_id == Post.id)
        .where(SlugRedirect.old_slug == old_slug, live())
    )
    return db.session.scalar(query)


ADDRESS_MAX = 500
# The endings a static site gives one page: `/a/b/`, `/a/b`, `/a/b.html`, `/a/b/index.html`.
_PAGE_ENDING = re.compile(r"(?:/index)?\.html?$|/+$", re.IGNORECASE)
_WORDPRESS_ID = re.compile(r"(?:^|&)(p|page_id)=([0-9]{1,12})(?:&|$)")


def address_key(address: str) -> str | None:
    """An old address as the table of old paths keeps it, or None when it is no path:
    the path alone (a full URL's host dropped), percent-decoded, `..` resolved, without
    a trailing slash, `.html` or `/index.html`; WordPress's `/?p=ID` keeps its query."""
    text = address.strip()
    if not text or not text.isprintable():
        return None
    parts = urlsplit(text)
    try:
        path = unquote(parts.path, errors="strict") if parts.path else "/"
    except UnicodeDecodeError:
        return None
    if not path.isprintable():
        return None
    path = posixpath.normpath("/" + path.lstrip("/"))
    path = "/" + path.lstrip("/")
    path = _PAGE_ENDING.sub("", path) or "/"
    if path == "/":
        found = _WORDPRESS_ID.search(parts.query)
        if found is None:
            return None  # the home page is never an old address
        return f"/?{found[1]}={found[2]}"
    if len(path) > ADDRESS_MAX:
        return None
    return path


def slug_for_address(address: str) -> str | None:
    """The slug of the live post that answered at this old address, or None (a draft or a
    scheduled post's old path leads nowhere yet)."""
    key = address_key(address)
    if key is None:
        return None
    query = (
        sa.select(Post.slug)
        .join(OldAddress, OldAddress.post_id == Post.id)
        .where(OldAddress.path == key, live())
    )
    return db.session.scalar(query)


def old_addresses_of(post_id: int) -> list[OldAddress]:
    """The old paths that lead to a post, in the order they were kept."""
    query = sa.select(OldAddress).where(OldAddress.post_id == post_id).order_by(OldAddress.id)
    return list(db.session.scalars(query))


def forget_old_address(post_id: int, address_id: int) -> str | None:
    """Remove one of a post's old paths (the caller commits); the path, or None when the
    post has no such one (removed a moment ago by another editor)."""
    row = db.session.scalar(
        sa.select(OldAddress).where(OldAddress.id == address_id, OldAddress.post_id == post_id)
    )
    if row is None:
        return None
    db.session.delete(row)
    return row.path


def post_by_id(post_id: int) -> Post | None:
    """A post by id, any state, with its topics and author loaded: what an editor's page of
    it and its preview show (None when it is gone)."""
    query = (
        sa.select(Post)
        .options(so.selectinload(Post.topic_links), so.joinedload(Post.author))
        .where(Post.id == post_id)
    )
    return db.session.scalar(query)
