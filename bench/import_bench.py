"""How fast `posts import` runs: generate posts as Markdown files, import them twice, report rates.

    .venv/bin/python -m bench.import_bench                      # 10,000 posts into a fresh SQLite
    .venv/bin/python -m bench.import_bench --count 2000 \\
        --database-url postgresql+psycopg://postgres@127.0.0.1:5432/postgres

With --database-url (a PostgreSQL server), the same files are also imported into a throwaway
database created on that server and dropped afterwards. Rates are posts per second; the second
import finds nothing to change, and its speed is given as a ratio to the first.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import flask_migrate  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from bench.prose import Prose  # noqa: E402
from blog import create_app, transfer  # noqa: E402
from blog.extensions import db  # noqa: E402
from blog.transfer.frontmatter import Entry, write_post  # noqa: E402

TOPICS = [
    "Databases", "Operations", "Performance", "Security", "Frontend", "Testing",
    "Networking", "Observability", "Releases", "Storage", "Culture", "Tooling",
]  # fmt: skip
AUTHORS = [f"Writer {letter} Example" for letter in "ABCDEFGHIJKLMNOPQRST"]
START = datetime(2015, 1, 1, 9, 0)


def generate(folder: Path, count: int, words: int) -> None:
    """Write `count` seeded posts: mostly YAML front matter, one in ten with a Pelican header."""
    for number in range(count):
        prose = Prose(f"import-bench-{number}")
        rng = prose.rng
        published = START + timedelta(hours=7 * number, minutes=rng.randrange(60))
        entry = Entry(
            title=prose.title(),
            slug=f"post-{number:05d}",
            author=rng.choice(AUTHORS),
            topics=rng.sample(TOPICS, rng.randint(1, 3)),
            summary=prose.summary(200) if rng.random() < 0.5 else "",
            published_at=published,
            updated_at=published + timedelta(days=rng.randint(1, 90))
            if rng.random() < 0.2
            else None,
            draft=rng.random() < 0.05,
            featured=rng.random() < 0.01,
            editors_pick=rng.random() < 0.05,
            body=prose.body(words),
        )
        folder.joinpath(f"{number // 1000:02d}").mkdir(exist_ok=True)
        path = folder / f"{number // 1000:02d}" / f"{number:05d}-{entry.slug}.md"
        path.write_text(_pelican(entry) if number % 10 == 9 else write_post(entry), "utf-8")


def _pelican(entry: Entry) -> str:
    """The same post with a fence-less `Key: value` header."""
    lines = [
        f"Title: {entry.title}",
        f"Slug: {entry.slug}",
        f"Date: {entry.published_at:%Y-%m-%d %H:%M}",
        f"Category: {entry.topics[0]}",
        f"Tags: {', '.join(entry.topics[1:])}",
        f"Author: {entry.author}",
    ]
    if entry.summary:
        lines.append(f"Summary: {entry.summary}")
    if entry.draft:
        lines.append("Status: draft")
    return "\n".join(lines) + f"\n\n{entry.body}\n"


@contextmanager
def throwaway_postgres(server: str) -> Iterator[str]:
    """A fresh database on the server for the run, dropped afterwards."""
    url = sa.make_url(server)
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    name = f"fieldnotes_bench_{uuid.uuid4().hex[:12]}"
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def measure(label: str, url: str, folder: Path, count: int) -> None:
    """Import the folder twice into the database at `url` and print both rates.

    Runs in a child process per database, so each gets an app of its own.
    """
    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        flask_migrate.upgrade(revision="heads")
        timings = []
        for _ in range(2):
            started = time.perf_counter()
            counts = transfer.import_posts(folder, default_author="Bench")
            timings.append(time.perf_counter() - started)
            print(
                f"{label:<10} {counts!s:<42} {timings[-1]:8.1f} s"
                f" {count / timings[-1]:9.0f} posts/s"
            )
        stored = db.session.scalar(sa.select(sa.func.count()).select_from(transfer.Post))
        db.session.remove()
        db.engine.dispose()
    assert stored == count, f"{stored} posts stored, {count} expected"
    print(f"{label:<10} the unchanged re-import runs {timings[0] / timings[1]:.1f}x as fast")


def _in_child(label: str, url: str, folder: Path, count: int) -> None:
    """Run `measure` in a forked process and fail loudly when it does."""
    child = multiprocessing.get_context("fork").Process(
        target=measure, args=(label, url, folder, count)
    )
    child.start()
    child.join()
    if child.exitcode != 0:
        raise SystemExit(f"{label}: the import failed (exit code {child.exitcode})")


def main() -> None:
    """Generate the posts once, check them without a database, then import per database."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000, help="posts to generate")
    parser.add_argument("--words", type=int, default=400, help="about this many words a body")
    parser.add_argument("--database-url", help="a PostgreSQL server to also import into")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fieldnotes-import-bench-") as scratch:
        folder = Path(scratch) / "posts"
        folder.mkdir()
        started = time.perf_counter()
        generate(folder, args.count, args.words)
        print(f"generated {args.count} posts in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        loaded, problems = transfer.read_sources(transfer.markdown_files(folder))
        elapsed = time.perf_counter() - started
        assert not problems and len(loaded) == args.count, problems[:5]
        print(f"{'read':<10} {'checked, no database':<42} {elapsed:8.1f} s"
              f" {args.count / elapsed:9.0f} posts/s")  # fmt: skip
        _in_child("sqlite", f"sqlite:///{Path(scratch) / 'bench.sqlite3'}", folder, args.count)
        if args.database_url:
            with throwaway_postgres(args.database_url) as url:
                _in_child("postgresql", url, folder, args.count)


if __name__ == "__main__":
    main()
