"""Kept pages: served compressed and never stale after a save, a scheduled time or an import."""

from __future__ import annotations

import gzip
import importlib
from datetime import timedelta
from pathlib import Path

import brotli
import pytest
import sqlalchemy as sa

from blog.extensions import db
from blog.models import Post, SiteState, utcnow
from blog.web import pagecache, versions
from tests.conftest import count_queries


def test_a_kept_page_costs_one_statement_and_comes_compressed(app, client, posts):
    """The second request for a page reads only the state row and gets the same bytes."""
    posts.create(3)
    first = client.get("/", headers={"Accept-Encoding": "br"})
    with count_queries(app) as statements:
        again = client.get("/", headers={"Accept-Encoding": "br"})
    assert len(statements) == 1
    assert again.headers["Content-Encoding"] == "br"
    plain = client.get("/").get_data()
    assert brotli.decompress(again.get_data()) == plain
    assert brotli.decompress(first.get_data()) == plain
    zipped = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert gzip.decompress(zipped.get_data()) == plain
    assert "Accept-Encoding" in again.headers["Vary"] and "HX-Request" in again.headers["Vary"]
    assert again.headers["ETag"] == first.headers["ETag"]


def test_a_save_is_seen_at_once(app, client, posts):
    """Editing a post's title changes every cached page that shows it."""
    [slug] = posts.create(1, title="Before")
    assert "Before" in client.get("/").get_data(as_text=True)
    assert "Before" in client.get(f"/posts/{slug}").get_data(as_text=True)
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        post.title = "After"
        db.session.commit()
    assert "After" in client.get("/").get_data(as_text=True)
    assert "After" in client.get(f"/posts/{slug}").get_data(as_text=True)


def test_a_scheduled_post_appears_when_its_time_comes(app, client, posts):
    """A post scheduled for later shows up on cached pages as soon as its time passes."""
    posts.create(2)
    [slug] = posts.create(1, title="Later on", published_at=utcnow() + timedelta(hours=3))
    assert "Later on" not in client.get("/").get_data(as_text=True)
    due = utcnow() - timedelta(seconds=1)
    with app.app_context(), db.engine.begin() as connection:  # time passes: no write by the app
        connection.execute(
            sa.update(Post.__table__).where(Post.__table__.c.slug == slug).values(published_at=due)
        )
        connection.execute(sa.update(SiteState.__table__).values(next_publish_at=due))
    home = client.get("/").get_data(as_text=True)
    assert "Later on" in home and "Showing 3 of 3 posts" in home
    with app.app_context():
        state = db.session.get(SiteState, 1)
        assert state.next_publish_at is None


def test_an_import_is_seen_at_once(app, client, runner, posts, tmp_path: Path):
    """Posts brought in by `posts import` appear on cached pages straight away."""
    posts.create(1)
    assert "Imported today" not in client.get("/").get_data(as_text=True)
    (tmp_path / "imported.md").write_text(
        "---\ntitle: Imported today\ndate: 2024-05-01\ntopics: [Databases]\n---\n\nHello.\n",
        encoding="utf-8",
    )
    result = runner.invoke(args=["posts", "import", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Imported today" in client.get("/").get_data(as_text=True)


def test_counts_follow_every_write(app, client, posts):
    """The counts on a cached page match the posts readers can see after each change."""
    slugs = posts.create(4)
    posts.create(1, published_at=None)
    assert "Showing 4 of 4 posts" in client.get("/").get_data(as_text=True)
    with app.app_context():
        db.session.execute(sa.delete(Post).where(Post.slug == slugs[0]))
        db.session.commit()
    assert "Showing 3 of 3 posts" in client.get("/").get_data(as_text=True)


def test_pages_are_not_kept_when_turned_off(app, client, posts):
    """PAGE_CACHE=off renders every request (for measuring cold renders)."""
    posts.create(2)
    app.config["PAGE_CACHE"] = False
    rendered, stop = _renders(app)
    try:
        client.get("/")
        with count_queries(app) as statements:
            client.get("/")
    finally:
        app.config["PAGE_CACHE"] = True
        stop()
    assert rendered == ["public/listing.html"] * 2
    assert len(statements) <= 4  # the state row, the counts, the page, featured and picks


# --- PageCache: the WSGI wrapper that answers cached pages before Flask runs --------------------

REQUESTS = [
    ("/", {}),
    ("/", {"Accept-Encoding": "gzip"}),
    ("/", {"Accept-Encoding": "gzip, br"}),
    ("/?page=2", {"HX-Request": "true", "HX-Target": "post-list", "Accept-Encoding": "br"}),
    ("/topics/databases", {"HX-Request": "true", "HX-Target": "all-posts"}),
]


def _renders(app):
    """A list that fills with the name of every template the app renders."""
    from flask import template_rendered

    rendered: list[str] = []

    def record(_sender, template, **_extra):
        rendered.append(template.name)

    template_rendered.connect(record, app)
    return rendered, lambda: template_rendered.disconnect(record, app)


def _sent(response):
    """What a client receives: status, headers (as a set) and body."""
    return response.status_code, set(response.headers.items()), response.get_data()


def test_kept_pages_are_sent_exactly_as_rendered(app, client, posts):
    """A page from memory matches the rendered one byte for byte, header for header."""
    posts.topics("Databases")
    posts.create(14, topics=("Databases",))
    [slug] = posts.create(1, topics=("Databases",))
    for path, headers in [*REQUESTS, (f"/posts/{slug}", {"Accept-Encoding": "br"})]:
        pagecache.clear()
        rendered = _sent(client.get(path, headers=headers))
        with count_queries(app) as statements:
            kept = _sent(client.get(path, headers=headers))
        assert kept == rendered, path
        assert len(statements) == 1, (path, statements)
        head = client.head(path, headers=headers)
        assert (head.status_code, head.get_data()) == (200, b"")
        assert head.headers["Content-Length"] == str(len(rendered[2]))


def test_kept_pages_answer_conditional_requests(app, client, posts):
    """A client holding the cached page gets a 304 from memory with the page's validators."""
    posts.create(2)
    first = client.get("/")
    rendered, stop = _renders(app)
    try:
        again = client.get("/", headers={"If-None-Match": first.headers["ETag"]})
        since = client.get("/", headers={"If-Modified-Since": first.headers["Last-Modified"]})
        star = client.get("/", headers={"If-None-Match": "*"})
    finally:
        stop()
    for answer in (again, since):
        assert answer.status_code == 304 and answer.get_data() == b""
        assert answer.headers["ETag"] == first.headers["ETag"]
        assert answer.headers["Cache-Control"] == first.headers["Cache-Control"]
        assert "Content-Type" not in answer.headers
    assert star.status_code == 304  # the cached page exists: "*" matches it
    assert rendered == []


@pytest.mark.parametrize(
    ("url", "builder"),
    [
        ("/sitemap.xml", "blog.reading.seo.sitemap_xml"),
        ("/feed.atom", "blog.reading.feeds.build_feed"),
        ("/feed.rss", "blog.reading.feeds.build_feed"),
        ("/topics/{topic}/feed.atom", "blog.reading.feeds.build_feed"),
    ],
)
def test_the_sitemap_and_feeds_are_kept_like_pages(app, client, posts, monkeypatch, url, builder):
    """The sitemap and feeds are built once per data version, then served from memory;
    a write builds them again."""
    posts.create(1, title="First of all", topics=("Databases",))
    url = url.format(topic="databases")
    module, name = builder.rsplit(".", 1)
    built = []
    original = getattr(importlib.import_module(module), name)
    monkeypatch.setattr(module + "." + name, lambda *a, **k: built.append(1) or original(*a, **k))
    first = client.get(url, headers={"Accept-Encoding": "gzip"})
    with count_queries(app) as statements:
        again = client.get(url, headers={"Accept-Encoding": "gzip"})
    assert len(built) == 1 and len(statements) == 1
    assert again.get_data() == first.get_data() and again.headers["Content-Encoding"] == "gzip"
    assert again.headers["Content-Type"] == first.headers["Content-Type"]
    posts.create(1, title="Second thoughts", topics=("Databases",))
    body = gzip.decompress(client.get(url, headers={"Accept-Encoding": "gzip"}).get_data())
    assert b"second-thoughts" in body
    assert len(built) == 2


def test_requests_with_credentials_are_never_served_from_memory(app, client, posts):
    """A session cookie means a possible editor: Flask renders the page every time."""
    posts.create(2)
    client.get("/")
    client.set_cookie("session", "not-a-signed-in-editor")
    rendered, stop = _renders(app)
    try:
        private = client.get("/")
        client.get("/")
    finally:
        stop()
    assert rendered == ["public/listing.html"] * 2
    assert "private" in private.headers["Cache-Control"]


def test_a_write_by_another_process_is_seen_at_once(app, client, posts, database_url):
    """Kept pages check the shared version on every request, so no server shows old data."""
    from blog import create_app

    [slug] = posts.create(1, title="Old words")
    assert "Old words" in client.get("/").get_data(as_text=True)
    other = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url})
    with other.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        post.title = "New words"
        db.session.commit()
        db.engine.dispose()
    assert "New words" in client.get("/").get_data(as_text=True)


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


def test_the_state_row_is_read_once_per_interval(posts, database_url, monkeypatch):
    """With PAGE_CACHE_RECHECK_MS, hits within the interval read nothing; a write outside
    this process shows once the interval has passed, a commit in this process at once."""
    from blog import create_app

    clock = Clock()
    monkeypatch.setattr(pagecache, "time", clock)
    windowed = create_app(
        {"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url, "PAGE_CACHE_RECHECK_MS": 500}
    )
    reader = windowed.test_client()
    [slug] = posts.create(1, title="Old words")
    assert "Old words" in reader.get("/").get_data(as_text=True)
    with count_queries(windowed) as statements:
        assert "Old words" in reader.get("/").get_data(as_text=True)
    assert statements == []

    # Another process writes: a plain engine, none of this process's sessions.
    elsewhere = sa.create_engine(database_url)
    with elsewhere.begin() as connection:
        posts_table, state = Post.__table__, SiteState.__table__
        connection.execute(
            sa.update(posts_table).where(posts_table.c.slug == slug).values(title="New words")
        )
        connection.execute(sa.update(state).values(version=state.c.version + 1))
    elsewhere.dispose()
    clock.now += 0.4
    assert "Old words" in reader.get("/").get_data(as_text=True)  # within the interval
    clock.now += 0.2
    assert "New words" in reader.get("/").get_data(as_text=True)

    with windowed.app_context():  # a commit in this process: the next hit reads the row
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        post.title = "Third words"
        db.session.commit()
        db.engine.dispose()
    assert "Third words" in reader.get("/").get_data(as_text=True)


def test_a_failed_version_read_falls_back_to_rendering(app, client, posts, monkeypatch):
    """If the state row cannot be read before Flask, Flask answers as it always does."""
    posts.create(1, title="Still here")
    client.get("/")

    def broken(reader):
        connection = reader.engine.raw_connection()
        try:
            connection.cursor().execute("SELECT no_such_column FROM site_state")
        finally:
            connection.close()

    monkeypatch.setattr(versions.StateReader, "_read", broken)
    rendered, stop = _renders(app)
    try:
        page = client.get("/")
    finally:
        stop()
    assert page.status_code == 200 and "Still here" in page.get_data(as_text=True)
    assert rendered == ["public/listing.html"]
    monkeypatch.undo()  # the failed connection was dropped; the next read opens another
    with count_queries(app) as statements:
        assert client.get("/").get_data() == page.get_data()
    assert len(statements) == 1


def test_kept_pages_work_in_a_new_thread_outside_any_app_context(app, posts):
    """A threaded server may answer the next request on a thread that has not read yet,
    with no Flask context around the wrapper."""
    import threading

    from werkzeug.test import Client

    posts.create(1, title="Served by a server")
    server = Client(app.wsgi_app)  # the wrapped WSGI callable, as a server calls it
    pagecache.clear()
    first = server.get("/")
    answers = []
    with count_queries(app) as statements:
        thread = threading.Thread(target=lambda: answers.append(server.get("/")))
        thread.start()
        thread.join()
    [again] = answers
    assert first.status_code == again.status_code == 200
    assert again.get_data() == first.get_data() and "Served by a server" in again.text
    assert len(statements) == 1


def test_a_dropped_reader_connection_is_replaced(app, client, posts):
    """A server restart drops pooled connections; readers still get their cached page, read
    again on a new connection rather than rendered."""
    import pytest

    with app.app_context():
        if db.engine.dialect.name == "sqlite":
            pytest.skip("only a database server can drop a connection")
    posts.create(1, title="Still readable")
    first = client.get("/")  # kept now, and the state reader's connection is open
    with app.app_context():
        killed = db.session.scalar(
            sa.text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE pid <> pg_backend_pid() AND datname = current_database()"
            )
        )
        db.session.commit()
    assert killed >= 1
    rendered, stop = _renders(app)
    try:
        page = client.get("/")
    finally:
        stop()
    assert page.status_code == 200 and page.get_data() == first.get_data()
    assert rendered == []
    pagecache.clear()
    page = client.get("/")  # Flask's own pool replaces its dropped connection too
    assert page.status_code == 200 and "Still readable" in page.get_data(as_text=True)


def test_apps_in_one_process_keep_their_own_pages(app, client, posts, database_url):
    """Two apps on one database (other settings) never answer with each other's pages."""
    from blog import create_app

    posts.create(1)
    assert "Fieldnotes" in client.get("/").get_data(as_text=True)
    other = create_app(
        {"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url, "SITE_NAME": "Elsewhere"}
    )
    for _ in range(2):
        page = other.test_client().get("/").get_data(as_text=True)
        assert "Elsewhere" in page and "<title>Fieldnotes" not in page
    assert "<title>Fieldnotes" in client.get("/").get_data(as_text=True)
    with other.app_context():
        db.engine.dispose()


# --- The key: only what the views read ------------------------------------------------------

# Requests that differ only in what no view reads: each must share the first one's entry.
SAME_PAGE = [
    ("/?page=2", {}),
    ("/?page=2&utm_source=news&utm_medium=mail", {}),
    ("/?utm_campaign=x&page=2&page=9", {}),
    ("/?page=2&v=8c1d", {"Host": "evil.example"}),
    ("/?page=2", {"HX-Target": "post-list"}),  # no HX-Request: an ordinary page load
    ("/?page=2", {"HX-Request": "true", "HX-Target": "somewhere-else"}),
    ("/?page=2", {"HX-Request": "true", "HX-History-Restore-Request": "true"}),
]


def test_the_key_ignores_what_no_view_reads(app, client, posts):
    """Tracking parameters, unknown parameters, a repeated one, another Host and an unknown
    HX-Target reuse the one cached page: one render, and the same bytes for all."""
    posts.create(20)
    pagecache.clear()
    rendered, stop = _renders(app)
    try:
        bodies = {client.get(path, headers=headers).get_data() for path, headers in SAME_PAGE}
    finally:
        stop()
    assert rendered == ["public/listing.html"]
    assert len(bodies) == 1
    assert b"evil.example" not in bodies.pop()


def test_the_key_tells_apart_what_views_do_read(app, client, posts):
    """Another page, another path value or a known swap target is another entry."""
    posts.topics("Databases")
    [slug] = posts.create(1, topics=("Databases",))
    posts.create(20, topics=("Databases",))
    pagecache.clear()
    client.get("/")
    client.get("/?page=2")
    fragment = client.get("/?page=2", headers={"HX-Request": "true", "HX-Target": "post-list"})
    client.get("/topics/databases")
    client.get(f"/posts/{slug}")
    client.get(f"/posts/{slug}?ref=feed")
    store = app.wsgi_app.store
    assert len(store.entries) == 5
    assert b"<html" not in fragment.get_data()


def test_random_requests_stay_within_the_byte_limit(app, client, posts):
    """Thousands of requests with random queries, hosts and targets keep few entries, and
    the store never holds more bytes than PAGE_CACHE_MB allows."""
    import secrets

    [slug] = posts.create(1)
    posts.create(30)
    pagecache.clear()
    for number in range(300):
        token = secrets.token_hex(8)
        client.get(
            f"/posts/{slug}?v={token}" if number % 2 else f"/?page=1&{token}={token}",
            headers={"Host": f"{token}.example", "HX-Request": "true", "HX-Target": token},
        )
    store = app.wsgi_app.store
    assert len(store.entries) == 2
    assert store.size <= store.limit


def test_the_least_recently_used_page_goes_first(app, client, posts, monkeypatch):
    """Past the byte limit the page used longest ago is dropped, and only it."""
    slugs = posts.create(3)
    pagecache.clear()
    store = app.wsgi_app.store
    for slug in slugs:
        client.get(f"/posts/{slug}")
    one_page = max(entry.size for entry in store.entries.values())
    client.get(f"/posts/{slugs[0]}")  # now the most recently used
    # Room for no fourth page; the session's app gets its limit back after the test.
    monkeypatch.setattr(store, "limit", store.size + one_page // 2)
    client.get("/")
    kept = {key[1] for key in store.entries}
    assert (("slug", slugs[1]),) not in kept
    assert {(("slug", slugs[0]),), (("slug", slugs[2]),)} <= kept
    assert store.size <= store.limit


def test_a_blank_first_value_is_what_the_view_reads(app, client, posts):
    """`?page=&page=2` is refused by the view (it reads the first, blank, value), so it must
    not be answered with the cached page 2."""
    posts.create(20)
    assert client.get("/?page=2").status_code == 200
    assert client.get("/?page=2").status_code == 200  # kept now
    assert client.get("/?page=&page=2").status_code == 400


def test_other_methods_never_get_a_kept_page(app, client, posts):
    """Only GET and HEAD are answered from memory; a POST to a listing is Flask's 405."""
    posts.create(1)
    client.get("/")
    client.get("/")
    assert client.post("/").status_code == 405
    assert client.head("/").status_code == 200


def test_a_debug_server_renders_every_request(app, client, posts):
    """Templates change under a debug server: nothing is answered from memory there."""
    posts.create(1)
    client.get("/")
    rendered, stop = _renders(app)
    app.debug = True
    try:
        client.get("/")
        client.get("/")
    finally:
        app.debug = False
        stop()
    assert rendered == ["public/listing.html", "public/listing.html"]


def _retitle_behind_the_apps_back(app, slug: str, title: str, **state: object) -> None:
    """Change a title and the state row with plain SQL, bypassing the app's write hooks."""
    posts_table, state_table = Post.__table__, SiteState.__table__
    with app.app_context(), db.engine.begin() as connection:
        connection.execute(
            sa.update(posts_table).where(posts_table.c.slug == slug).values(title=title)
        )
        connection.execute(sa.update(state_table).values(**state))


def test_a_moved_version_alone_is_a_new_state(app, client, posts):
    """The version moving on is enough to render again, whatever the time of the change."""
    [slug] = posts.create(1, title="First words")
    assert "First words" in client.get("/").get_data(as_text=True)
    with app.app_context():
        state = versions.current()
    _retitle_behind_the_apps_back(app, slug, "Second words", version=state.version + 1)
    assert "Second words" in client.get("/").get_data(as_text=True)


def test_a_recreated_database_at_the_same_version_is_a_new_state(app, client, posts):
    """A database restored or made again can reach the same version number: the time of
    its last change tells it apart, so pages kept from the old one are not served."""
    [slug] = posts.create(1, title="Old database")
    assert "Old database" in client.get("/").get_data(as_text=True)
    with app.app_context():
        state = versions.current()
    later = state.changed_at + timedelta(seconds=5)
    _retitle_behind_the_apps_back(app, slug, "New database", changed_at=later)
    assert "New database" in client.get("/").get_data(as_text=True)


def test_statement_listeners_hear_the_kept_page_read_as_any_other(app, client, posts):
    """Listeners (query logs, tracing) get the read with a real cursor, its parameters and
    executemany false, as SQLAlchemy gives them for every statement."""
    posts.create(1)
    client.get("/")
    heard = []

    def listen(conn, cursor, statement, parameters, context, executemany):
        heard.append((hasattr(cursor, "execute"), statement, parameters, executemany))

    with app.app_context():
        engine = db.engine
    sa.event.listen(engine, "before_cursor_execute", listen)
    try:
        client.get("/")
    finally:
        sa.event.remove(engine, "before_cursor_execute", listen)
    [(real_cursor, statement, parameters, executemany)] = heard
    assert real_cursor and "site_state" in statement
    assert parameters == () and executemany is False


def test_a_write_records_when_the_next_scheduled_post_is_due(app, posts):
    """Saving a scheduled post notes its time on the state row, so cached pages know when to
    stop serving a listing without it."""
    due = (utcnow() + timedelta(hours=3)).replace(microsecond=0)
    posts.create(1, published_at=due)
    with app.app_context():
        assert versions.current().next_publish_at == due


def test_a_write_readers_cannot_see_keeps_the_kept_pages(app, client, posts):
    """Changing an editor account touches nothing a public page shows: the version holds."""
    from blog.models import Editor

    posts.create(1)
    with app.app_context():
        editor = Editor(email="quiet@example.com", name="Quiet")
        editor.set_password("a long enough password")
        db.session.add(editor)
        db.session.commit()
        before = versions.current().stamp
        editor = db.session.scalar(sa.select(Editor).where(Editor.email == "quiet@example.com"))
        editor.name = "Still quiet"
        db.session.commit()
        assert versions.current().stamp == before
