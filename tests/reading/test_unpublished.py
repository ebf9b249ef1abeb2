"""What is not published is absent everywhere: old addresses, topic pages, feeds, search."""

from __future__ import annotations

from datetime import timedelta

from blog.catalog import SCHEDULED
from blog.models import DRAFT, PUBLISHED, utcnow
from tests.authoring.test_auth import editor_client
from tests.authoring.test_editor import create, save

__all__ = ["editor_client"]


def test_an_old_address_leads_only_to_a_live_post(app, editor_client, client):
    """A renamed post's old address redirects while the post is live, and answers 404 once it
    is a draft or scheduled: a redirect would give the unpublished address away."""
    post_id = create(editor_client, status=PUBLISHED, title="Public name")
    assert save(editor_client, post_id, slug="new-name").status_code == 303
    assert client.get("/posts/public-name").headers["Location"] == "/posts/new-name"
    assert (
        save(editor_client, post_id, action="confirm-unpublish", slug="secret-name").status_code
        == 303
    )
    assert client.get("/posts/public-name").status_code == 404
    later = (utcnow() + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
    assert save(editor_client, post_id, status=SCHEDULED, published_at=later).status_code == 303
    answer = client.get("/posts/public-name")
    assert answer.status_code == 404 and "secret-name" not in answer.get_data(as_text=True)
    assert save(editor_client, post_id, status=PUBLISHED, published_at="").status_code == 303
    assert client.get("/posts/public-name").headers["Location"] == "/posts/secret-name"


def test_a_topic_with_no_live_post_is_absent_from_every_route(app, editor_client, client):
    """A topic whose only post is a draft: its page, feeds and search filter are 404s, and
    its name appears in none of them."""
    create(editor_client, status=DRAFT, title="Hidden work", topics="Unannounced Project")
    create(editor_client, status=PUBLISHED, title="Seen work", topics="Databases")
    for url in (
        "/topics/unannounced-project",
        "/topics/unannounced-project/feed.atom",
        "/topics/unannounced-project/feed.rss",
        "/search?q=work&topic=unannounced-project",
    ):
        answer = client.get(url)
        assert answer.status_code == 404, url
        assert "Unannounced" not in answer.get_data(as_text=True), url
    assert client.get("/topics/databases/feed.atom").status_code == 200
