"""A draft may have no topic yet: Save draft and the first autosave store it without one,
everything that shows a draft copes, and publishing, scheduling, updating a live post or
submitting for review still need one (422 beside the field, nothing stored)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog.authoring import store
from blog.authoring.forms import LIVE_NEEDS_TOPIC
from blog.extensions import db
from blog.models import DRAFT, NOT_IN_REVIEW, PUBLISHED, WRITER, Post, PostEvent, utcnow
from tests.authoring.test_auth import csrf_token, editor_client, log_in_as, make_editor
from tests.authoring.test_editor import (
    HX_EDITOR,
    HX_TABLE,
    create,
    current_form,
    field_error,
    new_post_form,
    page,
    save,
    stored,
)
from tests.reading.test_draft_links import make_link

__all__ = ["editor_client"]

TITLE = "Half an idea about pools"
BODY = "Pools keep connections warm; *sizing* comes later."
NEEDS_TOPIC = "Give the post at least one topic before {doing}."


def post_count(app: Flask) -> int:
    """How many posts are stored."""
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count()).select_from(Post))


def primary_topic_id(app: Flask, post_id: int) -> int | None:
    """The post's primary-topic column as stored."""
    with app.app_context():
        return db.session.scalar(sa.select(Post.primary_topic_id).where(Post.id == post_id))


@pytest.fixture
def draft(app: Flask, editor_client: FlaskClient) -> int:
    """A draft saved with a title and a body and no topic."""
    post_id = create(editor_client, title=TITLE, topics="", body=BODY)
    post = stored(app, post_id)
    assert post.status == DRAFT and post.topics == []
    return post_id


@pytest.mark.parametrize("headers", [{}, HX_EDITOR], ids=["page", "htmx"])
def test_save_draft_stores_a_post_without_topics(app, editor_client, headers):
    """Save draft without a topic: the post is a draft with no topic links and no primary
    topic, and the editor opens on it with the field empty and no error."""
    data = new_post_form(editor_client, title=TITLE, topics=" , ", action="save")
    response = editor_client.post("/editor/posts/new", data=data, headers=headers)
    assert response.status_code == (200 if headers else 303)
    location = response.headers["HX-Replace-Url" if headers else "Location"]
    post_id = int(location.rsplit("/", 1)[1])
    post = stored(app, post_id)
    assert (post.status, post.title, post.topics) == (DRAFT, TITLE, [])
    assert primary_topic_id(app, post_id) is None
    opened = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert opened.select_one("#topics").get("value", "") == ""
    assert opened.select_one("#topics-error") is None
    assert opened.select_one("#topics").get("required") is None  # the browser lets it save


def test_a_new_post_going_to_readers_without_a_topic_is_refused_and_nothing_stored(
    app, editor_client
):
    """Publish (asked or confirmed) and Schedule without a topic: 422 naming the field, the
    text kept in the form, no post stored."""
    before = post_count(app)
    later = (utcnow() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    for action, published_at, doing in [
        ("publish", "", "publishing it"),
        ("confirm-publish", "", "publishing it"),
        ("schedule", later, "scheduling it"),
        ("confirm-schedule", later, "scheduling it"),
    ]:
        data = new_post_form(
            editor_client,
            title=TITLE,
            topics="",
            body=BODY,
            action=action,
            published_at=published_at,
        )
        for headers in ({}, HX_EDITOR):
            refused = editor_client.post("/editor/posts/new", data=data, headers=headers)
            assert refused.status_code == 422, action
            assert field_error(refused, "topics") == NEEDS_TOPIC.format(doing=doing)
            soup = page(refused)
            assert soup.select_one("#title")["value"] == TITLE
            assert soup.select_one("#body").text.strip() == BODY
            assert soup.select_one("#topics")["aria-invalid"] == "true"
    assert post_count(app) == before


def test_a_topicless_draft_is_not_published_until_it_has_a_topic(app, editor_client, draft):
    """Publish and Schedule of the stored draft are refused (422), the post untouched; with a
    topic added, Publish asks and then publishes it."""
    before = stored(app, draft)
    later = (utcnow() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    for action, extra in [
        ("publish", {}),
        ("confirm-publish", {}),
        ("confirm-schedule", {"published_at": later}),
    ]:
        refused = save(editor_client, draft, action=action, **extra)
        assert refused.status_code == 422, action
        assert field_error(refused, "topics").startswith("Give the post at least one topic")
    after = stored(app, draft)
    assert (after.status, after.published_at, after.lock_version, after.topics) == (
        DRAFT,
        None,
        before.lock_version,
        [],
    )
    assert editor_client.get("/posts/half-an-idea-about-pools").status_code == 404

    asked = save(editor_client, draft, topics="Databases", action="publish")
    assert asked.status_code == 200 and page(asked).select_one("#publish-question") is not None
    done = save(editor_client, draft, topics="Databases", action="confirm-publish")
    assert done.status_code == 303
    post = stored(app, draft)
    assert post.status == PUBLISHED and [topic.name for topic in post.topics] == ["Databases"]
    assert primary_topic_id(app, draft) == post.topics[0].id
    reader = editor_client.get("/posts/half-an-idea-about-pools")
    assert reader.status_code == 200 and "Databases" in page(reader).select_one(".post-topics").text


def test_a_live_post_keeps_at_least_one_topic(app, editor_client):
    """Clearing the topics of a live post is refused, whether the change goes to readers now
    (Update) or waits as its draft changes (Save draft): 422, nothing stored."""
    post_id = create(editor_client, title="Live", topics="Databases", action="confirm-publish")
    before = stored(app, post_id)
    assert before.status == PUBLISHED
    for action in ("update", "confirm-update", "save"):
        refused = save(editor_client, post_id, topics="", action=action)
        assert refused.status_code == 422, action
        assert field_error(refused, "topics") == LIVE_NEEDS_TOPIC
    after = stored(app, post_id)
    assert after.lock_version == before.lock_version
    assert [topic.name for topic in after.topics] == ["Databases"]
    opened = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert opened.select_one("#pending-banner") is None


def test_a_writers_draft_without_a_topic_saves_but_is_not_submitted(app, client):
    """A writer saves a draft with no topic; Submit for review is refused (422) beside the
    field, the draft stays out of review, and no event is kept."""
    writer = app.test_client()
    log_in_as(writer, make_editor(app, "wendy@example.com", name="Wendy Writer", role=WRITER))
    post_id = create(writer, author="Wendy Writer", title=TITLE, topics="")
    assert stored(app, post_id).topics == []
    refused = save(writer, post_id, action="submit-review")
    assert refused.status_code == 422
    assert field_error(refused, "topics") == NEEDS_TOPIC.format(doing="submitting it for review")
    assert stored(app, post_id).review_state == NOT_IN_REVIEW
    with app.app_context():
        assert (
            db.session.scalars(sa.select(PostEvent).where(PostEvent.post_id == post_id)).all() == []
        )


def test_the_post_list_and_its_search_show_a_topicless_draft(app, editor_client, draft):
    """The list, its drafts filter and its search find the draft, its topic cell empty."""
    for url in ("/editor/", "/editor/?status=draft", "/editor/?q=pools"):
        for headers in ({}, HX_TABLE):
            response = editor_client.get(url, headers=headers)
            assert response.status_code == 200, url
            titles = [link.get_text() for link in page(response).select(".edit-link")]
            assert TITLE in titles, url


def test_previews_of_a_topicless_draft(app, editor_client, draft):
    """The draft's preview, its draft link, and the typed preview (new post and stored
    draft) show the post with no topic list and a card without a topic label."""
    preview = editor_client.get(f"/editor/posts/{draft}/preview")
    assert preview.status_code == 200
    assert page(preview).select_one("h1.post-title").get_text() == TITLE
    assert page(preview).select(".post-topics li") == []

    token = make_link(editor_client, draft)
    shared = app.test_client().get(f"/drafts/{token}")
    assert shared.status_code == 200 and page(shared).select(".post-topics li") == []

    for data in (
        new_post_form(editor_client, title="Typed, no topic", topics=""),
        current_form(editor_client, draft),
    ):
        typed = editor_client.post("/editor/posts/preview", data=data)
        assert typed.status_code == 200
        soup = page(typed)
        assert soup.select(".post-topics li") == []
        assert soup.select_one(".card") is not None and soup.select_one(".card-topic") is None

    # A stored draft's topics cleared in the form: the typed preview shows none either.
    save(editor_client, draft, topics="Databases")
    cleared = current_form(editor_client, draft) | {"topics": ""}
    soup = page(editor_client.post("/editor/posts/preview", data=cleared))
    assert soup.select(".post-topics li") == [] and soup.select_one(".card-topic") is None
    assert [topic.name for topic in stored(app, draft).topics] == ["Databases"]


def test_history_and_trash_keep_a_topicless_draft(app, editor_client, draft):
    """Its revisions record no topics and the history page shows them; deleted, it waits in
    the trash and comes back still without topics."""
    save(editor_client, draft, body="A second version.")
    history = editor_client.get(f"/editor/posts/{draft}/revisions")
    assert history.status_code == 200
    with app.app_context():
        kept = db.session.scalars(
            sa.text("SELECT topics FROM post_revisions WHERE post_id = :id"), {"id": draft}
        ).all()
    assert kept and all(topics in ([], "[]") for topics in kept)

    token = csrf_token(editor_client, f"/editor/posts/{draft}/delete")
    deleted = editor_client.post(f"/editor/posts/{draft}/delete", data={"csrf_token": token})
    assert deleted.status_code == 303
    trash = editor_client.get("/editor/trash")
    assert trash.status_code == 200 and TITLE in trash.get_data(as_text=True)
    token = csrf_token(editor_client, "/editor/trash")
    restored = editor_client.post(f"/editor/trash/{draft}/restore", data={"csrf_token": token})
    assert restored.status_code == 303
    post = stored(app, draft)
    assert (post.status, post.title, post.topics) == (DRAFT, TITLE, [])
    assert primary_topic_id(app, draft) is None


def test_readers_pages_are_unmoved_by_a_topicless_draft(app, client, editor_client, draft, posts):
    """Home, topic filter, search, feeds and sitemap answer as usual and never show it."""
    posts.create(1, title="A live post")
    for url in ("/", "/search?q=pools", "/feed.atom", "/feed.rss", "/sitemap.xml"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert TITLE not in response.get_data(as_text=True), url


def test_the_store_never_puts_a_post_without_topics_before_readers(app, editor_client, draft):
    """Below the form, the store refuses a published or scheduled post without a topic."""
    with app.app_context():
        post = db.session.get(Post, draft)
        assert post is not None
        fields = store.PostFields(
            title=post.title,
            slug=post.slug,
            body=post.body_markdown,
            summary=post.summary,
            topics=[],
            author=post.author,
            status=PUBLISHED,
            published_at=None,
        )
        with pytest.raises(ValueError, match="at least one topic"):
            store.update_post(post, fields)
        db.session.rollback()
    assert stored(app, draft).status == DRAFT
