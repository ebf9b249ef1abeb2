"""Security posture: headers on every response, HSTS over HTTPS, error pages without internals,
no way out of the file-serving routes, hostile uploads, expired CSRF tokens, htmx history,
and failed-login limits shared by several server processes."""

from __future__ import annotations

import gc
import io
import multiprocessing
import os
import struct
import subprocess
import sys
import textwrap
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import PIL.Image
import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog import create_app
from blog.extensions import db
from blog.models import Image, Post, Topic
from tests.authoring.test_auth import CHEAP_METHOD, PASSWORD, log_in_as, make_editor, page
from tests.authoring.test_editor import HX_EDITOR, create, new_post_form
from tests.conftest import REDIS_URL
from tests.media.test_images import noise_png, picture_bytes

ROOT = Path(__file__).resolve().parents[2]


# Headers on every response ------------------------------------------------------------------


def csp_directives(response) -> dict[str, list[str]]:
    """The Content-Security-Policy header as {directive: [sources]}."""
    policy = response.headers.get("Content-Security-Policy", "")
    directives = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


def assert_secure_headers(response, what: str) -> None:
    """The headers every answer carries, whatever its status or type."""
    csp = csp_directives(response)
    scripts = csp.get("script-src", csp.get("default-src"))
    assert scripts and "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts, what
    assert csp.get("object-src") == ["'none'"], what
    assert csp.get("frame-ancestors") == ["'none'"], what
    assert response.headers.get("X-Content-Type-Options") == "nosniff", what
    assert response.headers.get("Referrer-Policy") == "strict-origin-when-cross-origin", what
    permissions = response.headers.get("Permissions-Policy", "").split(", ")
    assert {"camera=()", "microphone=()", "geolocation=()", "payment=()"} <= set(permissions)


@pytest.fixture
def site(app: Flask, posts) -> dict[str, str]:
    """A post with an uploaded image, and the addresses worth asking for."""
    (slug,) = posts.create(1, topics=("Databases",))
    with app.test_request_context():
        from blog.media.images import image_url, store_image

        image = store_image(picture_bytes("PNG"))
        db.session.commit()
        image_address = image_url(image)
    return {"slug": slug, "image": image_address}


def every_kind_of_response(app: Flask, client: FlaskClient, site: dict[str, str]) -> dict:
    """One response of each kind the site gives: pages, fragments, files, feeds, redirects,
    304s and errors, for a reader and for a logged-in editor."""
    slug = site["slug"]
    reader = app.test_client()
    home = reader.get("/")
    answers = {
        "home": home,
        "home 304": reader.get("/", headers={"If-None-Match": home.headers["ETag"]}),
        "home HEAD": reader.head("/"),
        "listing fragment": reader.get(
            "/", headers={"HX-Request": "true", "HX-Target": "post-list"}
        ),
        "topic": reader.get("/topics/databases"),
        "post": reader.get(f"/posts/{slug}"),
        "illustration": reader.get(f"/illustrations/{slug}.svg"),
        "image": reader.get(site["image"]),
        "static": reader.get("/static/css/site.css"),
        "feed": reader.get("/feed.atom"),
        "rss": reader.get("/feed.rss"),
        "sitemap": reader.get("/sitemap.xml"),
        "robots": reader.get("/robots.txt"),
        "search": reader.get("/search?q=post"),
        "search fragment": reader.get(
            "/search?q=post", headers={"HX-Request": "true", "HX-Target": "search-results"}
        ),
        "login": reader.get("/login"),
        "login redirect": reader.get("/editor/"),
        "400": reader.get("/?page=abc"),
        "404": reader.get("/posts/nothing-here"),
        "405": reader.post("/"),
        "413": reader.post("/login", data=b"x" * (8 * 1024 * 1024), content_type="text/plain"),
        "csrf refusal": reader.post("/login", data={"email": "a@example.com", "password": "x"}),
    }
    log_in_as(client, make_editor(app))
    post_id = create(client, title="Header check")
    answers |= {
        "editor list": client.get("/editor/"),
        "editor new": client.get("/editor/posts/new"),
        "editor edit": client.get(f"/editor/posts/{post_id}"),
        "editor delete": client.get(f"/editor/posts/{post_id}/delete"),
        "editor save": client.post("/editor/posts/new", data=new_post_form(client, title="Saved")),
        "editor 422": client.post("/editor/posts/new", data=new_post_form(client, title="")),
        "editor alert": client.post(
            "/editor/posts/new", data={"title": "x", "csrf_token": "stale"}, headers=HX_EDITOR
        ),
        "editor 404": client.get("/editor/posts/999999"),
    }
    return answers


def test_every_kind_of_response_carries_the_security_headers(app, client, site):
    """CSP without inline scripts, no plugins, no framing; nosniff; a strict referrer policy."""
    answers = every_kind_of_response(app, client, site)
    expected_status = {"home 304": 304, "400": 400, "404": 404, "405": 405, "413": 413}
    for what, response in answers.items():
        if what in expected_status:
            assert response.status_code == expected_status[what], what
        assert_secure_headers(response, what)
        assert "Strict-Transport-Security" not in response.headers, f"{what} over plain HTTP"


def test_responses_over_https_carry_hsts(app, posts):
    """Over HTTPS every answer, pages and errors alike, tells browsers to keep to HTTPS."""
    (slug,) = posts.create(1)
    client = app.test_client()
    for url in ("/", f"/posts/{slug}", "/posts/missing", "/login", "/static/css/site.css"):
        response = client.get(url, base_url="https://blog.example")
        assert response.headers["Strict-Transport-Security"] == "max-age=31536000", url
        assert_secure_headers(response, url)


def test_hsts_max_age_is_a_setting(app, monkeypatch):
    """HSTS_MAX_AGE sets the max-age (0 tells browsers to forget the rule)."""
    client = app.test_client()
    for seconds in (600, 0):
        monkeypatch.setitem(app.config, "HSTS_MAX_AGE", seconds)
        response = client.get("/robots.txt", base_url="https://blog.example")
        assert response.headers["Strict-Transport-Security"] == f"max-age={seconds}"


@pytest.mark.parametrize(("proxies", "hsts"), [(1, True), (0, False)])
def test_hsts_behind_a_trusted_proxy_only(database_url, proxies, hsts):
    """A proxy that terminates TLS says so in X-Forwarded-Proto, trusted only when configured."""
    proxied = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "x",
            "SQLALCHEMY_DATABASE_URI": database_url,
            "TRUSTED_PROXIES": proxies,
        }
    )
    response = proxied.test_client().get("/robots.txt", headers={"X-Forwarded-Proto": "https"})
    assert ("Strict-Transport-Security" in response.headers) is hsts


# Errors never show internals ----------------------------------------------------------------

SECRET_DETAIL = "the-secret-detail-of-this-failure"


@pytest.fixture
def fragile(database_url: str, app: Flask) -> Flask:
    """The app as production runs it (not testing), with routes that fail in three ways."""
    fragile = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url})

    def crash() -> str:
        raise RuntimeError(SECRET_DETAIL)

    def broken_query() -> str:
        db.session.execute(sa.text(f"SELECT * FROM {SECRET_DETAIL.replace('-', '_')}"))
        return "unreachable"

    def failed_write() -> str:
        db.session.add(Topic(name="Twin", slug="twin", position=1))
        db.session.add(Topic(name="Twin", slug="twin", position=2))
        db.session.flush()
        return "unreachable"

    fragile.add_url_rule("/crash", view_func=crash)
    fragile.add_url_rule("/broken-query", view_func=broken_query)
    fragile.add_url_rule("/failed-write", view_func=failed_write)
    return fragile


@pytest.mark.parametrize("url", ["/crash", "/broken-query", "/failed-write"])
@pytest.mark.parametrize("signed_in", [False, True], ids=["reader", "editor"])
def test_unexpected_errors_show_a_plain_page_without_internals(fragile, app, url, signed_in):
    """A bug or a database failure is a 500 in the site's layout: no traceback, no SQL, no
    exception text; for an editor too, whose page header needs the database after the failure."""
    client = fragile.test_client()
    if signed_in:
        log_in_as(client, make_editor(app))
    response = client.get(url)
    assert response.status_code == 500
    text = response.get_data(as_text=True)
    leaks = ("Traceback", SECRET_DETAIL, SECRET_DETAIL.replace("-", "_"), "sqlalchemy", "UNIQUE")
    for leak in leaks:
        assert leak not in text
    soup = page(response)
    assert soup.select_one(".error-page h1").get_text(strip=True) == "Something went wrong"
    assert "could not be shown" in soup.select_one(".error-page").get_text()
    if signed_in:
        assert soup.select_one(".site-nav .account-write") is not None
    assert "no-store" in response.headers["Cache-Control"]
    assert_secure_headers(response, url)
    assert client.get("/robots.txt").status_code == 200


# No way out of the file-serving routes ------------------------------------------------------

TRAVERSALS = [
    "../../../../etc/passwd",
    "..%2f..%2f..%2f..%2fetc%2fpasswd",
    "%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "%2e%2e%2f%2e%2e%2fblog%2fconfig.py",
    "..\\..\\blog\\config.py",
    "..%5c..%5cblog%5cconfig.py",
    "....//....//blog/config.py",
    "..;/..;/blog/config.py",
    "/etc/passwd",
    "%2fetc%2fpasswd",
    "..%00/blog/config.py",
    "css/..%2f..%2fblog%2fconfig.py",
    "%252e%252e%252fblog%252fconfig.py",
    "..%c0%af..%c0%afblog%c0%afconfig.py",
    "../pyproject.toml",
    "../instance/fieldnotes.sqlite3",
]
SECRETS_ON_DISK = ("root:x:", "SECRET_KEY", "[tool.ruff]", "SQLite format", "def create_app")


@pytest.mark.parametrize("prefix", ["/static/", "/images/", "/illustrations/"])
@pytest.mark.parametrize("trick", TRAVERSALS)
def test_file_routes_never_serve_anything_outside_their_store(client, prefix, trick):
    """Dot-dot, encoded, doubled, backslashed and NUL tricks: a 404 (or 400), never a file."""
    response = client.get(prefix + trick + (".svg" if prefix == "/illustrations/" else ""))
    if response.status_code == 308:  # "//" merged into "/": still a path on this site
        location = urllib.parse.urlsplit(response.headers["Location"])
        assert location.netloc in ("", "localhost")
        assert location.path.startswith(prefix) and ".." not in location.path
        response = client.get(location.path)
    assert response.status_code in (400, 404), response.status_code
    body = response.get_data()
    for secret in SECRETS_ON_DISK:
        assert secret.encode() not in body
    assert "Traceback" not in response.get_data(as_text=True)


def test_the_file_routes_still_serve_their_own_files(client, site):
    """The same routes do serve what they hold (the refusals above are not blanket 404s)."""
    assert client.get("/static/css/site.css").status_code == 200
    assert client.get(site["image"]).status_code == 200
    assert client.get(f"/illustrations/{site['slug']}.svg").status_code == 200


# Hostile uploads -----------------------------------------------------------------------------


def animated_gif_bomb(width: int = 6000, height: int = 6000, frames: int = 40) -> bytes:
    """A few hundred bytes: a huge canvas and many one-pixel frames, each of which would be
    decoded and re-encoded as a whole canvas."""
    out = io.BytesIO()
    out.write(b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff")
    out.write(b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00")
    for n in range(frames):
        out.write(b"\x21\xf9\x04\x00\x01\x00\x00\x00")
        out.write(b"\x2c" + struct.pack("<HHHHB", n, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00")
    out.write(b"\x3b")
    return out.getvalue()


def pixel_bomb() -> bytes:
    """A small PNG that claims 48 megapixels."""
    out = io.BytesIO()
    PIL.Image.new("1", (8000, 6000)).save(out, "PNG")
    return out.getvalue()


HOSTILE_UPLOADS = {
    "html renamed png": (b"<!doctype html><script>alert(document.cookie)</script>", "a.png"),
    "svg renamed png": (b'<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>', "a.png"),
    "svg with script": (
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        "drawing.svg",
    ),
    "png header then html": (b"\x89PNG\r\n\x1a\n<html><script>alert(1)</script>", "a.png"),
    "truncated png": (noise_png((60, 60))[:-300], "a.png"),
    "pixel bomb": (pixel_bomb(), "bomb.png"),
    "animated gif bomb": (animated_gif_bomb(), "bomb.gif"),
}


@pytest.fixture
def writer(app: Flask, client: FlaskClient) -> FlaskClient:
    """A logged-in editor."""
    log_in_as(client, make_editor(app))
    return client


def stored_counts(app: Flask) -> tuple[int, int]:
    """How many posts and images the store holds."""
    with app.app_context():
        posts = db.session.scalar(sa.select(sa.func.count(Post.id)))
        images = db.session.scalar(sa.select(sa.func.count(Image.id)))
    return posts, images


@pytest.mark.parametrize("name", HOSTILE_UPLOADS)
@pytest.mark.parametrize("htmx", [False, True], ids=["form", "htmx"])
def test_hostile_uploads_are_refused_and_nothing_is_stored(app, writer, name, htmx):
    """Each refused with a 4xx and the reason beside the image field; the post's text comes
    back in the form; no post and no image is stored."""
    data, filename = HOSTILE_UPLOADS[name]
    form = new_post_form(writer, title="Keep my words", body="Every word I wrote.")
    form["image"] = (io.BytesIO(data), filename)
    response = writer.post(
        "/editor/posts/new",
        data=form,
        content_type="multipart/form-data",
        headers=HX_EDITOR if htmx else {},
    )
    assert response.status_code == (413 if "bomb" in name else 422)
    soup = page(response)
    message = soup.select_one("#image-error").get_text(" ", strip=True)
    reason = "megapixels" if "bomb" in name else "not a PNG, JPEG, WebP or GIF"
    assert reason in message
    assert soup.select_one("#body").get_text().strip() == "Every word I wrote."
    assert soup.select_one("#title")["value"] == "Keep my words"
    assert stored_counts(app) == (0, 0)


@pytest.mark.parametrize("htmx", [False, True], ids=["form", "htmx"])
def test_a_50_mb_upload_is_a_413_and_nothing_is_stored(app, writer, htmx):
    """A 50 MB request is refused before it is read into a form: a 413 that says the limits."""
    form = new_post_form(writer, title="Too big")
    form["image"] = (io.BytesIO(os.urandom(50 * 1024 * 1024)), "huge.png")
    response = writer.post(
        "/editor/posts/new",
        data=form,
        content_type="multipart/form-data",
        headers=HX_EDITOR if htmx else {},
    )
    assert response.status_code == 413
    assert "images may be at most 5 MB" in response.get_data(as_text=True)
    assert ("HX-Retarget" in response.headers) is htmx
    assert stored_counts(app) == (0, 0)


# CSRF: an expired token keeps the editor's text and says what happened ------------------------


def expire_csrf(client: FlaskClient) -> None:
    """What a session that lost its CSRF secret looks like (expired, or signed by an old key)."""
    with client.session_transaction() as session:
        session.pop("csrf_token", None)


def test_an_expired_token_on_an_htmx_save_keeps_the_text_and_explains(app, writer):
    """htmx: a 400 alert aimed at the alert box (not the form), a fresh token to retry with,
    nothing saved; saving again with the fresh token stores exactly the same text."""
    form = new_post_form(writer, title="Written over lunch", body="A long paragraph.")
    expire_csrf(writer)
    refused = writer.post("/editor/posts/new", data=form, headers=HX_EDITOR)
    assert refused.status_code == 400
    assert refused.headers["HX-Retarget"] == "#editor-alert"
    assert refused.headers["HX-Reswap"] == "innerHTML"
    text = refused.get_data(as_text=True)
    assert "security token is no longer valid" in text and "Your text is still here" in text
    assert 'id="post-form"' not in text, "the refusal must not replace the editor's form"
    assert stored_counts(app) == (0, 0)
    form["csrf_token"] = refused.headers["X-CSRF-Token"]
    saved = writer.post("/editor/posts/new", data=form, headers=HX_EDITOR)
    assert saved.status_code == 200
    with app.app_context():
        post = db.session.scalar(sa.select(Post))
        assert (post.title, post.body_markdown) == ("Written over lunch", "A long paragraph.")


def form_of(response) -> dict[str, Any]:
    """What the editor form on a page would send, read as a browser reads it."""
    soup = page(response)
    data = {}
    for element in soup.select("#post-form input, #post-form textarea"):
        name, kind = element.get("name"), element.get("type", "")
        if (
            not name
            or kind == "file"
            or (kind in ("checkbox", "radio") and not element.has_attr("checked"))
        ):
            continue
        if element.name == "textarea":
            value = element.text.removeprefix("\r\n").removeprefix("\n")
        else:
            value = element.get("value", "y" if kind == "checkbox" else "")
        # Fields that repeat (one box per author) send every value, as a browser does.
        if name in data:
            before = data[name]
            data[name] = [*before, value] if isinstance(before, list) else [before, value]
        else:
            data[name] = value
    return data


@pytest.mark.parametrize(
    "sent_from",
    [{"Sec-Fetch-Site": "same-origin"}, {"Origin": "http://localhost"}],
    ids=["sec-fetch-site", "origin"],
)
def test_an_expired_token_on_a_plain_save_brings_the_text_back(app, writer, sent_from):
    """Without JavaScript, a save from the editor's own page whose token expired comes back
    as the editor with every word typed, a fresh token and a message; saving again works."""
    post_id = create(writer, title="First version")
    form = form_of(writer.get(f"/editor/posts/{post_id}"))
    form |= {"title": "Second version", "body": "Words typed over a long afternoon."}
    old_token = form["csrf_token"]
    expire_csrf(writer)
    response = writer.post(f"/editor/posts/{post_id}", data=form, headers=sent_from)
    assert response.status_code == 400
    soup = page(response)
    assert "security token had expired" in soup.select_one(".notice").get_text()
    kept = form_of(response)
    assert (kept["title"], kept["body"]) == ("Second version", "Words typed over a long afternoon.")
    assert kept["csrf_token"] != old_token and kept["lock_version"] == form["lock_version"]
    with app.app_context():
        assert db.session.get(Post, post_id).title == "First version"
    saved = writer.post(f"/editor/posts/{post_id}", data=kept, headers=sent_from)
    assert saved.status_code == 303
    with app.app_context():
        post = db.session.get(Post, post_id)
        assert (post.title, post.body_markdown) == (
            "Second version",
            "Words typed over a long afternoon.",
        )


@pytest.mark.parametrize(
    "sent_from",
    [{}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://evil.example"}],
    ids=["no-header", "cross-site", "other-origin"],
)
def test_a_forged_save_never_gets_its_text_shown_back(app, writer, sent_from):
    """A post without a valid token that did not come from this site's pages gets the plain
    refusal: its text is not put into an editor with a working token."""
    form = new_post_form(writer, title="Planted by another site", body="Planted words.")
    expire_csrf(writer)
    response = writer.post("/editor/posts/new", data=form, headers=sent_from)
    assert response.status_code == 400
    text = response.get_data(as_text=True)
    explanation = page(response).select_one(".error-page").get_text(" ", strip=True)
    assert "security token is no longer valid" in explanation
    assert "nothing was saved" in explanation
    assert "Planted" not in text and 'id="post-form"' not in text
    assert stored_counts(app) == (0, 0)


def test_authoring_posts_without_a_token_change_nothing(app, writer):
    """Every state-changing authoring route refuses a post without the token (a forged one)."""
    post_id = create(writer, title="Target")
    for url in (
        "/editor/posts/new",
        f"/editor/posts/{post_id}",
        f"/editor/posts/{post_id}/delete",
        "/logout",
    ):
        response = writer.post(url, data={"title": "Forged", "body": "Forged", "topics": "x"})
        assert response.status_code == 400, url
    with app.app_context():
        assert db.session.scalars(sa.select(Post.title)).all() == ["Target"]
    assert writer.get("/editor/").status_code == 200, "a forged logout ended the session"


# Editor pages stay out of htmx's history cache ------------------------------------------------


@pytest.mark.parametrize("page_name", ["list", "new", "edit", "delete", "refused save"])
def test_editor_pages_are_kept_out_of_htmx_history(app, writer, page_name):
    """Drafts must not be snapshotted into localStorage: the whole editor area is
    inside an hx-history="false" element, on every authoring page."""
    post_id = create(writer, title="History")
    response = {
        "list": lambda: writer.get("/editor/"),
        "new": lambda: writer.get("/editor/posts/new"),
        "edit": lambda: writer.get(f"/editor/posts/{post_id}"),
        "delete": lambda: writer.get(f"/editor/posts/{post_id}/delete"),
        "refused save": lambda: writer.post(
            "/editor/posts/new", data=new_post_form(writer, title="")
        ),
    }[page_name]()
    soup = page(response)
    wrapper = soup.select_one('[data-hx-history="false"]')
    assert wrapper is not None
    main = soup.select_one("main")
    assert [child for child in main.find_all(recursive=False) if child is not wrapper] == []


# Failed-login limits across server processes ---------------------------------------------------


def serve(database_url: str, prefix: str, ports) -> None:
    """One server process, forked from this one as gunicorn forks its workers from the app it
    preloaded (no interpreter start-up to wait for). It builds its own app, so it shares no
    database or Redis connection with this process."""
    from werkzeug.serving import make_server

    gc.freeze()  # this process's objects are the parent's: never finalize them here
    app = create_app(
        {
            "SECRET_KEY": "x",
            "WTF_CSRF_ENABLED": False,
            "SQLALCHEMY_DATABASE_URI": database_url,
            "RATELIMIT_STORAGE_URI": REDIS_URL,
            "RATELIMIT_KEY_PREFIX": prefix,
        }
    )
    server = make_server("127.0.0.1", 0, app)
    ports.put(server.server_port)
    server.serve_forever()


@pytest.fixture(scope="module")
def two_servers(app: Flask, database_url: str) -> Iterator[tuple[list[str], str]]:
    """Two server processes on one database, sharing failed-login counts through Redis;
    started once for the module (each test begins with no counts: see `shared_limits`)."""
    prefix = f"fieldnotes-test-{uuid.uuid4().hex[:8]}"
    with app.app_context():
        db.engine.dispose()  # no pooled connection is carried into the forked servers
    fork = multiprocessing.get_context("fork")
    ports = fork.Queue()
    servers = [
        fork.Process(target=serve, args=(database_url, prefix, ports), daemon=True)
        for _ in range(2)
    ]
    for server in servers:
        server.start()
    try:
        yield [f"http://127.0.0.1:{ports.get(timeout=120)}" for _ in servers], prefix
    finally:
        for server in servers:
            server.terminate()
            server.join(10)


@pytest.fixture
def shared_limits(two_servers, redis_client) -> Iterator[list[str]]:
    """The two servers' URLs, with no failed logins counted in Redis before or after."""
    urls, prefix = two_servers

    def forget() -> None:
        for key in redis_client.scan_iter(f"*{prefix}*"):
            redis_client.delete(key)

    forget()
    yield urls
    forget()


def attempt(url: str, email: str, password: str) -> int:
    """One login attempt over HTTP; its status code."""
    body = urllib.parse.urlencode({"email": email, "password": password}).encode()
    request = urllib.request.Request(url + "/login", data=body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.parametrize("last", [0, 1], ids=["first server", "second server"])
def test_the_sixth_failed_login_is_refused_by_whichever_process_answers(app, shared_limits, last):
    """Five failures spread over two processes; the sixth attempt gets 429 from either one."""
    from werkzeug.security import generate_password_hash

    make_editor(app, password_hash=generate_password_hash(PASSWORD, method=CHEAP_METHOD))
    urls = shared_limits
    codes = [attempt(urls[n % 2], "ada@example.com", "wrong") for n in range(5)]
    assert codes == [401] * 5
    assert attempt(urls[last], "ada@example.com", PASSWORD) == 429
    assert attempt(urls[1 - last], "ada@example.com", PASSWORD) == 429


REDIS_SCRIPT = textwrap.dedent(
    """
    import sys
    import flask_migrate
    from blog import create_app
    from blog.extensions import db
    from blog.models import Editor
    from werkzeug.security import generate_password_hash

    app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, "SECRET_KEY": "x",
                      "RATELIMIT_KEY_PREFIX": sys.argv[1]})
    with app.app_context():
        flask_migrate.upgrade(revision="heads")
        db.session.add(Editor(email="ada@example.com", name="Ada",
                              password_hash=generate_password_hash("pw", "scrypt:16384:8:1")))
        db.session.commit()
    codes = []
    for _ in range(6):
        client = app.test_client()
        form = {"email": "ada@example.com", "password": "wrong"}
        codes.append(client.post("/login", data=form).status_code)
    print(" ".join(map(str, codes)))
    """
)


def test_limits_are_shared_through_redis_when_configured(tmp_path, redis_client):
    """RATELIMIT_STORAGE_URI from the environment puts the counts in Redis for every server."""
    prefix = f"fieldnotes-test-{uuid.uuid4().hex[:8]}"
    env = os.environ | {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'redis.sqlite3'}",
        "RATELIMIT_STORAGE_URI": REDIS_URL,
    }
    try:
        result = subprocess.run(
            [sys.executable, "-c", REDIS_SCRIPT, prefix],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=120,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.split() == ["401"] * 5 + ["429"]
        assert any(prefix.encode() in key for key in redis_client.scan_iter(f"*{prefix}*"))
    finally:
        for key in redis_client.scan_iter(f"*{prefix}*"):
            redis_client.delete(key)
