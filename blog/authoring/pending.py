"""Draft changes of a published post: "Save draft" (and an autosave, and a restore) on a live
or scheduled post keeps the editor's form here instead of in the post, so readers, feeds,
search and the page cache keep the published text until "Update" saves the form over it.

A row holds the form's fields as the form reads them back; the editor opens on it with a
banner. Writing or discarding one never touches the post's row, so the data version readers'
caches follow does not move.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import sqlalchemy as sa
from werkzeug.datastructures import MultiDict

from blog.authoring.forms import PostForm
from blog.authoring.store import PostFields
from blog.extensions import db
from blog.models import Editor, Image, PendingChange, Post, utcnow
from blog.web import versions
from blog.web.templating import in_site_zone

# The form's fields a draft change keeps: what an editor types or picks. The token, the
# post's id and versions and the action belong to each request, not to the text.
TEXT_FIELDS = (
    "title",
    "slug",
    "summary",
    "body",
    "topics",
    "image_alt",
    "illustration",
    "meta_description",
    "published_at",
)
FLAGS = ("featured", "editors_pick", "keep_updated_date")


def of(post_id: int) -> PendingChange | None:
    """The post's draft changes, or None."""
    return db.session.get(PendingChange, post_id, populate_existing=True)


def fields_of(
    form: PostForm, image: Image | None, social_image: Image | None, post: Post
) -> dict[str, list[str]]:
    """The form as a draft change keeps it: each field's values as the form would read them
    back, the pictures by hash (or removed)."""
    kept: dict[str, list[str]] = {}
    for name in TEXT_FIELDS:
        field = getattr(form, name)
        kept[name] = [field._value()]
    for name in FLAGS:
        if getattr(form, name).data:
            kept[name] = ["y"]
    kept["author"] = list(form.author.data or [])
    kept["confirm_new"] = list(form.confirm_new.data or [])
    kept["kept_image"] = [image.sha256] if image is not None else []
    if image is None and post.image is not None:
        kept["remove_image"] = ["y"]
    kept["kept_social_image"] = [social_image.sha256] if social_image is not None else []
    if social_image is None and post.social_image is not None:
        kept["remove_social_image"] = ["y"]
    return kept


def form_time(when: datetime | None) -> str:
    """A stored UTC time as the form's date field shows it (site zone, seconds when any)."""
    if when is None:
        return ""
    local = in_site_zone(when).replace(tzinfo=None)
    return local.strftime("%Y-%m-%dT%H:%M:%S" if local.second else "%Y-%m-%dT%H:%M")


def fields_for(post: Post, chosen: PostFields) -> dict[str, list[str]]:
    """What the editor's form would hold for `chosen` on this post (a restored revision's
    text): the draft change a restore of a published post leaves."""
    kept: dict[str, list[str]] = {
        "title": [chosen.title],
        "slug": [chosen.slug],
        "summary": [chosen.summary],
        "body": [chosen.body],
        "topics": [", ".join(topic.name for topic in chosen.topics)],
        "author": [author.name for author in chosen.authors],
        "image_alt": [chosen.image_alt or ""],
        "illustration": [chosen.illustration],
        "meta_description": [chosen.meta_description],
        "published_at": [form_time(chosen.published_at)],
        "kept_image": [chosen.image.sha256] if chosen.image is not None else [],
        "kept_social_image": [chosen.social_image.sha256] if chosen.social_image else [],
    }
    if chosen.featured:
        kept["featured"] = ["y"]
    if chosen.editors_pick:
        kept["editors_pick"] = ["y"]
    if post.image is not None and chosen.image is None:
        kept["remove_image"] = ["y"]
    return kept


def as_formdata(change: PendingChange) -> MultiDict[str, str]:
    """The draft change as form data, for the editor's form to read."""
    fields: Mapping[str, list[str]] = change.fields or {}
    return MultiDict([(name, value) for name, values in fields.items() for value in values])


def keep(
    post: Post,
    fields: dict[str, list[str]],
    editor: Editor,
    *,
    based_on: int,
    autosaved: bool = False,
    go_live_at: datetime | None = None,
) -> PendingChange:
    """Store the post's draft changes, replacing any before (the caller commits). With
    `go_live_at` they are scheduled to replace the live text then; without, any schedule the
    changes had is cancelled: what goes live by itself is only what was scheduled as it is."""
    change = of(post.id)
    if change is None:
        change = PendingChange(post_id=post.id, version=0)
        db.session.add(change)
    rescheduled = change.go_live_at != go_live_at
    change.fields = fields
    change.based_on = based_on
    change.version = (change.version or 0) + 1
    change.editor_id = editor.id
    change.editor_name = editor.name
    change.saved_at = utcnow()
    change.autosaved = autosaved
    change.go_live_at = go_live_at
    if rescheduled:
        db.session.flush()
        versions.record_next_publish(db.session)
    return change


def unschedule(change: PendingChange) -> None:
    """Keep the draft changes, no longer scheduled (the caller commits)."""
    change.go_live_at = None
    db.session.flush()
    versions.record_next_publish(db.session)


def discard(post_id: int) -> None:
    """Drop the post's draft changes, if any (the caller commits)."""
    dropped = db.session.execute(
        sa.delete(PendingChange)
        .where(PendingChange.post_id == post_id)
        .returning(PendingChange.go_live_at)
    )
    if dropped.scalar() is not None:  # they were scheduled
        versions.record_next_publish(db.session)


def overwrites_another(change: PendingChange | None, sent_version: str, editor: Editor) -> bool:
    """True when saving would replace draft changes another editor saved after this form
    was loaded (the form names an older version of them, or none)."""
    if change is None or change.editor_id == editor.id:
        return False
    return sent_version != str(change.version)
