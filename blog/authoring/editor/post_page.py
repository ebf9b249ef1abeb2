"""The post editor's page, and what every answer to its form shares: the form filled in from
a post, the pictures it chose, its text as the history keeps it, and the body's preview."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from flask import abort, current_app
from flask.wrappers import Response
from flask_login import current_user
from flask_wtf.file import FileField
from wtforms import HiddenField
from wtforms.fields.choices import SelectChoice

from blog import catalog, markup, roles
from blog.authoring import pending, publishing, review, revisions, store, taxonomy
from blog.authoring.forms import BODY_MAX, PostForm, author_names, topic_names
from blog.extensions import db
from blog.media.images import ImageError, commit_image, image_by_hash, image_url, upload_bytes
from blog.models import DRAFT, PUBLISHED, STATUSES, Author, Image, Post, Topic
from blog.web import htmx
from blog.web.templating import in_site_zone

# Swap targets on the post editor and the template blocks that fill them.
EDITOR_FRAGMENTS = {"post-editor": "editor"}
# The actions of the form's buttons that decide a post's state.
NEW_DRAFT = "new-draft"  # the action of "Save as a new draft", offered when a post is gone
UNPUBLISH = publishing.UNPUBLISH  # the action of "Unpublish" (back to draft)
DISCARD = "discard"  # the action of the draft changes' "Discard"
UNSCHEDULE_CHANGES = "unschedule-changes"  # "Cancel the schedule" of scheduled draft changes
SUBMIT = "submit-review"  # the action of "Submit for review": save, then wait for an editor
# What usually makes a body slow to render, said after the time limit refuses one.
SLOW_TEXT_HINT = (
    "Long runs of brackets, asterisks or code fences are the usual cause: break them up."
)


def form_for(post: Post) -> PostForm:
    """The editor form filled in from a stored post."""
    form = PostForm(formdata=None, obj=post)
    form.status.data = catalog.state_of(post)  # draft, scheduled or published, as chosen
    form.image.data = None
    form.social_image.data = None
    form.topics.data = ", ".join(topic.name for topic in post.topics)
    form.body.data = post.body_markdown
    form.author.data = [author.name for author in post.authors]
    form.post_id.data = str(post.id)
    form.lock_version.data = str(post.lock_version)
    form.image_alt.data = post.image_alt or ""
    return form


def opened(post: Post) -> tuple[PostForm, Image | None]:
    """The editor's form for a stored post and the picture it shows: the post as saved, or
    its draft changes when it has some. Those keep the version they started from, so a save
    made since is merged with them."""
    change = pending.of(post.id)
    if change is None:
        return form_for(post), post.image
    form = PostForm(formdata=pending.as_formdata(change))
    form.post_id.data = str(post.id)
    form.lock_version.data = str(change.based_on)
    form.pending_version.data = str(change.version)
    form.status.data = catalog.state_of(post)
    image, _ = chosen_image(form, post)
    return form, image


def editor_page(
    form: PostForm,
    post: Post | None,
    *,
    status: int = 200,
    image: Image | None = None,
    conflict: Post | None = None,
    saved: bool = False,
    gone: bool = False,
    compared: dict[str, object] | None = None,
    preview_problem: str = "",
    new_names: Sequence[taxonomy.NewName] = (),
    refused: str = "",
    merged_note: str = "",
    question: publishing.Question | None = None,
    saved_as: str = "",
) -> Response:
    """The post editor, or only its swappable part for htmx (`compared`: a conflict's diff;
    `preview_problem`: why the body was not rendered, shown in place of the preview;
    `new_names`: topics and authors to offer to create; `refused`: why the role may not save
    what was sent; `question`: the question asked before publishing or unpublishing;
    `saved_as`: what the save that just worked did, for its notice)."""
    suggested = store.slug_for(form.title.data or "")
    rendered = None
    if not preview_problem:
        rendered, preview_problem = body_preview(form.body.data or "")
    if not current_user.publishes:  # a writer chooses no other status
        form.status.choices = [SelectChoice(DRAFT, "Draft")]
        form.status.data = DRAFT
    primary = publishing.primary_action(post, form.published_at.data)
    return htmx.render(
        "editor/post.html",
        htmx.fragment_for(EDITOR_FRAGMENTS),
        status,
        form=form,
        post=post,
        state=catalog.state_of(post) if post is not None else DRAFT,
        review_state=review.state_in_editor(post) if post is not None else DRAFT,
        state_labels=review.STATE_LABELS,
        sent_back=review.note_for(post) if post is not None else None,
        may_change=post is None or roles.may_change(current_user, post),
        refused=refused,
        image=image,
        conflict=conflict,
        compared=compared or {},
        saved=saved,
        gone=gone,
        image_src=image_url(image) if image is not None else None,
        max_image_mb=f"{current_app.config['MAX_IMAGE_BYTES'] / (1024 * 1024):g}",
        preview_html=rendered.html if rendered is not None else "",
        rendered=rendered,
        preview_problem=preview_problem,
        topics=db.session.scalars(sa.select(Topic).order_by(Topic.position, Topic.name)).all(),
        authors=db.session.scalars(sa.select(Author.name).order_by(Author.name)).all(),
        suggested_slug=suggested,
        hint_slug=form.slug.data or suggested,
        hint_typed=bool(form.slug.data),
        hint_problem=None,
        new_names=new_names,
        merged_note=merged_note,
        question=question,
        saved_as=saved_as,
        primary=primary,
        primary_labels=publishing.LABELS,
        live_now=post is not None and catalog.state_of(post) == PUBLISHED,
        pending_change=pending.of(post.id) if post is not None else None,
    )


def chosen_image(form: PostForm, post: Post | None) -> tuple[Image | None, int | None]:
    """The illustration the post should carry after this save, and the status of a refused
    upload (see `chosen_upload`)."""
    current = post.image if post is not None else None
    return chosen_upload(form.image, form.kept_image, form.remove_image.data, current)


def chosen_upload(
    field: FileField, kept: HiddenField, remove: bool, current: Image | None
) -> tuple[Image | None, int | None]:
    """The image an image field leaves the post with, and the status of a refused upload.

    A new upload is committed at once (images are immutable and shared by hash), so it
    survives a save that is refused for another reason; the form remembers it by hash in
    `kept`. A refused upload puts its message beside the field and keeps `current`.
    """
    upload = field.data
    if upload is not None and getattr(upload, "filename", None):
        try:
            digest = commit_image(upload_bytes(upload.stream)).sha256
            kept.data = digest
            return image_by_hash(digest), None
        except ImageError as error:
            add_error(field, error.message)
            refused = 413 if error.status == 413 else 422
            return current, refused
    if remove:
        return None, None
    if kept.data:
        found = image_by_hash(kept.data)
        if found is not None:
            return found, None
    return current, None


def add_error(field: object, message: str) -> None:
    """Show `message` next to a form field."""
    field.errors = [*field.errors, message]  # type: ignore[attr-defined]


def stored_status(chosen: str | None) -> str:
    """The status the store keeps for the one chosen in the form: a scheduled post is a
    published one whose time is still to come (`blog.models.scheduled`)."""
    if chosen == catalog.SCHEDULED:
        return PUBLISHED
    return chosen if chosen in STATUSES else DRAFT


def asked_publish_time(form: PostForm, stored: datetime | None) -> datetime | None:
    """The UTC publish time the form asks for. A time the clocks show twice is taken as its
    first occurrence, unless it is the `stored` time shown back unchanged (to the second)."""
    wall = form.published_at.wall
    if stored is not None and wall is not None:
        shown = in_site_zone(stored).replace(tzinfo=None, microsecond=0)
        if shown == wall:
            return stored
    return form.published_at.data


def keep_form_text(form: PostForm, post_id: int, kind: str, refusal: str) -> None:
    """Add the form's text to the post's history as a revision of `kind`, without saving the
    post (the caller commits); `refusal` is the 422 when it is over a save's limits."""
    text = form_text(form)
    if text.too_long() is not None or len(text.body) > BODY_MAX:
        abort(422, description=refusal)
    revisions.record_text(
        post_id, text, kind, editor_name=current_user.name, lock_version=sent_version(form)
    )


def sent_version(form: PostForm) -> int | None:
    """The lock version a form says its text is based on, None when it holds no number."""
    raw = form.lock_version.data or ""
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 9 else None


def form_text(form: PostForm) -> revisions.Text:
    """What the editor's form holds, as a revision keeps it (nothing checked but kept as is)."""
    status = stored_status(form.status.data)
    return revisions.Text(
        title=form.title.data or "",
        slug=form.slug.data or "",
        summary=form.summary.data or "",
        body=form.body.data or "",
        topics=tuple(topic_names(form.topics.data)),
        authors=tuple(author_names(form.author.data)),
        status=status,
        published_at=form.published_at.data,
        image_alt=form.image_alt.data or None,
        meta_description=form.meta_description.data or "",
        illustration=form.illustration.data or "",
    )


def too_slow(slow: markup.TooSlow, what: str = "This text") -> str:
    """The start of every message about a body refused by the render time limit; a diagram
    over its budget is named (markup.diagrams.DiagramTooSlow)."""
    what = getattr(slow, "diagram", what)
    return f"{what} takes too long to render (more than {slow.limit:g} seconds)"


def preview_refused(slow: markup.TooSlow) -> str:
    """What the preview says in place of a body the time limit refused."""
    return f"{too_slow(slow)}, so it cannot be shown or saved as it is. {SLOW_TEXT_HINT}"


def _rendered(body: str) -> markup.Rendered | None:
    """The body rendered exactly as the post page renders it, None when it is blank
    (TooSlow past the time limit)."""
    if not body.strip():
        return None
    return store.render_body(store.clean_text(body))


def body_preview(body: str) -> tuple[markup.Rendered | None, str]:
    """The preview's render (its HTML, words and reading time) and, when the render time
    limit stopped it, the message to show in its place."""
    try:
        return _rendered(body), ""
    except markup.TooSlow as slow:
        return None, preview_refused(slow)
