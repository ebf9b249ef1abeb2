"""Writing to the post store: the one path every post takes in, whoever saves it."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from flask import current_app
from slugify import slugify

from blog import markup
from blog.catalog import state_of
from blog.extensions import db
from blog.media import renditions
from blog.models import (
    DRAFT,
    PUBLISHED,
    Author,
    Image,
    Post,
    SlugRedirect,
    Topic,
    TopicRedirect,
    max_length,
    utcnow,
)

# C0 control characters other than tab, newline and carriage return: PostgreSQL refuses NUL
# in text, and none of them belongs in a post.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean_text(value: str | None) -> str:
    """Text as the store keeps it: control characters removed."""
    return _CONTROL.sub("", value or "")


POST_SLUG_MAX = max_length(Post.__table__.c.slug)
TOPIC_SLUG_MAX = max_length(Topic.__table__.c.slug)
AUTHOR_SLUG_MAX = max_length(Author.__table__.c.slug)
# Names per `IN (...)` when topics or authors are looked up in bulk.
LOOKUP_CHUNK = 500

Named = TypeVar("Named", Author, Topic)


def slug_for(text: str, max_length: int = POST_SLUG_MAX) -> str:
    """The site's one slug rule: lower-case ASCII words joined by hyphens, "" when the text has
    no letter or digit. Names that differ only in case, spacing or punctuation share a slug."""
    return slugify(clean_text(text).strip(), max_length=max_length)


def _name_slug(model: type[Named], name: str) -> str:
    """A topic's or author's slug: the rule's, or a stable made-up one for a name without it."""
    kind, limit = ("topic", TOPIC_SLUG_MAX) if model is Topic else ("author", AUTHOR_SLUG_MAX)
    name = clean_text(name).strip()
    return slug_for(name, limit) or f"{kind}-{hashlib.sha1(name.encode()).hexdigest()[:8]}"


def topic_slug(name: str) -> str:
    """The slug a topic of this name has: two names with the same one are the same topic."""
    return _name_slug(Topic, name)


def author_slug(name: str) -> str:
    """The slug an author of this name has: two names with the same one are the same author."""
    return _name_slug(Author, name)


def _new_row(model: type[Named], name: str, slug: str) -> Named:
    """A new author, or a new topic placed at the end of the topic filter."""
    row = model(name=name, slug=slug)
    if isinstance(row, Topic):
        # Computed by the database as the row goes in, so a bulk import asks nothing first.
        last = sa.select(sa.func.coalesce(sa.func.max(Topic.position), 0) + 1).scalar_subquery()
        row.position = last  # a SQL expression, worked out on insert
    return row


def _found(model: type[Named], wanted: list[str], slugs: dict[str, str]) -> dict[str, Named]:
    """The stored row each name finds: the one of exactly this name, else the one with its
    slug, else (topics) the one that had its slug before a rename or a merge.

    Rows added to the session but not yet flushed count as found.
    """
    by_name: dict[str, Named] = {}
    by_slug: dict[str, Named] = {}
    with db.session.no_autoflush:
        for start in range(0, len(wanted), LOOKUP_CHUNK):
            chunk = wanted[start : start + LOOKUP_CHUNK]
            chunk_slugs = [slugs[n] for n in chunk]
            query = (
                sa.select(model)
                .where(sa.or_(model.name.in_(chunk), model.slug.in_(chunk_slugs)))
                .order_by(model.id)
            )
            for row in db.session.scalars(query):
                by_name.setdefault(row.name, row)
                by_slug.setdefault(row.slug, row)
            if model is Topic:
                moved = sa.select(TopicRedirect.old_slug, Topic).join(
                    Topic, Topic.id == TopicRedirect.topic_id
                )
                for old_slug, topic in db.session.execute(
                    moved.where(TopicRedirect.old_slug.in_(chunk_slugs))
                ):
                    by_slug.setdefault(old_slug, cast(Any, topic))  # only when Named is Topic
    for row in db.session.new:
        if isinstance(row, model):
            by_name.setdefault(row.name, row)
            by_slug.setdefault(row.slug, row)
    found: dict[str, Named] = {}
    for name in wanted:
        match = by_name.get(name) or by_slug.get(slugs[name])
        if match is not None:
            found[name] = match
    return found


def _named(
    model: type[Named], names: Iterable[str], *, flush: bool = True, retry: bool = True
) -> dict[str, Named]:
    """Find or create a row per name: the one `_found` finds, else a new one.

    With `flush`, new rows go in at once inside a savepoint: two editors naming the same new
    topic at once both find it missing, the second insert breaks a unique constraint, the
    savepoint keeps the rest of the save and the lookup runs once more to find the other
    writer's row. Without it they wait for the caller's own flush (an import, which saves
    everything or nothing).
    """
    cleaned = {name: clean_text(name).strip() for name in names}
    wanted = list(dict.fromkeys(cleaned.values()))
    slugs = {name: _name_slug(model, name) for name in wanted}
    by_name = _found(model, wanted, slugs)
    by_slug = {slugs[name]: row for name, row in by_name.items()}
    made: list[Named] = []
    for name in wanted:
        found = by_name.get(name) or by_slug.get(slugs[name])
        if found is None:
            found = _new_row(model, name, slugs[name])
            made.append(found)
            by_slug[slugs[name]] = found
        by_name[name] = found
    if made and not flush:
        db.session.add_all(made)
    elif made:
        try:
            with db.session.begin_nested():
                db.session.add_all(made)
        except sa.exc.IntegrityError:
            if not retry:
                raise
            return _named(model, cleaned, retry=False)
    return {given: by_name[name] for given, name in cleaned.items()}


def new_names(model: type[Named], names: Iterable[str]) -> list[str]:
    """The names (cleaned, in order, one per slug) that would make a new topic or author:
    those the find-or-create rule finds no stored row for."""
    wanted = list(dict.fromkeys(clean_text(name).strip() for name in names))
    slugs = {name: _name_slug(model, name) for name in wanted}
    found = _found(model, wanted, slugs)
    seen: set[str] = set()
    missing: list[str] = []
    for name in wanted:
        if name not in found and slugs[name] not in seen:
            seen.add(slugs[name])
            missing.append(name)
    return missing


def topics_named(names: Iterable[str], *, flush: bool = True) -> dict[str, Topic]:
    """The topic for each name, matched or created as `_named` says, in one lookup for all."""
    return _named(Topic, names, flush=flush)


def authors_named(names: Iterable[str], *, flush: bool = True) -> dict[str, Author]:
    """The author for each name, matched or created as `_named` says, in one lookup for all."""
    return _named(Author, names, flush=flush)


def topic_named(name: str, slug: str | None = None) -> Topic:
    """The topic of this name (or of its slug), created at the end of the filter when missing.

    `slug`, when given, must be the one the name makes (fixed data sets name both).
    """
    if slug is not None and slug != topic_slug(name):
        raise ValueError(f"topic {name!r} has the slug {topic_slug(name)!r}, not {slug!r}")
    return topics_named([name])[name]


def author_named(name: str) -> Author:
    """The author of this name (or of its slug, so "ada example" finds Ada Example)."""
    return authors_named([name])[name]


def credited(names: Iterable[str], *, flush: bool = True) -> list[Author]:
    """The authors these names credit, in order, each once (two names with one slug are one
    author), found or created as `_named` says."""
    names = list(names)
    found = authors_named(names, flush=flush)
    return list(dict.fromkeys(found[name] for name in names))


render_body = renditions.render_body  # a name here too: tests count the store's renders


@dataclass(frozen=True)
class EarlyRender:
    """A body rendered before its save (an import renders each while checking it), with
    what the render was made from, so that the save can take it instead of rendering again."""

    markdown: str  # as the store keeps it (clean_text)
    nofollow: bool
    images: dict[str, markup.Copies]
    rendered: markup.Rendered


def render_early(markdown_text: str, unsaved_images: Iterable[Image] = ()) -> EarlyRender:
    """The body rendered as its save would render it, `unsaved_images` counting as stored
    (TooSlow past the time limit)."""
    text = clean_text(markdown_text)
    nofollow = bool(current_app.config["LINK_NOFOLLOW"])
    images = renditions.copies_in(text, unsaved_images)
    rendered = markup.render(text, nofollow=nofollow, images=images)
    return EarlyRender(text, nofollow, images, rendered)


def _still_fits(early: EarlyRender, markdown_text: str) -> bool:
    """Whether an early render is the one the body would get now: same text, same link
    policy, and the images it names stored as they were counted (one lookup, no render)."""
    return (
        early.markdown == markdown_text
        and early.nofollow == bool(current_app.config["LINK_NOFOLLOW"])
        and early.images == renditions.copies_in(markdown_text)
    )


def set_body(post: Post, markdown_text: str, early: EarlyRender | None = None) -> None:
    """Store the Markdown with its sanitized render, reading time and card excerpt; `early`,
    a render made for this text before, is taken instead of rendering when it still fits."""
    markdown_text = clean_text(markdown_text)
    if early is not None and _still_fits(early, markdown_text):
        rendered = early.rendered
    else:
        rendered = render_body(markdown_text)
    post.take_render(markdown_text, rendered)


def new_post(
    *,
    title: str,
    body: str,
    author: Author,
    topics: list[Topic],
    coauthors: Sequence[Author] = (),
    summary: str = "",
    slug: str | None = None,
    published_at: datetime | None = None,
    updated_at: datetime | None = None,
    featured: bool = False,
    editors_pick: bool = False,
    image_alt: str | None = None,
    illustration: str = "",
    meta_description: str = "",
    social_image: Image | None = None,
    old_slugs: Iterable[str] = (),
    rendered: EarlyRender | None = None,
) -> Post:
    """Add a post to the session: published when it has a date, a draft otherwise; credited
    to `author`, then to `coauthors` in order.

    Each of `old_slugs` (checked by the caller) leads to the new post, as `keep_old_addresses`.
    `rendered`, the body's render made while checking it, saves rendering it again.
    """
    post = Post(
        title=clean_text(title).strip(),
        slug=slug or slug_for(title),
        summary=clean_text(summary).strip(),
        status=PUBLISHED if published_at else DRAFT,
        published_at=published_at,
        updated_at=updated_at,
        featured=featured,
        editors_pick=editors_pick,
        image_alt=clean_text(image_alt).strip() or None,
        illustration=illustration,
        meta_description=clean_text(meta_description).strip(),
        social_image=social_image,
    )
    post.set_topics(topics)
    post.set_authors([author, *coauthors])
    set_body(post, body, rendered)
    db.session.add(post)
    keep_old_addresses(post, old_slugs)
    return post


def keep_old_addresses(
    post: Post, old_slugs: Iterable[str], since: dict[str, datetime | None] | None = None
) -> None:
    """Make each old slug redirect to the post: the one place a redirect is written.

    The caller has checked them: none is a post's slug or another post's old address
    (`slug_problem` for an editor's rename, the importer's checks for a whole import, the
    trash's before a restore). `since` keeps the time a restored redirect was first made.
    """
    for old_slug in old_slugs:
        redirect = SlugRedirect(old_slug=old_slug, post=post)
        made = (since or {}).get(old_slug)
        if made is not None:
            redirect.created_at = made
        db.session.add(redirect)


# Editors' saves ----------------------------------------------------------------------------


class VersionConflict(Exception):
    """The save was based on an older lock version than the stored one: another editor saved."""


class SlugTaken(ValueError):
    """The requested address already belongs to another post, or still redirects to one."""


@dataclass
class PostFields:
    """Everything a save sets on a post, already checked (by the editor's form or the importer)."""

    title: str
    slug: str
    body: str
    summary: str
    topics: list[Topic]
    author: Author  # the first author
    status: str
    published_at: datetime | None
    featured: bool = False
    editors_pick: bool = False
    image: Image | None = None
    image_alt: str | None = None
    # The drawing's spec in its stored spelling (drawing_spec.canonical), "" for none.
    illustration: str = ""
    # For search engines and link previews: "" and None fall back to the excerpt and picture.
    meta_description: str = ""
    social_image: Image | None = None
    # The "Updated" date the post carries: the editor passes the stored one, a file its own.
    updated_at: datetime | None = None
    # Do not move the "Updated" date to now when a live post's text changes: the editor's
    # "minor fix" box, or an import (the file says when it was updated).
    keep_updated_date: bool = False
    # Old addresses to add as redirects to the post, besides the one a change of slug leaves:
    # an import restores a file's `redirect_from`. Checked by the caller, none already stored.
    old_slugs: list[str] = field(default_factory=list)
    # The post's other authors, in order after `author`.
    coauthors: list[Author] = field(default_factory=list)

    @property
    def authors(self) -> list[Author]:
        """Every author the post credits, in order, each once."""
        return list(dict.fromkeys([self.author, *self.coauthors]))


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


def _apply(
    post: Post, fields: PostFields, now: datetime, rendered: EarlyRender | None = None
) -> None:
    """Copy the fields onto the post; render its body again only when its text changed
    (taking `rendered`, made while checking it, when it still fits)."""
    body = clean_text(fields.body)
    summary = clean_text(fields.summary).strip()
    rerender = (
        body != post.body_markdown
        or summary != post.summary
        or post.render_version != markup.PIPELINE_VERSION
    )
    post.title = clean_text(fields.title).strip()
    post.slug = fields.slug
    post.summary = summary
    with db.session.no_autoflush:  # loading the links must not write the changes so far
        credited = [link.author for link in post.author_links]
    if credited != fields.authors:
        post.set_authors(fields.authors)
    if fields.status != DRAFT and not fields.topics:
        # The editor's form and the importers check this first, saying so beside the field.
        raise ValueError("a published or scheduled post needs at least one topic")
    if post.topics != fields.topics:
        post.set_topics(fields.topics)
    post.status = fields.status
    post.published_at = fields.published_at
    if fields.status == PUBLISHED and post.published_at is None:
        # Whole minutes, as the editor's date field shows them: saving again changes nothing.
        post.published_at = now.replace(second=0, microsecond=0)
    post.updated_at = fields.updated_at
    post.featured = fields.featured
    post.editors_pick = fields.editors_pick
    post.image = fields.image
    # The generated illustration describes itself; alt text belongs to an uploaded image.
    post.image_alt = (clean_text(fields.image_alt).strip() or None) if fields.image else None
    post.illustration = fields.illustration
    post.meta_description = clean_text(fields.meta_description).strip()
    post.social_image = fields.social_image
    if rerender:
        set_body(post, body, rendered)
    post.modified_at = now


def _address_was_public(post: Post, now: datetime) -> bool:
    """True once the post's publish time has passed, even if it went back to draft since.

    Broader than `live` on purpose: readers may hold links to an unpublished post's address,
    and they should lead to its new one when it is published again.
    """
    return post.published_at is not None and post.published_at <= now


def id_was_used(post_id: int) -> bool:
    """True when some post has had this id, though it may be gone: ids are handed out in
    order and never twice (SQLite AUTOINCREMENT, a PostgreSQL sequence)."""
    if db.engine.dialect.name == "sqlite":
        query = sa.text("SELECT seq FROM sqlite_sequence WHERE name = 'posts'")
    else:
        query = sa.text(  # NULL until the sequence hands out its first id
            "SELECT pg_sequence_last_value(pg_get_serial_sequence('posts', 'id')::regclass)"
        )
    highest = db.session.scalar(query) or 0
    return 0 < post_id <= highest


def create_post(fields: PostFields) -> Post:
    """Add an editor's new post to the session (not committed)."""
    problem = slug_problem(fields.slug, None)
    if problem:
        raise SlugTaken(problem)
    post = Post()
    _apply(post, fields, utcnow())
    db.session.add(post)
    keep_old_addresses(post, fields.old_slugs)
    return post


def update_post(
    post: Post,
    fields: PostFields,
    *,
    based_on: int | None = None,
    rendered: EarlyRender | None = None,
) -> None:
    """Save changes to a stored post: the one path for the editor's saves and for imports.

    An editor loaded the post at lock version `based_on`: VersionConflict when someone saved
    since. SlugTaken when the new address is in use. A live post whose title or body changes
    gets a new "Updated" date unless `keep_updated_date`; a public post that changes its
    slug keeps its old address as a redirect, and `old_slugs` are added as redirects too.
    `rendered`, the body's render made while checking it, saves rendering it again.
    """
    if based_on is not None and post.lock_version != based_on:
        raise VersionConflict
    now = utcnow()
    if fields.slug != post.slug:
        problem = slug_problem(fields.slug, post)
        if problem:
            raise SlugTaken(problem)
        if _address_was_public(post, now):
            keep_old_addresses(post, [post.slug])
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
    _apply(post, fields, now, rendered)
    keep_old_addresses(post, fields.old_slugs)
    if was_live and fields.status == PUBLISHED and rewritten and not fields.keep_updated_date:
        post.updated_at = now
