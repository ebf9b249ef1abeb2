"""The preview of a stored post in the real post template: editors only, never kept, noindex."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from blog.models import PUBLISHED
from blog.web import pagecache
from tests.authoring.test_auth import editor_client, log_in_as, make_editor, page
from tests.authoring.test_editor import create, save

__all__ = ["editor_client"]


def preview_of(client: FlaskClient, post_id: int):
    """The preview page of a post."""
    return client.get(f"/editor/posts/{post_id}/preview")


def test_another_editors_draft_opens_in_the_post_template(app: Flask, client: FlaskClient):
    """A draft written by one editor previews for another: the post page's own markup, a
    note that readers cannot see it, noindex in the page and the headers, never stored."""
    log_in_as(client, make_editor(app, "writer@example.com", name="Writer"))
    post_id = create(client, title="Unfinished thoughts", body="Pools keep *connections* warm.")
    other = app.test_client()
    log_in_as(other, make_editor(app, "reader@example.com", name="Reader"))
    response = preview_of(other, post_id)
    assert response.status_code == 200
    soup = page(response)
    assert soup.select_one("article.post h1.post-title").get_text() == "Unfinished thoughts"
    assert soup.select_one("article.post .prose em").get_text() == "connections"
    assert "readers cannot see it yet" in soup.select_one("#preview-note").get_text()
    assert "Not published yet" in soup.select_one(".post-meta").get_text()
    assert soup.select_one('meta[name="robots"]')["content"] == "noindex, nofollow"
    assert response.headers["X-Robots-Tag"] == "noindex, nofollow"
    assert "no-store" in response.headers["Cache-Control"]
    assert "public" not in response.headers["Cache-Control"]
    assert soup.title.get_text().startswith("Preview: Unfinished thoughts")
    # The editor links to it, in a new tab so the text being typed stays.
    link = page(other.get(f"/editor/posts/{post_id}")).select_one("#preview-link")
    assert link["href"] == f"/editor/posts/{post_id}/preview"


def test_anonymous_visitors_are_sent_to_log_in(app: Flask, client: FlaskClient):
    """Without a login the preview is a redirect to the login page, and shows nothing."""
    writer = app.test_client()
    log_in_as(writer, make_editor(app))
    post_id = create(writer, title="Secret plans")
    response = preview_of(client, post_id)
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login?next=")
    assert "Secret plans" not in response.get_data(as_text=True)
    refused = client.get(
        f"/editor/posts/{post_id}/preview",
        headers={"HX-Request": "true", "HX-Target": "post-editor"},
    )
    assert refused.status_code == 401
    assert "Secret plans" not in refused.get_data(as_text=True)


@pytest.mark.parametrize(
    "path", ["999999", "2147483647", "99999999999999999999999", "0", "-1", "007", "x", "1.5"]
)
def test_unknown_and_impossible_ids_are_404s(editor_client: FlaskClient, path: str):
    """A post that does not exist, or an id no post can have, is the editor's 404."""
    response = editor_client.get(f"/editor/posts/{path}/preview")
    assert response.status_code == 404


def test_the_page_cache_never_keeps_or_serves_the_preview(app: Flask, client: FlaskClient):
    """A published post's cached page and its preview never stand in for each other."""
    editor = app.test_client()
    log_in_as(editor, make_editor(app))
    post_id = create(editor, title="Kept and previewed", status=PUBLISHED)
    slug = "kept-and-previewed"
    for _ in range(2):  # the second answer comes from the page cache
        public = client.get(f"/posts/{slug}")
        assert public.status_code == 200 and page(public).select_one("#preview-note") is None
    preview = preview_of(editor, post_id)
    assert page(preview).select_one("#preview-note") is not None
    assert "published post" in page(preview).select_one("#preview-note").get_text()
    again = client.get(f"/posts/{slug}")
    assert page(again).select_one("#preview-note") is None
    assert page(again).select_one('meta[name="robots"]') is None
    # The preview is not a cached route, so no request for it is ever answered from memory,
    # whoever asks: anonymous visitors still get the login redirect.
    kept = [key for cache in pagecache._caches for key in cache.store.entries]
    assert kept and all(key[0] == "public.post" for key in kept)
    assert preview_of(client, post_id).status_code == 302
    # A save shows in the preview at once.
    assert save(editor, post_id, title="Renamed after the preview").status_code == 303
    soup = page(preview_of(editor, post_id))
    assert soup.select_one("h1.post-title").get_text() == "Renamed after the preview"


def test_the_preview_shows_the_drawing_readers_will_get(app: Flask, client: FlaskClient):
    """A draft's preview names its drawing by the hash readers' pages will name once it is
    published: that address gives that very drawing, kept by no cache; a stale or made-up
    `v` for a post not live yet is sent on with a redirect no cache keeps, and the same
    address serves readers the same drawing, for good, once the post is published."""
    editor = app.test_client()
    log_in_as(editor, make_editor(app))
    post_id = create(
        editor,
        title="Replication lag under load",
        summary="Why the replicas fell behind.",
        body="Replicas lag when writes burst.",
    )
    src = page(preview_of(editor, post_id)).select_one("img.post-art")["src"]
    slug_only = client.get("/illustrations/replication-lag-under-load.svg").get_data()
    for who in (editor, client):  # a draft link's reader has no session: the same answer
        drawn = who.get(src)
        assert drawn.status_code == 200 and drawn.mimetype == "image/svg+xml"
        assert drawn.get_data() != slug_only
        assert "no-store" in drawn.headers["Cache-Control"]
        assert "public" not in drawn.headers["Cache-Control"]
        assert "default-src 'none'" in drawn.headers["Content-Security-Policy"]
    stale = client.get("/illustrations/replication-lag-under-load.svg?v=0123456789abcdef")
    assert stale.status_code == 302
    assert "no-store" in stale.headers["Cache-Control"]
    assert "public" not in stale.headers["Cache-Control"]
    before = client.get(src).get_data()
    assert save(editor, post_id, status=PUBLISHED).status_code == 303
    public = page(client.get("/posts/replication-lag-under-load"))
    assert public.select_one("img.post-art")["src"] == src
    after = client.get(src)
    assert after.status_code == 200 and after.get_data() == before
    assert "immutable" in after.headers["Cache-Control"]
    moved = client.get("/illustrations/replication-lag-under-load.svg?v=0123456789abcdef")
    assert moved.status_code == 302 and "public" in moved.headers["Cache-Control"]
