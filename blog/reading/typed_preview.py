"""The editor's "Preview": the form's current contents (title, summary, picture, drawing,
body, topics, authors) in the real post template, with the card the listing would show,
without saving anything. The post is put together in memory, with autoflush off, and the
session is rolled back after the page is rendered, so nothing of it is ever written."""

from __future__ import annotations

import uuid
from typing import TypeVar

import sqlalchemy as sa
from flask import Blueprint, abort, render_template, request
from flask.wrappers import Response
from flask_login import current_user
from slugify import slugify
from werkzeug.datastructures import MultiDict

from blog import catalog, markup, roles
from blog.extensions import db, login_manager
from blog.media import renditions
from blog.media.images import ImageError, commit_image, image_by_hash, upload_bytes
from blog.models import DRAFT, Author, Post, Topic, max_length
from blog.reading import listing, seo
from blog.reading.drafts import private

bp = Blueprint("typed_preview", __name__, url_prefix="/editor")
TITLE_MAX = max_length(Post.__table__.c.title)
BODY_MAX = 200_000  # as the editor's form takes
NAMES_MAX = 50  # topics or authors a preview names at most

Named = TypeVar("Named", Topic, Author)


@bp.before_request
def _require_login() -> Response | None:
    """Only logged-in editors preview."""
    if not current_user.is_authenticated:
        return login_manager.unauthorized()
    return None


def _names(raw: str) -> list[str]:
    """Comma-separated names, trimmed, each once, in order."""
    return list(dict.fromkeys(name.strip() for name in raw.split(",") if name.strip()))[:NAMES_MAX]


def _found(model: type[Named], names: list[str]) -> list[Named]:
    """The stored topics or authors of these names (by name or slug), and for a name that
    finds none, one made up in memory that is never added to the session."""
    slugs = {name: slugify(name) for name in names}
    rows = db.session.scalars(
        sa.select(model).where(sa.or_(model.name.in_(names), model.slug.in_(slugs.values())))
    ).all()
    by_name = {row.name: row for row in rows}
    by_slug = {row.slug: row for row in rows}
    found: list[Named] = []
    for name in names:
        row = by_name.get(name) or by_slug.get(slugs[name])
        found.append(row if row is not None else model(name=name, slug=slugs[name] or "new"))
    return list(dict.fromkeys(found))


def _kept_upload(field: str) -> str | None:
    """The hash of the picture chosen in the form's `field` but not saved yet, checked and
    stored as a save stores an upload, or None when none was chosen. Images are immutable and
    shared by hash, so it is committed at once, as a refused save keeps its upload; nothing
    of the post is written. A refused file answers 413 or 422 with what is wrong with it."""
    upload = request.files.get(field)
    if upload is None or not upload.filename:
        return None
    try:
        return commit_image(upload_bytes(upload.stream)).sha256
    except ImageError as error:
        abort(413 if error.status == 413 else 422, description=error.message)


def _typed(sent: MultiDict[str, str], stored: Post | None) -> Post:
    """The post as the form describes it, in memory: the stored post with the form's values
    over it (kept out of any flush), or a new one."""
    post = stored if stored is not None else Post(uid=uuid.uuid4(), status=DRAFT)
    body = sent.get("body", "").replace("\r\n", "\n")
    if len(body) > BODY_MAX:
        abort(413, description="The body is over its limit, so it cannot be previewed.")
    try:
        rendered = renditions.render_body(body)
    except markup.TooSlow:
        abort(422, description="The body takes too long to render, so it cannot be previewed.")
    title = sent.get("title", "").strip()[:TITLE_MAX] or "Untitled"
    post.title = title
    if stored is None:
        post.slug = slugify(sent.get("slug", "") or title) or "new-post"
    post.summary = sent.get("summary", "").strip()
    post.take_render(body, rendered)
    post.illustration = sent.get("illustration", "").strip()
    post.meta_description = sent.get("meta_description", "").strip()
    image = image_by_hash(sent.get("kept_image", "")) if sent.get("kept_image") else None
    if image is None and not sent.get("remove_image") and stored is not None:
        image = stored.image
    post.image = image
    post.image_alt = sent.get("image_alt", "").strip() or None
    social = sent.get("kept_social_image", "")
    social_image = image_by_hash(social) if social else None
    if social_image is None and not sent.get("remove_social_image") and stored is not None:
        social_image = stored.social_image
    post.social_image = social_image
    # None is the form's to say too: a draft may have no topic yet.
    post.set_topics(_found(Topic, _names(sent.get("topics", ""))))
    names = [name.strip() for name in sent.getlist("author") if name.strip()]
    if not names and stored is None:
        names = [current_user.name]  # as the editor's form fills in a new post's byline
    authors = _found(Author, names)
    if authors:
        post.set_authors(authors)
    return post


@bp.post("/posts/preview", endpoint="page")
def typed_preview() -> Response:
    """The post as the editor's form describes it now, on its page and as its card, unsaved;
    not indexed, never stored by any cache."""
    sent: MultiDict[str, str] = request.form
    raw_id = sent.get("post_id", "")
    stored = None
    if raw_id:
        if not (raw_id.isascii() and raw_id.isdigit()) or len(raw_id) > 9:
            abort(400, description="This form names no post. Reload the editor.")
        stored = catalog.post_by_id(int(raw_id))
        if stored is None:
            abort(
                404, description="This post no longer exists: another editor may have deleted it."
            )
        if not roles.may_see(current_user, stored):
            abort(403, description=roles.NOT_YOURS)
    # Before the post is put together: the commit must hold the pictures and nothing else.
    for field, kept in (("image", "kept_image"), ("social_image", "kept_social_image")):
        digest = _kept_upload(field)
        if digest is not None:  # shown as the form's kept upload is, over the stored picture
            sent = sent.copy()
            sent[kept] = digest
    try:
        with db.session.no_autoflush:
            post = _typed(sent, stored)
            newer, older = listing.neighbours(post) if post.published_at else (None, None)
            body = render_template(
                "public/typed_preview.html",
                post=post,
                state=catalog.state_of(post) if stored is not None else DRAFT,
                meta=seo.post_meta(post),
                related=listing.related(post) if stored is not None else [],
                newer=newer,
                older=older,
                shared_link=False,
            )
    finally:
        db.session.rollback()  # nothing of the preview is kept
    return private(Response(body))
