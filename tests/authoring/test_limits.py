"""Length limits on the editor's text: the server judges, says why, and keeps every word."""

from __future__ import annotations

import io

import PIL.Image
import pytest
from bs4 import BeautifulSoup
from flask import Flask
from flask.testing import FlaskClient

from blog.authoring.forms import BODY_MAX, IMAGE_ALT_MAX, SUMMARY_MAX, TITLE_MAX
from blog.models import Post
from tests.authoring.test_auth import editor_client, page
from tests.authoring.test_editor import (
    HX_EDITOR,
    create,
    current_form,
    new_post_form,
    stored,
)

__all__ = ["editor_client"]

LIMITS = {"title": TITLE_MAX, "summary": SUMMARY_MAX, "body": BODY_MAX, "image_alt": IMAGE_ALT_MAX}
NAMES = {"title": "title", "summary": "summary", "body": "body", "image_alt": "alt text"}


def small_png() -> bytes:
    """A tiny PNG, so a post can carry an image and its alt text."""
    out = io.BytesIO()
    PIL.Image.new("RGB", (4, 3), (200, 40, 40)).save(out, "PNG")
    return out.getvalue()


def shown(response, field: str) -> str:
    """The text a field holds in the editor page sent back, as a browser would read it."""
    element = parsed(response).select_one(f"#{field}")
    if element.name == "textarea":
        return element.text.removeprefix("\r\n").removeprefix("\n")
    return str(element.get("value", ""))


def parsed(response) -> BeautifulSoup:
    """`page(response)`, parsed once: the pages here carry up to 2 MB of text, and each test
    reads several things from the same one."""
    soup = getattr(response, "_parsed", None)
    if soup is None:
        soup = response._parsed = page(response)
    return soup


def error_of(response, name: str) -> str:
    """The error text shown beside a field (`field_error`), from the page parsed once."""
    found = parsed(response).select_one(f"#{name}-error")
    return found.get_text(" ", strip=True) if found else ""


def post_count(app: Flask) -> int:
    """How many posts are stored."""
    from blog.extensions import db

    with app.app_context():
        return db.session.query(Post).count()


def test_the_body_limit_leaves_room_inside_the_request_limit(app):
    """A body one character over the limit fits in one form field even when each character
    takes four bytes (else it would be a 413, not the 422 that names the limit)."""
    per_field = app.config.get("MAX_FORM_MEMORY_SIZE") or 500_000
    assert per_field > 4 * (BODY_MAX + 1)
    # Title and alt text fit their columns whole.
    assert Post.__table__.c.title.type.length == TITLE_MAX
    assert Post.__table__.c.image_alt.type.length == IMAGE_ALT_MAX


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", "x" * 10_000),
        ("title", "é" * (TITLE_MAX + 1)),
        ("summary", "s" * (SUMMARY_MAX + 1)),
        ("body", "b" * (BODY_MAX + 1)),
        ("body", "word " * 50_000),
        ("body", "z" * (2 * BODY_MAX)),  # the longest one field may be (blog/web/limits.py)
        ("image_alt", "a" * (IMAGE_ALT_MAX + 1)),
    ],
    ids=[
        "title-10000",
        "title-301-accented",
        "summary",
        "body-200001",
        "body-repeated-word",
        "body-400000",
        "alt",
    ],
)
def test_text_over_a_limit_is_a_422_that_names_it_and_keeps_every_word(
    app, editor_client, field, value
):
    """The save answers 422 beside the field with the limit and the length; nothing is cut,
    nothing is stored."""
    response = editor_client.post(
        "/editor/posts/new", data=new_post_form(editor_client, **{field: value})
    )
    assert response.status_code == 422
    kept = value if field == "body" else value.strip()  # the others lose their end spaces
    expected = (
        f"The {NAMES[field]} is {len(kept):,} characters long; "
        f"the limit is {LIMITS[field]:,} characters."
    )
    assert error_of(response, field) == expected
    assert shown(response, field) == kept
    status = parsed(response).select_one("#action-bar #save-status")
    assert status["role"] == "alert" and status.has_attr("autofocus")
    assert expected in status.get_text(" ", strip=True)
    assert post_count(app) == 0


# The tests marked one_store in this module run on SQLite only: they check the editor page's
# counters and save status, and a request refused for its size before it is read. Text at and
# over the limits, stored or refused, runs on both stores.
@pytest.mark.one_store
def test_no_field_carries_a_maxlength_and_each_limited_one_counts(app, editor_client):
    """Browsers never cut text silently; the page shows each limited field's count."""
    post_id = create(editor_client, title="Counted", summary="Short", body="é" * 1234)
    soup = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert soup.select("[maxlength]") == []
    counts = {
        counter["data-count-for"]: counter.select_one(".field-count-value").get_text()
        for counter in soup.select(".field-count")
    }
    assert counts == {
        "title": "7 / 300",
        "summary": "5 / 600",
        "body": "1,234 / 200,000",
        "image_alt": "0 / 500",
        "meta_description": "0 / 300",
    }
    for name in counts:
        described = soup.select_one(f"#{name}")["aria-describedby"].split()
        assert f"{name}-count" in described


def test_text_exactly_at_the_limits_is_accepted_and_stored_whole(app, editor_client):
    """Title, summary, body and alt text at their limits are saved as typed."""
    data = new_post_form(
        editor_client,
        title="T" * TITLE_MAX,
        summary="s" * SUMMARY_MAX,
        body="b" * BODY_MAX,
        image_alt="a" * IMAGE_ALT_MAX,
        image=(io.BytesIO(small_png()), "art.png"),
    )
    response = editor_client.post("/editor/posts/new", data=data)
    assert response.status_code == 303, parsed(response).select(".field-errors")
    post = stored(app, int(response.headers["Location"].rsplit("/", 1)[1]))
    assert post.title == "T" * TITLE_MAX
    assert post.summary == "s" * SUMMARY_MAX
    assert post.body_markdown == "b" * BODY_MAX
    assert post.image_alt == "a" * IMAGE_ALT_MAX


def test_an_over_limit_edit_leaves_the_stored_post_as_it_was(app, editor_client):
    """Editing a stored post over a limit is refused with the text kept; the post is unchanged."""
    post_id = create(editor_client, title="Before", body="Kept body.")
    data = current_form(editor_client, post_id) | {"title": "Long " * 100}
    response = editor_client.post(f"/editor/posts/{post_id}", data=data, headers=HX_EDITOR)
    assert response.status_code == 422
    assert "The title is 499 characters long" in error_of(response, "title")
    assert shown(response, "title") == ("Long " * 100).strip()
    assert stored(app, post_id).title == "Before"


def test_a_multipart_body_over_the_limit_gets_the_422_not_the_413(app, editor_client):
    """As browsers send it (multipart), a body just over the limit still reaches the form."""
    data = new_post_form(editor_client, body="b" * (BODY_MAX + 1))
    response = editor_client.post(
        "/editor/posts/new", data=data, content_type="multipart/form-data"
    )
    assert response.status_code == 422
    assert "the limit is 200,000 characters" in error_of(response, "body")


def test_a_body_of_four_byte_characters_over_the_limit_is_a_422(app, editor_client):
    """200,001 emoji, sent as the editor's form sends them: the limit is named, not a 413."""
    data = new_post_form(editor_client, body="\U0001f680" * (BODY_MAX + 1))
    response = editor_client.post(
        "/editor/posts/new", data=data, content_type="multipart/form-data", headers=HX_EDITOR
    )
    assert response.status_code == 422
    assert "the limit is 200,000 characters" in error_of(response, "body")
    assert post_count(app) == 0


@pytest.mark.one_store
def test_a_field_over_the_request_limit_is_a_413_that_says_so(app, editor_client):
    """Above MAX_FORM_MEMORY_SIZE the request itself is refused, with the limits named."""
    per_field = app.config.get("MAX_FORM_MEMORY_SIZE") or 500_000
    data = new_post_form(editor_client, body="b" * (per_field + 1))
    response = editor_client.post(
        "/editor/posts/new",
        data=data,
        content_type="multipart/form-data",
        headers=HX_EDITOR,
    )
    assert response.status_code == 413
    assert response.headers["HX-Retarget"] == "#editor-alert"
    assert f"a form field at most {per_field:,} bytes" in response.get_data(as_text=True)
    assert post_count(app) == 0


# What became of a save, beside the Save button ---------------------------------------------


def status_of(response) -> tuple[str, str]:
    """The role and the text of the status beside the Save button."""
    status = parsed(response).select_one("#action-bar #save-status")
    return status["role"], status.get_text(" ", strip=True)


@pytest.mark.one_store
def test_a_saved_post_says_so_politely_beside_save(app, editor_client):
    """htmx saves and plain saves (after their redirect) both say "Saved" beside the button."""
    post_id = create(editor_client, title="Quiet")
    data = current_form(editor_client, post_id) | {"title": "Quieter"}
    response = editor_client.post(f"/editor/posts/{post_id}", data=data, headers=HX_EDITOR)
    assert response.status_code == 200
    role, text = status_of(response)
    assert role == "status" and text.startswith("Saved at ")
    assert parsed(response).select_one("#post-form")["data-outcome"] == "saved"

    data = current_form(editor_client, post_id) | {"title": "Quietest"}
    response = editor_client.post(f"/editor/posts/{post_id}", data=data, follow_redirects=True)
    role, text = status_of(response)
    assert role == "status" and text.startswith("Saved at ")


@pytest.mark.one_store
def test_an_untouched_editor_has_an_empty_polite_status(app, editor_client):
    """Nothing to say before a save: the status is empty and not an alert."""
    role, text = status_of(editor_client.get("/editor/posts/new"))
    assert (role, text) == ("status", "")


def test_a_conflict_and_a_gone_post_are_alerts_beside_save(app, editor_client: FlaskClient):
    """409 and 410 answers say what happened beside Save, as alerts that take focus."""
    post_id = create(editor_client, title="Shared")
    stale = current_form(editor_client, post_id)
    fresh = current_form(editor_client, post_id) | {"title": "Theirs"}
    assert editor_client.post(f"/editor/posts/{post_id}", data=fresh).status_code == 303
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=stale | {"title": "Mine"}, headers=HX_EDITOR
    )
    assert response.status_code == 409
    role, text = status_of(response)
    assert role == "alert" and "another editor saved this post" in text
    assert parsed(response).select_one("#save-status").has_attr("autofocus")

    delete_form = page(editor_client.get(f"/editor/posts/{post_id}/delete"))
    token = delete_form.select_one('form input[name="csrf_token"]')["value"]
    assert (
        editor_client.post(f"/editor/posts/{post_id}/delete", data={"csrf_token": token})
    ).status_code == 303
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=stale | {"title": "Mine"}, headers=HX_EDITOR
    )
    assert response.status_code == 410
    role, text = status_of(response)
    assert role == "alert" and "deleted while you were editing" in text
    form = parsed(response).select_one("#post-form")
    assert form["data-outcome"] == "gone"
    assert form["data-draft-key"] == str(post_id)
