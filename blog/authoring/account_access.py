"""The pages an admin's one-time links open, for people not logged in: accept an invitation
(choose a name and a password, and the account exists with the role the admin chose), or
set a new password. Either logs the person in on a fresh session.

Tokens that open nothing count against a per-address limit, like failed logins. The slow
password hash runs before the write lock is taken (database.READ_ONLY_POSTS).
"""

from __future__ import annotations

import sqlalchemy as sa
from flask import Blueprint, Flask, current_app, redirect, render_template, url_for
from flask.wrappers import Response
from flask_limiter import RateLimitExceeded
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFError
from werkzeug.wrappers import Response as BaseResponse

from blog.authoring import account_links
from blog.authoring.account_forms import ROLE_LABELS, NewPasswordForm, WelcomeForm
from blog.authoring.auth import start_session
from blog.database import begin_write
from blog.extensions import db, limiter
from blog.models import INVITE, PASSWORD_RESET, AccountLink, Editor
from blog.web.errors import error_page

bp = Blueprint("account", __name__, url_prefix="/account")

DEAD_LINK = (
    "This link opens nothing: it was used already, it expired, or it was revoked. Ask an "
    "admin for a new one."
)
TAKEN = "This link was used a moment ago: ask an admin for a new one."


def _guess_limit() -> str:
    """Links that open nothing allowed per address and window: the failed-login limit."""
    return current_app.config["LOGIN_RATE_LIMIT"]


def _unknown_token(response: Response) -> bool:
    """Only links that open nothing count against the limit, never a typo in the form."""
    return response.status_code == 404


# The guessing limit, per network address, shared by both kinds of link.
_limited = limiter.shared_limit(
    _guess_limit,
    scope="account-links",
    key_func=get_remote_address,
    deduct_when=_unknown_token,
    per_method=False,
)


def _page(template: str, status: int = 200, **values: object) -> Response:
    """One of the link pages."""
    return current_app.make_response((render_template(template, **values), status))


def _hash(password: str) -> str:
    """The password as accounts store it (scrypt, slow on purpose: no lock is held)."""
    holder = Editor()
    holder.set_password(password)
    return holder.password_hash


@bp.route("/invite/<token>", methods=["GET", "POST"])
@_limited
def welcome(token: str) -> BaseResponse:
    """Accept an invitation: choose the name others see and a password; the account is made
    with the invited address and the role the admin chose (nothing the form says changes
    either), and logged in."""
    link = account_links.usable(token, INVITE)
    if link is None:
        return error_page(404, DEAD_LINK)
    form = WelcomeForm()
    shown = {"form": form, "link": link, "role": ROLE_LABELS.get(link.role or "", "")}
    if not form.validate_on_submit():
        return _page("auth/welcome.html", 422 if form.is_submitted() else 200, **shown)
    try:
        name = account_links.checked_name(form.name.data)
        hashed = _hash(account_links.checked_password(form.password.data, form.again.data))
    except account_links.Refused as refused:
        return _page("auth/welcome.html", refused.status, problem=refused.message, **shown)
    editor_id = _create_account(link.id, name, hashed)
    if editor_id is None:
        return error_page(409, TAKEN)
    start_session(editor_id)
    return redirect(url_for("editor.index"), 303)


def _create_account(link_id: int, name: str, hashed: str) -> int | None:
    """Use the invitation and make its account, in one write transaction; None when the
    link was used meanwhile or the address got an account."""
    db.session.rollback()
    begin_write()
    link = db.session.get(AccountLink, link_id)
    if link is None or not account_links.claim(link):
        db.session.rollback()
        return None
    editor = Editor(email=link.email, name=name, password_hash=hashed, role=link.role)
    db.session.add(editor)
    try:
        db.session.commit()
    except sa.exc.IntegrityError:  # the address has an account by now
        db.session.rollback()
        return None
    return editor.id


@bp.route("/reset/<token>", methods=["GET", "POST"])
@_limited
def reset(token: str) -> BaseResponse:
    """Set a new password with a one-time link: every session of the account ends, and this
    one starts afresh."""
    link = account_links.usable(token, PASSWORD_RESET)
    editor = db.session.get(Editor, link.editor_id) if link and link.editor_id else None
    if link is None or editor is None or not editor.active:
        return error_page(404, DEAD_LINK)
    form = NewPasswordForm()
    shown = {"form": form, "editor": editor}
    if not form.validate_on_submit():
        return _page("auth/reset.html", 422 if form.is_submitted() else 200, **shown)
    try:
        hashed = _hash(account_links.checked_password(form.password.data, form.again.data))
    except account_links.Refused as refused:
        return _page("auth/reset.html", refused.status, problem=refused.message, **shown)
    editor_id = editor.id
    db.session.rollback()
    begin_write()
    link = db.session.get(AccountLink, link.id)
    editor = db.session.get(Editor, editor_id)
    if link is None or editor is None or not editor.active or not account_links.claim(link):
        db.session.rollback()
        return error_page(409, TAKEN)
    editor.password_hash = hashed
    editor.end_sessions()
    db.session.commit()
    start_session(editor_id)
    return redirect(url_for("editor.index"), 303)


@bp.errorhandler(RateLimitExceeded)
def _too_many_guesses(error: RateLimitExceeded) -> Response:
    """Too many links that opened nothing from one address: wait."""
    return error_page(
        429,
        "Too many links that open nothing came from your network address. Wait a minute, "
        "then try again.",
    )


@bp.errorhandler(CSRFError)
def _stale_form(error: CSRFError) -> Response:
    """The form's security token expired: the link still works, open it again."""
    return error_page(400, "The form had expired: open the link again and retry.")


@bp.after_request
def _no_store(response: Response) -> Response:
    """These pages and their answers are never kept by browsers or proxies, and send no
    address (it holds the token) on to any page they lead to."""
    response.cache_control.no_store = True
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Robots-Tag"] = "noindex, nofollow"
    return response


def init_app(app: Flask) -> None:
    """Register the link pages."""
    app.register_blueprint(bp)
