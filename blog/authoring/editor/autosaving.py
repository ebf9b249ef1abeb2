"""Autosave: the text being typed kept every few seconds, a draft's in its history, a
published post's as its draft changes, a new post's first autosave stored as a draft; and
the offer, as the editor opens, of an autosave newer than the last save."""

from __future__ import annotations

import sqlalchemy as sa
from flask import abort, current_app, request, url_for
from flask.wrappers import Response
from flask_login import current_user

from blog import markup, roles
from blog.authoring import pending, revisions, store
from blog.authoring.editor import bp, post_or_404
from blog.authoring.editor.post_page import (
    add_error,
    chosen_image,
    chosen_upload,
    keep_form_text,
    sent_version,
)
from blog.authoring.editor.posts import (
    autosaved_post,
    beyond_a_writer,
    form_uid,
    made_by_form,
    new_names_in,
    post_fields,
    slug_problem_for,
)
from blog.authoring.forms import ConfirmForm, PostForm
from blog.extensions import db
from blog.models import DRAFT, PUBLISHED, Post, utcnow
from blog.web import htmx
from blog.web.templating import site_time

# The autosave status beside the bar's buttons: htmx posts the form there a few seconds after
# the last keystroke (its hx-trigger) and swaps the answer in.
AUTOSAVE_FRAGMENTS = {"autosave-status": "autosave"}
TOO_LONG_TO_AUTOSAVE = "This text is too long to autosave; save it to see why."


def _autosave_answer(note: str, status: int = 200, *, created: Post | None = None) -> Response:
    """What an autosave says: the status's new text for htmx, nothing (204) otherwise. A post
    the autosave created comes back whole, with its id and version for the form (out of band)
    and its address for the browser, so a reload opens it instead of making another."""
    if htmx.fragment_for(AUTOSAVE_FRAGMENTS) is None:
        return current_app.response_class(status=204 if status == 200 else status)
    response = htmx.render(
        "editor/_autosave_status.html",
        None,
        status,
        autosave_note=note,
        whole=created is not None,
        created=created is not None,
        post=created,
    )
    if created is not None:
        response.headers["HX-Reswap"] = "outerHTML"
        response.headers["HX-Replace-Url"] = url_for("editor.edit", post_id=created.id)
    return response


def autosave_stored(post: Post, *, handed_over: bool = False) -> Response:
    """Keep the text being typed: a draft's as an "autosave" revision, a published post's as
    its draft changes too (readers keep the published text either way). `handed_over`: the
    form does not know the post yet, so the answer hands it the post's id and address."""
    form = PostForm()
    now = site_time(utcnow())
    if post.status != PUBLISHED:
        keep_form_text(
            form,
            post.id,
            revisions.AUTOSAVE,
            "This text is too long to autosave; save it to see why.",
        )
        db.session.commit()
        return _autosave_answer(f"Autosaved {now}", created=post if handed_over else None)
    change = pending.of(post.id)
    if pending.overwrites_another(change, form.pending_version.data or "", current_user):
        assert change is not None
        return _autosave_answer(
            f"Not autosaved: {change.editor_name or 'another editor'} saved draft changes at "
            f"{site_time(change.saved_at)}, after you opened the post. Save draft to keep yours.",
            409,
        )
    keep_form_text(form, post.id, revisions.AUTOSAVE, TOO_LONG_TO_AUTOSAVE)
    if change is not None and change.go_live_at is not None:
        # Scheduled changes go live as they were scheduled: typing meanwhile is kept in the
        # history only, until Save draft or Schedule says what to do with it.
        db.session.commit()
        return _autosave_answer(f"Autosaved {now} in the history (the scheduled changes stay)")
    image, _ = chosen_image(form, post)
    social_image, _ = chosen_upload(
        form.social_image, form.kept_social_image, form.remove_social_image.data, post.social_image
    )
    based_on = sent_version(form) or post.lock_version
    fields = pending.fields_of(form, image, social_image, post)
    pending.keep(post, fields, current_user, based_on=based_on, autosaved=True)
    db.session.commit()
    return _autosave_answer(f"Draft changes autosaved {now} (not live)")


@bp.post("/posts/new/autosave")
def autosave_new() -> Response:
    """The first autosave of a new post that has a title: stored as a draft, as Save draft
    would store it. Until the form would save, the status says what it still needs."""
    form = PostForm()
    if form.post_id.data:  # created by an earlier autosave whose answer this page missed
        post = autosaved_post(form.post_id.data)
        return autosave_stored(post)
    uid = form_uid()
    made = made_by_form(uid)
    if made is not None:
        return _autosave_into(made)
    if not form.title.data:
        return _autosave_answer("Not autosaved yet: it autosaves once it has a title.")
    if not current_user.publishes and beyond_a_writer(None):
        return _autosave_answer("Not autosaved: save it to see why.")
    form.status.data = DRAFT
    valid = form.validate_on_submit()
    slug = form.slug.data or store.slug_for(form.title.data or "")
    problem = slug_problem_for(slug, None) if slug else "Choose an address."
    if problem:
        add_error(form.slug, problem)
    new_names_in(form)
    if not valid or form.errors:
        name, messages = next(iter(form.errors.items()))
        label = form[name].label.text if name in form else name
        return _autosave_answer(f"Not autosaved yet: {label}: {' '.join(messages)}")
    image, _ = chosen_image(form, None)
    fields = post_fields(
        form,
        slug,
        image,
        status=DRAFT,
        published_at=form.published_at.data,
        featured=bool(form.featured.data) and current_user.publishes,
        editors_pick=bool(form.editors_pick.data) and current_user.publishes,
    )
    try:
        post = store.create_post(fields)
        post.created_by_id = current_user.id
        if uid is not None:
            post.uid = uid
        db.session.flush()
        revisions.record(post, revisions.AUTOSAVE, editor_name=current_user.name)
        db.session.commit()
    except (store.SlugTaken, sa.exc.IntegrityError, markup.TooSlow):
        db.session.rollback()
        made = made_by_form(uid)
        if made is not None:  # the form's Save stored it while this autosave was on its way
            return _autosave_into(made)
        return _autosave_answer("Not autosaved yet: save it to see why.")
    return _autosave_answer(f"Autosaved {site_time(utcnow())} as a draft", created=post)


def _autosave_into(made: Post) -> Response:
    """A new post's autosave whose post is already stored, found by the form's identity. Once
    saved (its Save came first), the autosave holds older text than the save and is dropped;
    otherwise (an earlier autosave stored it and this page missed the answer) it is kept as an
    autosave of that post. Either way the form is handed the post's id."""
    if revisions.has_saved_version(made):
        return _autosave_answer(
            f"Not autosaved: saved at {site_time(made.modified_at)}.", created=made
        )
    if not roles.may_change(current_user, made):
        abort(403, description=roles.NOT_A_DRAFT)
    return autosave_stored(made, handed_over=True)


@bp.post("/posts/<id:post_id>/autosave")
def autosave(post_id: int) -> Response:
    """Keep the text being typed (autosave_stored): the post, what readers see and
    every cached page stay exactly as they were."""
    form_id = request.form.get("post_id")
    if form_id is not None and form_id != str(post_id):
        abort(400, description="This form belongs to another post. Reload the page.")
    return autosave_stored(post_or_404(post_id))


@bp.get("/posts/<id:post_id>/autosave")
def autosave_offer(post_id: int) -> Response:
    """The offer of an autosave newer than the post's last save (autosave.js shows it as the
    editor opens), or 204 when there is none."""
    post = post_or_404(post_id)
    newer = revisions.autosave_after(post.id, post.modified_at)
    if newer is None or pending.of(post.id) is not None:  # the editor opens on those
        return current_app.response_class(status=204)
    return htmx.render(
        "editor/revisions.html",
        "autosave_offer",
        post=post,
        offered=newer,
        form=ConfirmForm(),
    )
