"""Command-line tools: demo content, re-rendering, and what every command needs first."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import flask_migrate
import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from flask.cli import FlaskGroup

from blog import create_app, markup
from blog.extensions import db
from blog.models import Post
from tests.conftest import DATABASE, postgres_database

ROOT = Path(__file__).resolve().parent.parent
NO_TABLES = "Error: The database has no tables yet: run `flask --app blog db upgrade` first."


def test_posts_rerender_leaves_a_body_too_slow_to_render_as_it_was(app, runner, posts, monkeypatch):
    """A body the time limit refuses keeps its page; the others are re-rendered, and the
    command names the refused post and fails."""
    slow, quick = posts.create(2, body="Hello **world**.")
    with app.app_context():
        db.session.execute(sa.update(Post).values(render_version=0, body_html="<p>old</p>"))
        db.session.execute(
            sa.update(Post).where(Post.slug == slow).values(body_markdown="**a" * 60_000)
        )
        db.session.commit()
        slow_id = db.session.scalar(sa.select(Post.id).where(Post.slug == slow))
    monkeypatch.setitem(app.config, "MARKDOWN_TIME_LIMIT", 0.1)
    result = runner.invoke(args=["posts", "rerender"])
    assert result.exit_code == 1, result.output
    assert "Re-rendered 1 posts" in result.output
    assert f"post {slow_id} ({slow})" in result.output and "MARKDOWN_TIME_LIMIT" in result.output
    with app.app_context():
        pages = dict(db.session.execute(sa.select(Post.slug, Post.body_html)).all())
    assert pages[slow] == "<p>old</p>" and "<strong>world</strong>" in pages[quick]


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


@pytest.fixture
def empty_database_url(tmp_path) -> str:
    """A database of the run's kind that no migration has touched."""
    if DATABASE == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.sqlite3'}"
        return
    with postgres_database("fieldnotes_empty") as url:
        yield url


@pytest.fixture
def bare_app(empty_database_url):
    """The app on the empty database: `db upgrade` has not run."""
    app = create_app(
        {"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": empty_database_url}
    )
    yield app
    with app.app_context():
        db.engine.dispose()


# One invocation of every command of the blog's own groups, with arguments it accepts.
PASSWORD = "a long enough passphrase\n"
EVERY_COMMAND = {
    "demo load": ([], None),
    "posts rerender": ([], None),
    "posts import": (["{tmp}"], None),
    "posts export": (["{tmp}/out"], None),
    "editors create": (["ada@example.com", "--name", "Ada", "--password-stdin"], PASSWORD),
    "editors list": ([], None),
    "editors disable": (["ada@example.com"], None),
    "editors enable": (["ada@example.com"], None),
    "editors set-password": (["ada@example.com"], PASSWORD * 2),
    "editors rename": (["ada@example.com", "--name", "Ada"], None),
    "editors set-role": (["ada@example.com", "writer"], None),
}


def test_every_command_of_the_blog_is_listed_here(app):
    """A new command must join EVERY_COMMAND, so the schema refusal is tested for it too."""
    groups = {name: app.cli.commands[name] for name in ("demo", "posts", "editors")}
    found = {f"{group} {name}" for group, cli in groups.items() for name in cli.commands}
    assert found == set(EVERY_COMMAND)


@pytest.mark.parametrize("command", EVERY_COMMAND)
def test_commands_before_db_upgrade_say_so_in_one_line(bare_app, tmp_path, command):
    """No table yet: one line naming the fix and exit 1, before any prompt or work."""
    args, stdin = EVERY_COMMAND[command]
    args = [arg.format(tmp=tmp_path) for arg in args]
    result = bare_app.test_cli_runner().invoke(args=[*command.split(), *args], input=stdin)
    assert (result.exit_code, result.output) == (1, NO_TABLES + "\n")
    assert isinstance(result.exception, SystemExit)
    assert not (tmp_path / "out").exists()


def test_a_schema_behind_the_migrations_is_named(bare_app):
    """Migrations left to apply get the same remedy, worded for it."""
    with bare_app.app_context():
        flask_migrate.upgrade(revision="0010_plain_listing")
    result = bare_app.test_cli_runner().invoke(args=["editors", "list"])
    assert result.exit_code == 1
    assert result.output == (
        "Error: The database schema is older than this code:"
        " run `flask --app blog db upgrade` first.\n"
    )
    with bare_app.app_context():
        flask_migrate.upgrade(revision="heads")
    assert bare_app.test_cli_runner().invoke(args=["editors", "list"]).exit_code == 0


def test_help_and_usage_errors_come_before_the_schema_check(bare_app):
    """Reading a command's help, or being told an argument is missing, needs no tables."""
    runner = bare_app.test_cli_runner()
    shown = runner.invoke(args=["editors", "set-password", "--help"])
    assert shown.exit_code == 0 and "--password-stdin" in shown.output
    missing = runner.invoke(args=["editors", "rename", "ada@example.com"])
    assert missing.exit_code == 2 and "Missing option '--name'" in missing.output


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


def test_a_fresh_install_from_the_shell(tmp_path, monkeypatch):
    """The real `flask` command, no SECRET_KEY, a new SQLite file: one line, then it works."""
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "FLASK_DEBUG"}}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"

    def flask(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "flask", "--app", "blog", *args]
        return subprocess.run(
            command, cwd=ROOT, env=env, input=stdin, capture_output=True, text=True, timeout=120
        )

    # Every command's refusal is tested in-process above; here the real binary's streams.
    before = flask("editors", "list")
    assert (before.returncode, before.stdout, before.stderr) == (1, "", NO_TABLES + "\n")
    assert flask("db", "upgrade").returncode == 0
    created = flask(
        "editors", "create", "ada@example.com", "--name", "Ada", "--password-stdin", stdin=PASSWORD
    )
    assert created.returncode == 0, created.stderr
    # The account is there: listed by the same command line built in this process (a fourth
    # interpreter would only repeat the start-up the three above have shown).
    monkeypatch.delenv("FLASK_DEBUG", raising=False)
    listed = CliRunner().invoke(flask_cli(env["DATABASE_URL"]), ["editors", "list"])
    assert listed.exit_code == 0 and listed.output.startswith("ada@example.com  active")
