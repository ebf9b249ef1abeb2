"""Editors' login and logout: Flask-Login sessions, failed-login limits and a safe `next`."""

from __future__ import annotations

import functools
import hmac
import re
from urllib.parse import urlsplit

import sqlalchemy as sa
from flask import (
    Blueprint,
    Flask,
    after_this_request,
    current_app,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.wrappers import Response
from flask_limiter import RateLimitExceeded
from flask_limiter.util import get_remote_address
from flask_login import current_user, login_required, login_user, logout_user
from flask_wtf.csrf import CSRFError, generate_csrf
from werkzeug.security import check_password_hash, generate_password_hash
from werkzeug.wrappers import Response as BaseResponse

from blog.authoring.forms import ConfirmForm, LoginForm
from blog.authoring.store import clean_text
from blog.database import begin_write
from blog.extensions import db, limiter, login_manager
from blog.models import PASSWORD_METHOD, Editor
from blog.web import htmx, serving, viewer

bp = Blueprint("auth", __name__)

FAILED = 401
WRONG_CREDENTIALS = "That email and password do not match an active editor account."
ACCOUNT_LIMITED = (
    "Too many failed logins for this account. Wait a minute, then try again "
    "(or ask another editor to check the account)."
)
ADDRESS_LIMITED = "Too many failed logins from your network address. Wait a minute, then try again."
# Anything outside printable ASCII, spaces and backslashes included: browsers drop tabs and
# newlines and read "\" as "/", which turns "/\t/host" or "/\host" into another site.
_UNSAFE = re.compile(r"[^\x21-\x7e]|\\")


def safe_next(target: str | None) -> str | None:
    """`target` when it is a path on this site (like `/editor/?status=draft`), else None."""
    if not target or len(target) > 2000 or _UNSAFE.search(target):
        return None
    if not target.startswith("/") or target.startswith("//"):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return None
    return target


def normalised_email(value: str | None) -> str:
    """An email address as accounts store it: no control characters, trimmed, lower-case.

    The login limit keys on this too, so no spelling of an address that finds the account
    (a stray control character, other case) counts apart from it.
    """
    return clean_text(value).strip().lower()


def _account_key() -> str:
    """The rate-limit key for the account a login attempt names."""
    return "account:" + normalised_email(request.form.get("email"))[:254]


def _failed(response: Response) -> bool:
    """Only wrong credentials count against the limits, never typos caught by the form."""
    return response.status_code == FAILED


def _login_limit() -> str:
    """Failed logins allowed per window, from the settings."""
    return current_app.config["LOGIN_RATE_LIMIT"]


@functools.cache
def _decoy_hash() -> str:
    """A hash to check unknown emails against, so they take as long as known ones."""
    return generate_password_hash("not a real password", method=PASSWORD_METHOD)


def _editor_for(email: str, password: str) -> Editor | None:
    """The active editor with these credentials, or None."""
    editor = db.session.scalar(sa.select(Editor).where(Editor.email == email))
    if editor is None:
        check_password_hash(_decoy_hash(), password)
        return None
    if editor.check_password(password) and editor.is_active:
        return editor
    return None


# The post editor's login dialog (an ended session, met by a save) sends its login with htmx
# and shows what went wrong in this element; it never leaves the page.
DIALOG_PROBLEM = "session-login-problem"
DIALOG = {DIALOG_PROBLEM: "problem"}


def _login_page(form: LoginForm, status: int = 200, error: str | None = None) -> Response:
    """The login page with the form as typed (never the password) and an optional message;
    for the editor's login dialog, only the message, with a fresh token to try again."""
    if htmx.fragment_for(DIALOG) is not None:
        problem = error or next(iter(form.errors.values()), ["Enter your email and password."])
        message = problem if isinstance(problem, str) else " ".join(problem)
        response = htmx.render("auth/_session_dialog.html", "problem", status, problem=message)
        response.headers["HX-Retarget"] = "#" + DIALOG_PROBLEM  # shown although it is a 4xx
        response.headers["X-CSRF-Token"] = generate_csrf()
        return response
    form.password.data = ""
    page = render_template("auth/login.html", form=form, error=error)
    return current_app.make_response((page, status))


def _logged_in_again() -> Response:
    """The dialog's login worked: no page to go to, only the new session's form token, which
    the editor's form takes before its save is sent again."""
    response = current_app.make_response(("", 204))
    response.headers["X-CSRF-Token"] = generate_csrf()
    response.vary.update(htmx.VARY)
    return response


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit(
    _login_limit,
    key_func=_account_key,
    methods=["POST"],
    deduct_when=_failed,
    error_message=ACCOUNT_LIMITED,
)
@limiter.limit(
    _login_limit,
    key_func=get_remote_address,
    methods=["POST"],
    deduct_when=_failed,
    error_message=ADDRESS_LIMITED,
)
def login() -> BaseResponse:
    """Show the login form; on good credentials, log in and go on to `next` (if it is local)."""
    form = LoginForm()
    if request.method == "GET":
        form.next.data = safe_next(request.args.get("next")) or ""
    target = safe_next(form.next.data) or url_for("editor.index")
    if request.method == "GET" and current_user.is_authenticated:
        return redirect(target, 303)
    if not form.validate_on_submit():
        return _login_page(form, 422 if request.method == "POST" else 200)
    editor = _editor_for(normalised_email(form.email.data), form.password.data or "")
    if editor is None:
        return _login_page(form, FAILED, WRONG_CREDENTIALS)
    start_session(editor.id)
    if htmx.fragment_for(DIALOG) is not None:
        return _logged_in_again()
    return redirect(target, 303)


def start_session(editor_id: int) -> None:
    """Log the editor in on a new session token, and drop the CSRF token issued before.

    The password check above ran without the write lock (it is slow on purpose); the token
    is replaced in a short write transaction of its own.
    """
    db.session.rollback()
    begin_write()
    editor = db.session.get(Editor, editor_id)
    assert editor is not None
    editor.end_sessions()
    db.session.commit()
    session.pop("csrf_token", None)
    g.pop("csrf_token", None)  # the copy flask_wtf keeps for this request: the next is new
    login_user(editor)
    after_this_request(viewer.mark_editor)  # its pages may offer it an Edit link


@bp.errorhandler(RateLimitExceeded)
def _too_many_attempts(error: RateLimitExceeded) -> Response:
    """Say plainly why the login was refused, keeping the email that was typed."""
    form = LoginForm()
    form.next.data = safe_next(form.next.data) or ""
    return _login_page(form, 429, error.description)


@bp.errorhandler(CSRFError)
def _stale_form(error: CSRFError) -> Response:
    """A login or logout form without a valid token: explain, and offer the form again."""
    form = LoginForm()
    form.next.data = safe_next(form.next.data) or ""
    message = (
        "The form had expired. Please try again."
        if request.endpoint == "auth.login"
        else ("Logging out needs the button on the site's pages. Please try again from there.")
    )
    return _login_page(form, 400, message)


@bp.post("/logout")
@login_required
def logout() -> BaseResponse:
    """End the editor's session (a POST with a CSRF token, so no other site can do it)."""
    form = ConfirmForm()
    if form.validate_on_submit():
        if current_user.is_authenticated:
            current_user.end_sessions()  # every copy of the cookie ends with this one
            db.session.commit()
        logout_user()
        after_this_request(viewer.unmark_editor)
    return redirect(url_for("public.home"), 303)


@bp.after_request
def _no_store(response: Response) -> Response:
    """Login pages and their answers are never kept by browsers or proxies."""
    response.cache_control.no_store = True
    return response


@login_manager.user_loader
def _load_editor(session_id: str) -> Editor | None:
    """The logged-in editor, while their account is active and the cookie carries the
    account's current session token (logout, a new login or a new password replace it)."""
    editor_id, _, token = session_id.partition(":")
    if not (editor_id.isascii() and editor_id.isdigit()) or len(editor_id) > 9 or not token:
        return None
    editor = db.session.get(Editor, int(editor_id))
    if editor is None or not editor.is_active:
        return None
    return editor if hmac.compare_digest(editor.session_token, token) else None


def init_app(app: Flask) -> None:
    """Set up sessions, the login limits and the blueprint."""
    if app.config.get("SESSION_COOKIE_SECURE") is None:
        app.config["SESSION_COOKIE_SECURE"] = not app.debug
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    limiter.init_app(app)
    _warn_of_counts_per_process(app)
    app.register_blueprint(bp)


def _warn_of_counts_per_process(app: Flask) -> None:
    """Counts in memory are per process: several workers each allow the full number."""
    if not app.config["RATELIMIT_STORAGE_URI"].startswith("memory://"):
        return
    workers = serving.gunicorn_workers()
    if workers is not None and workers > 1:
        app.logger.warning(
            "Failed logins are counted in each process's memory, and %d gunicorn workers "
            "each allow the full number: set RATELIMIT_STORAGE_URI to a Redis server "
            "(redis://host:6379/0) so that every worker shares one count.",
            workers,
        )
