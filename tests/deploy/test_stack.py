"""The production stack for real: nginx in front of two gunicorn app servers on PostgreSQL
and Redis, as deploy/stack.py brings it up for `make serve`.

One stack serves the whole module (starting one costs more than most of its tests); the last
test takes the app servers down.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa

from blog import draft_links
from blog.authoring import store
from blog.extensions import db
from blog.models import PUBLISHED, Post, new_link_token, utcnow
from tests.deploy.conftest import MAX_AGE, RECHECK_MS, Answer, Client, RunningStack, wait_until

pytestmark = pytest.mark.deploy

ENCODINGS = ("br", "gzip", "")
MARK = "revised-behind-the-proxy"


def _half_sent(port: int, payload: bytes) -> socket.socket:
    """A connection that sent the start of a request and then nothing."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=5)
    connection.sendall(payload)
    return connection


def _newest_post(stack: RunningStack) -> tuple[int, str, str]:
    """The id, slug and title of the newest published post."""
    row = stack.scalar(
        "SELECT id || ' ' || slug || ' ' || title FROM posts"
        " WHERE status = 'published' ORDER BY published_at DESC LIMIT 1"
    )
    post_id, slug, title = str(row).split(" ", 2)
    return int(post_id), slug, title


def _save_title(client: Client, post_id: int, title: str) -> Answer:
    """Change a post's title through the editor form, as a browser without htmx would."""
    page = client.get(f"/editor/posts/{post_id}")
    assert page.status == 200, (page.status, page.text[:300])
    return client.submit(page, f"/editor/posts/{post_id}", {"title": title})


def test_idle_half_sent_connections_hold_no_app_worker(running_stack: RunningStack) -> None:
    """50 clients that sent half a request and wait never delay 200 ordinary requests.

    First the hazard itself: straight at one app server, two such sockets take both of its
    sync workers and a third request waits. Through nginx, none of them reaches a worker.
    """
    stack = running_stack.stack
    direct = [_half_sent(stack.app_ports[0], b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")]
    direct += [_half_sent(stack.app_ports[0], b"GET / HTTP/1.1\r\n") for _ in range(3)]
    try:
        with pytest.raises(TimeoutError):
            running_stack.client(stack.app_ports[0]).request("GET", "/robots.txt", timeout=1)
    finally:
        for connection in direct:
            connection.close()

    idle = []
    body_start = b"email=someone%40example.com&passw"
    for number in range(50):
        if number % 2:
            payload = b"GET /?slow=%d HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/h" % number
        else:
            payload = (
                b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/x-www-form-urlencoded\r\n"
                b"Content-Length: 4000\r\n\r\n" + body_start
            )
        idle.append(_half_sent(stack.port, payload))
    try:
        slug = _newest_post(running_stack)[1]
        paths = ["/", f"/posts/{slug}", "/feed.atom", "/sitemap.xml"]

        for port in stack.app_ports:  # each worker's first render compiles its templates
            warm = running_stack.client(port)
            for path in paths * 2:
                assert warm.get(path, {"Accept-Encoding": "gzip"}).status == 200

        def ordinary(number: int) -> tuple[float, Answer]:
            # A query string of its own: a miss in nginx's cache, so an app worker answers.
            path = f"{paths[number % len(paths)]}?reader={number}"
            started = time.monotonic()
            answer = running_stack.client().get(path, {"Accept-Encoding": "gzip"})
            return time.monotonic() - started, answer

        with ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(ordinary, range(200)))
    finally:
        for connection in idle:
            connection.close()
    assert [a.status for _, a in results] == [200] * 200
    assert all(a.header("X-Cache") == "MISS" for _, a in results)
    slowest = max(seconds for seconds, _ in results)
    assert slowest < 1.0, f"slowest ordinary request took {slowest:.2f} s"


def test_a_save_is_seen_within_max_age(running_stack: RunningStack) -> None:
    """A save through app server A reaches every reader through the proxy once the copy
    they were served has outlived max-age: stale copies only while the entry revalidates."""
    post_id, slug, title = _newest_post(running_stack)
    readers = running_stack.client()
    for encoding in ENCODINGS:  # every variant is in the cache before the save
        assert readers.get("/", {"Accept-Encoding": encoding}).status == 200
        assert readers.get(f"/posts/{slug}", {"Accept-Encoding": encoding}).status == 200
    assert readers.get("/", {"Accept-Encoding": "br"}).header("X-Cache") == "HIT"

    editor = running_stack.client(running_stack.stack.app_ports[0])
    editor.log_in()
    new_title = f"{title} {MARK}"
    saved = _save_title(editor, post_id, new_title)
    assert saved.status == 303, (saved.status, saved.text[:300])
    acknowledged = time.monotonic()

    seen: list[tuple[float, str, str, bool]] = []
    statuses: list[int] = []
    stop = threading.Event()

    def read(path: str, encoding: str) -> None:
        client = running_stack.client()
        while not stop.is_set():
            answer = client.get(path, {"Accept-Encoding": encoding})
            statuses.append(answer.status)
            seen.append((time.monotonic() - acknowledged, path, encoding, MARK in answer.text))
            time.sleep(0.05)

    threads = [
        threading.Thread(target=read, args=(path, encoding))
        for path in ("/", f"/posts/{slug}")
        for encoding in ENCODINGS
    ]
    for thread in threads:
        thread.start()
    time.sleep(MAX_AGE + 1.0)
    stop.set()
    for thread in threads:
        thread.join()

    assert set(statuses) == {200}
    # An old copy may be served until its max-age is over, and once more while the expired
    # entry is brought up to date in the background; never a moment later. The copy may have
    # been made by server B up to RECHECK_MS after the save, from the page B kept.
    fresh_by = MAX_AGE + RECHECK_MS / 1000 + 0.5
    late_old = [(round(at, 2), p, e) for at, p, e, new in seen if not new and at > fresh_by]
    assert not late_old, f"old copies served after max-age: {late_old}"
    # Each reader (one URL in one encoding) goes from old to new once, and never back.
    for path in ("/", f"/posts/{slug}"):
        for encoding in ENCODINGS:
            flags = [new for _, p, e, new in sorted(seen) if (p, e) == (path, encoding)]
            assert True in flags, f"{path} ({encoding or 'plain'}) never showed the save"
            assert all(flags[flags.index(True) :]), f"{path} ({encoding}) went back to old"


def test_editors_and_cookies_never_come_from_the_cache(running_stack: RunningStack) -> None:
    """Editor pages and answers that set cookies reach only their own client; a request
    with a session or remember-me cookie always goes to the app."""
    editor = running_stack.client()
    editor.log_in()
    dashboard = editor.get("/editor/")
    assert dashboard.status == 200
    assert "Deploy Editor" in dashboard.text or "/logout" in dashboard.text
    signed_in = editor.get("/", {"Accept-Encoding": "br"})
    assert signed_in.header("X-Cache") == "BYPASS"
    assert "private" in signed_in.header("Cache-Control")
    assert 'action="/logout"' in signed_in.text

    for _ in range(2):
        reader = running_stack.client()
        page = reader.get("/", {"Accept-Encoding": "br"})
        assert page.status == 200
        assert 'action="/logout"' not in page.text
        assert reader.get("/editor/").status in {302, 303}
        assert reader.get("/login").status == 200

    remembered = running_stack.client()
    remembered.cookies["remember_token"] = "1|not-a-real-token"
    assert remembered.get("/", {"Accept-Encoding": "br"}).header("X-Cache") == "BYPASS"

    # Over every answer the proxy has given in this module so far.
    for answer in running_stack.proxy_answers:
        if answer.from_cache:
            assert not answer.set_cookies, f"{answer.path} came from the cache with a cookie"
            assert not answer.path.startswith(("/login", "/logout", "/editor")), answer.path
            assert "Cookie" not in answer.request_headers or not any(
                name in answer.request_headers["Cookie"] for name in ("session=", "remember_token=")
            ), f"{answer.path} answered a signed-in request from the cache"
        if answer.path.startswith(("/login", "/logout", "/editor")):
            assert answer.header("X-Cache") == "", answer.path


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_fragment_and_page_of_one_url_never_confused(
    running_stack: RunningStack, encoding: str
) -> None:
    """The whole page and each htmx fragment of the same URL are kept apart in the cache,
    whichever was asked first."""
    kinds = {
        "page": {},
        "filter": {"HX-Request": "true", "HX-Target": "all-posts"},
        "more": {"HX-Request": "true", "HX-Target": "post-list"},
        "restore": {"HX-Request": "true", "HX-History-Restore-Request": "true"},
    }
    whole = {"page": True, "filter": False, "more": False, "restore": True}
    client = running_stack.client()
    for order in (list(kinds), list(reversed(kinds))):
        for path in (f"/?page=2&order={order[0]}&enc={encoding}", "/?page=2"):
            for _ in range(2):  # a miss, then whatever the cache holds
                for kind in order:
                    answer = client.get(path, {**kinds[kind], "Accept-Encoding": encoding})
                    assert answer.status == 200
                    # Small fragments go uncompressed; never in another client's encoding.
                    assert answer.header("Content-Encoding") in {encoding, ""}
                    is_whole = "<html" in answer.text[:500].lower()
                    assert is_whole == whole[kind], (path, kind, answer.header("X-Cache"))
    assert any(a.header("X-Cache") == "HIT" for a in running_stack.proxy_answers[-16:])


def test_only_a_static_url_with_its_own_hash_is_immutable(running_stack: RunningStack) -> None:
    """A `?v=` that names the file's content is kept for a year; any other `v` (an old
    page's, after a deploy changed the file) is revalidated, so no cache keeps the new
    file under the old address for a year. Asked twice, as a cache would see it again."""
    client = running_stack.client()
    page = client.get("/")
    current = re.search(r'href="(/static/css/site\.css\?v=[0-9a-f]+)"', page.text)
    assert current is not None, "no versioned stylesheet on the home page"
    for _ in range(2):
        kept = client.get(current[1])
        assert kept.status == 200
        assert "immutable" in kept.header("Cache-Control")
        assert "max-age=31536000" in kept.header("Cache-Control")
        for path in ("/static/css/site.css?v=0123456789abcdef", "/static/css/site.css"):
            other = client.get(path)
            assert other.status == 200 and other.raw, path
            assert "immutable" not in other.header("Cache-Control"), path
            assert "no-cache" in other.header("Cache-Control"), path
    assert client.get("/static/missing.css?v=0123456789abcdef").status == 404


def test_a_draft_link_never_comes_from_the_proxy_cache(running_stack: RunningStack) -> None:
    """Read twice by readers without cookies, it is never stored (no X-Cache: the proxy
    sends /drafts/ straight to the app, which says no-store); published, it is a 404 at once;
    account links likewise reach the app."""
    app = running_stack.app
    with app.app_context():
        post = store.new_post(
            title="Proxy draft",
            body="Seen through a link.",
            author=store.author_named("Ada Example"),
            topics=[store.topic_named("Databases")],
        )
        db.session.flush()
        _, token = draft_links.make_link(post, "Deploy Editor")
        db.session.commit()
        post_id = post.id
    for _ in range(2):
        reader = running_stack.client()
        answer = reader.get(f"/drafts/{token}", {"Accept-Encoding": "br"})
        assert answer.status == 200 and "Seen through a link." in answer.text
        assert answer.header("X-Cache") == ""
        assert "no-store" in answer.header("Cache-Control")
        assert answer.header("X-Robots-Tag") == "noindex, nofollow"
    with app.app_context():
        published = db.session.get(Post, post_id)
        assert published is not None
        published.status = PUBLISHED
        published.published_at = utcnow()
        db.session.commit()
    gone = running_stack.client().get(f"/drafts/{token}", {"Accept-Encoding": "br"})
    assert gone.status == 404 and gone.header("X-Cache") == ""
    for path in (f"/account/invite/{new_link_token()}", f"/account/reset/{new_link_token()}"):
        answer = running_stack.client().get(path)
        assert answer.status == 404 and answer.header("X-Cache") == "", path
    with app.app_context():
        db.session.execute(sa.delete(Post).where(Post.id == post_id))
        db.session.commit()


def test_readers_and_editors_survive_a_dead_app_server(running_stack: RunningStack) -> None:
    """With app server A killed, readers get pages and editors save through B; with both
    gone, readers still get cached pages and editors a page that says what happened."""
    stack = running_stack.stack
    post_id, slug, _ = _newest_post(running_stack)
    editor = running_stack.client()
    editor.log_in()
    reader = running_stack.client()
    assert reader.get("/", {"Accept-Encoding": "br"}).status == 200

    stack.kill_app(0)
    for number in range(20):
        path = ("/", f"/posts/{slug}", f"/?after-a={number}", "/feed.rss")[number % 4]
        assert reader.get(path, {"Accept-Encoding": "br"}).status == 200, path
    assert editor.get("/editor/").status == 200
    saved = _save_title(editor, post_id, "Saved while server A was down")
    assert saved.status == 303, (saved.status, saved.text[:300])
    assert reader.get(f"/posts/{slug}?after-save=1").text.count("Saved while server A was down")

    stack.kill_app(1)
    # Pages in the cache are still served, stale if need be.
    assert wait_until(lambda: reader.get("/", {"Accept-Encoding": "br"}).status == 200, 2)
    # Versioned static files too: a copy from the cache, or the file from disk to revalidate.
    for path in ("/static/css/site.css?v=0123456789abcdef", "/static/js/site.js?v=1"):
        static = reader.get(path, {"Accept-Encoding": "gzip"})
        assert static.status == 200 and static.header("Cache-Control") == "no-cache", path
    down = editor.get("/editor/")
    assert down.status == 503
    assert "not answering" in down.text
    assert down.header("Cache-Control") == "no-store"
    assert down.header("Retry-After")
    refused = editor.request("POST", f"/editor/posts/{post_id}", form={"title": "lost?"})
    assert refused.status == 503

    # Nothing acknowledged was lost: both saves are in the post and in its history.
    title = running_stack.scalar("SELECT title FROM posts WHERE id = :id", id=post_id)
    assert title == "Saved while server A was down"
    revised = running_stack.scalar(
        "SELECT count(*) FROM post_revisions WHERE post_id = :id AND title LIKE :mark",
        id=post_id,
        mark=f"%{MARK}",
    )
    assert revised == 1
