"""The authoring area under /editor: the post list, the post editor, review and draft links,
history, trash, topics, authors and accounts. This package owns the `editor` blueprint; each
view module adds its pages to it and is imported last, below (the pattern of Flask's larger
apps).

It may import `config`, `models`, `database`, `catalog`, `roles`, `draft_links`, `markup`,
`web` and `media`, and the rest of `authoring`; never `reading`, `transfer` or `cli`.
"""

from __future__ import annotations

from flask import Blueprint, Flask, abort
from flask.wrappers import Response
from flask_login import current_user

from blog import catalog, roles
from blog.extensions import csrf, login_manager
from blog.models import Post

bp = Blueprint("editor", __name__, url_prefix="/editor")


def post_or_404(post_id: int, *, checked: bool = True) -> Post:
    """The post being edited, with its topics, author and image; 403 when the account's role
    may not use this route on it (blog/roles.py), unless the caller checks for itself."""
    post = catalog.post_by_id(post_id)
    if post is None:
        abort(404, description="This post no longer exists: another editor may have deleted it.")
    if checked:
        roles.check_post(post)
    return post


@bp.before_request
def _require_login() -> Response | None:
    """Every authoring page is for logged-in editors only."""
    if not current_user.is_authenticated:
        return login_manager.unauthorized()
    return None


@bp.after_request
def _private(response: Response) -> Response:
    """Drafts and forms are never stored by browsers or shared caches."""
    response.cache_control.no_store = True
    return response


def init_app(app: Flask) -> None:
    """Register the authoring area and its refusals."""
    csrf.init_app(app)
    login_manager.unauthorized_handler(refusals.signed_out)
    app.register_blueprint(bp)
    scheduled_changes.init_app(app)


# The view modules add their pages to `bp`, so they come after it.
from blog.authoring.editor import (  # noqa: E402
    account_pages,
    autosaving,
    conflicts,
    heartbeat,
    history,
    old_addresses,
    post_list,
    post_page,
    posts,
    refusals,
    reviewing,
    scheduled_changes,
    social,
    taxonomy_views,
    trash,
)

__all__ = [
    "account_pages",
    "autosaving",
    "bp",
    "conflicts",
    "heartbeat",
    "history",
    "old_addresses",
    "post_list",
    "post_page",
    "posts",
    "refusals",
    "reviewing",
    "scheduled_changes",
    "social",
    "taxonomy_views",
    "trash",
]
