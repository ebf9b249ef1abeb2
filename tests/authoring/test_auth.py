"""Editors' login and logout: credentials, cookies, CSRF, the `next` check and the limits."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.security import generate_password_hash

from blog.authoring.auth import safe_next
from blog.extensions import db, limiter
from blog.models import ADMIN, PASSWORD_METHOD, Editor

PASSWORD = "correct horse battery staple"
CHEAP_METHOD = "scrypt:1024:8:1"


# Helpers shared with the other authoring tests ----------------------------------------------


@pytest.fixture(scope="session")
def real_hash() -> str:
    """PASSWORD hashed the way accounts store it (computed once: scrypt is slow on purpose)."""
    return generate_password_hash(PASSWORD, method=PASSWORD_METHOD)


@pytest.fixture(scope="session")
def password_hash() -> str:
    """PASSWORD under a cheap scrypt, for tests about the login flow rather than the hash.

    Checking a hash uses the parameters stored in it, so logins behave the same, only faster.
    """
    return generate_password_hash(PASSWORD, method=CHEAP_METHOD)


@pytest.fixture
def cheap_decoy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make unknown-email checks cheap too, for tests that fail many logins."""
    decoy = generate_password_hash("decoy", method=CHEAP_METHOD)
    monkeypatch.setattr("blog.authoring.auth._decoy_hash", lambda: decoy)


def make_editor(
    app: Flask,
    email: str = "ada@example.com",
    *,
    name: str = "Ada Example",
    active: bool = True,
    password_hash: str = "unusable",
    role: str = ADMIN,
) -> int:
    """Store an editor account (an admin unless `role` says otherwise); returns its id."""
    with app.app_context():
        editor = Editor(
            email=email, name=name, active=active, password_hash=password_hash, role=role
        )
        db.session.add(editor)
        db.session.commit()
        return editor.id


def session_id(app: Flask, editor_id: int) -> str:
    """What a logged-in session of this editor stores: the id and the current session token."""
    with app.app_context():
        editor = db.session.get(Editor, editor_id)
        assert editor is not None
        return editor.get_id()


def log_in_as(client: FlaskClient, editor_id: int) -> None:
    """Put an editor's login into the client's session (the login form has its own tests)."""
    value = session_id(client.application, editor_id)
    with client.session_transaction() as session:
        session["_user_id"] = value
        session["_fresh"] = True


@pytest.fixture
def editor_client(app: Flask, client: FlaskClient) -> FlaskClient:
    """A client logged in as an active editor."""
    log_in_as(client, make_editor(app))
    return client


def page(response) -> BeautifulSoup:
    """A response body as parsed HTML."""
    return BeautifulSoup(response.get_data(as_text=True), "lxml")


# Read with patterns, not a parser: nearly every test that posts a form asks for a token.
CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)"')
CSRF_INPUT = re.compile(r'<input\b[^>]*\bname="csrf_token"[^>]*>')
VALUE = re.compile(r'\bvalue="([^"]+)"')


def csrf_token(client: FlaskClient, url: str = "/login") -> str:
    """The CSRF token a page hands out to this client's session."""
    html = client.get(url).get_data(as_text=True)
    if meta := CSRF_META.search(html):
        return meta[1]
    field = CSRF_INPUT.search(html)
    assert field is not None, f"no CSRF token on {url}"
    value = VALUE.search(field[0])
    assert value is not None
    return value[1]


@pytest.fixture(autouse=True)
def _fresh_limits(app: Flask) -> None:
    """Every test starts with no failed logins counted."""
    limiter.reset()


def login(client: FlaskClient, email: str, password: str, next_url: str | None = None, **kw):
    """Post the login form with a valid CSRF token."""
    data = {"csrf_token": csrf_token(client), "email": email, "password": password}
    if next_url is not None:
        data["next"] = next_url
    return client.post("/login", data=data, **kw)


# Pages and access ----------------------------------------------------------------------------


def test_login_page_is_public_and_never_cached(client):
    """Visitors see the login form; the page is not stored by any cache."""
    response = client.get("/login")
    assert response.status_code == 200
    soup = page(response)
    assert soup.select_one('form input[name="email"]') is not None
    assert soup.select_one('form input[name="password"][type="password"]') is not None
    assert "no-store" in response.headers["Cache-Control"]


def test_header_shows_login_to_visitors_and_write_to_editors(app, client, posts):
    """The header's account slot: a Login link, or Write and a logout button."""
    posts.create(1)
    visitor = page(client.get("/"))
    assert visitor.select_one(".site-nav a.login")["href"] == "/login"
    assert visitor.select_one(".logout-form") is None
    log_in_as(client, make_editor(app))
    editor = page(client.get("/"))
    assert editor.select_one(".site-nav a.account-write")["href"] == "/editor/"
    form = editor.select_one(".site-nav form.logout-form")
    assert form["action"] == "/logout" and form["method"] == "post"
    assert form.select_one('input[name="csrf_token"]')["value"]


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", "/editor/"),
        ("get", "/editor/posts/new"),
        ("post", "/editor/posts/new"),
        ("get", "/editor/posts/1"),
        ("post", "/editor/posts/1"),
        ("get", "/editor/posts/1/delete"),
        ("post", "/editor/posts/1/delete"),
        ("post", "/editor/preview"),
        ("post", "/editor/drawing"),
        ("get", "/editor/slug?title=x"),
        ("get", "/editor/trash"),
        ("post", "/editor/trash/1/restore"),
        ("get", "/editor/trash/empty"),
    ],
)
def test_every_authoring_page_requires_login(app, client, method, url):
    """Visitors are sent to the login page and nothing runs."""
    app.config["WTF_CSRF_ENABLED"] = False
    try:
        response = getattr(client, method)(url)
    finally:
        app.config["WTF_CSRF_ENABLED"] = True
    assert response.status_code in (302, 303)
    assert response.headers["Location"].startswith("/login")


def test_login_redirect_keeps_the_page_asked_for(client):
    """A visitor sent to log in from an authoring page is brought back to it."""
    response = client.get("/editor/?status=draft")
    location = urlsplit(response.headers["Location"])
    assert location.path == "/login"
    assert parse_qs(location.query) == {"next": ["/editor/?status=draft"]}
    soup = page(client.get(response.headers["Location"]))
    assert soup.select_one('input[name="next"]')["value"] == "/editor/?status=draft"


def test_htmx_request_without_login_gets_an_alert_not_a_redirect(client):
    """An htmx save from a page whose session ended says so, and the page keeps its text."""
    token = csrf_token(client)
    response = client.post(
        "/editor/posts/new",
        data={"csrf_token": token, "title": "Kept"},
        headers={"HX-Request": "true", "HX-Target": "post-editor"},
    )
    assert response.status_code == 401
    assert response.headers["HX-Retarget"] == "#editor-alert"
    assert "logged out" in response.get_data(as_text=True)


# Logging in and out --------------------------------------------------------------------------


def test_login_with_good_credentials_opens_the_authoring_area(app, client, real_hash):
    """The right password, stored as accounts store it, logs in and lands on the post list."""
    make_editor(app, password_hash=real_hash)
    response = login(client, "Ada@Example.com ", PASSWORD)
    assert response.status_code == 303
    assert response.headers["Location"] == "/editor/"
    assert client.get("/editor/").status_code == 200


def test_session_cookie_is_httponly_lax_and_secure_outside_debug(app, client, password_hash):
    """The session cookie is out of scripts' reach, not sent cross-site, HTTPS-only."""
    make_editor(app, password_hash=password_hash)
    response = login(client, "ada@example.com", PASSWORD)
    cookie = next(c for c in response.headers.getlist("Set-Cookie") if c.startswith("session="))
    attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert "httponly" in attributes
    assert "samesite=lax" in attributes
    assert "secure" in attributes
    assert app.config["SESSION_COOKIE_SECURE"] is True


def test_debug_mode_drops_the_secure_flag(monkeypatch, database_url):
    """On a plain-HTTP development server the cookie must still work."""
    from blog import create_app

    monkeypatch.setenv("FLASK_DEBUG", "1")
    debug_app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url})
    assert debug_app.debug and debug_app.config["SESSION_COOKIE_SECURE"] is False


@pytest.mark.parametrize(
    ("email", "password", "active"),
    [
        ("ada@example.com", "wrong password", True),
        ("nobody@example.com", PASSWORD, True),
        ("ada@example.com", PASSWORD, False),
    ],
    ids=["wrong-password", "unknown-email", "disabled-account"],
)
def test_bad_credentials_are_refused_with_one_message(
    app, client, password_hash, cheap_decoy, email, password, active
):
    """Wrong password, unknown email and disabled account look the same: 401, same words."""
    make_editor(app, password_hash=password_hash, active=active)
    response = login(client, email, password)
    assert response.status_code == 401
    soup = page(response)
    assert "do not match an active editor account" in soup.select_one(".form-problems").text
    assert soup.select_one('input[name="email"]')["value"] == email
    assert not soup.select_one('input[name="password"]').get("value")
    assert client.get("/editor/").status_code == 302


def test_empty_fields_come_back_with_messages(client):
    """A form without email or password is a 422 with the message beside each field."""
    response = client.post("/login", data={"csrf_token": csrf_token(client)})
    assert response.status_code == 422
    soup = page(response)
    assert "Enter your email address." in soup.select_one("#email-error").text
    assert "Enter your password." in soup.select_one("#password-error").text
    assert soup.select_one("#email")["aria-invalid"] == "true"


def test_login_without_csrf_token_is_refused(app, client, password_hash):
    """A login post without the form's token (a forged cross-site post) does not log in."""
    make_editor(app, password_hash=password_hash)
    response = client.post("/login", data={"email": "ada@example.com", "password": PASSWORD})
    assert response.status_code == 400
    assert "expired" in page(response).select_one(".form-problems").text
    assert client.get("/editor/").status_code == 302


def test_logout_needs_post_and_csrf(app, client):
    """Logging out is a CSRF-protected POST; a GET or a forged post leaves the session."""
    log_in_as(client, make_editor(app))
    assert client.get("/logout").status_code == 405
    assert client.post("/logout").status_code == 400
    assert client.get("/editor/").status_code == 200
    response = client.post("/logout", data={"csrf_token": csrf_token(client, "/editor/")})
    assert response.status_code == 303
    assert client.get("/editor/").status_code == 302


def test_disabling_an_account_ends_its_open_sessions(app, client):
    """A disabled editor's session stops working at the next request."""
    editor_id = make_editor(app)
    log_in_as(client, editor_id)
    assert client.get("/editor/").status_code == 200
    with app.app_context():
        db.session.get(Editor, editor_id).active = False
        db.session.commit()
    assert client.get("/editor/").status_code == 302


def test_logged_in_editor_visiting_login_goes_on(app, client):
    """An editor who is already logged in is sent on instead of seeing the form."""
    log_in_as(client, make_editor(app))
    response = client.get("/login?next=/editor/posts/new")
    assert response.status_code == 303
    assert response.headers["Location"] == "/editor/posts/new"


# Where `next` may lead ------------------------------------------------------------------------

OFF_SITE = [
    "//evil.example",
    "///evil.example",
    "\\\\evil.example",
    "/\\evil.example",
    "\\/evil.example",
    "http:/\\evil.example",
    "http://evil.example/",
    "https://evil.example",
    "HTTPS://evil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "\x00/evil.example",
    "/editor/\x7f",
    " //evil.example",
    "evil.example",
    "editor/",
    "",
]


@pytest.mark.parametrize("target", OFF_SITE)
def test_safe_next_refuses_every_way_off_the_site(target):
    """Scheme-relative, backslash, scheme, control-character and relative tricks are refused."""
    assert safe_next(target) is None


@pytest.mark.parametrize(
    "target", ["/editor/", "/editor/?status=draft", "/editor/posts/3", "/posts/a-b#part-one", "/"]
)
def test_safe_next_keeps_paths_on_this_site(target):
    """Ordinary paths (with a query or fragment) are kept as they are."""
    assert safe_next(target) == target


@pytest.mark.parametrize("target", ["//evil.example", "/\\evil.example", "http:/\\evil.example"])
def test_login_ignores_an_off_site_next(app, client, password_hash, target):
    """After logging in with a hostile `next`, the editor lands on the post list."""
    make_editor(app, password_hash=password_hash)
    response = login(client, "ada@example.com", PASSWORD, next_url=target)
    assert response.status_code == 303
    assert response.headers["Location"] == "/editor/"


def test_login_follows_a_local_next(app, client, password_hash):
    """A safe `next` from the login page is where the editor ends up."""
    make_editor(app, password_hash=password_hash)
    response = login(client, "ada@example.com", PASSWORD, next_url="/editor/posts/new")
    assert response.headers["Location"] == "/editor/posts/new"


# Failed-login limits --------------------------------------------------------------------------


def test_sixth_failed_login_for_an_account_is_refused(app, client, password_hash):
    """Five wrong passwords are 401s; the sixth attempt, even a right one, is a 429.

    Each attempt comes from another address, so only the per-account limit can trip.
    """
    make_editor(app, password_hash=password_hash)
    for n in range(5):
        address = {"REMOTE_ADDR": f"10.0.1.{n}"}
        response = login(client, "ada@example.com", "wrong", environ_base=address)
        assert response.status_code == 401
    response = login(client, "ada@example.com", PASSWORD, environ_base={"REMOTE_ADDR": "10.0.2.1"})
    assert response.status_code == 429
    soup = page(response)
    assert "Too many failed logins for this account" in soup.select_one(".form-problems").text
    assert soup.select_one('input[name="email"]')["value"] == "ada@example.com"
    assert "Retry-After" in response.headers
    assert client.get("/editor/").status_code == 302


@pytest.mark.parametrize(
    "spelling", ["\x0eada@example.com", "ad\x01a@example.com", " ADA@Example.com\x7f"]
)
def test_every_spelling_that_finds_the_account_counts_against_its_limit(
    app, client, password_hash, spelling
):
    """Control characters and case, which the account lookup ignores, do not make a fresh
    count: failures under one spelling lock out the others, the right password included."""
    make_editor(app, password_hash=password_hash)
    for n in range(5):
        address = {"REMOTE_ADDR": f"10.0.3.{n}"}
        email = spelling if n % 2 else "ada@example.com"
        assert login(client, email, "wrong", environ_base=address).status_code == 401
    for email in (spelling, "ada@example.com"):
        response = login(client, email, PASSWORD, environ_base={"REMOTE_ADDR": "10.0.4.1"})
        assert response.status_code == 429
    assert client.get("/editor/").status_code == 302


def test_failed_logins_are_limited_per_address_across_accounts(app, client, cheap_decoy):
    """Guessing at many accounts from one address hits the per-address limit."""
    for n in range(5):
        assert login(client, f"guess{n}@example.com", "x").status_code == 401
    response = login(client, "another@example.com", "x")
    assert response.status_code == 429
    assert "from your network address" in page(response).select_one(".form-problems").text


def test_other_addresses_can_still_log_in_to_other_accounts(app, password_hash):
    """The per-account limit stays on that account; another address and account are fine."""
    make_editor(app, password_hash=password_hash)
    make_editor(app, "grace@example.com", password_hash=password_hash)
    first = app.test_client()
    for _ in range(5):
        login(first, "ada@example.com", "wrong")
    second = app.test_client()
    ok = login(second, "grace@example.com", PASSWORD, environ_base={"REMOTE_ADDR": "10.0.0.2"})
    assert ok.status_code == 303


def test_form_mistakes_do_not_count_against_the_limit(app, client, password_hash):
    """Empty fields are a 422 and never lock anyone out."""
    make_editor(app, password_hash=password_hash)
    token = csrf_token(client)
    for _ in range(8):
        client.post("/login", data={"csrf_token": token, "email": "ada@example.com"})
    assert login(client, "ada@example.com", PASSWORD).status_code == 303


# Password storage ------------------------------------------------------------------------------


def test_passwords_are_stored_as_scrypt_at_the_owasp_minimum(app):
    """The stored hash names scrypt with N=2**17, r=8, p=1 and never holds the password."""
    with app.app_context():
        editor = Editor(email="x@example.com", name="X")
        editor.set_password(PASSWORD)
        method, salt, digest = editor.password_hash.split("$")
        algorithm, n, r, p = method.split(":")
        assert (algorithm, int(n), int(r), int(p)) == ("scrypt", 2**17, 8, 1)
        assert int(n) >= 2**17 and int(r) >= 8
        assert len(salt) >= 16 and len(bytes.fromhex(digest)) == 64
        assert PASSWORD not in editor.password_hash
        assert editor.check_password(PASSWORD) and not editor.check_password(PASSWORD + "!")


def test_unknown_emails_are_checked_against_a_decoy_hash(app, client, monkeypatch):
    """A login for an unknown email still runs one password check (no timing tell)."""
    import blog.authoring.auth

    calls = []
    real = blog.authoring.auth.check_password_hash

    def counting(stored: str, password: str) -> bool:
        calls.append(stored.split("$")[0])
        return real(stored, password)

    monkeypatch.setattr(blog.authoring.auth, "check_password_hash", counting)
    assert login(client, "nobody@example.com", "whatever").status_code == 401
    assert calls == [PASSWORD_METHOD]


def test_accounts_table_holds_no_plain_password(app, password_hash):
    """Nothing stored for an account contains the password."""
    make_editor(app, password_hash=password_hash)
    with app.app_context():
        row = db.session.execute(sa.select(Editor.__table__)).one()
    assert all(PASSWORD not in str(value) for value in row)
