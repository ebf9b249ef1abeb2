"""Review: writers submit drafts, editors send them back with a note or publish them, every
change of state is kept with who and when, and a writer's form cannot do an editor's work."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog.authoring import review
from blog.extensions import db
from blog.models import (
    DRAFT,
    EDITOR,
    IN_REVIEW,
    NOT_IN_REVIEW,
    PUBLISHED,
    SENT_BACK,
    WRITER,
    Post,
    PostEvent,
    PostRevision,
    Topic,
)
from tests.authoring.test_auth import csrf_token, editor_client, log_in_as, make_editor, page
from tests.authoring.test_editor import create, current_form, new_post_form, save

__all__ = ["editor_client"]

WRITER_NAME = "Wendy Writer"
EDITOR_NAME = "Ed Itor"


@pytest.fixture
def team(app: Flask, posts) -> tuple[FlaskClient, FlaskClient]:
    """A writer's client and an editor's, logged in; the topic they write under exists."""
    posts.topics("Databases")
    writer = app.test_client()
    log_in_as(writer, make_editor(app, "wendy@example.com", name=WRITER_NAME, role=WRITER))
    editor = app.test_client()
    log_in_as(editor, make_editor(app, "ed@example.com", name=EDITOR_NAME, role=EDITOR))
    return writer, editor


def stored(app: Flask, post_id: int) -> Post:
    """The post as stored, detached."""
    with app.app_context():
        post = db.session.get(Post, post_id)
        assert post is not None
        db.session.expunge(post)
        return post


def events(app: Flask, post_id: int) -> list[tuple[str, str, str]]:
    """The post's changes of state, oldest first: kind, who, note."""
    with app.app_context():
        rows = db.session.scalars(
            sa.select(PostEvent).where(PostEvent.post_id == post_id).order_by(PostEvent.id)
        )
        return [(row.kind, row.editor_name, row.note) for row in rows]


def send_back(client: FlaskClient, post_id: int, note: str, **extra: str):
    """An editor's "Send back to the writer" with a note."""
    token = csrf_token(client, f"/editor/posts/{post_id}")
    return client.post(
        f"/editor/posts/{post_id}/send-back", data={"csrf_token": token, "note": note} | extra
    )


def test_a_draft_goes_to_review_back_to_its_writer_and_out(app, team):
    """Submit, send back with a note the writer sees at the top, fix, submit again, publish:
    each change of state in the history with who and when, the queue counting what waits."""
    writer, editor = team
    post_id = create(writer, author=WRITER_NAME, title="A draft for review")
    assert stored(app, post_id).created_by_id is not None
    response = save(writer, post_id, action="submit-review")
    assert response.status_code == 303
    assert stored(app, post_id).review_state == IN_REVIEW
    listing = page(editor.get("/editor/"))
    assert listing.select_one("#review-count").get_text(strip=True) == "1"
    queue = page(editor.get("/editor/?status=review"))
    assert [a.get_text() for a in queue.select(".edit-link")] == ["A draft for review"]
    assert queue.select_one(".state").get_text() == "In review"
    editing = page(editor.get(f"/editor/posts/{post_id}"))
    assert editing.select_one("#send-back-form") is not None
    assert editing.select_one("#post-state").get_text(strip=True) == "In review"

    answer = send_back(editor, post_id, "Cut the second paragraph.\nAnd add a source.")
    assert answer.status_code == 303
    assert stored(app, post_id).review_state == SENT_BACK
    note = page(writer.get(f"/editor/posts/{post_id}")).select_one("#review-note")
    assert f"Sent back by {EDITOR_NAME}" in note.get_text(" ", strip=True)
    assert "Cut the second paragraph.\nAnd add a source." in note.get_text()
    assert page(editor.get("/editor/")).select_one("#review-count").get_text(strip=True) == "0"

    assert save(writer, post_id, body="Fixed, with a source.").status_code == 303
    assert stored(app, post_id).review_state == SENT_BACK  # a save alone sends nothing
    assert save(writer, post_id, action="submit-review").status_code == 303
    assert stored(app, post_id).review_state == IN_REVIEW
    assert save(editor, post_id, status=PUBLISHED).status_code == 303
    published = stored(app, post_id)
    assert (published.status, published.review_state) == (PUBLISHED, NOT_IN_REVIEW)
    assert events(app, post_id) == [
        ("submitted", WRITER_NAME, ""),
        ("sent-back", EDITOR_NAME, "Cut the second paragraph.\nAnd add a source."),
        ("submitted", WRITER_NAME, ""),
        ("published", EDITOR_NAME, ""),
    ]
    history = page(editor.get(f"/editor/posts/{post_id}/revisions"))
    rows = history.select("#state-changes > li")
    assert [row.select_one(".event-kind").get_text() for row in rows] == [
        "Published",
        "Sent for review",
        "Sent back to the writer",
        "Sent for review",
    ]
    assert rows[2].select_one("time")["datetime"]
    assert "Cut the second paragraph." in rows[2].select_one(".event-note").get_text()


def test_editors_changes_of_state_are_kept_too(app, editor_client, posts):
    """Scheduling, unpublishing and the trash are in the history, with who did it."""
    posts.topics("Databases")
    post_id = create(editor_client)
    assert (
        save(
            editor_client, post_id, status="scheduled", published_at="2099-01-01T09:00"
        ).status_code
        == 303
    )
    assert save(editor_client, post_id, action="confirm-unpublish").status_code == 303
    token = csrf_token(editor_client, f"/editor/posts/{post_id}/delete")
    editor_client.post(f"/editor/posts/{post_id}/delete", data={"csrf_token": token})
    editor_client.post(f"/editor/trash/{post_id}/restore", data={"csrf_token": token})
    kinds = [kind for kind, who, _ in events(app, post_id) if who == "Ada Example"]
    assert kinds == ["scheduled", "unpublished", "deleted", "restored"]


def test_a_writers_hand_made_post_to_publish_is_a_403_that_keeps_the_text(app, team):
    """Publishing or scheduling from a writer's form, new post or stored, saves nothing and
    shows the editor again with every word typed."""
    writer, _ = team
    typed = "Words I do not want to lose."
    response = writer.post(
        "/editor/posts/new",
        data=new_post_form(writer, author=WRITER_NAME, status=PUBLISHED, body=typed),
    )
    assert response.status_code == 403
    assert typed in page(response).select_one("#body").get_text()
    assert "writers save drafts" in page(response).select_one("#save-status").get_text()
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Post)) == 0
    post_id = create(writer, author=WRITER_NAME)
    for forged in (
        {"status": PUBLISHED},
        {"status": "scheduled", "published_at": "2099-01-01T09:00"},
        {"action": "unpublish"},
        {"action": "confirm-unpublish"},
        {"action": "publish"},
        {"action": "confirm-publish"},
        {"action": "update"},
        {"action": "schedule", "published_at": "2099-01-01T09:00"},
    ):
        answer = save(writer, post_id, body=typed, **forged)
        assert answer.status_code == 403, forged
        assert typed in page(answer).select_one("#body").get_text()
    assert stored(app, post_id).status == DRAFT
    assert stored(app, post_id).body_markdown != typed


@pytest.mark.parametrize(
    ("forged", "said"),
    [
        ({"author": "Grace Hopper"}, "the author of this post is wendy writer"),
        ({"featured": "y"}, "only editors feature a post"),
        ({"editors_pick": "y"}, "only editors feature a post"),
    ],
)
def test_a_writer_forging_the_byline_or_the_flags_gets_a_403(app, team, forged, said):
    """The byline and the listing flags are an editor's: a forged form keeps its text."""
    writer, _ = team
    post_id = create(writer, author=WRITER_NAME)
    answer = save(writer, post_id, title="Kept title", **forged)
    assert answer.status_code == 403
    assert said in page(answer).select_one("#save-status").get_text().lower()
    assert page(answer).select_one("#title")["value"] == "Kept title"
    post = stored(app, post_id)
    assert (post.title, post.featured, post.editors_pick) != ("Kept title", True, True)
    with app.app_context():
        assert db.session.get(Post, post_id).author.name == WRITER_NAME


def test_a_writers_editor_offers_only_what_a_writer_may_do(app, team):
    """No Published or Scheduled choice, no flags, a byline they cannot change, and a
    Submit for review button; an editor's page has none of these limits."""
    writer, editor = team
    post_id = create(writer, author=WRITER_NAME)
    mine = page(writer.get(f"/editor/posts/{post_id}"))
    assert mine.select_one("#publish-button") is None
    assert mine.select_one("#save-button")["value"] == "save"
    assert mine.select_one("#featured") is None and mine.select_one("#editors_pick") is None
    assert mine.select_one("#author").has_attr("readonly")
    assert mine.select_one("#submit-review-button") is not None
    theirs = page(editor.get(f"/editor/posts/{post_id}"))
    assert theirs.select_one("#publish-button")["value"] == "publish"
    assert theirs.select_one("#submit-review-button") is None
    listing = page(writer.get("/editor/"))
    assert listing.select_one("#review-link") is None and listing.select_one("#trash-link") is None


def test_a_writer_sees_only_their_own_posts_and_adds_no_topic(app, team, posts):
    """Their list holds what they created; a new topic is an editor's to make (422); an
    address already taken is refused without naming whose it is."""
    writer, editor = team
    posts.create(1, title="Someone else's published post")
    create(editor, title="Secret plan draft", slug="secret-plan")
    mine = create(writer, author=WRITER_NAME, title="Mine")
    listing = page(writer.get("/editor/"))
    assert [a.get_text() for a in listing.select(".edit-link")] == ["Mine"]
    refused = save(
        writer, mine, topics="Databases, Brand new topic", confirm_new=["topic:brand-new-topic"]
    )
    assert refused.status_code == 422
    assert "Only editors add topics" in page(refused).select_one("#topics-error").get_text()
    taken = save(writer, mine, slug="secret-plan")
    assert taken.status_code == 422
    assert "Secret plan draft" not in taken.get_data(as_text=True)
    hint = writer.get("/editor/slug?slug=secret-plan").get_data(as_text=True)
    assert "already uses this address" in hint and "Secret plan" not in hint


@pytest.mark.parametrize(
    ("note", "status"),
    [("", 422), ("   ", 422), ("x" * (review.NOTE_MAX + 1), 422)],
)
def test_sending_back_needs_a_note(app, team, note, status):
    """No note, or one over the limit, sends nothing."""
    writer, editor = team
    post_id = create(writer, author=WRITER_NAME)
    save(writer, post_id, action="submit-review")
    assert send_back(editor, post_id, note).status_code == status
    assert stored(app, post_id).review_state == IN_REVIEW


def test_only_a_draft_in_review_is_sent_back_and_never_without_a_token(app, team):
    """A draft not submitted is a 409; a missing CSRF token a 400; a writer a 403."""
    writer, editor = team
    post_id = create(writer, author=WRITER_NAME)
    assert send_back(editor, post_id, "Too early").status_code == 409
    save(writer, post_id, action="submit-review")
    assert send_back(writer, post_id, "Approve myself").status_code == 403
    naked = editor.post(f"/editor/posts/{post_id}/send-back", data={"note": "No token"})
    assert naked.status_code == 400
    assert stored(app, post_id).review_state == IN_REVIEW
    assert [kind for kind, _, _ in events(app, post_id)] == ["submitted"]


def test_sending_back_leaves_the_writers_open_form_able_to_save(app, team):
    """The note changes no text and no lock version: a tab opened before still saves."""
    writer, editor = team
    post_id = create(writer, author=WRITER_NAME)
    save(writer, post_id, action="submit-review")
    before = current_form(writer, post_id)
    send_back(editor, post_id, "One more example, please.")
    again = writer.post(f"/editor/posts/{post_id}", data=before | {"body": "Two examples."})
    assert again.status_code == 303
    assert stored(app, post_id).body_markdown == "Two examples."


def test_a_writer_cannot_forge_the_byline_or_a_topic_through_a_restore(app, team):
    """An autosave keeps whatever its form said; restoring it as a writer brings back the
    text, never another byline or a topic that does not exist."""
    writer, _ = team
    post_id = create(writer, author=WRITER_NAME)
    forged = current_form(writer, post_id) | {
        "author": "Grace Hopper",
        "topics": "Invented topic",
        "body": "Restored words.",
    }
    assert writer.post(f"/editor/posts/{post_id}/autosave", data=forged).status_code == 204
    with app.app_context():
        kept = db.session.scalar(
            sa.select(sa.func.max(PostRevision.id)).where(PostRevision.post_id == post_id)
        )
    lock = current_form(writer, post_id)["lock_version"]
    token = csrf_token(writer, f"/editor/posts/{post_id}")
    restored = writer.post(
        f"/editor/posts/{post_id}/revisions/{kept}/restore",
        data={"csrf_token": token, "lock_version": lock},
    )
    assert restored.status_code == 303
    with app.app_context():
        post = db.session.get(Post, post_id)
        assert post.body_markdown == "Restored words."
        assert post.author.name == WRITER_NAME
        assert [topic.name for topic in post.topics] == ["Databases"]
        assert db.session.scalar(sa.select(Topic).where(Topic.name == "Invented topic")) is None
