"""Kept pages: served compressed and never stale after a save, a scheduled time or an import."""

from __future__ import annotations

import gzip
from datetime import timedelta
from pathlib import Path

import brotli
import sqlalchemy as sa

from blog.extensions import db
from blog.models import Post, SiteState, utcnow
from tests.conftest import count_queries


def test_a_kept_page_costs_one_statement_and_comes_compressed(app, client, posts):
    """The second request for a page reads only the state row and gets the same bytes."""
    posts.create(3)
    first = client.get("/", headers={"Accept-Encoding": "br"})
    with count_queries(app) as statements:
        again = client.get("/", headers={"Accept-Encoding": "br"})
    assert len(statements) == 1
    assert again.headers["Content-Encoding"] == "br"
    plain = client.get("/").get_data()
    assert brotli.decompress(again.get_data()) == plain
    assert brotli.decompress(first.get_data()) == plain
    zipped = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert gzip.decompress(zipped.get_data()) == plain
    assert "Accept-Encoding" in again.headers["Vary"] and "HX-Request" in again.headers["Vary"]
    assert again.headers["ETag"] == first.headers["ETag"]


def test_a_save_is_seen_at_once(app, client, posts):
    """Editing a post's title changes every kept page that shows it."""
    [slug] = posts.create(1, title="Before")
    assert "Before" in client.get("/").get_data(as_text=True)
    assert "Before" in client.get(f"/posts/{slug}").get_data(as_text=True)
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        post.title = "After"
        db.session.commit()
    assert "After" in client.get("/").get_data(as_text=True)
    assert "After" in client.get(f"/posts/{slug}").get_data(as_text=True)


def test_a_scheduled_post_appears_when_its_time_comes(app, client, posts):
    """A post scheduled for later shows up on kept pages as soon as its time passes."""
    posts.create(2)
    [slug] = posts.create(1, title="Later on", published_at=utcnow() + timedelta(hours=3))
    assert "Later on" not in client.get("/").get_data(as_text=True)
    due = utcnow() - timedelta(seconds=1)
    with app.app_context(), db.engine.begin() as connection:  # time passes: no write by the app
        connection.execute(
            sa.update(Post.__table__).where(Post.__table__.c.slug == slug).values(published_at=due)
        )
        connection.execute(sa.update(SiteState.__table__).values(next_publish_at=due))
    home = client.get("/").get_data(as_text=True)
    assert "Later on" in home and "Showing 3 of 3 posts" in home
    with app.app_context():
        state = db.session.get(SiteState, 1)
        assert state.live_count == 3 and state.next_publish_at is None


def test_an_import_is_seen_at_once(app, client, runner, posts, tmp_path: Path):
    """Posts brought in by `posts import` appear on kept pages straight away."""
    posts.create(1)
    assert "Imported today" not in client.get("/").get_data(as_text=True)
    (tmp_path / "imported.md").write_text(
        "---\ntitle: Imported today\ndate: 2024-05-01\ntopics: [Databases]\n---\n\nHello.\n",
        encoding="utf-8",
    )
    result = runner.invoke(args=["posts", "import", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Imported today" in client.get("/").get_data(as_text=True)


def test_live_count_follows_every_write(app, client, posts):
    """The state row's live count matches the posts readers can see after each change."""
    slugs = posts.create(4)
    posts.create(1, published_at=None)
    with app.app_context():
        assert db.session.get(SiteState, 1).live_count == 4
        db.session.execute(sa.delete(Post).where(Post.slug == slugs[0]))
        db.session.commit()
        assert db.session.get(SiteState, 1).live_count == 3
    assert "Showing 3 of 3 posts" in client.get("/").get_data(as_text=True)


def test_pages_are_not_kept_when_turned_off(app, client, posts):
    """PAGE_CACHE=off renders every request (for measuring cold renders)."""
    posts.create(2)
    app.config["PAGE_CACHE"] = False
    try:
        client.get("/")
        with count_queries(app) as statements:
            client.get("/")
    finally:
        app.config["PAGE_CACHE"] = True
    assert len(statements) > 1
