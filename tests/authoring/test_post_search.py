"""The editor's search: words in the title, summary, body and topics of every post the account
may open, whatever its status, read and limited as the readers' search reads them."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog.authoring import post_search
from blog.extensions import db
from blog.models import DRAFT, PUBLISHED, WRITER, Post, utcnow
from tests.authoring.test_auth import log_in_as, make_editor, page
from tests.authoring.test_editor import save
from tests.authoring.test_post_list import titles
from tests.conftest import PostFactory


def _made_by(app: Flask, slug: str, editor_id: int) -> int:
    """Say `editor_id` made the post; its id."""
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        assert post is not None
        post.created_by_id = editor_id
        db.session.commit()
        return post.id


def _search(client: FlaskClient, text: str, **args: str):
    """The post list searched for `text`."""
    return client.get("/editor/", query_string={"q": text, **args})


def test_a_draft_is_found_by_a_word_in_its_body_whatever_its_status(
    app: Flask, client: FlaskClient, posts: PostFactory
):
    """A draft, a draft in review's summary, a scheduled post and a published post are each
    found by words only their body, summary or topics hold; phrases keep their order; the
    readers' search still finds none of the unpublished ones."""
    editor = make_editor(app)
    log_in_as(client, editor)
    later = utcnow() + timedelta(days=3)
    posts.create(1, title="Draft one", body="We tuned the *autovacuum* daemon.", published_at=None)
    posts.create(1, title="Draft two", summary="Why autovacuum stalls.", published_at=None)
    posts.create(1, title="Scheduled", body="Autovacuum, scheduled.", published_at=later)
    posts.create(1, title="Live", body="Autovacuum in production.")
    posts.create(1, title="Unrelated", body="Nothing about it.", topics=("Autovacuum Notes",))
    found = _search(client, "autovacuum")
    assert sorted(titles(found)) == ["Draft one", "Draft two", "Live", "Scheduled", "Unrelated"]
    assert sorted(titles(_search(client, "autovacuum", status="draft"))) == [
        "Draft one",
        "Draft two",
    ]
    assert titles(_search(client, '"tuned the autovacuum"')) == ["Draft one"]
    assert titles(_search(client, '"autovacuum tuned"')) == []
    assert titles(_search(client, "autovac")) != []  # the word being typed
    # Where the words are in a body, marked, under the title.
    rows = page(_search(client, "tuned")).select("#post-table tbody tr")
    [excerpt] = [row.select_one(".list-excerpt") for row in rows]
    assert [mark.get_text() for mark in excerpt.select("mark")] == ["tuned"]
    assert "We tuned the autovacuum daemon." in excerpt.get_text()
    readers = page(client.get("/search?q=autovacuum")).select(".card-title a")
    assert sorted(a.get_text() for a in readers) == ["Live", "Unrelated"]


def test_the_index_follows_each_save_and_status_change(
    app: Flask, client: FlaskClient, posts: PostFactory
):
    """A word taken out of a draft's body no longer finds it, the new word does; published,
    then unpublished, it is found once, by the same words."""
    log_in_as(client, make_editor(app))
    (slug,) = posts.create(1, title="Moving", body="Words about kestrels.", published_at=None)
    with app.app_context():
        post_id = db.session.scalar(sa.select(Post.id).where(Post.slug == slug))
    assert titles(_search(client, "kestrels")) == ["Moving"]
    assert save(client, post_id, body="Words about falcons.").status_code == 303
    assert titles(_search(client, "kestrels")) == []
    assert titles(_search(client, "falcons")) == ["Moving"]
    assert save(client, post_id, status=PUBLISHED).status_code == 303
    assert titles(_search(client, "falcons")) == ["Moving"]
    assert save(client, post_id, status=DRAFT).status_code == 303
    assert titles(_search(client, "falcons", status="draft")) == ["Moving"]


def test_a_writer_never_finds_another_writers_draft(
    app: Flask, client: FlaskClient, posts: PostFactory
):
    """A writer's search covers the posts they made: another writer's draft holding the
    words is neither listed nor counted, by the list or the header's box."""
    wendy = make_editor(app, "wendy@example.com", name="Wendy Writer", role=WRITER)
    will = make_editor(app, "will@example.com", name="Will Writer", role=WRITER)
    (own,) = posts.create(1, title="Mine", body="Notes on ospreys.", published_at=None)
    (other,) = posts.create(1, title="Theirs", body="Secret ospreys plan.", published_at=None)
    _made_by(app, own, wendy)
    _made_by(app, other, will)
    log_in_as(client, wendy)
    response = _search(client, "ospreys")
    assert titles(response) == ["Mine"]
    assert "Theirs" not in response.get_data(as_text=True)
    assert page(response).select_one("#filter-all .count").get_text() == "1"
    assert titles(_search(client, "secret")) == []


def test_the_header_box_searches_the_editors_list_on_editor_pages(
    app: Flask, client: FlaskClient, posts: PostFactory
):
    """On an editor page the header's box is a form to the editor's list, so named; on the
    site it still searches the public site."""
    log_in_as(client, make_editor(app))
    posts.create(1, title="Boxed")
    for url in ("/editor/", "/editor/topics", "/editor/posts/new"):
        box = page(client.get(url)).select_one("#site-search")
        assert box["action"] == "/editor/" and box["method"] == "get", url
        assert box["aria-label"] == "Search posts in the editor", url
        assert box.select_one("label").get_text() == "Search posts in the editor", url
    searched = page(_search(client, "boxed")).select_one("#site-search-q")
    assert searched["value"] == "boxed"
    public = page(client.get("/")).select_one("#site-search")
    assert public["action"] == "/search" and public["aria-label"] == "Search posts"


def test_searches_are_limited_as_on_the_site(
    app: Flask, client: FlaskClient, posts: PostFactory, monkeypatch: pytest.MonkeyPatch
):
    """Words past the eighth are named as not searched; a long text is cut and says so; a
    200,000-character text is refused (400) at once, never a 500; when more posts hold the
    words than a search looks at, the list says so."""
    log_in_as(client, make_editor(app))
    for _ in range(4):
        posts.create(1, body="Common words everywhere.", published_at=None)
    many = _search(client, "one two three four five six seven eight nine ten")
    said = [p.get_text() for p in page(many).select(".search-notice")]
    assert said == ["Searches are limited to 8 different words: “nine ten” were not searched."]
    started = time.process_time()
    long = _search(client, "common " * 250)
    assert long.status_code == 200
    notices = [p.get_text() for p in page(long).select(".search-notice")]
    assert "Searches are limited to 200 characters: only the first 200 were used." in notices
    huge = _search(client, "common " * 30_000)
    assert huge.status_code == 400
    assert "more query text than this site accepts" in huge.get_data(as_text=True)
    assert time.process_time() - started < 2
    monkeypatch.setattr(post_search, "RANKED_MATCHES", 3)
    capped = _search(client, "common")
    assert len(titles(capped)) == 3
    assert page(capped).select_one(".search-notice").get_text() == (
        "Only the 3 most recently added posts with these words were searched: add a word "
        "to narrow the search."
    )
