"""A save goes to the post it was loaded from, or nowhere: ids are never reused, and a post
deleted under an open tab answers 410 with the editor's text kept."""

from __future__ import annotations

import sqlalchemy as sa

from blog.extensions import db
from blog.models import DRAFT, PUBLISHED, Post
from tests.authoring.test_auth import csrf_token, editor_client, page
from tests.authoring.test_editor import HX_EDITOR, create, current_form

__all__ = ["editor_client"]


def delete(client, post_id: int) -> None:
    """Delete a post through the confirmation form."""
    token = csrf_token(client, f"/editor/posts/{post_id}/delete")
    response = client.post(f"/editor/posts/{post_id}/delete", data={"csrf_token": token})
    assert response.status_code == 303


def stored(app, post_id: int) -> Post | None:
    """A post as stored, detached."""
    with app.app_context():
        post = db.session.get(Post, post_id)
        db.session.expunge_all()
    return post


def test_the_id_of_a_deleted_newest_post_is_never_given_again(app, editor_client):
    """Delete the newest post and write another: the new one gets a new id."""
    create(editor_client, title="Older")
    newest = create(editor_client, title="Newest")
    delete(editor_client, newest)
    assert create(editor_client, title="Next") > newest


def test_sqlite_declares_autoincrement(app):
    """On SQLite the posts table keeps its highest id in sqlite_sequence."""
    with app.app_context():
        if db.engine.dialect.name != "sqlite":
            return  # PostgreSQL's sequences never reuse an id
        sql = db.session.scalar(sa.text("SELECT sql FROM sqlite_master WHERE name = 'posts'"))
    assert "AUTOINCREMENT" in sql


def test_an_old_tab_never_saves_into_another_post(app, editor_client):
    """Editor B has draft X open; X is deleted and Y published; B's save is a 410 that keeps
    B's text and leaves Y alone; "Save as a new draft" then keeps B's text as a new draft."""
    x = create(editor_client, title="Draft X", body="X body.")
    tab = current_form(editor_client, x) | {"title": "B's title", "body": "B typed this."}
    delete(editor_client, x)
    y = create(editor_client, title="Post Y", body="Y body.", status=PUBLISHED)
    for headers in ({}, HX_EDITOR):
        response = editor_client.post(f"/editor/posts/{x}", data=tab, headers=headers)
        assert response.status_code == 410
        html = page(response)
        assert "was deleted while you were editing" in html.get_text()
        assert html.select_one("#title")["value"] == "B's title"
        assert html.select_one("#body").get_text().strip() == "B typed this."
        assert html.select_one("#post-form")["action"] == "/editor/posts/new"
        assert html.select_one("#save-as-draft")["value"] == "new-draft"
    kept = stored(app, y)
    assert (kept.title, kept.body_markdown, kept.status) == ("Post Y", "Y body.", PUBLISHED)
    again = page(editor_client.post(f"/editor/posts/{x}", data=tab))
    resent = {
        field["name"]: field.get("value", "")
        for field in again.select("#post-form input[type=hidden]")
    }
    saved = editor_client.post(
        "/editor/posts/new",
        data=tab | resent | {"action": "new-draft", "status": PUBLISHED},
    )
    assert saved.status_code == 303
    new_id = int(saved.headers["Location"].rsplit("/", 1)[1])
    assert new_id not in (x, y)
    draft = stored(app, new_id)
    assert (draft.title, draft.body_markdown, draft.status) == ("B's title", "B typed this.", DRAFT)
    assert stored(app, y).body_markdown == "Y body."


def test_a_form_carrying_another_posts_id_is_refused(app, editor_client):
    """The form names the post it edits: sent to another post's address, it is a 400."""
    first = create(editor_client, title="First")
    second = create(editor_client, title="Second")
    data = current_form(editor_client, first) | {"body": "Meant for the first."}
    response = editor_client.post(f"/editor/posts/{second}", data=data)
    assert response.status_code == 400
    assert stored(app, second).body_markdown != "Meant for the first."
    assert stored(app, first).body_markdown != "Meant for the first."


def test_a_save_to_an_id_never_given_is_a_404(app, editor_client):
    """An id beyond any post ever made is not a deleted post: 404, not 410."""
    newest = create(editor_client, title="Only")
    data = current_form(editor_client, newest) | {"post_id": str(newest + 1000)}
    response = editor_client.post(f"/editor/posts/{newest + 1000}", data=data)
    assert response.status_code == 404
