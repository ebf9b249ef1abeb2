"""A post's history: its revisions compared with now, and restores (the autosaves that
fill it: `autosaving`)."""

from __future__ import annotations

import dataclasses

import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import (
    abort,
    flash,
    redirect,
    request,
    url_for,
)
from flask.wrappers import Response
from flask_login import current_user
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.wrappers import Response as BaseResponse

from blog import markup, roles
from blog.authoring import pending, review, revisions, store
from blog.authoring.editor import bp, post_or_404
from blog.authoring.editor.post_page import SLOW_TEXT_HINT, too_slow
from blog.authoring.forms import (
    MAX_TOPIC_NAME,
    MAX_TOPICS,
    ConfirmForm,
    topic_names,
)
from blog.extensions import db
from blog.media import drawing_spec
from blog.models import (
    PUBLISHED,
    Post,
    PostRevision,
    Topic,
)
from blog.web import htmx
from blog.web.templating import site_datetime

# Swap targets on the history page and the template blocks that fill them.
HISTORY_FRAGMENTS = {"revision-compare": "compare", "revision-detail": "detail"}


def _restored_drawing(kept: str, post: Post) -> str:
    """A revision's drawing spec in its stored spelling; the post's own when the rules no
    longer take the kept one."""
    try:
        return drawing_spec.canonical(kept)
    except drawing_spec.SpecError:
        return post.illustration


def _revision_named(post_id: int, name: str) -> PostRevision | None:
    """The revision a query parameter names, None without one (400 for a malformed id, 404
    for one this post never had)."""
    raw = request.args.get(name, "")
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 10 or raw.startswith("0"):
        abort(400, description="A revision is named by its number.")
    found = revisions.revision_of(post_id, int(raw))
    if found is None:
        abort(404, description="This post has no such revision (it may have been pruned).")
    return found


def _history_page(post_id: int, *, status: int = 200, problem: str = "") -> Response:
    """A post's revisions, newest first, and the chosen one compared with another or with the
    current text."""
    post = db.session.scalar(
        sa.select(Post)
        .options(so.selectinload(Post.topic_links), so.joinedload(Post.author))
        .where(Post.id == post_id)
    )
    kept = revisions.history(post_id)
    if post is None and not kept:
        abort(404, description="This post no longer exists: another editor may have deleted it.")
    if post is not None:
        roles.check_post(post)
    elif not current_user.publishes:  # whose it was is gone with it
        abort(403, description=roles.NOT_YOURS)
    chosen = _revision_named(post_id, "revision")
    other = _revision_named(post_id, "with")
    if other is not None and chosen is None:
        abort(400, description="Choose a revision to compare from as well as one to compare to.")
    compared: dict[str, object] = {}
    if chosen is not None:
        old = revisions.text_in(chosen)
        if other is not None:
            new = revisions.text_in(other)
        else:
            new = revisions.text_of(post) if post is not None else revisions.NOTHING
        compared = revisions.compare(old, new)
    return htmx.render(
        "editor/revisions.html",
        htmx.fragment_for(HISTORY_FRAGMENTS),
        status,
        post=post,
        post_id=post_id,
        heading_title=post.title if post is not None else kept[0].title,
        revisions=kept,
        chosen=chosen,
        other=other,
        compared=compared,
        problem=problem,
        kinds=revisions.KIND_LABELS,
        events=review.events_of(post_id),
        event_labels=review.KIND_LABELS,
        may_change=post is not None and roles.may_change(current_user, post),
        form=ConfirmForm(),
    )


@bp.get("/posts/<id:post_id>/revisions", endpoint="revisions")
def history(post_id: int) -> Response:
    """The revisions of a post (kept after it is deleted); `?revision=A` compares one with
    the current text, `&with=B` with another of its revisions instead, and offers to
    restore A."""
    return _history_page(post_id)


def _restored_topics(revision: PostRevision, post: Post) -> list[Topic]:
    """The revision's topics when they still make a valid list, else the post's own."""
    names = [
        name
        for name in topic_names(", ".join(revision.topics or []))
        if len(name) <= MAX_TOPIC_NAME and store.topic_slug(name)
    ][:MAX_TOPICS]
    if not names:
        return post.topics
    if not current_user.publishes and store.new_names(Topic, names):
        return post.topics  # only editors add topics
    return list(dict.fromkeys(store.topics_named(names).values()))


@bp.post("/posts/<id:post_id>/revisions/<id:revision_id>/restore")
def restore(post_id: int, revision_id: int) -> BaseResponse:
    """Put a revision's text back as a new save: the current text stays in the history.

    The title, summary, meta description, body, topics and authors come back; the address,
    images and the publishing state stay as they are, so a restore never publishes or
    unpublishes.
    """
    form = ConfirmForm()
    if not form.validate_on_submit():
        abort(400, description="This page's security token is no longer valid. Reload it.")
    post = post_or_404(post_id)
    revision = revisions.revision_of(post_id, revision_id)
    if revision is None:
        abort(404, description="This post has no such revision (it may have been pruned).")
    raw = request.form.get("lock_version", "")
    if raw != str(post.lock_version):
        return _history_page(
            post_id,
            status=409,
            problem="The post was saved again since this page was opened, so nothing was "
            "restored. Compare again below, then restore if you still want to.",
        )
    body = revision.body_markdown
    if post.status == PUBLISHED and not body.strip():
        return _history_page(
            post_id,
            status=422,
            problem="This revision has no body, and a published post needs one: nothing "
            "was restored. Unpublish the post first to restore it.",
        )
    # A writer's restore keeps the byline: an autosave holds whatever its form said.
    authors = (
        store.credited(revisions.text_in(revision).authors or [post.author.name])
        if current_user.publishes
        else post.authors
    )
    fields = store.PostFields(
        title=revision.title.strip() or post.title,
        slug=post.slug,
        body=body,
        summary=revision.summary,
        topics=_restored_topics(revision, post),
        author=authors[0],
        coauthors=authors[1:],
        status=post.status,
        published_at=post.published_at,
        featured=post.featured,
        editors_pick=post.editors_pick,
        image=post.image,
        image_alt=post.image_alt,
        illustration=_restored_drawing(revision.illustration, post),
        meta_description=revision.meta_description,
        social_image=post.social_image,
        updated_at=post.updated_at,
    )
    if post.status == PUBLISHED:
        return _restore_as_draft_changes(post, revision, fields)
    try:
        if not revisions.has_saved_version(post):
            revisions.record(post)
        store.update_post(post, fields, based_on=post.lock_version)
        db.session.flush()
        revisions.record(post, revisions.RESTORE, editor_name=current_user.name)
        db.session.commit()
    except (StaleDataError, store.VersionConflict):
        db.session.rollback()
        return _history_page(
            post_id,
            status=409,
            problem="Another editor saved the post at this moment, so nothing was restored. "
            "Compare again below.",
        )
    except markup.TooSlow as slow:
        db.session.rollback()
        return _history_page(
            post_id,
            status=422,
            problem=f"{too_slow(slow, 'This revision')}, so nothing was restored. "
            + SLOW_TEXT_HINT,
        )
    when = site_datetime(revision.created_at, seconds=True)
    flash(f"Restored the revision of {when} as a new save; the text it replaced is kept below.")
    return redirect(url_for("editor.revisions", post_id=post_id), 303)


def _restore_as_draft_changes(
    post: Post, revision: PostRevision, fields: store.PostFields
) -> BaseResponse:
    """A restore on a published (or scheduled) post: the revision's text becomes the post's
    draft changes, which the editor opens on; readers keep the published text until Update."""
    pending.keep(post, pending.fields_for(post, fields), current_user, based_on=post.lock_version)
    text = dataclasses.replace(
        revisions.text_of(post),
        title=fields.title,
        summary=fields.summary,
        body=fields.body,
        topics=tuple(topic.name for topic in fields.topics),
        authors=tuple(author.name for author in fields.authors),
        illustration=fields.illustration,
        meta_description=fields.meta_description,
    )
    revisions.record_text(
        post.id,
        text,
        revisions.PENDING,
        editor_name=current_user.name,
        lock_version=post.lock_version,
    )
    db.session.commit()
    when = site_datetime(revision.created_at, seconds=True)
    flash(
        f"Restored the revision of {when} as draft changes: readers still see the published "
        "version until you press “Update”.",
        "notice",
    )
    return redirect(url_for("editor.edit", post_id=post.id), 303)
