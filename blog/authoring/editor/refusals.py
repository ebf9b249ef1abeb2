"""How the authoring area refuses: alerts for htmx requests, pages otherwise, and the
answers to a lost session, a stale form token, an upload too large and a missing post."""

from __future__ import annotations

from flask import (
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.wrappers import Response
from flask_login import current_user
from flask_wtf.csrf import CSRFError, generate_csrf
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge, Unauthorized
from werkzeug.wrappers import Response as BaseResponse

from blog import roles
from blog.authoring.editor import bp, post_or_404
from blog.authoring.editor.post_page import editor_page
from blog.authoring.forms import (
    PostForm,
)
from blog.media.images import image_by_hash, megabytes
from blog.web import htmx
from blog.web.errors import error_page
from blog.web.limits import FieldTooLarge

ALERT_TARGET = "#editor-alert"
# Every element an authoring page swaps: requests aimed at them get alerts, not whole pages.
HTMX_TARGETS = {
    target: "alert"
    for target in ("post-table", "post-editor", "preview", "slug-hint", "revision-detail")
}

# What the post editor's page swaps: that page has the login dialog (static/js/session.js).
POST_EDITOR_TARGETS = {target: "alert" for target in ("post-editor", "preview", "slug-hint")}


def _wants_alert() -> bool:
    """True for an htmx request from an authoring page, which shows errors in its alert box."""
    return htmx.fragment_for(HTMX_TARGETS) is not None


def refusal(error: HTTPException, message: str, *, login_link: str | None = None) -> Response:
    """An error as an alert the authoring page shows (htmx), or as the site's error page;
    `login_link` adds a link to log in: "here" (the page's dialog) or "tab" (a new tab)."""
    code = error.code or 400
    if _wants_alert():
        body = render_template("editor/_alert.html", message=message, login_link=login_link)
        response = current_app.make_response((body, code))
        response.headers["HX-Retarget"] = ALERT_TARGET
        response.headers["HX-Reswap"] = "innerHTML"
        response.vary.update(htmx.VARY)
        return response
    return error_page(code, message)


def signed_out() -> BaseResponse:
    """Not logged in: htmx saves get an alert (the page keeps its text), pages go to login."""
    if _wants_alert():
        # The post editor logs in again in its own dialog (a save opens it at once; another
        # request's alert links to it); the token lets that login through, since the page's
        # own may be from an older session. Other pages log in in a new tab.
        here = htmx.fragment_for(POST_EDITOR_TARGETS) is not None
        response = refusal(
            Unauthorized(),
            "You are logged out, so nothing was sent. Your text is still here: log in "
            + ("again" if here else "again in a new tab")
            + ", then try once more.",
            login_link="here" if here else "tab",
        )
        response.headers["X-CSRF-Token"] = generate_csrf()
        return response
    if request.method != "GET":
        return redirect(url_for("auth.login"), 303)
    return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))


def _sent_from_this_site() -> bool:
    """True when the browser says the form came from one of this site's own pages.

    Browsers set Sec-Fetch-Site (or at least Origin) on form posts, and no other site can
    make them say "same-origin": a forged post never gets its text shown back with a token.
    """
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None:
        return fetch_site == "same-origin"
    origin = request.headers.get("Origin")
    return origin is not None and origin == request.host_url.rstrip("/")


def _kept_after_stale_token() -> Response:
    """The editor's own save with a stale token: their text back in the editor, not saved,
    with a fresh token, so pressing Save again stores it."""
    post_id = (request.view_args or {}).get("post_id")
    post = post_or_404(post_id, checked=False) if post_id is not None else None
    if post is not None and not roles.may_see(current_user, post):
        post = None  # the text comes back, in a new post's form: nothing of theirs is shown
    form = PostForm()
    form.image.data = None
    form.social_image.data = None
    image = image_by_hash(form.kept_image.data or "") or (post.image if post else None)
    chose_file = any(upload.filename for upload in request.files.getlist("image"))
    flash(
        "Not saved: this page's security token had expired (the session changed since the "
        "page was opened). Everything you typed is below: press Save again."
        + (" Choose the image again too." if chose_file else "")
    )
    return editor_page(form, post, status=400, image=image)


@bp.errorhandler(CSRFError)
def _csrf_refused(error: CSRFError) -> Response:
    """A missing or stale CSRF token: say so; an htmx page also gets a fresh token to retry,
    and a plain save from the editor's own page comes back with its text."""
    problem = "This page's security token is no longer valid (the session may have ended), so "
    if (
        not _wants_alert()
        and request.endpoint in ("editor.create", "editor.update")
        and current_user.is_authenticated
        and _sent_from_this_site()
    ):
        return _kept_after_stale_token()
    if not _wants_alert():
        return refusal(
            error,
            problem + "nothing was saved. Go back to the form (your browser keeps what you "
            "typed), copy your text, reload the page and save again.",
        )
    response = refusal(error, problem + "nothing was saved. Your text is still here: save again.")
    response.headers["X-CSRF-Token"] = generate_csrf()
    return response


@bp.errorhandler(RequestEntityTooLarge)
def _too_large(error: RequestEntityTooLarge) -> Response:
    """An upload over the request limit: a clear 413 that says what the limits are."""
    image_mb = current_app.config["MAX_IMAGE_BYTES"] / (1024 * 1024)
    config = current_app.config
    kept = (
        "your text is still on the page."
        if _wants_alert()
        else "go back to the form: your browser keeps what you typed."
    )
    if isinstance(error, FieldTooLarge) and error.description:  # it names the field and limit
        said = error.description[:1].lower() + error.description[1:]
        return refusal(error, f"That upload is too large: {said} Nothing was saved; {kept}")
    size = request.content_length
    said = "That upload is too large" + (f" ({megabytes(size)} in all)" if size else "")
    return refusal(
        error,
        f"{said}: images may be at most {image_mb:g} MB and a form field at "
        f"most {config['MAX_FORM_MEMORY_SIZE']:,} bytes ({config['MAX_FORM_FIELD_CHARS']:,} "
        f"characters). Nothing was saved; {kept}",
    )


@bp.errorhandler(404)
def _not_found(error: HTTPException) -> Response:
    """A missing post or page inside the authoring area."""
    return refusal(error, error.description or "There is nothing at this address.")


@bp.errorhandler(403)
def _forbidden(error: HTTPException) -> Response:
    """A page or a change the account's role does not allow (blog/roles.py)."""
    return refusal(error, error.description or "Your role does not allow this.")
