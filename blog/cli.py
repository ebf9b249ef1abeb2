"""Command-line groups under `flask --app blog`: `demo`, `posts` and `editors`."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

import click
import sqlalchemy as sa
from flask import Flask
from flask.cli import AppGroup, with_appcontext

from blog import database
from blog.database import begin_write
from blog.extensions import db
from blog.models import Post

UPGRADE = "run `flask --app blog db upgrade` first."
SCHEMA_REFUSALS = {
    database.SCHEMA_MISSING: f"The database has no tables yet: {UPGRADE}",
    database.SCHEMA_BEHIND: f"The database schema is older than this code: {UPGRADE}",
    database.SCHEMA_AHEAD: "The database schema was migrated by a newer version of this code.",
}


def require_schema() -> None:
    """Stop with one line, before any work, unless the migrated schema is in place."""
    try:
        state = database.schema_state()
    except sa.exc.DBAPIError as error:
        url = db.engine.url.render_as_string(hide_password=True)
        reason = (str(error.orig).strip().splitlines() or ["no reason given"])[0]
        raise click.ClickException(f"Cannot open the database {url}: {reason}") from None
    if state != database.SCHEMA_CURRENT:
        raise click.ClickException(SCHEMA_REFUSALS[state])


def _after_schema_check(callback: Callable[..., Any]) -> Callable[..., Any]:
    """The command's callback, run only once `require_schema` is satisfied."""

    @functools.wraps(callback)
    @with_appcontext
    def checked(*args: Any, **kwargs: Any) -> Any:
        require_schema()
        return callback(*args, **kwargs)

    return checked


class TablesGroup(AppGroup):
    """A group of commands that work on the blog's tables.

    Each of its commands, however it was added, checks the schema once its own arguments are
    read (so `--help` and usage errors come first), instead of failing on a missing table.
    """

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, with its callback behind the schema check."""
        command = super().get_command(ctx, cmd_name)
        if command is None or command.callback is None:
            return command
        checked = copy.copy(command)
        checked.callback = _after_schema_check(command.callback)
        return checked


demo = TablesGroup("demo", help="Demo content for trying the blog out.")
posts = TablesGroup("posts", help="Work on posts in bulk: render, import, export.")


@demo.command("load")
def demo_load() -> None:
    """Load the demo topics, authors and posts into an empty database."""
    from blog.transfer import demo as demo_content
    from blog.transfer.files import ImportRefused

    try:
        done = demo_content.load_demo()
    except ImportRefused as refused:
        for problem in refused.problems:
            click.echo(str(problem), err=True)
        raise click.ClickException(
            f"{len(refused.problems)} problem(s) in the demo files; nothing was loaded."
        ) from None
    if done.existing:
        click.echo(f"The database already holds {done.existing} posts; demo content not loaded.")
        return
    click.echo(f"Loaded {done.posts} posts over {done.topics} topics.")


@posts.command("rerender")
@click.option("--batch-size", default=200, show_default=True, help="Posts per transaction.")
@click.option(
    "--all", "everything", is_flag=True, help="Re-render every post, not just stale ones."
)
def posts_rerender(batch_size: int, everything: bool) -> None:
    """Re-render posts stored by an older Markdown pipeline version."""
    from blog import markup
    from blog.authoring import store
    from blog.transfer.frontmatter import terminal_safe

    stale = Post.render_version < markup.PIPELINE_VERSION
    where = sa.true() if everything else stale
    ids = list(db.session.scalars(sa.select(Post.id).where(where).order_by(Post.id)))
    db.session.rollback()
    refused: list[str] = []
    with click.progressbar(length=len(ids), label="Rendering posts") as bar:
        for start in range(0, len(ids), batch_size):
            batch = ids[start : start + batch_size]
            begin_write()
            for post in db.session.scalars(sa.select(Post).where(Post.id.in_(batch))):
                try:
                    store.set_body(post, post.body_markdown)  # renders before it changes
                except markup.TooSlow:  # the post keeps the page it has
                    refused.append(f"post {post.id} ({terminal_safe(post.slug)})")
            db.session.commit()
            bar.update(len(batch))
    done = len(ids) - len(refused)
    click.echo(f"Re-rendered {done} posts (pipeline version {markup.PIPELINE_VERSION}).")
    if refused:
        raise click.ClickException(
            f"{len(refused)} post(s) take longer than MARKDOWN_TIME_LIMIT to render and keep "
            "their pages as they were: " + ", ".join(refused)
        )


def init_app(app: Flask) -> None:
    """Attach the command groups to the app's CLI."""
    from blog.authoring.accounts import editors
    from blog.transfer import files as transfer

    posts.add_command(transfer.import_command, "import")
    posts.add_command(transfer.export_command, "export")
    app.cli.add_command(demo)
    app.cli.add_command(posts)
    app.cli.add_command(editors)
