"""The editor page's heartbeat: "I have this post open", answered with who else has."""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import abort, current_app, request
from flask.wrappers import Response
from flask_login import current_user

from blog import roles
from blog.authoring import presence as presence_store
from blog.authoring.editor import bp
from blog.extensions import db
from blog.models import Post
from blog.web import htmx


@bp.post("/posts/<id:post_id>/presence")
def presence(post_id: int) -> Response:
    """Note this editor on the post, and answer with the other editors who have it open
    (the live region's content), or 204 when that is what the page already shows (`shown`).

    The account, three columns of the post, one upsert, one delete of the post's stale rows
    and one read: cheap enough for every open editor every 20 seconds. The session is not
    touched, so it sets no cookie.
    """
    # Only what the role check reads: never the body, which may be 200,000 characters.
    post = db.session.scalar(
        sa.select(Post)
        .options(so.load_only(Post.id, Post.status, Post.created_by_id))
        .where(Post.id == post_id)
    )
    if post is None:
        abort(404, description="This post no longer exists: another editor may have deleted it.")
    roles.check_post(post)
    editor_id = current_user.id  # read before the commit expires the account
    presence_store.here(post_id, editor_id)
    db.session.commit()
    others = presence_store.others(post_id, editor_id)
    shown = hashlib.sha256(repr([(p.name, p.since) for p in others]).encode()).hexdigest()[:16]
    if request.form.get("shown") == shown:
        return current_app.response_class(status=204)
    return htmx.render("editor/_presence.html", None, others=others, shown=shown)
