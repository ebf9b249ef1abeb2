"""Command-line groups under `flask --app blog`: `demo`, `posts` and `editors`."""

from __future__ import annotations

import click
import sqlalchemy as sa
from flask import Flask

from blog.commands import TablesGroup
from blog.database import begin_write
from blog.extensions import db
from blog.models import Post

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
    from blog.transfer import addresses, site_import

    # Fieldnotes' own files, or another generator's site, told apart by what PATH holds.
    posts.add_command(site_import.import_command, "import")
    # The posts, and their old paths from moved sites in addresses.yml.
    posts.add_command(addresses.export_command, "export")
    app.cli.add_command(demo)
    app.cli.add_command(posts)
    app.cli.add_command(editors)
