"""A post's meta description and social image: set in the editor, used by the post page's
metadata, and kept by revisions, the trash and export/import."""

from __future__ import annotations

import io
import json

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog.extensions import db
from blog.models import PUBLISHED, Image, Post, PostRevision
from tests.authoring.test_auth import editor_client, page
from tests.authoring.test_editor import HX_EDITOR, create, current_form, save, stored
from tests.authoring.test_revisions import restore as restore_revision
from tests.authoring.test_trash import delete
from tests.authoring.test_trash import restore as restore_from_trash
from tests.media.test_images import picture_bytes

__all__ = ["editor_client"]

DESCRIPTION = "How we found the missing index, and the one query that gave it away."


def with_social_image(client: FlaskClient, post_id: int, data: bytes, **fields: object):
    """Save the edit form of a post with a social image attached."""
    form = current_form(client, post_id) | fields
    form["social_image"] = (io.BytesIO(data), "social.png")
    return client.post(f"/editor/posts/{post_id}", data=form, content_type="multipart/form-data")


def head(client: FlaskClient, slug: str) -> dict[str, object]:
    """What a post page's head tells search engines and link previews."""
    soup = page(client.get(f"/posts/{slug}"))

    def meta(selector: str) -> str | None:
        found = soup.select_one(selector)
        return found["content"] if found is not None else None

    data = json.loads(soup.select_one('script[type="application/ld+json"]').string)
    return {
        "description": meta('meta[name="description"]'),
        "og:description": meta('meta[property="og:description"]'),
        "twitter:description": meta('meta[name="twitter:description"]'),
        "og:image": meta('meta[property="og:image"]'),
        "twitter:image": meta('meta[name="twitter:image"]'),
        "og:image:width": meta('meta[property="og:image:width"]'),
        "ld:description": data["description"],
        "ld:image": data["image"]["url"],
    }


def test_the_post_page_uses_the_meta_description_and_social_image(app, editor_client):
    """Every description and image tag of the page says what the editor chose."""
    post_id = create(
        editor_client,
        title="The missing index",
        summary="A card summary.",
        status=PUBLISHED,
        meta_description=f"  {DESCRIPTION}\r\n  ",
    )
    assert stored(app, post_id).meta_description == DESCRIPTION
    before = head(editor_client, "the-missing-index")
    assert before["description"] == before["og:description"] == DESCRIPTION
    assert before["twitter:description"] == before["ld:description"] == DESCRIPTION
    response = with_social_image(editor_client, post_id, picture_bytes("PNG", (1200, 630)))
    assert response.status_code == 303
    with app.app_context():
        image = db.session.scalar(sa.select(Image).where(Image.width == 1200))
        assert stored(app, post_id).social_image_id == image.id
        digest = image.sha256
    after = head(editor_client, "the-missing-index")
    expected = app.config["SITE_URL"].rstrip("/") + f"/images/{digest}.png"
    assert after["og:image"] == after["twitter:image"] == after["ld:image"] == expected
    assert after["og:image:width"] == "1200"
    # The editor shows the chosen image with a way to remove it.
    soup = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert soup.select_one(".seo-group img")["src"] == f"/images/{digest}.png"
    assert soup.select_one("#meta_description").get_text().strip() == DESCRIPTION
    count = soup.select_one("#meta_description-count").get_text()
    assert f"{len(DESCRIPTION)} / 300" in " ".join(count.split())
    removed = save(editor_client, post_id, remove_social_image="y")
    assert removed.status_code == 303
    assert stored(app, post_id).social_image_id is None
    assert head(editor_client, "the-missing-index")["og:image"] != expected


def test_without_them_the_summary_and_picture_stand_in(app, editor_client):
    """No meta description: the excerpt; no social image: the post's own picture."""
    create(editor_client, title="Plain post", summary="The card summary.", status=PUBLISHED)
    shown = head(editor_client, "plain-post")
    assert shown["description"] == shown["og:description"] == "The card summary."
    assert shown["ld:description"] == "The card summary."
    assert "/images/" not in str(shown["og:image"])


def test_a_200000_character_description_is_a_422_that_keeps_every_word(app, editor_client):
    """Over the limit: a 422 naming the limit, the text still in the field, nothing saved."""
    post_id = create(editor_client, title="Long description")
    words = ("keep every word " * 12_500).strip()
    assert len(words) == 199_999
    for headers in ({}, HX_EDITOR):
        response = save(editor_client, post_id, headers=headers, meta_description=words)
        assert response.status_code == 422
        soup = page(response)
        error = soup.select_one("#meta_description-error").get_text()
        assert "The meta description is 199,999 characters long; the limit is 300" in error
        assert soup.select_one("#meta_description").get_text().strip() == words
    assert stored(app, post_id).meta_description == ""


def test_a_refused_save_keeps_the_social_image_it_brought(app, editor_client):
    """A save refused for another field keeps the uploaded image by hash for the next try;
    a file that is no image is refused beside its field."""
    post_id = create(editor_client, title="Kept upload")
    refused = with_social_image(editor_client, post_id, picture_bytes("PNG", (300, 200)), title="")
    assert refused.status_code == 422
    kept = page(refused).select_one('input[name="kept_social_image"]')["value"]
    assert len(kept) == 64
    form = current_form(editor_client, post_id) | {"kept_social_image": kept}
    assert editor_client.post(f"/editor/posts/{post_id}", data=form).status_code == 303
    with app.app_context():
        assert db.session.get(Post, post_id).social_image.sha256 == kept
    spoof = with_social_image(editor_client, post_id, b"<svg onload=alert(1)>")
    assert spoof.status_code == 422
    assert page(spoof).select_one("#social_image-error") is not None


def test_revisions_keep_compare_and_restore_the_description(app, editor_client):
    """Each save's meta description is in its revision, shown when compared, restored."""
    post_id = create(editor_client, title="Revised", meta_description="The first words.")
    assert save(editor_client, post_id, meta_description="Later words.").status_code == 303
    with app.app_context():
        first = db.session.scalar(
            sa.select(PostRevision).where(PostRevision.post_id == post_id).order_by(PostRevision.id)
        )
        assert first.meta_description == "The first words."
        first_id = first.id
    compared = page(editor_client.get(f"/editor/posts/{post_id}/revisions?revision={first_id}"))
    rows = [" ".join(row.get_text(" ").split()) for row in compared.select(".field-changes tr")]
    assert "Meta description The first words. Later words." in rows
    assert restore_revision(editor_client, post_id, first_id).status_code == 303
    assert stored(app, post_id).meta_description == "The first words."


def test_the_trash_keeps_both(app, editor_client):
    """Deleted and restored, the post has its description and social image again."""
    post_id = create(editor_client, title="Trashed", meta_description=DESCRIPTION)
    assert (
        with_social_image(editor_client, post_id, picture_bytes("PNG", (90, 60))).status_code == 303
    )
    image_id = stored(app, post_id).social_image_id
    assert delete(editor_client, post_id).status_code == 303
    assert restore_from_trash(editor_client, post_id).status_code == 303
    post = stored(app, post_id)
    assert (post.meta_description, post.social_image_id) == (DESCRIPTION, image_id)


def test_saving_only_the_description_changes_the_kept_page(app, client, editor_client):
    """The post page is kept between requests; a new description is seen at once."""
    post_id = create(editor_client, title="Kept page", status=PUBLISHED)
    for _ in range(2):
        assert "Fresh words." not in client.get("/posts/kept-page").get_data(as_text=True)
    assert save(editor_client, post_id, meta_description="Fresh words.").status_code == 303
    assert 'content="Fresh words."' in client.get("/posts/kept-page").get_data(as_text=True)


def test_export_and_import_carry_both(app: Flask, runner, editor_client, tmp_path):
    """`meta_description:` and `social_image:` go out with the post and come back."""
    post_id = create(editor_client, title="Carried", meta_description=DESCRIPTION)
    png = picture_bytes("PNG", (120, 63))
    assert with_social_image(editor_client, post_id, png).status_code == 303
    result = runner.invoke(args=["posts", "export", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "out" / "carried.md").read_text(encoding="utf-8")
    assert f"meta_description: {DESCRIPTION}\nsocial_image: images/carried.social.png\n" in text
    assert (tmp_path / "out" / "images" / "carried.social.png").read_bytes() == png
    with app.app_context():
        post = db.session.get(Post, post_id)
        post.meta_description, post.social_image = "", None
        db.session.commit()
    result = runner.invoke(args=["posts", "import", str(tmp_path / "out")])
    assert result.output == "created 0, updated 1, unchanged 0\n", result.output
    post = stored(app, post_id)
    assert post.meta_description == DESCRIPTION and post.social_image_id is not None
    again = runner.invoke(args=["posts", "import", str(tmp_path / "out")])
    assert again.output == "created 0, updated 0, unchanged 1\n", again.output


def test_an_import_refuses_a_description_over_the_limit_or_a_social_image_outside(runner, tmp_path):
    """A file's meta description over 300 characters, or a social image outside the
    imported folder, is a problem at its line, and nothing is imported."""
    (tmp_path / "long.md").write_text(
        "---\ntitle: Long\ndate: 2024-01-01\ntopics: [Databases]\nmeta_description: "
        + "x" * 301
        + "\n---\n\nBody.\n",
        encoding="utf-8",
    )
    result = runner.invoke(args=["posts", "import", str(tmp_path)])
    assert result.exit_code != 0
    assert "long.md:5: `meta_description` is longer than 300 characters (301)" in result.output
    (tmp_path / "long.md").write_text(
        "---\ntitle: Long\ndate: 2024-01-01\ntopics: [Databases]\n"
        "social_image: ../outside.png\n---\n\nBody.\n",
        encoding="utf-8",
    )
    result = runner.invoke(args=["posts", "import", str(tmp_path)])
    assert result.exit_code != 0
    assert "long.md:5: `social_image`: ../outside.png is outside the imported folder" in (
        result.output
    )
