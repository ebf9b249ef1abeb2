"""Private draft links: made and revoked in the editor, served by the reading area.

A link carries a random token, shown once; the store keeps only its SHA-256. It opens its
draft until it expires or is revoked, and dies for good the moment the post is published
(any save, import or restore that makes it so deletes its links in the same transaction) or
deleted (the database drops them with the post). The one rule for what a token opens is
`post_for`. Imports only `models` and `extensions`.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, cast

import sqlalchemy as sa
import sqlalchemy.orm as so

from blog.extensions import db
from blog.models import (
    DRAFT,
    PUBLISHED,
    DraftLink,
    Post,
    new_link_token,
    token_digest,
    utcnow,
)

# How long a new link lasts, by the choice offered; a week unless the maker says otherwise.
LIFETIMES = {"1": timedelta(days=1), "7": timedelta(days=7), "30": timedelta(days=30)}
DEFAULT_LIFETIME = "7"
# What new_link_token makes: 43 URL-safe characters. Anything else is refused unread.
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{43}")

_LINKS = cast(sa.Table, DraftLink.__table__)


def make_link(post: Post, made_by: str, lifetime: str = DEFAULT_LIFETIME) -> tuple[DraftLink, str]:
    """Add a link to the draft to the session (the caller commits); returns it and its
    token, which nothing keeps: show it once."""
    token = new_link_token()
    link = DraftLink(
        post_id=post.id,
        token_hash=token_digest(token),
        created_by_name=made_by,
        expires_at=utcnow() + LIFETIMES[lifetime],
    )
    db.session.add(link)
    return link, token


def links_of(post_id: int) -> list[DraftLink]:
    """The post's links, newest first, expired ones included (until revoked)."""
    query = sa.select(DraftLink).where(DraftLink.post_id == post_id).order_by(DraftLink.id.desc())
    return list(db.session.scalars(query))


def revoke(post_id: int, link_id: int) -> bool:
    """Delete one of the post's links (the caller commits); False when it had none such."""
    result = db.session.execute(
        sa.delete(DraftLink).where(DraftLink.id == link_id, DraftLink.post_id == post_id)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def is_live(link: DraftLink, now: datetime | None = None) -> bool:
    """True until the link's time is up."""
    return link.expires_at > (now or utcnow())


def post_for(token: str) -> Post | None:
    """The draft this token opens: a link with its hash, not expired, on a post that is
    still a draft. None for anything else, told apart from nothing."""
    if not TOKEN_SHAPE.fullmatch(token):
        return None
    query = (
        sa.select(Post)
        .join(DraftLink, DraftLink.post_id == Post.id)
        .options(so.selectinload(Post.topic_links), so.joinedload(Post.author))
        .where(
            DraftLink.token_hash == token_digest(token),
            DraftLink.expires_at > utcnow(),
            Post.status == DRAFT,
        )
    )
    return db.session.scalar(query)


@sa.event.listens_for(so.Session, "after_flush")
def _links_die_with_publishing(session: so.Session, _context: Any) -> None:
    """A post that this flush made published loses its draft links, whatever saved it."""
    published = [
        post.id
        for post in session.dirty
        if isinstance(post, Post)
        and PUBLISHED in (sa.inspect(post).attrs.status.history.added or ())
    ]
    if published:
        session.connection().execute(sa.delete(_LINKS).where(_LINKS.c.post_id.in_(published)))
