"""The Edit link on a post's page, for a logged-in editor who may open the post in the editor.

Post pages are cached and shared, the same bytes for everyone; the link is not part of them.
A script on the page asks for it only when the editor hint cookie is there (blog/web/viewer.py),
so readers send no request for it, and this answer is never stored by any cache.
"""

from __future__ import annotations

import sqlalchemy as sa
from flask import Blueprint, render_template
from flask.wrappers import Response
from flask_login import current_user

from blog import roles
from blog.extensions import db
from blog.models import Post
from blog.web.headers import add_vary

bp = Blueprint("edit_links", __name__)


def _private(response: Response) -> Response:
    """Personal, so no cache keeps it; not a page to index."""
    response.cache_control.no_store = True
    response.cache_control.private = True
    add_vary(response, ["Cookie"])
    response.headers["X-Robots-Tag"] = "noindex"
    return response


@bp.get("/posts/<slug>/edit-link")
def edit_link(slug: str) -> Response:
    """The link to the post's editor page, for someone whose role opens it (a writer: their
    own posts); for anyone else, or a post that does not exist, 204 and nothing to show."""
    if not current_user.is_authenticated or len(slug) > 200:
        return _private(Response(status=204))
    post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
    if post is None or roles.refusal_for(current_user, post, roles.ROUTES["editor.edit"]):
        return _private(Response(status=204))
    return _private(Response(render_template("public/_edit_link.html", post=post)))
