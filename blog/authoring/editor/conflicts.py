"""The answers to a save that meets another editor's: merging both texts, the 409 that shows
what overlaps or differs, "Take mine" and "Keep theirs", and a clash of draft changes (merged
the same way, with the other editor's draft changes as theirs)."""

from __future__ import annotations

import dataclasses

from flask import flash, redirect, request, url_for
from flask.wrappers import Response
from flask_login import current_user
from werkzeug.wrappers import Response as BaseResponse

from blog import catalog
from blog.authoring import merging, pending, publishing, revisions
from blog.authoring.editor import post_or_404
from blog.authoring.editor.post_page import (
    EDITOR_FRAGMENTS,
    NEW_DRAFT,
    SUBMIT,
    asked_publish_time,
    chosen_image,
    editor_page,
    form_text,
    keep_form_text,
    opened,
)
from blog.authoring.forms import BODY_MAX, PostForm
from blog.extensions import db
from blog.media.images import image_by_hash
from blog.models import Image, PendingChange, Post
from blog.web import htmx
from blog.web.templating import in_words, site_time

KEEP_THEIRS = "keep-theirs"  # after a conflict: set this editor's text aside, show theirs
TAKE_MINE = "take-mine"  # after a conflict: save this editor's text over theirs


def pending_conflict(form: PostForm, post: Post, change: PendingChange | None) -> Response:
    """409: another editor saved draft changes of this post after this form was loaded, and
    they cannot be merged with this form (a discard, no base to merge from, a merge over the
    limits). This editor's text is kept in the history at once and stays in the form."""
    keep_form_text(form, post.id, revisions.CONFLICT, "This text is too long to keep.")
    db.session.commit()
    form.validate()
    image, _ = chosen_image(form, post)
    who = change.editor_name if change is not None and change.editor_name else "Another editor"
    when = site_time(change.saved_at) if change is not None else ""
    message = (
        f"Not saved: {who} saved draft changes of this post at {when}, after you opened it. "
        "Your text is still in the form and kept in the history (“Set aside in a conflict”): "
        "open the post again to see theirs, then merge by hand."
    )
    return editor_page(form, post, status=409, image=image, refused=message)


def _chooses_state() -> bool:
    """Whether this save says which state the post takes (publishing, unpublishing, a
    writer's draft actions, a form's own status), rather than keeping the one it has."""
    action = request.form.get("action", "")
    if action == publishing.SAVE:
        return False
    moves = bool(publishing.asked(action)[0]) or action in (NEW_DRAFT, SUBMIT)
    return moves or "status" in request.form


def merge_step(
    form: PostForm,
    post: Post,
    based_on: int,
    merge_base: int | None,
    image: Image | None,
    social_image: Image | None,
    change: PendingChange | None = None,
) -> BaseResponse | tuple[Image | None, Image | None, str]:
    """Merge this editor's text with the saves made since it was loaded (three ways, against
    the revision it started from) and put the result in the form: the pictures it leaves and
    the note that says whose saves it took in. A 409 when something overlaps and is not
    chosen yet, or when no merge can be made (the base revision is gone, the bodies are too
    different to merge in time, the merged body is over the limit).

    Choices sent with the form settle overlaps only while the post is still at the version
    they were shown against (`based_on`, with `merge_base` set): a save made since then is
    merged afresh, and anything of it that overlaps is asked about again.

    With `change` (another editor's draft changes of this live post, saved after this form
    was loaded), theirs is those draft changes rather than the post, and the choices hold
    while they are the version shown (`merge_pending`).
    """
    start = merge_base if merge_base is not None else based_on
    base = revisions.saved_version(post.id, start)
    if base is None:
        if change is not None:
            return pending_conflict(form, post, change)
        return version_conflict(form, post, image, start)
    if change is not None:
        shown = request.form.get("merge_pending", "") == str(change.version)
        settling = merge_base is not None and shown
    else:
        settling = merge_base is not None and post.lock_version == based_on
    take_mine = request.form.get("action") == TAKE_MINE

    def choose(overlap: merging.Overlap) -> str | None:
        if not settling:
            return None
        return merging.MINE if take_mine else request.form.get(overlap.field_name)

    base_text = revisions.text_in(base)
    mine = _mine_text(form, base_text, image, social_image)
    theirs = _draft_changes_text(change, post) if change else revisions.text_of(post)
    try:
        merged = merging.merge(base_text, theirs, mine, choose)
    except merging.TooDifferent:
        if change is not None:
            return pending_conflict(form, post, change)
        return version_conflict(form, post, image, start)
    if merged.unsettled:
        return version_conflict(
            form, post, image, start, merged=merged, asked=settling, change=change
        )
    if len(merged.text.body) > BODY_MAX:
        if change is not None:
            return pending_conflict(form, post, change)
        return version_conflict(form, post, image, start, too_long=len(merged.text.body))
    _fill_form(form, merged.text)
    chosen = bool(merged.overlaps)
    if change is not None:
        form.pending_version.data = str(change.version)  # theirs is in the form now
        note = _draft_changes_note(change, chosen=chosen)
    else:
        note = _merge_note(post.id, start, chosen=chosen)
    return (
        image_by_hash(merged.text.image or ""),
        image_by_hash(merged.text.social_image or ""),
        note,
    )


def _draft_changes_text(change: PendingChange, post: Post) -> revisions.Text:
    """Another editor's draft changes of a live post, as a merge's theirs: the text their
    form kept, in the post's state (draft changes never change it), with the pictures and
    flags they chose."""
    kept = pending.as_formdata(change)
    form = PostForm(formdata=kept, meta={"csrf": False})

    def picture(kept_name: str, removed: str, current: Image | None) -> str:
        if kept.get(kept_name):
            return kept[kept_name]
        if kept.get(removed) or current is None:
            return ""
        return current.sha256

    return dataclasses.replace(
        form_text(form),
        status=catalog.state_of(post),
        published_at=asked_publish_time(form, post.published_at),
        image=picture("kept_image", "remove_image", post.image),
        social_image=picture("kept_social_image", "remove_social_image", post.social_image),
        featured="featured" in kept,
        editors_pick="editors_pick" in kept,
    )


def _mine_text(
    form: PostForm, base: revisions.Text, image: Image | None, social_image: Image | None
) -> revisions.Text:
    """This editor's side of a merge: the form's text, with what the form cannot say told
    apart from a change. An unchanged publish time is the base's to the second; a picture the
    editor did not touch is the base's (the form falls back on the stored one); flags a
    writer cannot set are the base's."""
    text = form_text(form)

    def picture(chosen: Image | None, touched: bool, kept: str | None) -> str | None:
        if touched or kept is None:  # a base that does not know keeps what the form chose
            return chosen.sha256 if chosen is not None else ""
        return kept

    image_touched = touched_image(form)
    touched_social = bool(form.kept_social_image.data) or bool(form.remove_social_image.data)
    publishes = current_user.publishes
    return dataclasses.replace(
        text,
        # "Save draft" and a form without a status leave the state as it was loaded.
        status=text.status if _chooses_state() else base.status,
        published_at=asked_publish_time(form, base.published_at),
        image=picture(image, image_touched, base.image),
        image_alt=text.image_alt if (image is not None or image_touched) else base.image_alt,
        social_image=picture(social_image, touched_social, base.social_image),
        featured=bool(form.featured.data) if publishes else base.featured,
        editors_pick=bool(form.editors_pick.data) if publishes else base.editors_pick,
    )


def touched_image(form: PostForm) -> bool:
    """True when the form changes the illustration: a new upload (kept by hash) or removal."""
    return bool(form.kept_image.data) or bool(form.remove_image.data)


def _fill_form(form: PostForm, text: revisions.Text) -> None:
    """Put a merged text in the form, as the save reads it."""
    form.title.data = text.title
    form.slug.data = text.slug
    form.summary.data = text.summary
    form.body.data = text.body
    form.topics.data = ", ".join(text.topics)
    form.author.data = list(text.authors)
    form.status.data = text.status
    form.published_at.data = text.published_at
    form.published_at.wall = None
    form.published_at.raw_data = None  # shown and kept as merged, not as typed
    form.image_alt.data = text.image_alt or ""
    form.illustration.data = text.illustration
    form.meta_description.data = text.meta_description
    form.featured.data = bool(text.featured)
    form.editors_pick.data = bool(text.editors_pick)


def _merge_note(post_id: int, start: int, *, chosen: bool) -> str:
    """What a merged save tells its editor: whose saves it took in, and when (in the site's
    zone)."""
    saves = revisions.saves_since(post_id, start)
    named = [(name or "an import", site_time(moment)) for name, moment in saves]
    if len(named) == 1:
        ((name, moment),) = named
        whose = f"{name}’s save of {moment}"
    else:
        whose = "the saves of " + in_words([f"{name} ({moment})" for name, moment in named])
    kept = "both changes kept" if len(named) <= 1 else "all changes kept"
    if chosen:
        kept += ", and your choice where they overlapped"
    return f"Merged with {whose}: {kept}."


def _draft_changes_note(change: PendingChange, *, chosen: bool) -> str:
    """What a save merged with another editor's draft changes tells its editor."""
    name = change.editor_name or "another editor"
    kept = "both changes kept"
    if chosen:
        kept += ", and your choice where they overlapped"
    return f"Merged with {name}’s save of {site_time(change.saved_at)}: {kept}."


def version_conflict(
    form: PostForm,
    post: Post,
    image: Image | None,
    based_on: int,
    *,
    merged: merging.Merged | None = None,
    asked: bool = False,
    too_long: int | None = None,
    change: PendingChange | None = None,
) -> Response:
    """409: show what the other editor saved against this editor's text.

    With `merged`, only the overlaps are shown, each to be settled as theirs or mine; the
    form then carries the version its text started from (`merge_base`), so the next save
    merges again, and the stored version the overlaps were shown against. Without it (no
    base to merge from, or a merge that cannot be made: `too_long` is the merged body's
    length when that is why) both versions are shown whole with a diff, and the form carries
    only the stored version: "Take mine" (or Save, after merging by hand) replaces theirs.
    `asked`: the editor pressed Save with overlaps still unchosen. `change`: the overlaps are
    with another editor's draft changes (`merged` is then given), whose version the form
    carries (`merge_pending`); the form keeps the draft changes' version it was loaded with,
    so the next save merges with them again.

    This editor's text is kept at once as a "conflict" revision, so it survives whatever
    happens next, a closed tab included; theirs was recorded by its own save. "Keep theirs"
    shows theirs in the editor instead.
    """
    db.session.refresh(post)
    mine = form_text(form)
    kept = revisions.record_text(
        post.id,
        mine,
        revisions.CONFLICT,
        editor_name=current_user.name,
        lock_version=based_on,
    )
    db.session.commit()
    if merged is not None:
        compared: dict[str, object] = {
            "kept": kept,
            "overlaps": merged.overlaps,
            "sides": merging.compared_sides(merged.overlaps),
            "only_theirs": merged.only_theirs,
            "only_mine": merged.only_mine,
            "asked": asked,
            "pending": change is not None,
            "saves": (
                [(change.editor_name or "Another editor", change.saved_at)]
                if change is not None
                else [
                    (name or "an import", moment)
                    for name, moment in revisions.saves_since(post.id, based_on)
                ]
            ),
        }
        form.merge_base.data = str(based_on)
        form.merge_pending.data = str(change.version) if change is not None else ""
    else:
        compared = revisions.compare(revisions.text_of(post), mine) | {
            "kept": kept,
            "too_long": too_long,
        }
        form.merge_base.data = form.merge_pending.data = ""
    form.lock_version.data = str(post.lock_version)
    return editor_page(form, post, status=409, image=image, conflict=post, compared=compared)


def keep_theirs(form: PostForm, post: Post) -> BaseResponse:
    """After a conflict, take the other editor's version: this editor's text is set aside
    as a "conflict" revision (recoverable from the history) and theirs fills the editor (a
    live post's draft changes, when it has some)."""
    keep_form_text(
        form, post.id, revisions.CONFLICT, "This text is too long to keep; nothing was changed."
    )
    db.session.commit()
    flash(
        "Their version is in the editor. Yours is kept in the history, marked “Set aside "
        "in a conflict”: open History to compare or restore it."
    )
    if htmx.fragment_for(EDITOR_FRAGMENTS) is None:
        return redirect(url_for("editor.edit", post_id=post.id), 303)
    post = post_or_404(post.id)
    theirs, image = opened(post)
    return editor_page(theirs, post, image=image)
