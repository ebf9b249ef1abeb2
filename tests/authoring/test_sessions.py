"""A session ends for every copy of its cookie: at logout, at the next login and when the
password changes; a CSRF token from before a login is not accepted after it."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from flask.testing import FlaskClient

from blog.authoring.auth import ACCOUNT_LIMITED, WRONG_CREDENTIALS
from blog.extensions import db, limiter
from blog.models import Post
from tests.authoring.test_auth import (
    PASSWORD,
    csrf_token,
    login,
    make_editor,
    page,
    password_hash,
)
from tests.authoring.test_editor import new_post_form

__all__ = ["password_hash"]


def cookie_of(client: FlaskClient) -> str:
    """The session cookie the client holds (what an attacker could copy)."""
    cookie = client.get_cookie("session")
    assert cookie is not None
    return cookie.value


def with_cookie(app, value: str) -> FlaskClient:
    """Another client carrying a copied session cookie."""
    other = app.test_client()
    other.set_cookie("session", value)
    return other


def test_a_cookie_copied_before_logout_opens_nothing_after_it(app, client, password_hash):
    """Logging out ends the copy too: no page, and no post even with the page's token."""
    make_editor(app, password_hash=password_hash)
    assert login(client, "ada@example.com", PASSWORD).status_code == 303
    copied = cookie_of(client)
    thief = with_cookie(app, copied)
    assert thief.get("/editor/").status_code == 200  # the copy works while the session does
    token = csrf_token(thief, "/editor/posts/new")
    assert (
        client.post("/logout", data={"csrf_token": csrf_token(client, "/editor/")}).status_code
        == 303
    )
    thief = with_cookie(app, copied)
    assert thief.get("/editor/").status_code == 302
    refused = thief.post("/editor/posts/new", data={"csrf_token": token, "title": "Stolen"})
    assert refused.status_code in (302, 303, 400)
    assert with_cookie(app, copied).get("/editor/").status_code == 302


def test_a_new_login_ends_the_sessions_before_it(app, client, password_hash):
    """The session token changes at login: an older session of the account ends."""
    make_editor(app, password_hash=password_hash)
    login(client, "ada@example.com", PASSWORD)
    earlier = cookie_of(client)
    second = app.test_client()
    assert login(second, "ada@example.com", PASSWORD).status_code == 303
    assert second.get("/editor/").status_code == 200
    assert with_cookie(app, earlier).get("/editor/").status_code == 302


def test_a_new_password_ends_every_session(app, client, runner, password_hash, monkeypatch):
    """`editors set-password` logs the account out everywhere."""
    from blog import models

    monkeypatch.setattr(models, "PASSWORD_METHOD", "scrypt:1024:8:1")
    make_editor(app, password_hash=password_hash)
    login(client, "ada@example.com", PASSWORD)
    assert client.get("/editor/").status_code == 200
    result = runner.invoke(
        args=["editors", "set-password", "ada@example.com", "--password-stdin"],
        input="a brand new passphrase\n",
    )
    assert result.exit_code == 0, result.output
    assert client.get("/editor/").status_code == 302


def test_a_csrf_token_from_before_login_is_refused_after_it(app, client, password_hash):
    """Logging in replaces the CSRF token: one read off the login page before is refused."""
    make_editor(app, password_hash=password_hash)
    before = csrf_token(client)
    login(client, "ada@example.com", PASSWORD)
    refused = client.post("/editor/preview", data={"csrf_token": before, "body": "*hi*"})
    assert refused.status_code == 400
    fresh = csrf_token(client, "/editor/posts/new")
    assert fresh != before
    assert (
        client.post("/editor/preview", data={"csrf_token": fresh, "body": "*hi*"}).status_code
        == 200
    )


def test_a_forged_session_id_opens_nothing(app, client):
    """An id without the token, a wrong token or a huge id is no session at all."""
    editor_id = make_editor(app)
    for value in (str(editor_id), f"{editor_id}:wrong", f"{10**12}:x", ":", "x:y"):
        with client.session_transaction() as session:
            session["_user_id"] = value
        assert client.get("/editor/").status_code == 302, value


# The post editor's login dialog --------------------------------------------------------------

HX_SAVE = {"HX-Request": "true", "HX-Target": "post-editor"}


@pytest.fixture(autouse=True)
def _fresh_limits(app) -> None:
    """Every test starts with no failed logins counted."""
    limiter.reset()


HX_DIALOG = {"HX-Request": "true", "HX-Target": "session-login-problem"}


def dialog_login(client: FlaskClient, token: str, password: str = PASSWORD, **kw):
    """Log in through the editor's dialog, as its htmx form sends it."""
    data = {"csrf_token": token, "email": "ada@example.com", "password": password}
    return client.post("/login", data=data, headers=HX_DIALOG, **kw)


def test_the_post_editor_carries_a_login_dialog_for_its_account(app, client, password_hash):
    """The dialog posts to the login route with htmx and already holds the account's email."""
    make_editor(app, password_hash=password_hash)
    login(client, "ada@example.com", PASSWORD)
    soup = page(client.get("/editor/posts/new"))
    dialog = soup.select_one("dialog#session-dialog")
    assert dialog is not None and not dialog.has_attr("open")
    form = dialog.select_one("form#session-login")
    assert form["action"] == "/login" and form["data-hx-post"] == "/login"
    assert form["data-hx-target"] == "#session-login-problem"
    assert form.select_one("#session-email")["value"] == "ada@example.com"
    assert form.select_one('input[name="csrf_token"]')["value"]


def test_a_save_after_the_session_ended_goes_through_once_logged_in_in_the_dialog(
    app, client, password_hash
):
    """Logged in elsewhere: the save is a 401 with a token the dialog's login takes; that
    login is a 204 with the new session's token, under which the same save is stored once.
    The tokens from before the login are refused after it."""
    make_editor(app, password_hash=password_hash)
    login(client, "ada@example.com", PASSWORD)
    data = new_post_form(client, title="Kept across a login")
    assert login(app.test_client(), "ada@example.com", PASSWORD).status_code == 303

    refused = client.post("/editor/posts/new", data=data, headers=HX_SAVE)
    assert refused.status_code == 401
    assert refused.headers["HX-Retarget"] == "#editor-alert"
    handed = refused.headers["X-CSRF-Token"]

    logged_in = dialog_login(client, handed)
    assert logged_in.status_code == 204, logged_in.get_data(as_text=True)
    assert "Location" not in logged_in.headers
    assert "no-store" in logged_in.headers["Cache-Control"]
    fresh = logged_in.headers["X-CSRF-Token"]
    assert fresh != handed

    for stale in (data["csrf_token"], handed):
        again = client.post("/editor/posts/new", data=data | {"csrf_token": stale}, headers=HX_SAVE)
        assert again.status_code == 400
    saved = client.post("/editor/posts/new", data=data | {"csrf_token": fresh}, headers=HX_SAVE)
    assert saved.status_code == 200
    with app.app_context():
        kept = sa.select(Post.title).where(Post.title == "Kept across a login")
        assert list(db.session.scalars(kept)) == ["Kept across a login"]


def test_the_dialog_says_why_a_login_failed_and_keeps_the_limits(app, client, password_hash):
    """A wrong password is a 401 shown in the dialog, counted against the account: the sixth
    try is a 429 there too; an empty field and a stale token say so, with a token to retry."""
    make_editor(app, password_hash=password_hash)
    token = csrf_token(client)
    wrong = dialog_login(client, token, "not the password")
    assert wrong.status_code == 401
    assert wrong.headers["HX-Retarget"] == "#session-login-problem"
    assert wrong.get_data(as_text=True) == WRONG_CREDENTIALS
    assert client.get("/editor/").status_code == 302

    empty = dialog_login(client, wrong.headers["X-CSRF-Token"], "")
    assert empty.status_code == 422
    assert empty.get_data(as_text=True) == "Enter your password."

    stale = dialog_login(client, "stale")
    assert stale.status_code == 400
    assert "expired" in stale.get_data(as_text=True)
    token = stale.headers["X-CSRF-Token"]

    # From other addresses, so that only the account's own limit can trip.
    for n in range(4):
        address = {"REMOTE_ADDR": f"10.0.3.{n}"}
        assert dialog_login(client, token, "still wrong", environ_base=address).status_code == 401
    limited = dialog_login(client, token, environ_base={"REMOTE_ADDR": "10.0.4.1"})
    assert limited.status_code == 429
    assert limited.get_data(as_text=True) == ACCOUNT_LIMITED
    assert client.get("/editor/").status_code == 302


def test_the_login_page_is_unchanged_without_the_dialog(app, client, password_hash):
    """A plain login (no htmx) still goes on to the post list, and a wrong one gets the page."""
    make_editor(app, password_hash=password_hash)
    wrong = login(client, "ada@example.com", "not the password")
    assert wrong.status_code == 401 and "<h1" in wrong.get_data(as_text=True)
    assert login(client, "ada@example.com", PASSWORD).headers["Location"] == "/editor/"


def test_an_ended_session_meets_other_requests_with_a_login_link_that_fits_the_page(client):
    """The post editor's previews link to its login dialog; other pages' to a new tab."""
    token = csrf_token(client)
    headers = HX_SAVE | {"HX-Target": "preview"}
    preview = client.post(
        "/editor/preview", data={"csrf_token": token, "body": "x"}, headers=headers
    )
    assert preview.status_code == 401
    link = page(preview).select_one("a.login-link")
    assert link.text == "Log in here" and not link.has_attr("target")
    headers = HX_SAVE | {"HX-Target": "post-table"}
    listing = client.get("/editor/?q=x", headers=headers)
    assert listing.status_code == 401
    link = page(listing).select_one("a.login-link")
    assert link.text == "Log in in a new tab" and link["target"] == "_blank"
    assert "in a new tab" in listing.get_data(as_text=True)
