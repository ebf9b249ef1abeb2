"""Command-line groups under `flask --app blog`: `demo` now, more as the blog grows."""

from __future__ import annotations

from datetime import timedelta

import click
import sqlalchemy as sa
from flask import Flask
from flask.cli import AppGroup

from blog.authoring.accounts import editors
from blog.database import begin_write
from blog.extensions import db
from blog.models import Post, utcnow

demo = AppGroup("demo", help="Demo content for trying the blog out.")
posts = AppGroup("posts", help="Work on posts in bulk: render, import, export.")


@demo.command("load")
def demo_load() -> None:
    """Load the demo topics, authors and posts into an empty database."""
    from blog import demo_data
    from blog.authoring import store

    begin_write()
    existing = db.session.scalar(sa.select(sa.func.count(Post.id))) or 0
    if existing:
        click.echo(f"The database already holds {existing} posts; demo content not loaded.")
        return
    topics = {slug: store.topic_named(name, slug) for name, slug in demo_data.TOPICS}
    now = utcnow().replace(second=0, microsecond=0)
    for entry in demo_data.POSTS:
        published = now - timedelta(days=entry["days_ago"], hours=entry["days_ago"] % 7)
        updated = entry.get("updated_days_ago")
        store.new_post(
            title=entry["title"],
            slug=entry["slug"],
            body=entry["body"],
            summary=entry["summary"],
            author=store.author_named(entry["author"]),
            topics=[topics[slug] for slug in entry["topics"]],
            published_at=published,
            updated_at=now - timedelta(days=updated) if updated is not None else None,
            featured=entry["featured"],
            editors_pick=entry["editors_pick"],
        )
    db.session.commit()
    click.echo(f"Loaded {len(demo_data.POSTS)} posts over {len(topics)} topics.")


@posts.command("rerender")
@click.option("--batch-size", default=200, show_default=True, help="Posts per transaction.")
@click.option(
    "--all", "everything", is_flag=True, help="Re-render every post, not just stale ones."
)
def posts_rerender(batch_size: int, everything: bool) -> None:
    """Re-render posts stored by an older Markdown pipeline version."""
    from blog import markup
    from blog.authoring import store

    stale = Post.render_version < markup.PIPELINE_VERSION
    where = sa.true() if everything else stale
    ids = list(db.session.scalars(sa.select(Post.id).where(where).order_by(Post.id)))
    db.session.rollback()
    with click.progressbar(length=len(ids), label="Rendering posts") as bar:
        for start in range(0, len(ids), batch_size):
            batch = ids[start : start + batch_size]
            begin_write()
            for post in db.session.scalars(sa.select(Post).where(Post.id.in_(batch))):
                store.set_body(post, post.body_markdown)
            db.session.commit()
            bar.update(len(batch))
    click.echo(f"Re-rendered {len(ids)} posts (pipeline version {markup.PIPELINE_VERSION}).")


def init_app(app: Flask) -> None:
    """Attach the command groups to the app's CLI."""
    from blog.transfer import files as transfer

    posts.add_command(transfer.import_command, "import")
    posts.add_command(transfer.export_command, "export")
    app.cli.add_command(demo)
    app.cli.add_command(posts)
    app.cli.add_command(editors)
