"""A post's old addresses from the site it was moved from: listed, and removed one by one
(an editor's decision: a removed path is a 404 again for everyone who kept the old link)."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from flask import abort, current_app, flash, redirect, render_template, url_for
from flask.wrappers import Response
from werkzeug.wrappers import Response as BaseResponse

from blog import catalog
from blog.authoring.editor import bp, post_or_404
from blog.authoring.forms import ConfirmForm
from blog.extensions import db
from blog.models import OldAddress

STALE_FORM = "This page's security token is no longer valid. Reload it."
# Old paths the post form lists itself; its link leads to the rest.
SHOWN_ON_FORM = 5


@dataclass(frozen=True)
class OldAddressSummary:
    """The first few of a post's old paths, and how many it has."""

    paths: list[str]
    total: int


@bp.app_template_global()
def old_addresses_summary(post_id: int) -> OldAddressSummary:
    """What the post form shows of a post's old paths: the first few, in the order they were
    kept, and the count (two small queries, however many the post has)."""
    query = (
        sa.select(OldAddress.path)
        .where(OldAddress.post_id == post_id)
        .order_by(OldAddress.id)
        .limit(SHOWN_ON_FORM)
    )
    paths = list(db.session.scalars(query))
    total = len(paths)
    if total == SHOWN_ON_FORM:
        count = sa.select(sa.func.count()).where(OldAddress.post_id == post_id)
        total = db.session.scalar(count) or 0
    return OldAddressSummary(paths, total)


@bp.get("/posts/<id:post_id>/old-addresses", endpoint="old_addresses")
def old_addresses(post_id: int) -> Response:
    """The paths that lead to the post with a 301, each with a button to remove it."""
    post = post_or_404(post_id)
    page = render_template(
        "editor/old_addresses.html",
        post=post,
        addresses=catalog.old_addresses_of(post.id),
        form=ConfirmForm(),
    )
    return current_app.make_response(page)


@bp.post("/posts/<id:post_id>/old-addresses/<id:address_id>/remove")
def remove_old_address(post_id: int, address_id: int) -> BaseResponse:
    """Stop one old path leading to the post."""
    form = ConfirmForm()
    if not form.validate_on_submit():
        abort(400, description=STALE_FORM)
    post = post_or_404(post_id)
    path = catalog.forget_old_address(post.id, address_id)
    db.session.commit()
    if path is None:
        flash("That old address was already removed.")
    else:
        flash(f"Removed {path}: it is a 404 from now on.")
    return redirect(url_for("editor.old_addresses", post_id=post_id), 303)
