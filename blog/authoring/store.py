"""Writing to the post store: the one path every post takes in, whoever saves it."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from flask import current_app
from slugify import slugify

from blog import markup
from blog.extensions import db
from blog.models import DRAFT, PUBLISHED, Author, Image, Post, SlugRedirect, Topic, utcnow

# C0 control characters other than tab, newline and carriage return: PostgreSQL refuses NUL
# in text, and none of them belongs in a post.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean_text(value: str | None) -> str:
    """Text as the store keeps it: control characters removed."""
    return _CONTROL.sub("", value or "")


def _slug_for(name: str, kind: str, max_length: int) -> str:
    """A URL slug for a name; names with no letters or digits get a stable made-up one."""
    made = slugify(name, max_length=max_length)
    return made or f"{kind}-{hashlib.sha1(name.encode()).hexdigest()[:8]}"


def _added_or_found(row: Author | Topic, query: sa.Select) -> Author | Topic:
    """Insert a new author or topic, or return the one another writer committed meanwhile.

    Two editors naming the same new topic at once both find it missing; on PostgreSQL the
    second insert then breaks the unique name. The savepoint keeps the rest of the save.
    """
    try:
        with db.session.begin_nested():
            db.session.add(row)
    except sa.exc.IntegrityError:
        found = db.session.scalars(query).first()
        if found is None:
            raise
        return found
    return row


def author_named(name: str) -> Author:
    """The author with this name (or this name's slug), created when missing."""
    name = clean_text(name).strip()
    slug = _slug_for(name, "author", 120)
    query = sa.select(Author).where(sa.or_(Author.name == name, Author.slug == slug))
    query = query.order_by(Author.name != name)
    author = db.session.scalars(query).first()
    if author is None:
        author = _added_or_found(Author(name=name, slug=slug), query)
    return author


def topic_named(name: str, slug: str | None = None) -> Topic:
    """The topic with this name (or slug), created at the end of the filter when missing."""
    name = clean_text(name).strip()
    slug = slug or _slug_for(name, "topic", 80)
    query = sa.select(Topic).where(sa.or_(Topic.name == name, Topic.slug == slug))
    query = query.order_by(Topic.name != name)
    topic = db.session.scalars(query).first()
    if topic is None:
        last = db.session.scalar(sa.select(sa.func.max(Topic.position))) or 0
        topic = _added_or_found(Topic(name=name, slug=slug, position=last + 1), query)
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


# Editors' saves ----------------------------------------------------------------------------

SCHEDULED = "scheduled"


class VersionConflict(Exception):
    """The save was based on an older revision than the one stored: another editor saved first."""


class SlugTaken(ValueError):
    """The requested address already belongs to another post, or still redirects to one."""


@dataclass
class PostFields:
    """Everything an editor sets on a post, already checked by the form."""

    title: str
    slug: str
    body: str
    summary: str
    topics: list[Topic]
    author: Author
    status: str
    published_at: datetime | None
    featured: bool = False
    editors_pick: bool = False
    image: Image | None = None
    image_alt: str | None = None
    # A typo fix: leave the "Updated" date as it was.
    keep_updated_date: bool = False


def state_of(post: Post, now: datetime | None = None) -> str:
    """What readers get: `draft`, `scheduled` (published with a future date) or `published`.

    The rule of `blog.models.live` and `scheduled`, for one post already loaded.
    """
    if post.status != PUBLISHED or post.published_at is None:
        return DRAFT
    if post.published_at > (now or utcnow()):
        return SCHEDULED
    return PUBLISHED


def topics_named(names: list[str]) -> list[Topic]:
    """Topics for these names in order, matched by slug so case and spacing do not split them."""
    found: list[Topic] = []
    for name in names:
        slug = slugify(name, max_length=80)
        topic = db.session.scalar(
            sa.select(Topic).where(sa.or_(Topic.slug == slug, Topic.name == name))
        )
        topic = topic or topic_named(name, slug)
        if topic not in found:
            found.append(topic)
    return found


def author_for(name: str) -> Author:
    """The author credited as `name`, matched by slug first so "ada example" finds Ada Example."""
    slug = slugify(clean_text(name), max_length=120)
    author = db.session.scalar(sa.select(Author).where(Author.slug == slug)) if slug else None
    return author or author_named(name)


def slug_problem(slug: str, post: Post | None) -> str | None:
    """Why `slug` cannot be this post's address, or None when it is free."""
    own_id = post.id if post is not None else None
    owner = db.session.scalar(sa.select(Post).where(Post.slug == slug, Post.id != own_id))
    if owner is not None:
        return f"Another post already uses this address: “{owner.title}”."
    redirect = db.session.scalar(
        sa.select(SlugRedirect).where(SlugRedirect.old_slug == slug, SlugRedirect.post_id != own_id)
    )
    if redirect is not None:
        return (
            f"This address used to belong to “{redirect.post.title}” and still leads there; "
            "choose another."
        )
    return None


def current_slug_for(old_slug: str) -> str | None:
    """The present slug of the post that `old_slug` once named, or None."""
    query = (
        sa.select(Post.slug)
        .join(SlugRedirect, SlugRedirect.post_id == Post.id)
        .where(SlugRedirect.old_slug == old_slug)
    )
    return db.session.scalar(query)


def _apply(post: Post, fields: PostFields, now: datetime) -> None:
    """Copy the editor's fields onto the post and render its body."""
    post.title = clean_text(fields.title).strip()
    post.slug = fields.slug
    post.summary = clean_text(fields.summary).strip()
    post.author = fields.author
    post.set_topics(fields.topics)
    post.status = fields.status
    post.published_at = fields.published_at
    if fields.status == PUBLISHED and post.published_at is None:
        # Whole minutes, as the editor's date field shows them: saving again changes nothing.
        post.published_at = now.replace(second=0, microsecond=0)
    post.featured = fields.featured
    post.editors_pick = fields.editors_pick
    post.image = fields.image
    # The generated illustration describes itself; alt text belongs to an uploaded image.
    post.image_alt = (clean_text(fields.image_alt).strip() or None) if fields.image else None
    set_body(post, fields.body)
    post.modified_at = now


def _address_was_public(post: Post, now: datetime) -> bool:
    """True once the post's publish time has passed, even if it went back to draft since.

    Broader than `live` on purpose: readers may hold links to an unpublished post's address,
    and they should lead to its new one when it is published again.
    """
    return post.published_at is not None and post.published_at <= now


def create_post(fields: PostFields) -> Post:
    """Add an editor's new post to the session (not committed)."""
    problem = slug_problem(fields.slug, None)
    if problem:
        raise SlugTaken(problem)
    post = Post()
    _apply(post, fields, utcnow())
    db.session.add(post)
    return post


def update_post(post: Post, fields: PostFields, *, based_on: int) -> None:
    """Save an editor's changes to `post`, which they loaded at revision `based_on`.

    Raises VersionConflict when someone saved since, SlugTaken when the new address is in use.
    A live post whose title or body changes gets a new "Updated" date unless the editor keeps
    the old one; a public post that changes its slug keeps its old address as a redirect.
    """
    if post.revision != based_on:
        raise VersionConflict
    now = utcnow()
    if fields.slug != post.slug:
        problem = slug_problem(fields.slug, post)
        if problem:
            raise SlugTaken(problem)
        if _address_was_public(post, now):
            db.session.add(SlugRedirect(old_slug=post.slug, post=post))
        db.session.execute(
            sa.delete(SlugRedirect).where(
                SlugRedirect.old_slug == fields.slug, SlugRedirect.post_id == post.id
            )
        )
    was_live = state_of(post, now) == PUBLISHED
    rewritten = (
        clean_text(fields.title).strip() != post.title
        or clean_text(fields.body) != post.body_markdown
    )
    _apply(post, fields, now)
    if was_live and fields.status == PUBLISHED and rewritten and not fields.keep_updated_date:
        post.updated_at = now


def unpublish(post: Post) -> None:
    """Take a post back to draft; its dates stay for when it is published again."""
    post.status = DRAFT
    post.modified_at = utcnow()
