"""Every form field within its limit: a text field longer than any form takes is refused
(413) as the form is read, before a view renders anything, url-encoded or multipart alike."""

from __future__ import annotations

import time
from collections.abc import Mapping
from urllib.parse import urlencode

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict
from werkzeug.test import encode_multipart

from blog.authoring import store
from blog.authoring.forms import BODY_MAX
from blog.models import Post
from tests.authoring.test_auth import csrf_token, editor_client, make_editor
from tests.authoring.test_editor import HX_EDITOR, HX_PREVIEW, new_post_form

__all__ = ["editor_client"]

ROCKET = "\U0001f680"  # four bytes of UTF-8, twelve url-encoded
QUICK = 2.0  # seconds; broken, a 3,000,000-character preview took far longer


@pytest.fixture
def no_render(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record every Markdown render the editor asks for (none should happen when refused)."""
    renders: list[int] = []
    real = store.render_body

    def counted(body: str, *args, **kwargs):
        renders.append(len(body))
        return real(body, *args, **kwargs)

    monkeypatch.setattr(store, "render_body", counted)
    return renders


def encoded(fields: Mapping[str, object], *, multipart: bool = False) -> tuple[bytes, str]:
    """A form's body and content type, made before the clock starts (the test client's own
    encoding of megabytes is no part of the answer's time)."""
    if multipart:
        boundary, data = encode_multipart(MultiDict(fields))
        return data, f"multipart/form-data; boundary={boundary}"
    return urlencode(fields, doseq=True).encode(), "application/x-www-form-urlencoded"


def timed_post(client: FlaskClient, path: str, form: tuple[bytes, str], headers: dict[str, str]):
    """Post an encoded form; the response and the seconds it took."""
    data, content_type = form
    started = time.monotonic()
    response = client.post(path, data=data, content_type=content_type, headers=headers)
    return response, time.monotonic() - started


def preview_headers(client: FlaskClient) -> dict[str, str]:
    """The headers of the editor's live preview request, its CSRF token included."""
    return HX_PREVIEW | {"X-CSRFToken": csrf_token(client, "/editor/posts/new")}


def post_count(app: Flask) -> int:
    """How many posts are stored."""
    from blog.extensions import db

    with app.app_context():
        return db.session.query(Post).count()


def test_the_field_limits_leave_room_for_a_body_at_its_limit(app: Flask):
    """A body at its limit fits one field as a browser sends it: every line end may come as
    CR LF (twice the characters), every character may take four bytes."""
    assert app.config["MAX_FORM_FIELD_CHARS"] == 2 * BODY_MAX
    assert app.config["MAX_FORM_MEMORY_SIZE"] >= 4 * BODY_MAX


# The tests marked one_store in this module run on SQLite only: previews write nothing, and a
# request over the form limits is refused while it is read. A refused save, which must leave
# nothing stored, runs on both stores.
@pytest.mark.one_store
@pytest.mark.parametrize("multipart", [False, True], ids=["url-encoded", "multipart"])
@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("body", "b" * 600_000),
        ("body", "b" * 3_000_000),
        ("body", ROCKET * (BODY_MAX + 50_001)),  # 250,001 characters, 1,000,004 bytes
        ("b" * 600_000, "a name this long"),
    ],
    ids=["600000", "3000000", "four-byte-over-the-bytes", "long-name"],
)
def test_an_oversized_preview_is_refused_before_it_renders(
    editor_client, no_render, name, body, multipart
):
    """Three and fifteen times the body limit, or over the bytes one field may take: a quick
    413 in the editor's alert box that names the limits, and no render at all."""
    form = encoded({name: body}, multipart=multipart)
    response, took = timed_post(
        editor_client, "/editor/preview", form, preview_headers(editor_client)
    )
    # (Three megabytes of %XX escapes take Werkzeug a while to decode, as for any form.)
    assert took < QUICK or ROCKET in body
    assert response.status_code == 413
    assert response.headers["HX-Retarget"] == "#editor-alert"
    text = response.get_data(as_text=True)
    # The alert names the limit the field went past (characters or bytes), not a vague size.
    assert "That upload is too large" in text
    assert "at most 400,000 characters" in text or "at most 1,000,000 bytes" in text
    assert len(text) < 5_000
    assert no_render == []


@pytest.mark.one_store
@pytest.mark.parametrize(
    "body",
    [
        "a" * BODY_MAX,
        ROCKET * BODY_MAX,
        "line\r\n" * (BODY_MAX // 5),  # 240,000 characters sent, 200,000 kept
        "\r\n" * BODY_MAX,  # the most a field may be: 400,000 characters sent
    ],
    ids=["ascii", "four-byte", "crlf-lines", "crlf-only"],
)
def test_a_body_at_the_limit_still_previews(app, editor_client, body, monkeypatch):
    """The longest body a save takes previews, however the browser sends it."""
    # The form limits are under test, not the render budget: a busy machine (the three test
    # passes side by side) can take the 2 s of a 200,000-character render's CPU.
    monkeypatch.setitem(app.config, "MARKDOWN_TIME_LIMIT", 20.0)
    form = encoded({"body": body})
    response, _ = timed_post(editor_client, "/editor/preview", form, preview_headers(editor_client))
    assert response.status_code == 200


def test_an_oversized_url_encoded_save_is_refused_and_nothing_stored(app, editor_client):
    """The per-field limit holds for a url-encoded save as for a multipart one: 413."""
    form = encoded(new_post_form(editor_client, body="z" * 2_000_014))
    response, took = timed_post(editor_client, "/editor/posts/new", form, HX_EDITOR)
    assert took < QUICK
    assert response.status_code == 413
    assert response.headers["HX-Retarget"] == "#editor-alert"
    assert post_count(app) == 0


@pytest.mark.one_store
@pytest.mark.parametrize(
    ("password", "words"),
    [
        ("p" * 600_000, "600,000 characters long; a field may have at most 400,000"),
        (ROCKET * 300_000, "1,200,000 bytes long; a field may have at most 1,000,000"),
    ],
    ids=["characters", "bytes"],
)
def test_an_oversized_login_field_is_a_413_page_that_names_the_limit(app, client, password, words):
    """Another form, url-encoded: the site's 413 page says which field and which limit."""
    make_editor(app)
    fields = {"csrf_token": csrf_token(client), "email": "ada@example.com", "password": password}
    response, _ = timed_post(client, "/login", encoded(fields), {})
    assert response.status_code == 413
    text = response.get_data(as_text=True)
    assert "password" in text and words in text


@pytest.mark.one_store
def test_a_url_encoded_form_of_too_many_fields_is_refused(app, client):
    """As for multipart forms, at most MAX_FORM_PARTS fields (1,000): a field count in the
    millions would take hundreds of megabytes to hold."""
    response = client.post("/login", data=MultiDict([("f", "")] * 5_000))
    assert response.status_code == 413
    assert "at most 1,000 fields" in response.get_data(as_text=True)
