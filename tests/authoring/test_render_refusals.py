"""What the editor says when the render time limit refuses a body: a diagram over its budget
is named, so the writer knows which one to simplify."""

from __future__ import annotations

from blog.authoring import store
from blog.markup.diagrams import DiagramTooSlow
from tests.authoring.test_auth import csrf_token, editor_client, page  # noqa: F401


def test_a_diagram_over_its_budget_is_named_in_the_preview(editor_client, monkeypatch):  # noqa: F811
    def too_slow(*_args, **_kwargs):
        raise DiagramTooSlow(2.0, "The diagram “Mesh”")

    monkeypatch.setattr(store.markup, "render", too_slow)
    token = csrf_token(editor_client, "/editor/posts/new")
    response = editor_client.post(
        "/editor/preview",
        data={"body": "```dot\ndigraph Mesh { a -> b }\n```", "csrf_token": token},
        headers={"HX-Request": "true", "HX-Target": "preview"},
    )
    assert response.status_code == 422
    text = " ".join(page(response).get_text().split())
    assert "The diagram “Mesh” takes too long to render (more than 2 seconds)" in text


def test_a_body_over_the_limit_is_refused_before_the_preview_renders(editor_client, monkeypatch):  # noqa: F811
    """The preview refuses what the save would, naming the limit, without rendering it."""
    from blog.authoring.forms import BODY_MAX

    def never(*_args, **_kwargs):
        raise AssertionError("a body over the limit was rendered")

    monkeypatch.setattr(store.markup, "render", never)
    token = csrf_token(editor_client, "/editor/posts/new")
    response = editor_client.post(
        "/editor/preview",
        data={"body": "x" * (BODY_MAX + 1), "csrf_token": token},
        headers={"HX-Request": "true", "HX-Target": "preview"},
    )
    assert response.status_code == 413
    text = " ".join(page(response).get_text().split())
    assert f"{BODY_MAX + 1:,} characters long" in text and f"at most {BODY_MAX:,}" in text


def test_an_oversized_field_in_a_save_names_the_field_and_its_limit(editor_client):  # noqa: F811
    """A url-encoded save past the per-field limit: the editor's 413 says which limit."""
    token = csrf_token(editor_client, "/editor/posts/new")
    response = editor_client.post(
        "/editor/posts/new",
        data={"title": "Big", "body": "y" * 400_001, "csrf_token": token},
    )
    assert response.status_code == 413
    text = " ".join(page(response).get_text().split())
    assert "400,001 characters long" in text and "at most 400,000 characters" in text
    assert "Nothing was saved" in text
