"""Crash safety: kill -9 the server and the importer in the middle of writes, then check.

    python -m bench.crash --db sqlite
    python -m bench.crash --db postgresql

Each round serves the blog with gunicorn on 127.0.0.1 while editors save posts through the
authoring routes, starts `flask posts import` on a folder of new posts, waits until the
import is inside its write transaction, and then kills the server (master and workers) and
the importer with SIGKILL at the same moment. Then:

- SQLite: `PRAGMA integrity_check` and `PRAGMA foreign_key_check` on the reopened file;
- every save the server acknowledged is stored with its text (or with the text of a save
  that was in flight at the kill, which may have committed without an answer);
- the killed import left all of its posts or none;
- the server starts again and serves pages, and re-running the import completes.

Rounds run on the same database, one after the other; the run is bounded (--rounds, 3 by
default, about half a minute each) and cleans up after itself. Exit status 0 when every
check passed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa

from bench.soak import (
    EDITOR_PASSWORD,
    LOCK_VERSION,
    PUBLISHED_AT,
    ROOT,
    Browser,
    _save,
    app_env,
    body_text,
    csrf_of,
    fetch,
    flask,
    post_fields,
    prepare,
    start_server,
    throwaway_database,
)

WRITERS = 4
# The importer's PostgreSQL connections carry this name, so the check can tell them apart.
IMPORTER = "fieldnotes-crash-import"


# Editors saving until the crash -------------------------------------------------------------------


@dataclass
class Tracked:
    """One post as its editor knows it: the last acknowledged text, and a save in flight."""

    post_id: int
    slug: str
    acknowledged: tuple[str, str]
    in_flight: tuple[str, str] | None = None


@dataclass
class Writer:
    """One editor's session and what the server told it was saved."""

    email: str
    posts: dict[int, Tracked] = field(default_factory=dict)
    acknowledged: int = 0
    pending_create: tuple[str, str] | None = None
    errors: list[str] = field(default_factory=list)


def write_until_stopped(port: int, writer: Writer, stop: threading.Event, tag: str) -> None:
    """Log in, then create and edit posts until the server goes away or `stop` is set."""
    rng = random.Random(writer.email)
    browser = Browser(port)
    try:
        token = csrf_of(browser.get("/login").text)
        fields = {"csrf_token": token, "email": writer.email, "password": EDITOR_PASSWORD}
        if browser.post_form("/login", fields).status != 303:
            writer.errors.append("login refused")
            return
    except (OSError, http.client.HTTPException, RuntimeError) as error:
        writer.errors.append(f"login: {error!r}")
        return
    number = 0
    while not stop.is_set():
        htmx = rng.random() < 0.5
        try:
            if not writer.posts or rng.random() < 0.5:
                number += 1
                title = f"Crash {tag} {writer.email.split('@')[0]} post {number}"
                body = body_text(title, 1, rng)
                page = browser.get("/editor/posts/new").text
                fields = post_fields(title, body, "Crash Writer", "Databases, Crash tests")
                writer.pending_create = (title, body)
                answer, post_id = _save(
                    browser, "/editor/posts/new", fields | {"csrf_token": csrf_of(page)}, htmx
                )
                writer.pending_create = None
                if post_id is None:
                    writer.errors.append(f"create answered {answer.status}")
                    continue
                slug = "-".join(title.lower().split())
                writer.posts[post_id] = Tracked(post_id, slug, (title, body))
            else:
                tracked = writer.posts[rng.choice(list(writer.posts))]
                page = browser.get(f"/editor/posts/{tracked.post_id}").text
                title = f"{tracked.acknowledged[0].split(' (edit')[0]} (edit {number})"
                number += 1
                body = body_text(title, number, rng)
                fields = post_fields(
                    title,
                    body,
                    "Crash Writer",
                    "Databases, Crash tests",
                    slug=tracked.slug,
                    csrf_token=csrf_of(page),
                    lock_version=LOCK_VERSION.search(page).group(1),
                    published_at=PUBLISHED_AT.search(page).group(1),
                )
                tracked.in_flight = (title, body)
                answer, post_id = _save(browser, f"/editor/posts/{tracked.post_id}", fields, htmx)
                if post_id is None:
                    writer.errors.append(f"edit answered {answer.status}")
                    continue
                tracked.acknowledged, tracked.in_flight = (title, body), None
            writer.acknowledged += 1
        except (OSError, http.client.HTTPException, AttributeError, RuntimeError):
            return  # the server is gone: whatever was in flight stays marked as such


# The importer -------------------------------------------------------------------------------------


def import_folder(folder: Path, tag: str, count: int) -> Path:
    """`count` Markdown posts with front matter, new slugs for this round."""
    rng = random.Random(tag)
    target = folder / f"import-{tag}"
    target.mkdir()
    for n in range(count):
        title = f"Imported {tag} number {n}"
        body = body_text(title, 1, rng)
        (target / f"imported-{tag}-{n}.md").write_text(
            f"---\ntitle: {title}\nslug: imported-{tag}-{n}\ndate: 2024-05-{1 + n % 28:02d}\n"
            f"topics: [Operations, Crash imports]\nauthor: Import Robot\n---\n\n{body}"
        )
    return target


def start_import(env: dict[str, str], folder: Path, log: Path) -> subprocess.Popen:
    """`flask posts import FOLDER`, in its own process group."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "flask", "--app", "blog", "posts", "import", str(folder)],
            cwd=ROOT,
            env=env | {"PGAPPNAME": IMPORTER},
            stdout=out,
            stderr=out,
            start_new_session=True,
        )


def import_is_writing(database_url: str, importer: subprocess.Popen) -> bool:
    """True while the importer holds a write transaction open (not just a web save's)."""
    if database_url.startswith("sqlite"):
        # The import holds SQLite's write lock for seconds; a web save for milliseconds.
        path = sa.make_url(database_url).database
        for _ in range(5):
            probe = sqlite3.connect(path, timeout=0, isolation_level=None)
            try:
                probe.execute("BEGIN IMMEDIATE")
                probe.execute("ROLLBACK")
                return False
            except sqlite3.OperationalError:
                time.sleep(0.1)
            finally:
                probe.close()
        return importer.poll() is None
    engine = sa.create_engine(database_url)
    try:
        with engine.connect() as connection:
            held = connection.execute(
                sa.text(
                    "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                    "JOIN pg_stat_activity a ON a.pid = l.pid "
                    "WHERE c.relname = 'posts' AND l.mode = 'RowExclusiveLock' "
                    "AND a.application_name = :name"
                ),
                {"name": IMPORTER},
            ).scalar()
    finally:
        engine.dispose()
    return bool(held) and importer.poll() is None


# Checks after the crash ---------------------------------------------------------------------------


def store_state(database_url: str, tag: str) -> dict[str, object]:
    """What the database holds after the crash, and its integrity checks."""
    engine = sa.create_engine(database_url)
    with engine.connect() as connection:
        rows = connection.execute(
            sa.text("SELECT id, title, body_markdown FROM posts WHERE title LIKE :p"),
            {"p": f"Crash {tag} %"},
        ).all()
        imported = connection.execute(
            sa.text("SELECT count(*) FROM posts WHERE slug LIKE :p"), {"p": f"imported-{tag}-%"}
        ).scalar()
        integrity = foreign_keys = None
        if engine.dialect.name == "sqlite":
            integrity = connection.exec_driver_sql("PRAGMA integrity_check").scalar()
            foreign_keys = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    engine.dispose()
    return {
        "posts": {row.id: (row.title, row.body_markdown) for row in rows},
        "imported": imported,
        "integrity_check": integrity,
        "foreign_key_problems": len(foreign_keys or []),
    }


def lost_saves(writers: list[Writer], posts: dict[int, tuple[str, str]]) -> list[str]:
    """Acknowledged saves missing from the store (a save in flight may have won instead)."""
    lost = []
    for writer in writers:
        for tracked in writer.posts.values():
            stored = posts.get(tracked.post_id)
            allowed = {tracked.acknowledged, tracked.in_flight}
            if stored not in allowed:
                lost.append(f"{tracked.acknowledged[0]}: stored {stored and stored[0]!r}")
    return lost


@dataclass
class Round:
    """What one crash round found."""

    number: int
    killed_after_seconds: float
    import_was_writing: bool
    acknowledged_saves: int
    lost_saves: list[str]
    import_left: int
    import_size: int
    integrity_check: str | None
    foreign_key_problems: int
    serves_after_restart: bool
    reimport: str
    imported_after_reimport: int
    web_errors_before_kill: list[str]

    @property
    def expected_reimport(self) -> str:
        """What running the import again must say: it finishes what the kill stopped."""
        if self.import_left == 0:
            return f"created {self.import_size}, updated 0, unchanged 0"
        return f"created 0, updated 0, unchanged {self.import_size}"

    @property
    def passed(self) -> bool:
        """Everything held."""
        return (
            not self.lost_saves
            and self.import_left in (0, self.import_size)
            and self.integrity_check in (None, "ok")
            and self.foreign_key_problems == 0
            and self.serves_after_restart
            and self.reimport == self.expected_reimport
            and self.imported_after_reimport == self.import_size
            and not self.web_errors_before_kill
        )


def crash_round(
    number: int, env: dict[str, str], database_url: str, folder: Path, args: argparse.Namespace
) -> Round:
    """Serve, write, import, kill -9 everything, then check and restart."""
    tag = f"r{number}{uuid.uuid4().hex[:4]}"
    rng = random.Random(tag)
    source = import_folder(folder, tag, args.import_size)
    log = folder / f"round-{number}.log"
    server = start_server(env, args.workers, log)
    stop = threading.Event()
    writers = [Writer(f"soak-editor-{n}@example.com") for n in range(WRITERS)]
    threads = [
        threading.Thread(target=write_until_stopped, args=(server.port, writer, stop, tag))
        for writer in writers
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    # Let the editors get going (logged in, a few saves each), then start the import.
    warm = time.monotonic() + 30
    while time.monotonic() < warm and sum(w.acknowledged for w in writers) < 4 * WRITERS:
        time.sleep(0.1)
    time.sleep(rng.uniform(0.0, 1.0))
    importer = start_import(env, source, log)
    writing = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and importer.poll() is None:
        if import_is_writing(database_url, importer):
            writing = True
            time.sleep(rng.uniform(0.0, 0.5))  # somewhere inside the transaction
            break
        time.sleep(0.05)
    killed_after = time.monotonic() - started
    errors_before_kill = [e for writer in writers for e in writer.errors]
    for process in (server.process, importer):
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    server.process.wait(30)
    importer.wait(30)
    stop.set()
    for thread in threads:
        thread.join(60)

    state = store_state(database_url, tag)
    lost = lost_saves(writers, state["posts"])
    restarted = start_server(env, args.workers, log)
    try:
        serves = all(
            fetch(restarted.port, "GET", path).status == 200
            for path in ("/", "/feed.atom", "/sitemap.xml", "/search?q=crash")
        )
    finally:
        restarted.stop()
    reimport = flask(env, "posts", "import", str(source)).strip().splitlines()[-1]
    after = store_state(database_url, tag)
    return Round(
        number=number,
        killed_after_seconds=round(killed_after, 2),
        import_was_writing=writing,
        acknowledged_saves=sum(writer.acknowledged for writer in writers),
        lost_saves=lost,
        import_left=state["imported"],
        import_size=args.import_size,
        integrity_check=state["integrity_check"],
        foreign_key_problems=state["foreign_key_problems"],
        serves_after_restart=serves,
        reimport=reimport,
        imported_after_reimport=after["imported"],
        web_errors_before_kill=errors_before_kill,
    )


def main(argv: list[str] | None = None) -> int:
    """Run the crash rounds and print what each found; exit status 0 when all passed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers")
    parser.add_argument("--import-size", type=int, default=300, help="posts per import")
    parser.add_argument("--json", type=Path, help="also write the results here as JSON")
    args = parser.parse_args(argv)
    rounds: list[Round] = []
    with (
        tempfile.TemporaryDirectory(prefix="fieldnotes-crash-") as tmp,
        throwaway_database(args.db, Path(tmp)) as database_url,
    ):
        env = app_env(database_url)
        prepare(env, WRITERS)
        for number in range(1, args.rounds + 1):
            rounds.append(crash_round(number, env, database_url, Path(tmp), args))
            found = rounds[-1]
            print(
                f"round {number}: killed {found.killed_after_seconds}s in"
                f" (import {'inside' if found.import_was_writing else 'outside'} its write"
                f" transaction); {found.acknowledged_saves} saves acknowledged,"
                f" {len(found.lost_saves)} lost; import left {found.import_left}"
                f"/{found.import_size}; integrity_check {found.integrity_check or 'n/a'};"
                f" foreign key problems {found.foreign_key_problems};"
                f" serves after restart {found.serves_after_restart};"
                f" re-import: {found.reimport!r}; web errors before the kill"
                f" {len(found.web_errors_before_kill)}; {'PASS' if found.passed else 'FAIL'}",
                flush=True,
            )
    passed = all(found.passed for found in rounds)
    print(f"crash safety on {args.db}: {'PASS' if passed else 'FAIL'}")
    if args.json:
        args.json.write_text(json.dumps([vars(r) for r in rounds], indent=2, default=str))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
