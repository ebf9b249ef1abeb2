"""A session ends for every copy of its cookie: at logout, at the next login and when the
password changes; a CSRF token from before a login is not accepted after it."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.authoring.test_auth import PASSWORD, csrf_token, login, make_editor, password_hash

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
