"""The Edit link on a post's page: only for someone whose role opens the post's editor page,
from an answer no cache keeps, while the cached page stays the same for everyone."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from bs4 import BeautifulSoup
from flask import Flask
from flask.testing import FlaskClient

from blog.extensions import db
from blog.models import EDITOR, WRITER, Post
from blog.web.viewer import EDITOR_HINT_COOKIE
from tests.authoring.test_auth import csrf_token, log_in_as, login, make_editor, page
from tests.conftest import PostFactory

SITE_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "site.js"


def _post(app: Flask, posts: PostFactory, title: str, created_by: int | None = None) -> tuple:
    """A published post made by `created_by`; its slug and id."""
    (slug,) = posts.create(1, title=title)
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        assert post is not None
        post.created_by_id = created_by
        db.session.commit()
        return slug, post.id


def _main(html: str) -> str:
    """The page's <main>, as sent."""
    return html[html.index('<main id="main"') : html.index("</main>")]


def test_the_edit_link_is_for_editors_and_the_cached_page_is_the_same_for_all(
    app: Flask, client: FlaskClient, posts: PostFactory
):
    """A reader's page (rendered, then from the page cache) has no link, only its empty slot;
    an editor's page has the same <main> byte for byte, and the edit-link answer gives the
    link to them alone, kept by no cache; the reader's cached page is unchanged after."""
    slug, post_id = _post(app, posts, "Cache me if you can")
    first = client.get(f"/posts/{slug}")
    cached = client.get(f"/posts/{slug}")
    assert cached.get_data() == first.get_data()
    assert "public" in cached.headers["Cache-Control"]
    slot = page(cached).select_one("#post-edit")
    assert slot.get_text() == "" and slot["data-edit-link"] == f"/posts/{slug}/edit-link"
    assert "post-edit-link" not in cached.get_data(as_text=True)

    editor = app.test_client()
    log_in_as(editor, make_editor(app, "ed@example.com", name="Ed Itor", role=EDITOR))
    theirs = editor.get(f"/posts/{slug}")
    assert "public" not in theirs.headers["Cache-Control"]
    assert _main(theirs.get_data(as_text=True)) == _main(cached.get_data(as_text=True))

    link = editor.get(f"/posts/{slug}/edit-link")
    assert link.status_code == 200
    anchor = page(link).select_one("a#post-edit-link")
    assert anchor["href"] == f"/editor/posts/{post_id}"
    assert anchor.get_text() == "Edit “Cache me if you can”"
    for answer in (link, client.get(f"/posts/{slug}/edit-link")):
        assert "no-store" in answer.headers["Cache-Control"]
        assert "public" not in answer.headers["Cache-Control"]
    assert client.get(f"/posts/{slug}/edit-link").status_code == 204
    assert editor.get("/posts/no-such-post/edit-link").status_code == 204
    assert client.get(f"/posts/{slug}").get_data() == first.get_data()


def test_a_writer_gets_the_link_only_on_their_own_posts(
    app: Flask, client: FlaskClient, posts: PostFactory
):
    """A writer opens the editor of the posts they made: the link for those, none for
    another writer's."""
    wendy = make_editor(app, "wendy@example.com", name="Wendy Writer", role=WRITER)
    other = make_editor(app, "will@example.com", name="Will Writer", role=WRITER)
    own, own_id = _post(app, posts, "Wendy's own", created_by=wendy)
    theirs, _ = _post(app, posts, "Will's", created_by=other)
    log_in_as(client, wendy)
    answer = client.get(f"/posts/{own}/edit-link")
    assert page(answer).select_one("a")["href"] == f"/editor/posts/{own_id}"
    assert client.get(f"/editor/posts/{own_id}").status_code == 200
    refused = client.get(f"/posts/{theirs}/edit-link")
    assert refused.status_code == 204 and refused.get_data() == b""


def test_logging_in_sets_the_hint_scripts_read_and_logging_out_takes_it(app, client):
    """The hint cookie is readable by scripts (not HttpOnly) and grants nothing; it comes
    with the login and goes with the logout, and site.js looks for that very name."""
    from werkzeug.security import generate_password_hash

    make_editor(app, password_hash=generate_password_hash("correct horse battery"))
    response = login(client, "ada@example.com", "correct horse battery")
    assert response.status_code == 303
    [hint] = [c for c in response.headers.getlist("Set-Cookie") if c.startswith(EDITOR_HINT_COOKIE)]
    assert hint.startswith(f"{EDITOR_HINT_COOKIE}=1;") and "HttpOnly" not in hint
    assert client.get_cookie(EDITOR_HINT_COOKIE) is not None
    out = client.post("/logout", data={"csrf_token": csrf_token(client, "/editor/")})
    assert out.status_code == 303
    assert client.get_cookie(EDITOR_HINT_COOKIE) is None
    assert f"{EDITOR_HINT_COOKIE}=1" in SITE_JS.read_text()
    # Alone, the hint opens nothing.
    client.set_cookie(EDITOR_HINT_COOKIE, "1")
    soup = BeautifulSoup(client.get("/editor/").get_data(as_text=True), "lxml")
    assert soup.select_one("#post-table") is None
