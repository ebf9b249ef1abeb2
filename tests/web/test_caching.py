"""HTTP caching: data version, ETags and 304s, Vary, Cache-Control, compression, static URLs."""

from __future__ import annotations

import gzip
import hashlib
import re
from datetime import timedelta
from pathlib import Path

import brotli
import pytest
import sqlalchemy as sa
from flask import Blueprint, Flask, make_response, session

from blog.authoring import store
from blog.extensions import db
from blog.models import Post, SiteState, utcnow
from blog.web import headers, static, versions
from blog.web.versions import data_version
from tests.conftest import count_queries

HTMX_TOPIC = {"HX-Request": "true", "HX-Target": "all-posts"}
HTMX_MORE = {"HX-Request": "true", "HX-Target": "post-list"}
PUBLIC = "public, max-age=60, stale-while-revalidate=300"
TRANSACTION = {"BEGIN", "COMMIT", "ROLLBACK"}
STATIC = Path(__file__).resolve().parents[2] / "static"


def cache_control(response) -> set[str]:
    """The Cache-Control directives of a response, as a set."""
    return {part.strip() for part in response.headers.get("Cache-Control", "").split(",")} - {""}


def vary(response) -> set[str]:
    """The Vary header's field names, lower-cased."""
    return {part.strip().lower() for part in response.headers.get("Vary", "").split(",")} - {""}


def version(app: Flask) -> int:
    """The data version as the app reads it."""
    with app.app_context():
        return data_version()


@pytest.fixture
def site(posts) -> dict[str, str]:
    """A small blog: two topics, 14 posts, and the URLs of every kind of cached page."""
    posts.topics("Databases", "Frontend")
    slugs = posts.create(14, topics=("Databases", "Frontend"), editors_pick=True)
    return {
        "home": "/",
        "page": "/?page=2",
        "topic": "/topics/frontend",
        "post": f"/posts/{slugs[0]}",
        "feed": "/feed.atom",
        "rss": "/feed.rss",
        "topic_feed": "/topics/frontend/feed.atom",
        "sitemap": "/sitemap.xml",
    }


PAGES = ["home", "page", "topic", "post", "feed", "rss", "topic_feed", "sitemap"]


@pytest.mark.parametrize("name", PAGES)
def test_unchanged_page_answers_304_without_rendering(app, client, site, name):
    """ETag, Last-Modified and a public Cache-Control; a revalidation costs one query."""
    first = client.get(site[name])
    assert first.status_code == 200
    etag = first.headers["ETag"]
    assert etag.startswith('W/"')
    assert first.headers["Last-Modified"]
    assert cache_control(first) == set(PUBLIC.split(", "))
    with count_queries(app) as statements:
        again = client.get(site[name], headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.get_data() == b""
    assert again.headers["ETag"] == etag
    assert cache_control(again) == cache_control(first)
    assert vary(again) == vary(first)
    queries = [sql for sql in statements if sql.split()[0].upper() not in TRANSACTION]
    # One validator read; the old-slug redirect check (blog/editor.py) may run before views.
    assert len([sql for sql in queries if "site_state" in sql]) == 1
    assert [sql for sql in queries if "site_state" not in sql and "slug_redirects" not in sql] == []


def test_if_modified_since_also_revalidates(client, site):
    """A client holding only the date gets a 304 while nothing changed."""
    first = client.get(site["home"])
    again = client.get(site["home"], headers={"If-Modified-Since": first.headers["Last-Modified"]})
    assert again.status_code == 304


def test_a_stale_etag_gets_the_full_page(client, site):
    """An ETag from another state of the data is answered with a 200 and the new ETag."""
    response = client.get(site["home"], headers={"If-None-Match": 'W/"0123456789abcdef"'})
    assert response.status_code == 200
    assert response.headers["ETag"] != 'W/"0123456789abcdef"'


def test_star_never_answers_a_missing_page_with_304(client, site):
    """If-None-Match: * on an address that does not exist is still a 404."""
    for url in ("/topics/nope", "/posts/nope", "/topics/nope/feed.atom", "/?page=99"):
        assert client.get(url, headers={"If-None-Match": "*"}).status_code == 404


@pytest.mark.parametrize("kept", [True, False], ids=["kept", "rendered"])
@pytest.mark.parametrize("name", PAGES)
def test_star_answers_304_where_the_page_exists(app, client, site, monkeypatch, name, kept):
    """If-None-Match: * matches any current representation: a page that exists is a 304
    with its validators, whether it is served from memory or rendered."""
    monkeypatch.setitem(app.config, "PAGE_CACHE", kept)
    full = client.get(site[name])
    if kept:
        client.get(site[name])  # now held in memory
    star = client.get(site[name], headers={"If-None-Match": "*"})
    assert star.status_code == 304 and star.get_data() == b""
    assert star.headers["ETag"] == full.headers["ETag"]
    assert "Content-Type" not in star.headers
    assert client.head(site[name], headers={"If-None-Match": "*"}).status_code == 304


def test_etags_differ_between_pages_and_fragments(client, site):
    """Page, topic, page number and fragment each have their own ETag."""
    requests = [
        ("/?page=2", {}),
        ("/?page=2", HTMX_TOPIC),
        ("/?page=2", HTMX_MORE),
        ("/", {}),
        ("/topics/frontend", {}),
        ("/topics/databases", {}),
        ("/topics/frontend", HTMX_TOPIC),
    ]
    etags = [client.get(url, headers=headers).headers["ETag"] for url, headers in requests]
    assert len(set(etags)) == len(etags)


@pytest.mark.parametrize(
    ("held", "asked"),
    [({}, HTMX_MORE), (HTMX_MORE, {}), (HTMX_TOPIC, HTMX_MORE), ({}, HTMX_TOPIC)],
)
def test_a_304_never_swaps_page_and_fragment(client, site, held, asked):
    """The ETag of one representation never validates another one of the same URL."""
    etag = client.get("/?page=2", headers=held).headers["ETag"]
    response = client.get("/?page=2", headers={**asked, "If-None-Match": etag})
    assert response.status_code == 200
    is_page = "<html" in response.get_data(as_text=True)
    assert is_page == (asked == {})


def test_history_restore_shares_the_full_pages_etag(client, site):
    """A history restore gets the whole page, so the page's ETag validates it."""
    etag = client.get("/?page=2").headers["ETag"]
    headers = {"HX-Request": "true", "HX-History-Restore-Request": "true", "If-None-Match": etag}
    assert client.get("/?page=2", headers=headers).status_code == 304


@pytest.mark.parametrize(
    ("url", "headers"),
    [("/", {}), ("/topics/frontend", HTMX_TOPIC), ("/?page=2", HTMX_MORE)],
    ids=["full-page", "topic-fragment", "read-more-fragment"],
)
def test_listing_responses_vary_by_htmx_headers(client, site, url, headers):
    """Full page and both fragments say which request headers chose them, 200 and 304 alike."""
    response = client.get(url, headers=headers)
    expected = {"hx-request", "hx-target", "hx-history-restore-request", "accept-encoding"}
    assert expected <= vary(response)
    etag = response.headers["ETag"]
    not_modified = client.get(url, headers={**headers, "If-None-Match": etag})
    assert not_modified.status_code == 304
    assert expected <= vary(not_modified)


def _publish_draft(app: Flask, slug: str) -> None:
    """Publish a draft through the session."""
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        post.status = "published"
        post.published_at = utcnow() - timedelta(minutes=1)
        db.session.commit()


def _edit(app: Flask, slug: str) -> None:
    """Retitle a post through the session."""
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        post.title = "A new title"
        db.session.commit()


def _delete(app: Flask, slug: str) -> None:
    """Delete a post through the session."""
    with app.app_context():
        db.session.delete(db.session.scalar(sa.select(Post).where(Post.slug == slug)))
        db.session.commit()


@pytest.mark.parametrize("change", ["publish", "edit", "delete"])
def test_a_change_to_a_post_changes_every_etag_that_shows_it(app, client, posts, site, change):
    """Publishing, editing or deleting a post changes the listing, topic, feed and sitemap."""
    [slug] = posts.create(
        1, topics=("Frontend",), published_at=None if change == "publish" else utcnow()
    )
    urls = [site[name] for name in ("home", "topic", "feed", "topic_feed", "rss", "sitemap")]
    if change != "publish":
        urls.append(f"/posts/{slug}")
    before = {url: client.get(url).headers["ETag"] for url in urls}
    {"publish": _publish_draft, "edit": _edit, "delete": _delete}[change](app, slug)
    for url in urls:
        response = client.get(url, headers={"If-None-Match": before[url]})
        if change == "delete" and url.startswith("/posts/"):
            assert response.status_code == 404
            continue
        assert response.status_code == 200, url
        assert response.headers["ETag"] != before[url], url
        if url != site["sitemap"]:
            shown = "A new title" in response.get_data(as_text=True)
            assert shown == (change == "edit"), url


def test_every_commit_that_touches_posts_bumps_the_version(app, posts):
    """Session writes, bulk statements and topic changes bump; rollbacks and reads do not."""
    [slug] = posts.create(1)
    start = version(app)
    assert start >= 1
    with app.app_context():
        db.session.scalars(sa.select(Post)).all()
        db.session.commit()
    assert version(app) == start
    with app.app_context():
        db.session.execute(sa.update(Post).where(Post.slug == slug).values(featured=True))
        db.session.commit()
    assert version(app) == start + 1
    with app.app_context():
        store.topic_named("Brand new")
        db.session.commit()
    assert version(app) == start + 2
    with app.app_context():
        db.session.scalar(sa.select(Post)).title = "Never saved"
        db.session.flush()
        db.session.rollback()
    assert version(app) == start + 2


def _make_live_without_a_write(app: Flask, slug: str) -> None:
    """Let the clock pass a scheduled post's time, behind the app's back (no version bump).

    Moving the post's time and the state row's record of it back by the same amount is what
    the passing of time looks like to the database.
    """
    due = utcnow() - timedelta(seconds=1)
    with app.app_context(), db.engine.begin() as connection:
        posts, state = Post.__table__, SiteState.__table__
        connection.execute(posts.update().where(posts.c.slug == slug).values(published_at=due))
        connection.execute(state.update().values(next_publish_at=due))


@pytest.mark.parametrize("name", ["home", "topic", "feed", "topic_feed", "sitemap"])
def test_a_scheduled_post_going_live_changes_the_etag(app, client, posts, site, name):
    """No write happens when a scheduled post goes live, yet the old ETag stops matching."""
    [slug] = posts.create(
        1, topics=("Frontend",), title="Scheduled", published_at=utcnow() + timedelta(hours=1)
    )
    before = client.get(site[name])
    assert "Scheduled" not in before.get_data(as_text=True)
    assert client.get(f"/posts/{slug}").status_code == 404
    stamp = version(app)
    _make_live_without_a_write(app, slug)
    assert version(app) == stamp
    after = client.get(site[name], headers={"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200
    assert after.headers["ETag"] != before.headers["ETag"]
    assert "Scheduled" in after.get_data(as_text=True) or slug in after.get_data(as_text=True)
    assert client.get(f"/posts/{slug}").status_code == 200


def test_cache_lifetimes_come_from_the_settings(app, client, site):
    """CACHE_MAX_AGE and CACHE_STALE set the public pages' Cache-Control."""
    saved = app.config["CACHE_MAX_AGE"], app.config["CACHE_STALE"]
    app.config.update(CACHE_MAX_AGE=5, CACHE_STALE=0)
    try:
        response = client.get(site["home"])
    finally:
        app.config["CACHE_MAX_AGE"], app.config["CACHE_STALE"] = saved
    assert cache_control(response) == {"public", "max-age=5"}


@pytest.mark.parametrize("url", ["/topics/nope", "/posts/nope", "/?page=abc", "/?page=99"])
def test_errors_are_never_stored(client, site, url):
    """404s and 400s are not kept by any cache, so a fix shows at once."""
    response = client.get(url)
    assert response.status_code in (400, 404)
    assert "no-store" in cache_control(response)
    assert "public" not in cache_control(response)


def test_a_signed_in_looking_request_gets_private_pages(client, site):
    """With a session cookie, pages are private and validated apart; feeds stay public."""
    anonymous = client.get(site["home"])
    assert "cookie" in vary(anonymous)
    client.set_cookie("session", "some-session-value")
    personal = client.get(site["home"])
    assert cache_control(personal) == {"private", "no-cache"}
    assert personal.headers["ETag"] != anonymous.headers["ETag"]
    assert (
        client.get(site["home"], headers={"If-None-Match": anonymous.headers["ETag"]}).status_code
        == 200
    )
    assert (
        client.get(site["home"], headers={"If-None-Match": personal.headers["ETag"]}).status_code
        == 304
    )
    assert cache_control(client.get(site["feed"])) == set(PUBLIC.split(", "))


@pytest.fixture
def bare_app() -> Flask:
    """A bare Flask app with only the caching rules, so a test can add its own routes."""
    app = Flask(__name__)
    app.config.update(SECRET_KEY="x", CACHE_MAX_AGE=60, CACHE_STALE=300)
    versions.init_app(app)
    headers.init_app(app)
    static.init_app(app)
    app.wsgi_app = headers.NoStoreWithCookies(app.wsgi_app)  # type: ignore[method-assign]
    return app


@pytest.mark.parametrize("blueprint", sorted(headers.AUTHORING_BLUEPRINTS))
@pytest.mark.parametrize("status", [200, 302, 404])
def test_authoring_pages_are_never_stored(bare_app, blueprint, status):
    """Every response of the authoring blueprints is no-store, whatever its status."""
    pages = Blueprint(blueprint, __name__)

    @pages.get("/page")
    def page():
        response = make_response("authoring page", status)
        response.cache_control.public = True
        response.cache_control.max_age = 600
        return response

    bare_app.register_blueprint(pages)
    response = bare_app.test_client().get("/page")
    assert response.status_code == status
    assert cache_control(response) == {"private", "no-store"}


def test_responses_that_set_cookies_are_never_stored(bare_app):
    """A cookie set directly or through the session keeps a response out of every cache."""

    @bare_app.get("/__session")
    def writes_session():
        session["seen"] = True
        response = make_response("hello")
        response.cache_control.public = True
        response.cache_control.max_age = 600
        return response

    @bare_app.get("/__cookie")
    def sets_cookie():
        response = make_response("hello")
        response.set_cookie("flavour", "oat")
        response.cache_control.public = True
        return response

    client = bare_app.test_client()
    for url in ("/__session", "/__cookie"):
        response = client.get(url)
        assert "Set-Cookie" in response.headers
        assert cache_control(response) == {"private", "no-store"}


@pytest.mark.parametrize("encoding", ["br", "gzip"])
def test_responses_are_compressed_and_keep_their_etag(client, site, encoding):
    """br and gzip bodies decode to the plain page, under the same weak ETag."""
    plain = client.get(site["home"])
    packed = client.get(site["home"], headers={"Accept-Encoding": encoding})
    assert packed.headers["Content-Encoding"] == encoding
    decode = brotli.decompress if encoding == "br" else gzip.decompress
    assert decode(packed.get_data()) == plain.get_data()
    assert packed.headers["ETag"] == plain.headers["ETag"]
    assert "accept-encoding" in vary(packed)
    headers = {"Accept-Encoding": encoding, "If-None-Match": packed.headers["ETag"]}
    assert client.get(site["home"], headers=headers).status_code == 304


def test_brotli_is_preferred_when_the_client_takes_both(client, site):
    """A browser that accepts gzip and br gets br."""
    response = client.get(site["feed"], headers={"Accept-Encoding": "gzip, deflate, br"})
    assert response.headers["Content-Encoding"] == "br"


def test_static_urls_carry_a_content_hash_and_cache_for_a_year(client, site):
    """Static links name the file's hash; with it the file is immutable for a year."""
    page = client.get(site["home"]).get_data(as_text=True)
    href = re.search(r'href="(/static/css/site\.css\?v=([0-9a-f]+))"', page)
    assert href is not None
    url, digest = href.groups()
    assert hashlib.sha256((STATIC / "css" / "site.css").read_bytes()).hexdigest().startswith(digest)
    response = client.get(url)
    assert response.status_code == 200
    assert cache_control(response) == {"public", "max-age=31536000", "immutable"}
    for other in ("/static/css/site.css", "/static/css/site.css?v=0000"):
        assert cache_control(client.get(other)) == {"no-cache"}


@pytest.mark.parametrize("encoding", ["br", "gzip"])
def test_static_files_are_compressed_too(client, encoding):
    """Scripts and styles go out compressed and revalidate under their encoded ETag."""
    path = STATIC / "js" / "site.js"
    response = client.get("/static/js/site.js", headers={"Accept-Encoding": encoding})
    assert response.headers["Content-Encoding"] == encoding
    decode = brotli.decompress if encoding == "br" else gzip.decompress
    assert decode(response.get_data()) == path.read_bytes()
    headers = {"Accept-Encoding": encoding, "If-None-Match": response.headers["ETag"]}
    assert client.get("/static/js/site.js", headers=headers).status_code == 304
