"""Review and sharing: an editor sends a draft back to its writer with a note, and a draft's
private links are made, listed and revoked. (Sending a draft for review is the editor
form's own "Submit for review" button: blog/authoring/editor/posts.py.)"""

from __future__ import annotations

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from flask.wrappers import Response
from flask_login import current_user
from werkzeug.wrappers import Response as BaseResponse

from blog import catalog, draft_links
from blog.authoring import review, store
from blog.authoring.editor import bp, post_or_404
from blog.authoring.forms import ConfirmForm
from blog.extensions import db
from blog.models import DRAFT, IN_REVIEW, Post, utcnow

STALE_FORM = "This page's security token is no longer valid. Reload it."


@bp.post("/posts/<id:post_id>/send-back")
def send_back(post_id: int) -> BaseResponse:
    """Return a draft in review to its writer with a note they see at the top of the form."""
    form = ConfirmForm()
    if not form.validate_on_submit():
        abort(400, description=STALE_FORM)
    post = post_or_404(post_id)
    raw = request.form.get("note", "").replace("\r\n", "\n")
    note = store.clean_text(raw).strip()
    if post.status != DRAFT or post.review_state != IN_REVIEW:
        abort(409, description="This post is not waiting for review (any more): nothing was sent.")
    if not note:
        abort(422, description="Write a note saying what to change: nothing was sent.")
    if len(note) > review.NOTE_MAX:
        abort(
            422,
            description=f"The note is {len(note):,} characters long; the limit is "
            f"{review.NOTE_MAX:,}. Nothing was sent.",
        )
    review.send_back(post, current_user.name, note)
    db.session.commit()
    # The editor shows the post as sent back, with the note, at the top.
    return redirect(url_for("editor.edit", post_id=post_id), 303)


def _links_page(post: Post, *, status: int = 200, made: str = "", problem: str = "") -> Response:
    """A draft's private links: when each expires, who made it, a button to revoke it; the
    form that makes one; and `made`, a new link's address, shown this once."""
    now = utcnow()
    shown = [(link, draft_links.is_live(link, now)) for link in draft_links.links_of(post.id)]
    page = render_template(
        "editor/draft_links.html",
        post=post,
        state=catalog.state_of(post),
        links=shown,
        made=made,
        problem=problem,
        lifetimes=draft_links.LIFETIMES,
        default_lifetime=draft_links.DEFAULT_LIFETIME,
        form=ConfirmForm(),
    )
    return current_app.make_response((page, status))


@bp.get("/posts/<id:post_id>/links", endpoint="draft_links")
def links(post_id: int) -> Response:
    """The draft's private links."""
    return _links_page(post_or_404(post_id))


@bp.post("/posts/<id:post_id>/links/new")
def make_draft_link(post_id: int) -> Response:
    """Make a private link to the draft, lasting the chosen days (a week unless chosen), and
    show its address once: only its hash is kept."""
    form = ConfirmForm()
    if not form.validate_on_submit():
        abort(400, description=STALE_FORM)
    post = post_or_404(post_id)
    if post.status != DRAFT:
        return _links_page(
            post, status=409, problem="Only a draft has draft links: this post is published."
        )
    lifetime = request.form.get("days", draft_links.DEFAULT_LIFETIME)
    if lifetime not in draft_links.LIFETIMES:
        return _links_page(
            post, status=422, problem="Choose how long the link lasts: 1, 7 or 30 days."
        )
    _, token = draft_links.make_link(post, current_user.name, lifetime)
    db.session.commit()
    made = url_for("draft_links.shared_draft", token=token, _external=True)
    return _links_page(post, status=201, made=made)


@bp.post("/posts/<id:post_id>/links/<id:link_id>/revoke")
def revoke_draft_link(post_id: int, link_id: int) -> BaseResponse:
    """Revoke one of the draft's links: it opens nothing from now on."""
    form = ConfirmForm()
    if not form.validate_on_submit():
        abort(400, description=STALE_FORM)
    post = post_or_404(post_id)
    if not draft_links.revoke(post.id, link_id):
        abort(404, description="This draft has no such link: it was revoked already.")
    db.session.commit()
    flash("Revoked the link: it opens nothing from now on.")
    return redirect(url_for("editor.draft_links", post_id=post_id), 303)
