"""A stored post, draft or not, in the real post template: for the editors who may see it, and
through a private draft link for anyone who has one. Never kept by any cache, never indexed."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, render_template
from flask.wrappers import Response
from flask_limiter import RateLimitExceeded
from flask_limiter.util import get_remote_address
from flask_login import current_user

from blog import catalog, draft_links, roles
from blog.extensions import limiter, login_manager
from blog.models import Post
from blog.reading import listing, seo
from blog.web.errors import error_page

bp = Blueprint("drafts", __name__, url_prefix="/editor")
# Draft links, for readers without an account: blog.web.headers keeps them out of caches.
shared = Blueprint("draft_links", __name__, url_prefix="/drafts")

DEAD_LINK = (
    "This draft link does not open anything: it may have expired or been revoked, or the "
    "post was published (then it is on the site) or deleted. Ask whoever sent it for a new one."
)


@bp.before_request
def _require_login() -> Response | None:
    """Only logged-in editors see posts readers cannot."""
    if not current_user.is_authenticated:
        return login_manager.unauthorized()
    return None


def _post_page(post: Post, *, shared_link: bool = False) -> Response:
    """The post on its page, as last saved, with a note that it is a preview; not indexed,
    not stored by any cache, and (from a draft link) sending no address on to other sites."""
    # A post without a date has no place among the others yet.
    newer, older = listing.neighbours(post) if post.published_at else (None, None)
    body = render_template(
        "public/post_preview.html",
        post=post,
        state=catalog.state_of(post),
        meta=seo.post_meta(post),
        related=listing.related(post),
        newer=newer,
        older=older,
        shared_link=shared_link,
    )
    response = private(Response(body))
    if shared_link:
        # The link is the key: no page it leads to learns it from a Referer header.
        response.headers["Referrer-Policy"] = "no-referrer"
    return response


def private(response: Response) -> Response:
    """A preview's answer: never indexed, never stored by any cache."""
    response.headers["X-Robots-Tag"] = "noindex, nofollow"
    response.cache_control.no_store = True
    return response


@bp.get("/posts/<id:post_id>/preview")
def post_preview(post_id: int) -> Response:
    """The post as readers would see it on its page, as last saved, with a note that it is a
    preview (never stored: blog.web.headers keeps this blueprint's answers out of caches)."""
    post = catalog.post_by_id(post_id)
    if post is None:
        abort(404, description="This post no longer exists: another editor may have deleted it.")
    roles.check_post(post)
    return _post_page(post)


def _guess_limit() -> str:
    """Links that open nothing allowed per address and window: the failed-login limit."""
    return current_app.config["LOGIN_RATE_LIMIT"]


def _unknown_token(response: Response) -> bool:
    """Only links that open nothing count against the guessing limit."""
    return response.status_code == 404


@shared.get("/<token>")
@limiter.limit(
    _guess_limit, key_func=get_remote_address, deduct_when=_unknown_token, per_method=False
)
def shared_draft(token: str) -> Response:
    """The draft a private link opens, on its post page, to anyone who has the link; 404 for a
    link that is unknown, expired, revoked, or whose post was published or deleted."""
    post = draft_links.post_for(token)
    if post is None:
        return error_page(404, DEAD_LINK)
    return _post_page(post, shared_link=True)


@shared.errorhandler(RateLimitExceeded)
def _too_many_guesses(error: RateLimitExceeded) -> Response:
    """Too many links that opened nothing from one address: wait."""
    return error_page(
        429,
        "Too many draft links that open nothing came from your network address. Wait a "
        "minute, then try again.",
    )
