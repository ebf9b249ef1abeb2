"""Old paths from the site a blog was moved from answer 301 to their post, in every spelling
a static site gave them, and never in place of a page."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa

from blog.catalog import address_key
from blog.extensions import db
from blog.models import OldAddress, Post, utcnow


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("/2020/01/02/x/", "/2020/01/02/x"),
        ("/2020/01/02/x", "/2020/01/02/x"),
        ("/2020/01/02/x.html", "/2020/01/02/x"),
        ("/2020/01/02/x/index.html", "/2020/01/02/x"),
        ("https://old.example/news/caf%C3%A9/", "/news/café"),
        ("2019/03/05/my-post", "/2019/03/05/my-post"),
        ("/a//b/../c/", "/a/c"),
        ("/../../etc/passwd", "/etc/passwd"),
        ("/?p=12", "/?p=12"),
        ("/?page_id=7&x=1", "/?page_id=7"),
        ("/", None),
        ("/?q=1", None),
        ("", None),
        ("/bad%FF", None),
        ("/a\x00b", None),
        ("/" + "a" * 600, None),
    ],
)
def test_address_key(address, key):
    """Every spelling of one page is one key; what is no path is None."""
    assert address_key(address) == key


def keep(app, slug: str, *paths: str) -> None:
    """Give the stored post these old paths."""
    with app.app_context():
        post = db.session.scalars(sa.select(Post).where(Post.slug == slug)).one()
        for path in paths:
            db.session.add(OldAddress(path=address_key(path), post_id=post.id))
        db.session.commit()


def test_old_paths_lead_to_live_posts_only(app, client, posts):
    """A live post's old path answers 301 with or without its slash; a scheduled post's
    gives nothing away; a POST there is a 404 like anywhere unknown."""
    posts.create(title="Moved in", slug="moved-in")
    posts.create(title="Later", slug="later", published_at=utcnow() + timedelta(days=2))
    keep(app, "moved-in", "/2019/05/moved-in/")
    keep(app, "later", "/2019/06/later/")
    for old in ("/2019/05/moved-in/", "/2019/05/moved-in", "/2019/05/moved-in.html"):
        response = client.get(old)
        assert response.status_code == 301
        assert response.headers["Location"] == "/posts/moved-in"
    assert client.head("/2019/05/moved-in/").status_code == 301
    assert client.get("/2019/06/later/").status_code == 404
    assert client.post("/2019/05/moved-in/").status_code in (404, 405)
    assert client.get("/2019/05/elsewhere/").status_code == 404


def test_an_old_path_never_shadows_a_page(app, client, posts):
    """A page that answers keeps answering, whatever old path names it."""
    posts.create(title="Moved in", slug="moved-in")
    posts.create(title="Here", slug="here")
    keep(app, "moved-in", "/posts/here")
    assert client.get("/posts/here").status_code == 200
