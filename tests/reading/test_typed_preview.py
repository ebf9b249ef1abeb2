"""The editor's Preview: the form as typed, in the post template and as its card, saving
nothing, never indexed or cached."""

from __future__ import annotations

import io
from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa

from blog.extensions import db
from blog.models import PUBLISHED, Author, Image, Post, Topic
from tests.authoring.test_auth import log_in_as, make_editor
from tests.authoring.test_editor import (
    create,
    current_form,
    editor_client,
    new_post_form,
    page,
    save,
    stored,
)
from tests.authoring.test_pending import data_version
from tests.media.test_images import picture_bytes

__all__ = ["editor_client"]

PREVIEW = "/editor/posts/preview"


def counts(app) -> tuple[int, int, int]:
    """Posts, topics and authors stored."""
    with app.app_context():
        return tuple(
            db.session.scalar(sa.select(sa.func.count()).select_from(model))
            for model in (Post, Topic, Author)
        )


def test_a_new_posts_form_is_shown_in_the_post_template_and_as_its_card(app, editor_client):
    """Title, summary, body (rendered), topics and authors as typed, a new topic and author
    included; nothing is stored, and the answer is neither indexed nor cached."""
    before, version = counts(app), data_version(app)
    data = new_post_form(
        editor_client,
        title="Typed, never saved",
        summary="A summary typed now.",
        body="## Heading typed\n\nWith *emphasis*.",
        topics="Brand new topic",
        author="Nobody Stored",
    )
    answer = editor_client.post(PREVIEW, data=data)
    assert answer.status_code == 200
    assert answer.headers["X-Robots-Tag"] == "noindex, nofollow"
    assert "no-store" in answer.headers["Cache-Control"]
    soup = page(answer)
    assert soup.select_one("h1.post-title").get_text() == "Typed, never saved"
    assert soup.select_one(".prose h2").get_text().startswith("Heading typed")
    assert soup.select_one(".prose em").get_text() == "emphasis"
    assert "Brand new topic" in soup.select_one(".post-topics").get_text()
    assert "Nobody Stored" in soup.select_one(".post-meta").get_text()
    card = soup.select_one(".typed-preview-card")
    assert "Typed, never saved" in card.get_text() and "A summary typed now." in card.get_text()
    assert soup.select_one('meta[name="robots"]')["content"] == "noindex, nofollow"
    assert counts(app) == before and data_version(app) == version


def test_a_stored_posts_unsaved_changes_are_previewed_and_not_kept(app, editor_client):
    """A live post's form with changes: the preview shows them, the post and readers keep
    the saved text."""
    post_id = create(editor_client, status=PUBLISHED, title="Kept title", body="Kept body.")
    form = current_form(editor_client, post_id) | {"title": "Typed title", "body": "Typed."}
    answer = editor_client.post(PREVIEW, data=form)
    assert answer.status_code == 200
    assert page(answer).select_one("h1.post-title").get_text() == "Typed title"
    assert "until you press “Update”" in page(answer).select_one("#preview-note").get_text()
    assert (stored(app, post_id).title, stored(app, post_id).body_markdown) == (
        "Kept title",
        "Kept body.",
    )
    assert "Typed title" not in editor_client.get("/posts/kept-title").get_data(as_text=True)


def test_the_preview_checks_its_token_its_reader_and_its_size(app, client, editor_client):
    """Without the CSRF token: 400; logged out: refused, showing nothing; another writer's
    post: 403; a body over the limit: 413."""
    post_id = create(editor_client, title="Someone's draft")
    form = current_form(editor_client, post_id)
    assert editor_client.post(PREVIEW, data=form | {"csrf_token": ""}).status_code == 400
    outsider = app.test_client().post(PREVIEW, data=form)
    assert outsider.status_code in (302, 400, 401)
    assert "Someone" not in outsider.get_data(as_text=True)
    writer = app.test_client()
    log_in_as(writer, make_editor(app, "wr@example.com", name="Wren Writer", role="writer"))
    token = page(writer.get("/editor/posts/new")).select_one('input[name="csrf_token"]')["value"]
    assert writer.post(PREVIEW, data=form | {"csrf_token": token}).status_code == 403
    big = form | {"body": "x" * 200_001}
    assert editor_client.post(PREVIEW, data=big).status_code == 413


def test_the_editor_offers_preview_as_a_plain_form_button(editor_client):
    """Preview submits the same form to the preview route in a new tab, without htmx and
    without the browser's own checks, so it works without JavaScript."""
    button = page(editor_client.get("/editor/posts/new")).select_one("#preview-button")
    assert button["formaction"] == PREVIEW and button["formtarget"] == "_blank"
    assert button.has_attr("formnovalidate") and "name" not in button.attrs


def test_a_form_with_almost_nothing_in_it_is_previewed_under_the_editors_name(editor_client):
    """Only the token sent (an empty new post, a hand-made request): the preview shows an
    untitled post credited to the editor, as their form would, instead of failing."""
    token = page(editor_client.get("/editor/posts/new")).select_one('input[name="csrf_token"]')
    answer = editor_client.post(PREVIEW, data={"csrf_token": token["value"]})
    assert answer.status_code == 200
    soup = page(answer)
    assert soup.select_one("h1.post-title").get_text() == "Untitled"
    assert "Ada Example" in soup.select_one(".post-meta").get_text()


def post_row(app, post_id: int) -> tuple[object, ...]:
    """What a preview must leave as it was: the post's text, picture, version and times."""
    post = stored(app, post_id)
    return (post.title, post.image_id, post.image_alt, post.lock_version, post.modified_at)


def images_stored(app) -> list[str]:
    """The hashes of every stored image."""
    with app.app_context():
        return list(db.session.scalars(sa.select(Image.sha256)).all())


@pytest.mark.parametrize("new", [True, False], ids=["new post", "stored post"])
def test_a_picture_chosen_and_not_saved_is_previewed(app, editor_client, new):
    """The file chosen in the form is checked and stored as a save stores an upload (by its
    hash, so the preview's page can load it), and the preview shows it with the alt text
    typed; nothing of the post is written."""
    if new:
        form, post_id = new_post_form(editor_client, title="Cover to come"), None
    else:
        post_id = create(editor_client, title="Cover to come")
        form = current_form(editor_client, post_id)
        before = post_row(app, post_id)
    posts_before = counts(app)[0]
    chosen = {"image": (io.BytesIO(picture_bytes("PNG", (320, 200))), "cover.png")}
    answer = editor_client.post(PREVIEW, data=form | chosen | {"image_alt": "An orange test card"})
    assert answer.status_code == 200
    (digest,) = images_stored(app)
    art = page(answer).select_one("img.post-art")
    assert art["src"].startswith(f"/images/{digest}")
    assert art["alt"] == "An orange test card"
    assert editor_client.get(art["src"]).status_code == 200
    assert counts(app)[0] == posts_before
    if post_id is not None:
        assert post_row(app, post_id) == before


def test_a_picture_chosen_over_the_stored_one_is_the_one_previewed(app, editor_client):
    """A post with a saved picture and a new file chosen: the preview shows the new one."""
    post_id = create(editor_client, title="Two covers")
    first = {"image": (io.BytesIO(picture_bytes("PNG", (64, 40))), "a.png"), "image_alt": "Old"}
    assert save(editor_client, post_id, **first).status_code == 303
    old_hash = stored(app, post_id).image.sha256
    form = current_form(editor_client, post_id) | {
        "image": (io.BytesIO(picture_bytes("JPEG", (300, 200))), "b.jpg"),
        "image_alt": "New",
    }
    answer = editor_client.post(PREVIEW, data=form)
    assert answer.status_code == 200
    (new_hash,) = set(images_stored(app)) - {old_hash}
    art = page(answer).select_one("img.post-art")
    assert art["src"].startswith(f"/images/{new_hash}") and art["alt"] == "New"
    assert stored(app, post_id).image.sha256 == old_hash


@pytest.mark.parametrize(
    ("limit", "upload", "status", "said"),
    [
        (1000, picture_bytes("PNG", (400, 400)), 413, "the limit is"),
        (None, b"plain text, no picture", 422, "not a PNG, JPEG, WebP or GIF"),
        (20_000_000, picture_bytes("PNG", (10_000, 5_000)), 413, "megapixels"),
    ],
    ids=["too large", "not an image", "too many pixels"],
)
def test_a_refused_picture_is_a_clear_refusal_and_writes_nothing(
    app, editor_client, monkeypatch, limit, upload, status, said
):
    """A file the editor's save would refuse answers the preview with the site's error page
    naming what is wrong (413 or 422, never a 500); no image and nothing of the post is
    stored."""
    post_id = create(editor_client, title="Refused cover")
    form = current_form(editor_client, post_id)
    before = post_row(app, post_id)
    if limit is not None:
        monkeypatch.setitem(app.config, "MAX_IMAGE_BYTES", limit)
    answer = editor_client.post(
        PREVIEW, data=form | {"image": (io.BytesIO(upload), "cover.png"), "image_alt": "x"}
    )
    assert answer.status_code == status
    assert said in page(answer).select_one(".error-page").get_text()
    assert images_stored(app) == []
    assert post_row(app, post_id) == before


@pytest.mark.parametrize("new", [True, False], ids=["new post", "stored post"])
def test_a_link_preview_picture_chosen_and_not_saved_is_the_previews_og_image(
    app, editor_client, new
):
    """The social image chosen in the form (not saved yet) is stored by hash as a save
    stores it, and the preview's link-preview meta (og:image, its size) names it, over the
    illustration chosen beside it; nothing of the post is written."""
    if new:
        form, post_id = new_post_form(editor_client, title="Shared widely"), None
    else:
        post_id = create(editor_client, title="Shared widely")
        form = current_form(editor_client, post_id)
        before = post_row(app, post_id)
    chosen = {
        "image": (io.BytesIO(picture_bytes("PNG", (320, 200))), "cover.png"),
        "image_alt": "A cover",
        "social_image": (io.BytesIO(picture_bytes("JPEG", (1200, 630))), "card.jpg"),
    }
    answer = editor_client.post(PREVIEW, data=form | chosen)
    assert answer.status_code == 200
    with app.app_context():
        card = db.session.scalar(sa.select(Image.sha256).where(Image.width == 1200))
    assert card is not None and len(images_stored(app)) == 2
    soup = page(answer)
    og_image = soup.select_one('meta[property="og:image"]')["content"]
    assert f"/images/{card}" in og_image
    assert soup.select_one('meta[property="og:image:width"]')["content"] == "1200"
    assert editor_client.get(urlsplit(og_image).path).status_code == 200
    if post_id is not None:
        assert post_row(app, post_id) == before
        with app.app_context():
            assert db.session.get(Post, post_id).social_image_id is None


def test_a_refused_link_preview_picture_is_a_clear_refusal(app, editor_client):
    """A social image the save would refuse answers the preview with what is wrong with it
    (422, never a 500), and stores nothing."""
    post_id = create(editor_client, title="Refused card")
    form = current_form(editor_client, post_id)
    upload = {"social_image": (io.BytesIO(b"no picture at all"), "card.png")}
    answer = editor_client.post(PREVIEW, data=form | upload)
    assert answer.status_code == 422
    assert "not a PNG, JPEG, WebP or GIF" in page(answer).select_one(".error-page").get_text()
    assert images_stored(app) == []
