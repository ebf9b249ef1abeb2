"""The editor lists a moved post's old addresses and removes them one by one."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from blog.extensions import db
from blog.models import EDITOR, WRITER, OldAddress, Post
from tests.authoring.test_auth import csrf_token, log_in_as, make_editor, page

PATHS = ("/2019/05/moved-in", "/old/moved-in")


@pytest.fixture
def moved(app, posts) -> tuple[int, list[int]]:
    """A published post with two old paths: its id and theirs."""
    posts.create(title="Moved in", slug="moved-in")
    with app.app_context():
        post = db.session.scalars(sa.select(Post).where(Post.slug == "moved-in")).one()
        rows = [OldAddress(path=path, post_id=post.id) for path in PATHS]
        db.session.add_all(rows)
        db.session.commit()
        return post.id, [row.id for row in rows]


@pytest.mark.parametrize("htmx", [False, True])
def test_the_old_addresses_are_listed(app, client, moved, htmx):
    """The page lists each old path, with and without HX-Request (one page, no fragment),
    and the editor form links to it."""
    post_id, _ = moved
    log_in_as(client, make_editor(app, role=EDITOR))
    headers = {"HX-Request": "true"} if htmx else {}
    response = client.get(f"/editor/posts/{post_id}/old-addresses", headers=headers)
    assert response.status_code == 200
    shown = [code.get_text() for code in page(response).select("#old-address-table td code")]
    assert shown == list(PATHS)
    editor = page(client.get(f"/editor/posts/{post_id}"))
    assert editor.select_one("#old-addresses-link")["href"].endswith("/old-addresses")


def test_the_post_form_shows_the_first_few(app, client, moved):
    """The post form lists a moved post's old paths (the first few, with how many there
    are) and links to the page that removes them; a post never moved shows nothing."""
    post_id, _ = moved
    with app.app_context():
        extra = [f"/archive/{number}/moved-in" for number in range(6)]
        db.session.add_all(OldAddress(path=path, post_id=post_id) for path in extra)
        db.session.commit()
    log_in_as(client, make_editor(app, role=EDITOR))
    form = page(client.get(f"/editor/posts/{post_id}"))
    summary = form.select_one("#post-form #old-addresses-summary")
    shown = [code.get_text() for code in summary.select("li code")]
    assert shown == [*PATHS, *extra[:3]]
    link = summary.select_one("#old-addresses-manage")
    assert link["href"] == f"/editor/posts/{post_id}/old-addresses"
    assert link.get_text() == "All 8 old addresses, where each can be removed"


@pytest.mark.parametrize("role", [WRITER, EDITOR])
def test_the_post_form_of_a_post_never_moved_shows_none(app, client, posts, role):
    """A post without old paths has no old-address box on its form; a writer's own moved
    post lists them without the promise of removing them."""
    editor = make_editor(app, role=role)
    log_in_as(client, editor)
    posts.create(title="Never moved", slug="never-moved")
    with app.app_context():
        post = db.session.scalars(sa.select(Post).where(Post.slug == "never-moved")).one()
        post.created_by_id = editor
        db.session.commit()
        post_id = post.id
    form = page(client.get(f"/editor/posts/{post_id}"))
    assert form.select_one("#old-addresses-summary") is None
    with app.app_context():
        db.session.add(OldAddress(path="/2020/01/never-moved", post_id=post_id))
        db.session.commit()
    link = page(client.get(f"/editor/posts/{post_id}")).select_one("#old-addresses-manage")
    expected = "The old addresses page" + (", where each can be removed" if role == EDITOR else "")
    assert link.get_text() == expected


def test_removing_one_makes_it_a_404(app, client, moved):
    """A removed old path no longer leads to the post; the other still does."""
    post_id, ids = moved
    log_in_as(client, make_editor(app, role=EDITOR))
    url = f"/editor/posts/{post_id}/old-addresses"
    assert client.get(PATHS[0]).status_code == 301
    token = csrf_token(client, url)
    response = client.post(f"{url}/{ids[0]}/remove", data={"csrf_token": token})
    assert response.status_code == 303
    assert f"Removed {PATHS[0]}" in client.get(url).get_data(as_text=True)
    assert client.get(PATHS[0]).status_code == 404
    assert client.get(PATHS[1]).status_code == 301
    again = client.post(f"{url}/{ids[0]}/remove", data={"csrf_token": token})
    assert again.status_code == 303
    assert "already removed" in client.get(url).get_data(as_text=True)
    assert client.post(f"{url}/{ids[1]}/remove", data={}).status_code == 400


def test_a_writer_may_not_remove_one(app, client, moved):
    """Removing an old path is an editor's decision: a writer is refused."""
    post_id, ids = moved
    log_in_as(client, make_editor(app, role=WRITER))
    token = csrf_token(client, "/editor/")
    response = client.post(
        f"/editor/posts/{post_id}/old-addresses/{ids[0]}/remove", data={"csrf_token": token}
    )
    assert response.status_code == 403
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(OldAddress)) == 2
