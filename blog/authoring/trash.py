"""Deleting posts."""

from __future__ import annotations

import sqlalchemy as sa
from flask import current_app, flash, redirect, render_template, url_for
from werkzeug.wrappers import Response as BaseResponse

from blog.authoring import store
from blog.authoring.editor import bp, post_or_404
from blog.authoring.forms import ConfirmForm
from blog.extensions import db
from blog.models import Post


@bp.route("/posts/<id:post_id>/delete", methods=["GET", "POST"])
def delete(post_id: int) -> BaseResponse:
    """Ask before deleting a post; on confirmation delete it and its old addresses."""
    post = post_or_404(post_id)
    form = ConfirmForm()
    if form.validate_on_submit():
        title = post.title
        # Deleting is deliberate whatever was saved meanwhile: no lock version check here.
        # The database drops its topic links and old addresses (ON DELETE CASCADE).
        db.session.execute(sa.delete(Post).where(Post.id == post.id))
        db.session.commit()
        flash(f"Deleted “{title}”.")
        return redirect(url_for("editor.index"), 303)
    return current_app.make_response(
        render_template("editor/delete.html", post=post, form=form, state=store.state_of(post))
    )
