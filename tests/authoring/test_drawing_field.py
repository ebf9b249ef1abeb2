"""The editor's `illustration` field: checked on save, previewed live, kept by restores."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa

from blog.extensions import db
from blog.models import Post
from tests.authoring.test_auth import csrf_token, editor_client, page
from tests.authoring.test_editor import HX_EDITOR, create, field_error, save, stored
from tests.authoring.test_revisions import restore

__all__ = ["editor_client"]

HX_DRAWING = {"HX-Request": "true", "HX-Target": "drawing-preview"}


def preview(client, headers: dict | None = None, **fields: str):
    """What the field's live preview sends: the spec with the title, summary and address."""
    data = {"illustration": "", "title": "", "summary": "", "slug": ""} | fields
    token = csrf_token(client, "/editor/posts/new")
    return client.post(
        "/editor/drawing", data=data, headers={"X-CSRFToken": token} | (headers or {})
    )


def test_a_valid_spec_is_saved_in_its_one_spelling_and_drawn(app, editor_client):
    """Saved, the field holds the stored spelling and the post's drawing is the one named."""
    post_id = create(editor_client, illustration="KIND: Bars; values: 800ms, 120 ms")
    post = stored(app, post_id)
    assert post.illustration == "kind: bars; values: 800 ms, 120 ms"
    field = page(editor_client.get(f"/editor/posts/{post_id}")).select_one("#illustration")
    assert field["value"] == post.illustration
    assert field["data-hx-post"] == "/editor/drawing"
    response = save(editor_client, post_id, illustration="")
    assert response.status_code == 303 and stored(app, post_id).illustration == ""


@pytest.mark.parametrize("headers", [{}, HX_EDITOR], ids=["plain", "htmx"])
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("kind: teapot", "There is no drawing of kind “teapot”"),
        ("kind: bars; values: -3", "values: “-3” is negative; values are sizes, 0 or more."),
        ("k" * 200_000, "The drawing's spec is 200,000 characters; the limit is 300."),
    ],
)
def test_a_broken_spec_is_a_422_naming_the_problem(app, editor_client, headers, spec, message):
    """The form comes back with the message beside the field and the text kept; the stored
    post does not change. (Every rule's message: tests/reading/test_drawing_spec.py.)"""
    post_id = create(editor_client, title="Before", illustration="kind: queue")
    response = save(editor_client, post_id, headers=headers, title="After", illustration=spec)
    assert response.status_code == 422
    assert field_error(response, "illustration").startswith(message)
    assert page(response).select_one("#illustration")["value"] == spec
    post = stored(app, post_id)
    assert (post.title, post.illustration) == ("Before", "kind: queue")


# The tests marked one_store in this module run on SQLite only: the live preview draws what the
# request sends and writes nothing, and the edit page shows a field already stored. Saving,
# refusing and restoring the field run on both stores.
@pytest.mark.one_store
def test_the_live_preview_draws_what_the_spec_names(app, editor_client):
    """The fragment is the drawing for the words typed and the spec, with what it was drawn
    from; with or without HX-Request it is the same fragment, and never kept by caches."""
    fields = {"illustration": "kind: bars; values: 800ms, 120 ms", "title": "Cutting latency"}
    answers = [preview(editor_client, headers, **fields) for headers in ({}, HX_DRAWING)]
    for response in answers:
        assert response.status_code == 200
        assert "no-store" in response.headers["Cache-Control"]
        shown = page(response)
        svg = shown.select_one("figure svg")
        assert "“800 ms” and “120 ms”" in svg["aria-label"]
        assert (
            shown.select_one("figcaption code").get_text() == "kind: bars; values: 800 ms, 120 ms"
        )
        assert not re.search(r"<(html|body|main)\b", response.get_data(as_text=True))
    assert answers[0].get_data() == answers[1].get_data()
    words = page(preview(editor_client, HX_DRAWING, title="Failover across three regions"))
    assert "map of three sites" in words.select_one("svg")["aria-label"]
    assert "Chosen from the post’s words" in words.get_text()


@pytest.mark.one_store
@pytest.mark.parametrize(
    "spec",
    ["kind: pie", "kind: bars; labels: " + "x" * 13, "z" * 200_000],
    ids=["kind", "label", "long"],
)
def test_the_live_preview_says_what_is_wrong_with_a_422(editor_client, spec):
    """A broken spec gets its message in the preview's place, as a 422 the editor shows."""
    response = preview(editor_client, HX_DRAWING, illustration=spec, title="x" * 5000)
    assert response.status_code == 422
    problem = page(response).select_one(".hint-problem")
    assert problem is not None and problem.get_text().startswith(
        ("There is", "labels: “xxxxx", "The drawing")
    )
    assert page(response).select_one("svg") is None


def test_a_revision_keeps_the_drawing_and_a_restore_brings_it_back(app, editor_client):
    """Each save's revision holds the spec; the history page names a change of it; restoring
    an older revision puts its spec back (a kept spec the rules now refuse leaves the post's)."""
    from blog.authoring import revisions
    from blog.models import PostRevision

    post_id = create(editor_client, title="First title", illustration="kind: tree")
    save(editor_client, post_id, title="Second title", illustration="kind: ring; count: 5")
    with app.app_context():
        newest, first = revisions.history(post_id)[:2]
        assert (first.illustration, newest.illustration) == ("kind: tree", "kind: ring; count: 5")
        first_id = first.id
    compared = page(editor_client.get(f"/editor/posts/{post_id}/revisions?revision={first_id}"))
    assert "Drawing" in compared.get_text()
    assert restore(editor_client, post_id, first_id).status_code in (200, 303)
    post = stored(app, post_id)
    assert (post.title, post.illustration) == ("First title", "kind: tree")
    with app.app_context():
        db.session.execute(
            sa.update(PostRevision)
            .where(PostRevision.id == first_id)
            .values(illustration="kind: x")
        )
        db.session.commit()
    save(editor_client, post_id, illustration="kind: queue")
    assert restore(editor_client, post_id, first_id).status_code in (200, 303)
    assert stored(app, post_id).illustration == "kind: queue"


@pytest.mark.one_store
def test_the_edit_page_with_the_field_is_the_same_page_with_htmx(app, editor_client):
    """The field and its preview box are in the editor page (plain or swapped by htmx)."""
    post_id = create(editor_client, illustration="kind: tree")
    for headers in ({}, HX_EDITOR):
        shown = page(editor_client.get(f"/editor/posts/{post_id}", headers=headers))
        box = shown.select_one("#drawing-preview")
        assert box["data-hx-trigger"] == "load" and box["data-hx-post"] == "/editor/drawing"
        assert shown.select_one("#illustration")["value"] == "kind: tree"
    with app.app_context():
        assert (
            db.session.scalar(sa.select(Post.illustration).where(Post.id == post_id))
            == "kind: tree"
        )
