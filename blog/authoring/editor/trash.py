"""Deleting posts into the trash, restoring them from it, and emptying it.

A deleted post's row leaves `posts` (so the public site, its counts, search and caches forget
it as they would any delete), but first a snapshot of everything it was goes into
`trashed_posts`, in the same transaction. For RETENTION it can be put back with its old id,
dates, topics, author, image and old addresses; after that, or when an editor empties the
trash, it is gone.
"""

from __future__ import annotations

import math
import uuid
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from flask import abort, current_app, flash, redirect, render_template, url_for
from flask.wrappers import Response
from flask_login import current_user
from werkzeug.wrappers import Response as BaseResponse

from blog import catalog, markup
from blog.authoring import review, store
from blog.authoring.editor import bp, post_or_404
from blog.authoring.forms import ConfirmForm
from blog.database import WRITE_OPTION, begin_write
from blog.extensions import db
from blog.media.images import image_by_hash
from blog.models import Editor, OldAddress, Post, SlugRedirect, TrashedPost, utcnow

RETENTION = timedelta(days=30)
RETENTION_DAYS = RETENTION.days
# A delete whose snapshot another editor's save made stale is tried again this many times.
DELETE_TRIES = 3
TRASHED = "trashed"  # flash category: the message gets a link to the trash


# Snapshots ---------------------------------------------------------------------------------


def _when(value: datetime | None) -> str | None:
    """A stored time as snapshot text."""
    return value.isoformat() if value is not None else None


def _time(value: str | None) -> datetime | None:
    """Snapshot text back to a stored time."""
    return datetime.fromisoformat(value) if value is not None else None


def snapshot_of(post: Post) -> dict[str, Any]:
    """Everything needed to put the post back as it is, with names where rows may change."""
    redirects = db.session.scalars(
        sa.select(SlugRedirect).where(SlugRedirect.post_id == post.id).order_by(SlugRedirect.id)
    )
    return {
        "uid": str(post.uid),
        "slug": post.slug,
        "title": post.title,
        "summary": post.summary,
        "body_markdown": post.body_markdown,
        "status": post.status,
        "published_at": _when(post.published_at),
        "updated_at": _when(post.updated_at),
        "created_at": _when(post.created_at),
        "modified_at": _when(post.modified_at),
        "featured": post.featured,
        "editors_pick": post.editors_pick,
        "image_sha256": post.image.sha256 if post.image is not None else None,
        "image_alt": post.image_alt,
        "illustration": post.illustration,
        "meta_description": post.meta_description,
        "social_image_sha256": post.social_image.sha256 if post.social_image else None,
        "author": post.author.name,  # the first, as snapshots before co-authors had it
        "authors": [author.name for author in post.authors],
        "topics": [topic.name for topic in post.topics],
        "old_slugs": [[row.old_slug, _when(row.created_at)] for row in redirects],
        # The paths of a moved site that led to it (blog.models.OldAddress).
        "old_paths": [
            [row.path, _when(row.created_at)] for row in catalog.old_addresses_of(post.id)
        ],
        "lock_version": post.lock_version,
        "created_by_id": post.created_by_id,
    }


def expires_at(entry: TrashedPost) -> datetime:
    """When the entry leaves the trash by itself."""
    return entry.deleted_at + RETENTION


def days_left(entry: TrashedPost, now: datetime) -> int:
    """Whole days, rounded up, before the entry is purged (0 once it is due)."""
    seconds = (expires_at(entry) - now).total_seconds()
    return max(0, math.ceil(seconds / 86400))


def _expired(now: datetime) -> sa.ColumnElement[bool]:
    """Entries kept longer than RETENTION."""
    return TrashedPost.deleted_at <= now - RETENTION


def purge_expired(now: datetime | None = None) -> int:
    """Delete entries past RETENTION in the session's transaction; returns how many."""
    result = db.session.execute(sa.delete(TrashedPost).where(_expired(now or utcnow())))
    return result.rowcount or 0  # type: ignore[attr-defined]


def _purge_expired_on_its_own() -> None:
    """From a page that only reads: purge in a short write transaction of its own, and only
    when something is due, so viewing the trash normally writes nothing."""
    now = utcnow()
    due = db.session.scalar(sa.select(TrashedPost.post_id).where(_expired(now)).limit(1))
    if due is None:
        return
    with db.engine.connect() as connection:
        connection = connection.execution_options(**{WRITE_OPTION: True})
        with connection.begin():
            connection.execute(sa.delete(TrashedPost).where(_expired(now)))
    db.session.rollback()  # the next read sees the purge


def trashed_posts() -> list[TrashedPost]:
    """Every entry in the trash, the most recently deleted first."""
    query = sa.select(TrashedPost).order_by(
        TrashedPost.deleted_at.desc(), TrashedPost.post_id.desc()
    )
    return list(db.session.scalars(query))


def move_to_trash(post: Post, deleted_by: str) -> bool:
    """Snapshot the post into the trash and delete its row (the caller commits both).

    False when the post changed since it was loaded (another editor saved): nothing is
    written, and the caller loads it again so the snapshot holds that save too.
    """
    entry = TrashedPost(
        post_id=post.id,
        deleted_by=deleted_by,
        title=post.title,
        snapshot=snapshot_of(post),
    )
    db.session.add(entry)
    # The database drops its topic links and old addresses (ON DELETE CASCADE).
    deleted = db.session.execute(
        sa.delete(Post).where(Post.id == post.id, Post.lock_version == post.lock_version)
    )
    return bool(deleted.rowcount)  # type: ignore[attr-defined]


# Restoring ---------------------------------------------------------------------------------


class RestoreRefused(Exception):
    """The post cannot come back as it was: one of its addresses belongs to another post."""


def _address_owner(slug: str) -> str | None:
    """The title of the post this address now belongs to or leads to, or None when free."""
    owner = db.session.scalar(sa.select(Post.title).where(Post.slug == slug))
    if owner is not None:
        return owner
    return db.session.scalar(
        sa.select(Post.title)
        .join(SlugRedirect, SlugRedirect.post_id == Post.id)
        .where(SlugRedirect.old_slug == slug)
    )


def _check_addresses(title: str, snapshot: dict[str, Any]) -> None:
    """RestoreRefused, naming the first address of the post that another post took since."""
    for slug in [snapshot["slug"], *(old for old, _ in snapshot["old_slugs"])]:
        owner = _address_owner(slug)
        if owner is not None:
            raise RestoreRefused(
                f"“{title}” was not restored: its address /posts/{slug} now belongs to "
                f"“{owner}”. Give that post another address (or delete it), then restore "
                "this one again."
            )


def _check_identity(title: str, snapshot: dict[str, Any]) -> uuid.UUID:
    """The post's permanent id (a fresh one for entries trashed before it was kept), or
    RestoreRefused when an import gave it to another post meanwhile."""
    if "uid" not in snapshot:
        return uuid.uuid4()
    uid = uuid.UUID(snapshot["uid"])
    owner = db.session.scalar(sa.select(Post.title).where(Post.uid == uid))
    if owner is not None:
        raise RestoreRefused(
            f"“{title}” was not restored: its permanent id {uid} now belongs to “{owner}”, "
            "imported meanwhile. Delete that post, then restore this one again."
        )
    return uid


def _writer(editor_id: int | None) -> int | None:
    """The post's writer as the snapshot names them, while their account exists."""
    if editor_id is None:
        return None
    return db.session.scalar(sa.select(Editor.id).where(Editor.id == editor_id))


def _keep_old_paths(post: Post, paths: list[list[str | None]]) -> None:
    """Give the restored post back its old paths from a moved site, each that no other post
    took meanwhile (that one keeps it)."""
    wanted = [path for path, _ in paths if path]
    if not wanted:
        return
    taken = set(db.session.scalars(sa.select(OldAddress.path).where(OldAddress.path.in_(wanted))))
    for path, created_at in paths:
        if path and path not in taken:
            row = OldAddress(path=path, post=post)
            made = _time(created_at)
            if made is not None:
                row.created_at = made
            db.session.add(row)


def restore(entry: TrashedPost) -> Post:
    """Put the entry's post back with its old id, dates, topics, authors, images, meta
    description and old addresses, and take it out of the trash (the caller commits).

    RestoreRefused, with nothing written, when an address of the post is taken.
    """
    data = entry.snapshot
    _check_addresses(entry.title, data)
    uid = _check_identity(entry.title, data)
    topics = store.topics_named(data["topics"])
    authors = store.credited(data.get("authors") or [data["author"]])
    image = image_by_hash(data["image_sha256"] or "")
    post = Post(
        id=entry.post_id,
        uid=uid,
        slug=data["slug"],
        title=data["title"],
        summary=data["summary"],
        status=data["status"],
        published_at=_time(data["published_at"]),
        updated_at=_time(data["updated_at"]),
        created_at=_time(data["created_at"]),
        modified_at=_time(data["modified_at"]),
        featured=data["featured"],
        editors_pick=data["editors_pick"],
        author=authors[0],
        image=image,
        image_alt=data["image_alt"] if image is not None else None,
        illustration=data.get("illustration", ""),  # snapshots from before it have none
        # Entries trashed before these fields were kept have neither.
        meta_description=data.get("meta_description") or "",
        social_image=image_by_hash(data.get("social_image_sha256") or ""),
        created_by_id=_writer(data.get("created_by_id")),
    )
    post.set_authors(authors)
    if topics:
        post.set_topics(list(dict.fromkeys(topics[name] for name in data["topics"])))
    store.set_body(post, data["body_markdown"])
    db.session.add(post)
    since = {old_slug: _time(created_at) for old_slug, created_at in data["old_slugs"]}
    store.keep_old_addresses(post, since, since)
    _keep_old_paths(post, data.get("old_paths", []))  # entries from before they were kept
    db.session.delete(entry)
    db.session.flush()
    # The insert numbers the lock afresh (the ORM's version counter); an editor's tab from
    # before the delete holds the old number, and the post is exactly what that tab loaded,
    # so its save may go through. The update would move modified_at on: it is kept too.
    db.session.execute(
        sa.update(Post)
        .where(Post.id == post.id)
        .values(lock_version=data["lock_version"], modified_at=post.modified_at)
        .execution_options(synchronize_session=False)
    )
    db.session.expire(post)
    return post


# Views -------------------------------------------------------------------------------------


@bp.route("/posts/<id:post_id>/delete", methods=["GET", "POST"])
def delete(post_id: int) -> BaseResponse:
    """Ask before deleting a post; on confirmation move it to the trash."""
    post = post_or_404(post_id)
    form = ConfirmForm()
    if form.validate_on_submit():
        for _ in range(DELETE_TRIES):
            title = post.title
            purge_expired()
            try:
                if move_to_trash(post, current_user.name):
                    review.record(post_id, review.DELETED, current_user.name)
                    db.session.commit()
                    break
            except sa.exc.IntegrityError:  # another editor trashed it a moment ago
                db.session.rollback()
                abort(404, description=f"“{title}” is already in the trash.")
            db.session.rollback()
            begin_write()
            post = post_or_404(post_id)  # saved meanwhile: snapshot that save too
        else:
            abort(409, description="This post keeps changing; try deleting it again.")
        flash(
            f"Deleted “{title}”. It is in the trash, where it can be restored for "
            f"{RETENTION_DAYS} days.",
            TRASHED,
        )
        return redirect(url_for("editor.index"), 303)
    return current_app.make_response(
        render_template(
            "editor/delete.html",
            post=post,
            form=form,
            state=catalog.state_of(post),
            retention_days=RETENTION_DAYS,
        )
    )


def _trash_page(*, status: int = 200, problem: str | None = None) -> Response:
    """The trash: every entry with its deleter and the days it has left."""
    now = utcnow()
    entries = trashed_posts()
    return current_app.make_response(
        (
            render_template(
                "editor/trash.html",
                entries=[(entry, days_left(entry, now)) for entry in entries],
                form=ConfirmForm(),
                problem=problem,
                retention_days=RETENTION_DAYS,
            ),
            status,
        )
    )


@bp.get("/trash")
def trash() -> Response:
    """Deleted posts, newest first, each with a button that restores it."""
    _purge_expired_on_its_own()
    return _trash_page()


@bp.post("/trash/<id:post_id>/restore")
def restore_post(post_id: int) -> BaseResponse:
    """Put a trashed post back; 404 once it has left the trash, 409 when its address is taken."""
    form = ConfirmForm()
    if not form.validate_on_submit():
        abort(400, description="This form is no longer valid. Reload the page.")
    purge_expired()
    entry = db.session.get(TrashedPost, post_id, with_for_update=True)
    if entry is None:
        abort(
            404,
            description="This post is no longer in the trash: it was restored, or the "
            "trash was emptied.",
        )
    title = entry.title
    try:
        post = restore(entry)
        review.record(post_id, review.RESTORED, current_user.name)
        db.session.commit()
    except RestoreRefused as refused:
        db.session.rollback()
        return _trash_page(status=409, problem=str(refused))
    except markup.TooSlow as slow:  # a body saved under a larger MARKDOWN_TIME_LIMIT
        db.session.rollback()
        return _trash_page(
            status=422,
            problem=f"“{title}” was not restored: its text takes too long to render (more "
            f"than {slow.limit:g} seconds). It stays in the trash.",
        )
    except sa.exc.IntegrityError:
        # Another editor restored it, or took one of its addresses, at this very moment.
        db.session.rollback()
        if db.session.get(TrashedPost, post_id) is None:
            abort(404, description=f"“{title}” was restored a moment ago by another editor.")
        return _trash_page(
            status=409,
            problem=f"“{title}” was not restored: another post took one of its addresses a "
            "moment ago. Try again.",
        )
    flash(f"Restored “{title}” from the trash.")
    return redirect(url_for("editor.edit", post_id=post.id), 303)


@bp.route("/trash/empty", methods=["GET", "POST"])
def empty_trash() -> BaseResponse:
    """Ask, then delete every entry in the trash for good."""
    form = ConfirmForm()
    if form.validate_on_submit():
        removed = db.session.execute(sa.delete(TrashedPost)).rowcount  # type: ignore[attr-defined]
        db.session.commit()
        flash(f"Emptied the trash: {removed} post{'s' if removed != 1 else ''} deleted for good.")
        return redirect(url_for("editor.trash"), 303)
    count = db.session.scalar(sa.select(sa.func.count()).select_from(TrashedPost)) or 0
    return current_app.make_response(
        render_template("editor/trash.html", confirm_empty=True, count=count, form=form)
    )
