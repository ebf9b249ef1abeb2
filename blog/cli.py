"""Command-line groups under `flask --app blog`: `demo` now, more as the blog grows."""

from __future__ import annotations

from datetime import timedelta

import click
import sqlalchemy as sa
from flask import Flask
from flask.cli import AppGroup

from blog.extensions import db
from blog.models import Post, utcnow

demo = AppGroup("demo", help="Demo content for trying the blog out.")
posts = AppGroup("posts", help="Work on posts in bulk: render, import, export.")


@demo.command("load")
def demo_load() -> None:
    """Load the demo topics, authors and posts into an empty database."""
    from blog import demo_data, store

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


def init_app(app: Flask) -> None:
    """Attach the command groups to the app's CLI."""
    app.cli.add_command(demo)
    app.cli.add_command(posts)
