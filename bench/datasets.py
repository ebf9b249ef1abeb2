"""Benchmark data sets: N published posts over 8 topics, built through the store and cached.

A data set of `size` posts is a pure function of `size` and GENERATOR_VERSION: post `i` (0 is
the newest) always has the same title, summary, body, topics, authors and dates, whatever the
size, so the first page of every size shows the same cards. Posts are saved with
`blog.authoring.store.new_post` in batches, after `flask db upgrade`, exactly as the app saves them.

Bodies: 200 distinct ~1,470-word Markdown documents (sections, lists, code), reused round-robin
behind a per-post first paragraph, so every body is distinct (~1,500 words). Rendering 100,000
such bodies would take most of an hour, so while building, `markup.render` is memoized: the
shared part is rendered once, the first paragraph on its own, and the two are joined. The join
is checked against a full render the first time each shared body is used; if any differs, the
build falls back to full renders for everything.

Built data sets are kept between runs, keyed by a fingerprint of the schema (the migrations'
head revisions), the Markdown pipeline version and GENERATOR_VERSION. When only the schema
moved on, the cached data set is upgraded with the migrations, as a production database would
be (rebuilt from scratch if they fail, or with `--rebuild`):
- SQLite: `bench/.data/sqlite-<size>-<fingerprint>.sqlite3` (built under another name, then
  renamed, so a cached file is always complete);
- PostgreSQL: database `fieldnotes_bench_<size>` (BENCH_POSTGRES_PREFIX changes the prefix) on
  BENCH_POSTGRES_URL's server, with the fingerprint as its comment (built as `..._building`,
  then renamed), analyzed after the load.

Run alone: `.venv/bin/python -m bench.datasets --database sqlite --sizes 1000,10000`.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import sqlalchemy as sa
from alembic.script import ScriptDirectory
from slugify import slugify

from bench.prose import Prose

ROOT = Path(__file__).resolve().parent.parent
CACHE_DIR = Path(__file__).resolve().parent / ".data"
# 2: a quarter of the posts have co-authors (one in twenty, two).
GENERATOR_VERSION = 2
POSTGRES_SERVER = os.environ.get(
    "BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
# PostgreSQL data sets are databases named <prefix>_<size> on that server.
POSTGRES_PREFIX = os.environ.get("BENCH_POSTGRES_PREFIX", "fieldnotes_bench")
DATABASES = ("sqlite", "postgresql")
BATCH = 2000
SHARED_BODIES = 200
BODY_WORDS = 1470
SUMMARY_CHARS = 300
# Every post is published this many hours before the next newer one, counting back from here.
NEWEST = datetime(2026, 6, 1, 9, 0)

TOPICS = (
    ("Databases", "databases"),
    ("Infrastructure", "infrastructure"),
    ("Reliability", "reliability"),
    ("Observability", "observability"),
    ("Security", "security"),
    ("Performance", "performance"),
    ("Frontend", "frontend"),
    ("Tooling", "tooling"),
)
AUTHORS = (
    "Maren Holt",
    "Idris Okafor",
    "Wen Lindqvist",
    "Tomas Reyes",
    "Priya Castellano",
    "Jonah Mbeki",
    "Astrid Noor",
    "Felix Aranda",
    "Keiko Brandt",
    "Samir Oyelaran",
    "Lucia Varga",
    "Oren Whitfield",
)
# The search scenario's query: a less frequent term of the vocabulary (still in many posts).
SEARCH_TERM = "flamegraph"


@dataclass(frozen=True)
class PostSpec:
    """Everything `store.new_post` needs for post `index` (0 is the newest)."""

    index: int
    title: str
    slug: str
    summary: str
    body: str
    topics: tuple[int, ...]
    author: int
    coauthors: tuple[int, ...]  # after `author`, in order
    published_at: datetime
    updated_at: datetime | None
    featured: bool
    editors_pick: bool


@dataclass(frozen=True)
class DataSet:
    """A built data set: where it is and what it holds."""

    database: str
    size: int
    url: str
    fingerprint: str
    origin: str  # cached, built, or "upgraded from ..."
    newest_slug: str
    topic_slug: str


_shared_bodies: dict[int, str] = {}


def shared_body(number: int) -> str:
    """One of the SHARED_BODIES documents that bodies reuse."""
    if number not in _shared_bodies:
        _shared_bodies[number] = Prose(f"body:{number}").body(BODY_WORDS)
    return _shared_bodies[number]


def post_spec(index: int) -> PostSpec:
    """The post at `index` (0 is the newest); the same in every data set."""
    prose = Prose(f"post:{index}")
    title = prose.title()
    summary = prose.summary(SUMMARY_CHARS)
    body = f"{prose.sentences(2)}\n\n{shared_body(index % SHARED_BODIES)}"
    primary = index % len(TOPICS)
    second = (index * 5 + 3) % len(TOPICS)
    topics = (primary, second) if index % 3 == 0 and second != primary else (primary,)
    published = NEWEST - timedelta(hours=index)
    author = (index * 7) % len(AUTHORS)
    coauthors: tuple[int, ...] = ()
    if index % 4 == 1:  # co-written: the author and one or two others
        more = 2 if index % 20 == 1 else 1
        coauthors = tuple((author + step * 5) % len(AUTHORS) for step in range(1, more + 1))
    return PostSpec(
        index=index,
        title=title,
        slug=f"{slugify(title, max_length=180)}-{index + 1}",
        summary=summary,
        body=body,
        topics=topics,
        author=author,
        coauthors=coauthors,
        published_at=published,
        updated_at=published + timedelta(days=3) if index % 10 == 3 else None,
        featured=index % 97 == 5,
        editors_pick=index % 53 == 7,
    )


def content_key() -> str:
    """What the rows of a data set depend on: the Markdown pipeline and this generator."""
    from blog import markup

    return f"p{markup.PIPELINE_VERSION}-g{GENERATOR_VERSION}"


def fingerprint() -> str:
    """What a cached data set must match: the schema's head revisions and `content_key()`."""
    heads = ScriptDirectory(str(ROOT / "migrations")).get_heads()
    return f"{'+'.join(sorted(heads))}-{content_key()}"


# --- Rendering while building ----------------------------------------------------------------


@contextmanager
def memoized_render(log: Callable[[str], None]) -> Iterator[None]:
    """Render each shared body once while building (see the module docstring)."""
    from blog import markup
    from blog.markup.text import TextStats, minutes_for, text_stats

    original = markup.render
    parts: dict[tuple[str, bool], tuple[markup.Rendered, TextStats]] = {}
    state = {"compose": True}

    def piece(text: str, nofollow: bool) -> tuple[markup.Rendered, TextStats]:
        rendered = original(text, nofollow=nofollow)
        return rendered, text_stats(rendered.html)

    def compose(head: str, rest: str, nofollow: bool) -> markup.Rendered:
        first, first_stats = piece(head, nofollow)
        second, second_stats = parts[(rest, nofollow)]
        stats = TextStats(
            prose_words=first_stats.prose_words + second_stats.prose_words,
            code_words=first_stats.code_words + second_stats.code_words,
        )
        return markup.Rendered(
            html=f"{first.html}\n{second.html}",
            toc=[*first.toc, *second.toc],
            reading_minutes=minutes_for(stats, markup.WORDS_PER_MINUTE),
            summary=first.summary,
            words=stats.prose_words + stats.code_words,
        )

    def render(
        markdown_text: str,
        *,
        nofollow: bool = False,
        images: Mapping[str, markup.Copies] | None = None,
    ) -> markup.Rendered:
        head, _, rest = markdown_text.partition("\n\n")
        if not state["compose"] or not rest or images:
            return original(markdown_text, nofollow=nofollow, images=images)
        if (rest, nofollow) not in parts:
            parts[(rest, nofollow)] = piece(rest, nofollow)
            full = original(markdown_text, nofollow=nofollow)
            if compose(head, rest, nofollow) != full:
                log("  joined render differs from a full render: rendering every body in full")
                state["compose"] = False
            return full
        return compose(head, rest, nofollow)

    markup.render = render
    try:
        yield
    finally:
        markup.render = original


# --- Building ---------------------------------------------------------------------------------


def _app(url: str):
    """The real app on `url`, for building and probing."""
    from blog import create_app

    return create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": url})


def load(url: str, size: int, log: Callable[[str], None] = print) -> None:
    """Create the schema at `url` and save `size` posts through the store, in batches."""
    import flask_migrate

    from blog.authoring import store
    from blog.extensions import db

    app = _app(url)
    with app.app_context():
        flask_migrate.upgrade(revision="heads")
        topics = [store.topic_named(name, slug) for name, slug in TOPICS]
        authors = [store.author_named(name) for name in AUTHORS]
        db.session.commit()
        started = time.monotonic()
        with memoized_render(log):
            # Oldest first, so ids grow with publish dates as they do on a real blog.
            for start in range(0, size, BATCH):
                for index in range(size - 1 - start, max(-1, size - 1 - start - BATCH), -1):
                    spec = post_spec(index)
                    store.new_post(
                        title=spec.title,
                        slug=spec.slug,
                        body=spec.body,
                        summary=spec.summary,
                        author=authors[spec.author],
                        coauthors=[authors[a] for a in spec.coauthors],
                        topics=[topics[t] for t in spec.topics],
                        published_at=spec.published_at,
                        updated_at=spec.updated_at,
                        featured=spec.featured,
                        editors_pick=spec.editors_pick,
                    )
                db.session.commit()
                done = min(size, start + BATCH)
                rate = done / max(time.monotonic() - started, 1e-6)
                log(f"  {done:,}/{size:,} posts ({rate:,.0f} posts/s)")
        db.session.remove()
        db.engine.dispose()


def upgrade(url: str, log: Callable[[str], None] = print) -> bool:
    """Bring a cached data set to the current schema with the migrations; False on failure."""
    import flask_migrate

    from blog.extensions import db

    app = _app(url)
    try:
        with app.app_context():
            flask_migrate.upgrade(revision="heads")
            db.session.remove()
            db.engine.dispose()
    except (Exception, SystemExit) as error:
        log(f"  the migrations failed on it ({error.__class__.__name__}: {error})")
        return False
    return True


def _sqlite_path(size: int, print_: str) -> Path:
    """Where the SQLite data set of `size` posts with this fingerprint lives."""
    return CACHE_DIR / f"sqlite-{size}-{print_}.sqlite3"


def _remove_sqlite(path: Path) -> None:
    """Delete a SQLite file with its WAL and shared-memory companions."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _move_sqlite(source: Path, target: Path) -> None:
    """Rename a SQLite file together with its WAL and shared-memory companions."""
    _remove_sqlite(target)
    for suffix in ("-wal", "-shm"):
        if Path(f"{source}{suffix}").exists():
            Path(f"{source}{suffix}").replace(Path(f"{target}{suffix}"))
    source.replace(target)


def _ensure_sqlite(
    size: int, print_: str, rebuild: bool, log: Callable[[str], None]
) -> tuple[str, str]:
    """The URL of the SQLite data set and where it came from: cached, upgraded or built."""
    path = _sqlite_path(size, print_)
    if path.exists() and not rebuild:
        return f"sqlite:///{path}", "cached"
    CACHE_DIR.mkdir(exist_ok=True)
    building = path.with_name(path.name + ".building")
    _remove_sqlite(building)
    older = sorted(CACHE_DIR.glob(f"sqlite-{size}-*-{content_key()}.sqlite3"))
    origin = "built"
    if older and not rebuild:
        log(f"Upgrading the SQLite data set of {size:,} posts from {older[-1].name}")
        _move_sqlite(older[-1], building)
        if upgrade(f"sqlite:///{building}", log):
            origin = f"upgraded from {older[-1].name}"
        else:
            _remove_sqlite(building)
    if origin == "built":
        log(f"Building the SQLite data set of {size:,} posts ({path.name})")
        load(f"sqlite:///{building}", size, log)
    engine = sa.create_engine(f"sqlite:///{building}")
    with engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    for stale in CACHE_DIR.glob(f"sqlite-{size}-*.sqlite3"):
        _remove_sqlite(stale)
    _move_sqlite(building, path)
    return f"sqlite:///{path}", origin


def postgres_admin() -> sa.Engine:
    """An autocommit engine on the PostgreSQL server's maintenance database."""
    return sa.create_engine(POSTGRES_SERVER, isolation_level="AUTOCOMMIT")


def _drop_sqlite(path: Path) -> None:
    """Delete an SQLite file with its companions."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def copy(database: str, url: str, name: str) -> str:
    """A throwaway copy of a data set, called `name`: SQLite through the backup API (WAL
    content included), PostgreSQL as a new database made from it as a template."""
    if database == "sqlite":
        target_path = CACHE_DIR / f"{name}.sqlite3"
        _drop_sqlite(target_path)
        source = sqlite3.connect(f"file:{sa.make_url(url).database}?mode=ro", uri=True)
        target = sqlite3.connect(target_path)
        try:
            source.backup(target)
        finally:
            target.close()
            source.close()
        return f"sqlite:///{target_path}"
    source_name = sa.make_url(url).database
    copy_name = f"{source_name}_{name}"
    admin = postgres_admin()
    try:
        with admin.connect() as connection:
            version = int(connection.exec_driver_sql("SHOW server_version_num").scalar() or 0)
            strategy = " STRATEGY FILE_COPY" if version >= 150000 else ""
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{copy_name}" WITH (FORCE)')
            # The template must have no other session: wait a little for closing servers.
            for attempt in range(20):
                try:
                    connection.exec_driver_sql(
                        f'CREATE DATABASE "{copy_name}" TEMPLATE "{source_name}"{strategy}'
                    )
                    break
                except sa.exc.OperationalError:
                    if attempt == 19:
                        raise
                    time.sleep(1)
    finally:
        admin.dispose()
    return sa.make_url(url).set(database=copy_name).render_as_string(hide_password=False)


def drop_copy(database: str, url: str) -> None:
    """Remove a copy made by `copy`."""
    if database == "sqlite":
        _drop_sqlite(Path(sa.make_url(url).database or ""))
        return
    admin = postgres_admin()
    try:
        with admin.connect() as connection:
            name = sa.make_url(url).database
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        admin.dispose()


def postgres_reachable() -> bool:
    """True when the benchmark's PostgreSQL server answers."""
    engine = postgres_admin()
    try:
        engine.connect().close()
    except sa.exc.OperationalError:
        return False
    finally:
        engine.dispose()
    return True


def _pg_url(name: str) -> str:
    """The URL of database `name` on the benchmark's server."""
    url = sa.make_url(POSTGRES_SERVER).set(database=name)
    return url.render_as_string(hide_password=False)


def _analyze(name: str) -> None:
    """Vacuum and analyze a freshly loaded PostgreSQL database, as autovacuum soon would."""
    engine = sa.create_engine(_pg_url(name), isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.exec_driver_sql("VACUUM ANALYZE")
    engine.dispose()


def _ensure_postgresql(
    size: int, print_: str, rebuild: bool, log: Callable[[str], None]
) -> tuple[str, str]:
    """The URL of the PostgreSQL data set and where it came from: cached, upgraded or built."""
    name = f"{POSTGRES_PREFIX}_{size}"
    building = f"{name}_building"
    admin = postgres_admin()
    comment = sa.text(
        "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = :name"
    )
    try:
        with admin.connect() as connection:
            stored = connection.execute(comment, {"name": name}).scalar()
        if stored == print_ and not rebuild:
            return _pg_url(name), "cached"
        # Migrations on PostgreSQL run in one transaction: a failed upgrade changes nothing.
        if stored and stored.endswith(f"-{content_key()}") and not rebuild:
            log(f"Upgrading the PostgreSQL data set of {size:,} posts ({name}, was {stored})")
            if upgrade(_pg_url(name), log):
                _analyze(name)
                with admin.connect() as connection:
                    connection.exec_driver_sql(f"COMMENT ON DATABASE \"{name}\" IS '{print_}'")
                return _pg_url(name), f"upgraded from {stored}"
        log(f"Building the PostgreSQL data set of {size:,} posts ({name})")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
            connection.exec_driver_sql(f'CREATE DATABASE "{building}"')
        load(_pg_url(building), size, log)
        _analyze(building)
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            connection.exec_driver_sql(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
            connection.exec_driver_sql(f"COMMENT ON DATABASE \"{name}\" IS '{print_}'")
    finally:
        admin.dispose()
    return _pg_url(name), "built"


def ensure(
    database: str, size: int, *, rebuild: bool = False, log: Callable[[str], None] = print
) -> DataSet:
    """The data set of `size` posts on `database`, built only when the cache lacks it."""
    if database not in DATABASES:
        raise ValueError(f"database must be one of {DATABASES}, not {database!r}")
    if size < 1:
        raise ValueError("a data set needs at least one post")
    print_ = fingerprint()
    if database == "sqlite":
        url, origin = _ensure_sqlite(size, print_, rebuild, log)
    else:
        url, origin = _ensure_postgresql(size, print_, rebuild, log)
    return DataSet(
        database=database,
        size=size,
        url=url,
        fingerprint=print_,
        origin=origin,
        newest_slug=post_spec(0).slug,
        topic_slug=TOPICS[0][1],
    )


def sizes_argument(text: str) -> list[int]:
    """Parse `1000,10000` or `1k,10k,100k` into sizes."""
    sizes = []
    for part in text.split(","):
        part = part.strip().lower()
        number = part[:-1] if part.endswith("k") else part
        if not number.isdigit() or int(number) < 1:
            raise argparse.ArgumentTypeError(f"not a size: {part!r}")
        sizes.append(int(number) * (1000 if part.endswith("k") else 1))
    return sizes


def main() -> None:
    """Build (or find) the data sets named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=DATABASES, action="append")
    parser.add_argument("--sizes", type=sizes_argument, default=[1000, 10000, 100000])
    parser.add_argument("--rebuild", action="store_true", help="build even when cached")
    args = parser.parse_args()
    for database in args.database or ["sqlite"]:
        for size in args.sizes:
            found = ensure(database, size, rebuild=args.rebuild)
            print(f"{database} {size:,}: {found.url} ({found.origin})")


if __name__ == "__main__":
    main()
