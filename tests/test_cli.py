"""Command-line tools: demo content, re-rendering, and what every command needs first."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup
from click.testing import CliRunner
from flask.cli import FlaskGroup

from blog import create_app, markup
from blog.extensions import db
from blog.models import Post, utcnow
from blog.transfer import demo


def test_posts_rerender_refreshes_stale_renders(app, runner, posts):
    """Posts rendered by an older pipeline are re-rendered; current ones are left alone."""
    stale, fresh = posts.create(2, body="Hello **world**.")
    with app.app_context():
        db.session.execute(
            sa.update(Post)
            .where(Post.slug == stale)
            .values(render_version=0, body_html="<p>old</p>", reading_minutes=9)
        )
        db.session.commit()
    result = runner.invoke(args=["posts", "rerender"])
    assert result.exit_code == 0, result.output
    assert "Re-rendered 1 posts" in result.output
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == stale))
        assert post.render_version == markup.PIPELINE_VERSION
        assert "<strong>world</strong>" in post.body_html
        assert post.reading_minutes == 1
    assert (
        runner.invoke(args=["posts", "rerender"])
        .output.strip()
        .endswith(f"Re-rendered 0 posts (pipeline version {markup.PIPELINE_VERSION}).")
    )
    assert fresh


def test_stored_toc_only_for_three_sections(app, posts):
    """The stored table of contents is kept for posts with three or more sections."""
    three = "Intro.\n\n## One\n\nx\n\n## Two\n\ny\n\n## Three\n\nz"
    two = "Intro.\n\n## One\n\nx\n\n## Two\n\ny"
    long_slug, short_slug = posts.create(1, body=three)[0], posts.create(1, body=two)[0]
    with app.app_context():
        long_post = db.session.scalar(sa.select(Post).where(Post.slug == long_slug))
        short_post = db.session.scalar(sa.select(Post).where(Post.slug == short_slug))
        assert [title for _, _, title in long_post.toc] == ["One", "Two", "Three"]
        assert all(anchor.startswith("s-") for _, anchor, _ in long_post.toc)
        assert short_post.toc == []


def test_demo_load_fills_an_empty_database_once(app, runner, client):
    """demo load imports every file of demo/ as a live post, then refuses to duplicate them."""
    result = runner.invoke(args=["demo", "load"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        published = db.session.scalars(sa.select(Post).where(Post.status == "published")).all()
        assert len(published) == len(demo.post_files()) >= 60
        assert all(post.published_at <= utcnow() for post in published)
        assert sum(post.featured for post in published) == 1
        assert sum(post.editors_pick for post in published) >= 4
        topics = {topic.slug for post in published for topic in post.topics}
        assert len(topics) >= 5
        assert all(post.body_html and post.excerpt for post in published)
    again = runner.invoke(args=["demo", "load"])
    assert "demo content not loaded" in again.output
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == len(published)
    home = BeautifulSoup(client.get("/").get_data(as_text=True), "html.parser")
    assert home.select_one("#counter").get_text() == f"Showing 1–12 of {len(published)} posts"


def flask_cli(database_url: str) -> FlaskGroup:
    """`flask --app blog` as the command line builds it, with no SECRET_KEY and no debug."""
    return FlaskGroup(
        load_dotenv=False,
        create_app=lambda: create_app(
            {"SECRET_KEY": None, "DEBUG": False, "SQLALCHEMY_DATABASE_URI": database_url}
        ),
    )


def test_commands_run_without_a_secret_key(app, database_url, monkeypatch):
    """`editors` and `posts` sign nothing: they work with SECRET_KEY unset."""
    monkeypatch.delenv("FLASK_DEBUG", raising=False)
    result = CliRunner().invoke(flask_cli(database_url), ["editors", "list"])
    assert result.exit_code == 0, result.output
    assert "No editor accounts yet" in result.output
    result = CliRunner().invoke(flask_cli(database_url), ["posts", "rerender"])
    assert result.exit_code == 0, result.output
    assert "Re-rendered 0 posts" in result.output


def test_flask_run_still_needs_a_secret_key(app, database_url, monkeypatch):
    """Serving is refused without SECRET_KEY, from `flask run` as from a WSGI server."""
    monkeypatch.delenv("FLASK_DEBUG", raising=False)
    served = []
    monkeypatch.setattr("flask.cli.run_simple", lambda *a, **k: served.append(a))
    result = CliRunner().invoke(flask_cli(database_url), ["run", "--port", "5999"])
    assert isinstance(result.exception, RuntimeError)
    assert "SECRET_KEY is not set" in str(result.exception)
    assert served == []
    with pytest.raises(RuntimeError, match="SECRET_KEY is not set"):
        create_app({"SECRET_KEY": None, "DEBUG": False})
