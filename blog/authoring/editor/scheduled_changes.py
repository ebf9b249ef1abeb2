"""Scheduled draft changes of a live post go live by themselves: the first request after their
time (whichever process moves the data version on, blog/web/versions.py) saves them over the
post, as "Update" would have at that moment, in the scheduling editor's name.

Each change is claimed by deleting its row at the version it was scheduled at, so of two
processes noticing the same moment only one puts it live. A change that can no longer go
live as it was scheduled (the post was updated or unpublished since, the form no longer
passes its checks, its address is taken) is held back: it stays as plain draft changes, and
the post's history says why.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from flask import Flask
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.datastructures import MultiDict

from blog import catalog, markup
from blog.authoring import pending, review, revisions, store
from blog.authoring.editor.post_page import chosen_image, chosen_upload
from blog.authoring.editor.posts import post_fields
from blog.authoring.forms import PostForm
from blog.extensions import db
from blog.models import PUBLISHED, PendingChange, Post
from blog.web import versions
from blog.web.templating import site_datetime

# Why a change was held back, as the history says it.
MOVED_ON = "the post was saved or unpublished after the changes were scheduled"
REFUSED = "the changes no longer pass the form's checks"


def init_app(app: Flask) -> None:
    """Put scheduled changes live when they fall due."""
    versions.on_due(app, apply_due)


def apply_due(now: datetime) -> None:
    """Put every draft change whose time has come live, or hold it back."""
    due = db.session.execute(
        sa.select(PendingChange.post_id, PendingChange.version)
        .where(PendingChange.go_live_at <= now)
        .order_by(PendingChange.go_live_at)
    ).all()
    db.session.rollback()
    for post_id, version in due:
        _apply(post_id, version)


def _apply(post_id: int, version: int) -> None:
    """Put one scheduled change live, claimed at `version`, in a transaction of its own. A
    rollback puts the claimed row back, so a change that cannot go live is then held."""
    change = db.session.get(PendingChange, post_id, populate_existing=True)
    if change is None or change.version != version or change.go_live_at is None:
        db.session.rollback()
        return  # put live, changed or unscheduled meanwhile
    formdata = pending.as_formdata(change)
    based_on, editor, when = change.based_on, change.editor_name, change.go_live_at
    claimed = db.session.execute(
        sa.delete(PendingChange).where(
            PendingChange.post_id == post_id,
            PendingChange.version == version,
            PendingChange.go_live_at.is_not(None),
        )
    )
    if claimed.rowcount != 1:  # type: ignore[attr-defined]
        db.session.rollback()
        return  # another process has it
    scheduled = f"scheduled by {editor or 'an editor'} for {site_datetime(when)}"
    post = catalog.post_by_id(post_id)
    live = post is not None and catalog.state_of(post) == PUBLISHED
    if post is None or not live or post.lock_version != based_on:
        db.session.rollback()
        _hold(post_id, version, f"{scheduled}: {MOVED_ON}")
        return
    try:
        _save(post, formdata)
        db.session.flush()
        revisions.record(post, editor_name=editor)
        review.record(post.id, review.CHANGES_LIVE, "", scheduled)
        db.session.commit()
    except (
        _Refused,
        store.SlugTaken,
        store.VersionConflict,
        StaleDataError,
        markup.TooSlow,
        sa.exc.IntegrityError,
    ):
        db.session.rollback()
        _hold(post_id, version, f"{scheduled}: {REFUSED}")


class _Refused(Exception):
    """The scheduled form no longer passes the checks a save makes."""


def _save(post: Post, formdata: MultiDict[str, str]) -> None:
    """Save the scheduled form over the live post: its text, names, pictures and flags; the
    post keeps its first publish date (and is updated now, as Update would)."""
    formdata = formdata.copy()
    formdata.setlist("published_at", [pending.form_time(post.published_at)])
    form = PostForm(formdata=formdata, meta={"csrf": False})
    form.status.data = PUBLISHED
    form.live = True
    if not form.validate():
        raise _Refused()
    slug = form.slug.data or store.slug_for(form.title.data or "")
    if not slug or store.slug_problem(slug, post):
        raise _Refused()
    image, refused = chosen_image(form, post)
    social_image, social_refused = chosen_upload(
        form.social_image, form.kept_social_image, form.remove_social_image.data, post.social_image
    )
    if refused or social_refused or (image is not None and not form.image_alt.data):
        raise _Refused()
    fields = post_fields(
        form,
        slug,
        image,
        status=PUBLISHED,
        published_at=post.published_at,
        featured=form.featured.data,
        editors_pick=form.editors_pick.data,
        social_image=social_image,
        updated_at=post.updated_at,
        keep_updated_date=form.keep_updated_date.data,
    )
    store.update_post(post, fields, based_on=post.lock_version)


def _hold(post_id: int, version: int, note: str) -> None:
    """Keep the change as plain draft changes, no longer scheduled, and say why in the
    post's history."""
    held = db.session.execute(
        sa.update(PendingChange)
        .where(
            PendingChange.post_id == post_id,
            PendingChange.version == version,
            PendingChange.go_live_at.is_not(None),
        )
        .values(go_live_at=None)
    )
    if held.rowcount == 1:  # type: ignore[attr-defined]
        review.record(post_id, review.CHANGES_HELD, "", note)
    db.session.flush()
    versions.record_next_publish(db.session)
    db.session.commit()
