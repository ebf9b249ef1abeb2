"""The demo content: the Markdown files in demo/, imported with their dates moved to today."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

import sqlalchemy as sa
from flask import current_app

from blog.authoring import store
from blog.config import ROOT
from blog.database import begin_write
from blog.extensions import db
from blog.models import Post, utcnow
from blog.transfer.files import Counts, ImportRefused, import_posts
from blog.transfer.frontmatter import Entry, Problem, read_post, write_post

DEMO_FOLDER = ROOT / "demo"
# The files of the demo folder that are not posts.
README = "README.md"
TOPICS_FILE = "topics.txt"


@dataclass(frozen=True)
class DemoPost:
    """A demo post file and what it holds."""

    path: Path
    entry: Entry


@dataclass(frozen=True)
class DemoLoad:
    """What loading the demo did: nothing at all when the database already held posts."""

    existing: int
    posts: int = 0
    topics: int = 0


def post_files(folder: Path = DEMO_FOLDER) -> list[Path]:
    """The demo's posts: every .md file at the top of the folder except its README."""
    return sorted(path for path in folder.glob("*.md") if path.name != README and path.is_file())


def read_demo(folder: Path = DEMO_FOLDER) -> list[DemoPost]:
    """Every demo post, read and checked; ImportRefused lists the problems of unsound files."""
    posts: list[DemoPost] = []
    problems: list[Problem] = []
    for path in post_files(folder):
        parsed = read_post(path.read_bytes(), str(path))
        problems += parsed.problems
        if parsed.entry is not None:
            posts.append(DemoPost(path, parsed.entry))
    if problems:
        raise ImportRefused(problems)
    return posts


def topic_order(folder: Path = DEMO_FOLDER) -> list[str]:
    """The demo's topic names in the order the topic filter shows them (topics.txt)."""
    path = folder / TOPICS_FILE
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip()]


def date_shift(entries: list[Entry], now: datetime) -> timedelta:
    """How far every date moves so that the newest published post comes out at `now`."""
    dates = [entry.published_at for entry in entries if entry.published_at and not entry.draft]
    return now - max(dates) if dates else timedelta(0)


def shifted(entry: Entry, by: timedelta) -> Entry:
    """The entry with its publish and update dates moved by `by`."""
    return replace(
        entry,
        published_at=entry.published_at + by if entry.published_at else None,
        updated_at=entry.updated_at + by if entry.updated_at else None,
    )


def copy_shifted(posts: list[DemoPost], folder: Path, target: Path, now: datetime) -> None:
    """Write the posts into `target` with their dates moved so the newest is at `now`,
    and copy the folder's other files (images) beside them, by the same relative paths."""
    by = date_shift([post.entry for post in posts], now)
    for post in posts:
        (target / post.path.name).write_text(write_post(shifted(post.entry, by)), encoding="utf-8")
    for path in folder.rglob("*"):
        relative = path.relative_to(folder)
        if path.is_file() and path.suffix.lower() not in (".md", ".markdown"):
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target / relative)


def import_shifted(posts: list[DemoPost], folder: Path, now: datetime) -> Counts:
    """Import shifted copies of the posts through the importer, reporting problems against
    the demo's own files rather than their short-lived copies."""
    with tempfile.TemporaryDirectory(prefix="fieldnotes-demo-") as scratch:
        copy_shifted(posts, folder, Path(scratch), now)
        author = current_app.config["SITE_NAME"]
        try:
            return import_posts(Path(scratch), default_author=author)
        except ImportRefused as refused:
            problems = [
                replace(problem, path=problem.path.replace(scratch, str(folder)))
                for problem in refused.problems
            ]
            raise ImportRefused(problems) from None


def load_demo(folder: Path | None = None, now: datetime | None = None) -> DemoLoad:
    """Import the demo posts (default: demo/), the newest dated `now` (default: this minute),
    into a database without posts, in one write transaction; one with posts is left alone."""
    folder = folder or DEMO_FOLDER
    begin_write()
    try:
        existing = db.session.scalar(sa.select(sa.func.count(Post.id))) or 0
        if existing:
            return DemoLoad(existing)
        posts = read_demo(folder)
        # Created first so the filter keeps the demo's order, not the files' alphabetical one.
        for name in topic_order(folder):
            store.topic_named(name)
        # The importer commits this same transaction when it succeeds.
        counts = import_shifted(posts, folder, (now or utcnow()).replace(second=0, microsecond=0))
    finally:
        if db.session().in_transaction():
            db.session.rollback()
    topics = {name for post in posts for name in post.entry.topics}
    return DemoLoad(0, posts=counts.created, topics=len(topics))
