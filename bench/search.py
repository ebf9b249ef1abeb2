"""The server CPU time of the worst searches one can type, against a one-word search (issue 19).

`measure(database, urls, rounds=..., log=..., log_dir=...)` copies each data set first (SQLite:
the backup API, into bench/.data; PostgreSQL: CREATE DATABASE ... TEMPLATE), so that nothing
changes a cached data set, and drops the copies at the end. On each copy a worker process
(`python -m bench.search --worker DATABASE_URL`) builds the app with its page cache off, adds
one post of 200,000 characters (the body's limit) through the store, newest of all, every
word of the searches below in its body (and as many as fit in its title and summary), and
then, through Flask's test client (in-process: no server, no network), asks for each search
page:

- `/search?q=flamegraph`, the one-word search of the listing benchmark;
- the worst searches: one word repeated to 200 characters; 200 characters of the commonest
  English words; every prefix of a word, in one search; the same repeated word as one quoted
  phrase; eight words found in every post of the data set, as typed and with the last one
  still being typed; a two-letter prefix; a longer prefix;
- each worst search again within the long post's own topic, so that the long post is among
  the results whatever the ranking makes of it.

Server CPU is the worker's own CPU time (`time.process_time()`) around each request, body
read, plus on PostgreSQL the CPU time of the database server's processes serving the copy
(/proc/<pid>/schedstat, when the server runs on this machine). Rounds alternate the order of
the searches; each search's median is reported, and whether the long post was on its first
page.

    .venv/bin/python -m bench.search sqlite:///bench/.data/sqlite-10000-....sqlite3
    .venv/bin/python -m bench.search postgresql+psycopg://postgres@127.0.0.1/fieldnotes_bench_10000
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import sqlalchemy as sa

from bench import datasets

ROOT = Path(__file__).resolve().parent.parent
SECRET = "bench-not-a-secret"
ROUNDS = 5
WARMUP = 1
ONE_WORD = datasets.SEARCH_TERM
# The commonest English words, to 200 characters (the query limit) and beyond.
COMMON = (
    "the of and to a in is that for it as with was on be by this we are from at or an not "
    "but have which one all were when there can more if so what up out about into than them "
    "only some could then other time these two may first new also after most over like"
)
# Words of the data sets' vocabulary that every post holds (bench/prose.py).
EVERYWHERE = "replica replaced rewrote retried set start settled slow"
WORST = {
    "repeated word": ("the " * 50).strip(),
    "common words": COMMON[:200].rstrip(),
    "every prefix": " ".join(ONE_WORD[:n] for n in range(1, len(ONE_WORD) + 1)),
    "repeated phrase": '"' + ("the " * 50).strip()[:198] + '"',
    "words in every post": EVERYWHERE,
    "words in every post, typing": EVERYWHERE[:-2],
    "two-letter prefix": "th",
    "long prefix": ONE_WORD[:6],
}
LONG_POST_CHARS = 200_000
LONG_TOPIC = ("Longform", "longform")
LONG_SLUG = "bench-long-post-200000-characters"


# --- The long post --------------------------------------------------------------------------


def long_post_text() -> tuple[str, str, str]:
    """Title, summary and body of the long post: every searched word in each of them, and a
    body of the data sets' own prose to exactly LONG_POST_CHARS characters."""
    prefixes = WORST["every prefix"]
    words = " ".join(dict.fromkeys(f"{ONE_WORD} {EVERYWHERE} {prefixes} {COMMON}".split()))
    title = f"A long {ONE_WORD} read: {words}"[:300].rsplit(" ", 1)[0]
    summary = f"Everything about one {ONE_WORD}, in many words: {words}"[:600].rsplit(" ", 1)[0]
    parts = [f"{words}.", ("the " * 60).strip() + "."]
    number = 0
    while sum(len(part) + 2 for part in parts) < LONG_POST_CHARS:
        parts.append(datasets.shared_body(number % datasets.SHARED_BODIES))
        number += 1
    body = "\n\n".join(parts)[:LONG_POST_CHARS]
    return title, summary, body


def add_long_post(app: Any) -> str:
    """Save the long post through the store, published a minute ago; its slug."""
    from datetime import timedelta

    from blog.authoring import store
    from blog.extensions import db
    from blog.models import utcnow

    title, summary, body = long_post_text()
    with app.app_context():
        topics = [store.topic_named(LONG_TOPIC[0], LONG_TOPIC[1]), store.topic_named("Tooling")]
        post = store.new_post(
            title=title,
            slug=LONG_SLUG,
            summary=summary,
            body=body,
            author=store.author_named("Bench Long Writer"),
            topics=topics,
            published_at=utcnow() - timedelta(minutes=1),
        )
        db.session.commit()
        slug = post.slug
        db.session.remove()
    return slug


def requests() -> dict[str, str]:
    """Every search page measured, by name: the one-word search first."""
    paths = {"one word": "/search?" + urlencode({"q": ONE_WORD})}
    for name, text in WORST.items():
        paths[name] = "/search?" + urlencode({"q": text})
    for name, text in WORST.items():
        paths[f"{name}, in {LONG_TOPIC[1]}"] = "/search?" + urlencode(
            {"q": text, "topic": LONG_TOPIC[1]}
        )
    return paths


# --- The database server's CPU --------------------------------------------------------------


class DatabaseClock:
    """CPU seconds spent by the PostgreSQL processes serving one database, read from /proc
    (None when the server is not on this machine, or on SQLite: it runs in the worker)."""

    def __init__(self, url: str) -> None:
        self.admin: sa.Engine | None = None
        self.database = sa.make_url(url).database
        if sa.make_url(url).get_backend_name() == "postgresql":
            self.admin = datasets.postgres_admin()

    def pids(self) -> list[int]:
        """The server processes connected to the database now."""
        if self.admin is None:
            return []
        with self.admin.connect() as connection:
            rows = connection.execute(
                sa.text("SELECT pid FROM pg_stat_activity WHERE datname = :name"),
                {"name": self.database},
            )
            return [pid for (pid,) in rows]

    def seconds(self, pids: list[int]) -> float | None:
        """Their CPU time so far, or None when it cannot be read."""
        if self.admin is None:
            return None
        total = 0
        for pid in pids:
            try:
                total += int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                return None
        return total / 1e9

    def close(self) -> None:
        """Let go of the admin connection."""
        if self.admin is not None:
            self.admin.dispose()


# --- The worker -----------------------------------------------------------------------------


def run(url: str, rounds: int, warmup: int) -> dict[str, Any]:
    """Add the long post on `url` (a throwaway copy), then time every search page."""
    from blog import create_app

    # The long post's Markdown takes about as long as MARKDOWN_TIME_LIMIT allows: its
    # render is not what is measured, so it gets all the time it needs.
    settings = {"SQLALCHEMY_DATABASE_URI": url, "PAGE_CACHE": False, "MARKDOWN_TIME_LIMIT": 60}
    app = create_app({"SECRET_KEY": SECRET, **settings})
    started = time.monotonic()
    slug = add_long_post(app)
    added = time.monotonic() - started
    client = app.test_client()
    paths = requests()
    clock = DatabaseClock(url)
    times: dict[str, list[dict[str, float | None]]] = {name: [] for name in paths}
    shown: dict[str, bool] = {}
    try:
        for _ in range(warmup):
            for name, path in paths.items():
                answer = client.get(path)
                if answer.status_code != 200:
                    raise RuntimeError(f"{path} answered {answer.status_code}")
                shown[name] = f"/posts/{slug}" in answer.get_data(as_text=True)
        names = list(paths)
        for number in range(rounds):
            # Alternate the order, so that drift in the machine's load favours no search.
            for name in names if number % 2 == 0 else names[::-1]:
                pids = clock.pids()
                database_before = clock.seconds(pids)
                before = time.process_time()
                answer = client.get(paths[name])
                answer.get_data()
                app_seconds = time.process_time() - before
                database_after = clock.seconds(pids)
                database_seconds = (
                    database_after - database_before
                    if database_after is not None and database_before is not None
                    else None
                )
                times[name].append({"app": app_seconds, "database": database_seconds})
    finally:
        clock.close()
    result: dict[str, Any] = {"long_post": slug, "long_post_seconds": added, "queries": {}}
    for name, path in paths.items():
        app_ms = statistics.median(t["app"] or 0.0 for t in times[name]) * 1000
        database = [t["database"] for t in times[name] if t["database"] is not None]
        database_ms = statistics.median(database) * 1000 if database else None
        total = statistics.median((t["app"] or 0.0) + (t["database"] or 0.0) for t in times[name])
        result["queries"][name] = {
            "path": path,
            "app_ms": app_ms,
            "database_ms": database_ms,
            "cpu_ms": total * 1000,
            "long_post_shown": shown.get(name, False),
        }
    return result


def worker(url: str, rounds: int, warmup: int) -> None:
    """Measure one copy and print the result as one JSON line on stdout."""
    # Nothing the app prints may mix with the answer: its standard output goes to stderr.
    answer = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        found = run(url, rounds, warmup)
    except Exception as error:
        found = {"error": f"{error.__class__.__name__}: {str(error)[:1000]}"}
    answer.write(json.dumps(found) + "\n")
    answer.flush()


# --- Copies of the data sets ----------------------------------------------------------------


@contextmanager
def copy_of(database: str, url: str, size: int, log: Callable[[str], None]) -> Iterator[str]:
    """A throwaway copy of one data set, dropped afterwards."""
    started = time.monotonic()
    made = datasets.copy(database, url, f"search-copy-{size}" if database == "sqlite" else "search")
    log(f"  copied the {size:,}-post data set in {time.monotonic() - started:.0f} s")
    try:
        yield made
    finally:
        with suppress(Exception):
            datasets.drop_copy(database, made)


# --- Measuring ------------------------------------------------------------------------------


def _worker(url: str, rounds: int, warmup: int, log_file: Path | None) -> dict[str, Any]:
    """Run `python -m bench.search --worker` on one copy and read its answer."""
    with log_file.open("wb") if log_file is not None else open(os.devnull, "wb") as errors:
        done = subprocess.run(
            [sys.executable, "-m", "bench.search", "--worker", url,
             "--rounds", str(rounds), "--warmup", str(warmup)],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            cwd=ROOT,
            env=os.environ | {"PYTHONPATH": str(ROOT), "SECRET_KEY": SECRET},
            timeout=3600,
        )  # fmt: skip
    lines = done.stdout.strip().splitlines()
    if not lines:
        where = f" (its log: {log_file})" if log_file is not None else ""
        return {"error": f"the worker exited with status {done.returncode}{where}"}
    return json.loads(lines[-1])


def summary(found: dict[str, Any]) -> dict[str, Any]:
    """The one-word search, the worst search and their ratio, from one size's result."""
    queries = found["queries"]
    one = queries["one word"]["cpu_ms"]
    worst_name = max((n for n in queries if n != "one word"), key=lambda n: queries[n]["cpu_ms"])
    worst = queries[worst_name]["cpu_ms"]
    return {
        "one_word_ms": one,
        "worst": worst_name,
        "worst_ms": worst,
        "ratio": worst / one if one else None,
        "long_post_shown": all(q["long_post_shown"] for n, q in queries.items() if ", in " in n),
    }


def measure(
    database: str,
    urls: dict[int, str],
    *,
    rounds: int = ROUNDS,
    warmup: int = WARMUP,
    log: Callable[[str], None] = print,
    log_dir: Path | None = None,
) -> dict[str, Any]:
    """Every search page's server CPU at each size, on a copy of each data set with the long
    post added; the workers' logs go to `log_dir` when one is given."""
    result: dict[str, Any] = {
        "how": "in-process with Flask's test client, page cache off, on a copy of each data "
        f"set with a post of {LONG_POST_CHARS:,} characters added",
        "sizes": sorted(urls),
        "rounds": rounds,
        "results": {},
    }
    try:
        for size in sorted(urls):
            with copy_of(database, urls[size], size, log) as copy:
                where = log_dir / f"{database}-search-{size}.log" if log_dir else None
                found = _worker(copy, rounds, warmup, where)
            if found.get("error"):
                result["error"] = f"{size:,} posts: {found['error']}"
                return result
            found |= summary(found)
            result["results"][str(size)] = found
            log(
                f"  {size:,} posts: one word {found['one_word_ms']:.1f} ms, worst "
                f"({found['worst']}) {found['worst_ms']:.1f} ms of server CPU"
            )
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as error:
        result["error"] = f"{error.__class__.__name__}: {str(error)[:1000]}"
    except (sa.exc.SQLAlchemyError, sqlite3.Error) as error:
        result["error"] = f"{error.__class__.__name__}: {str(error)[:1000]}"
    return result


def table(result: dict[str, Any]) -> str:
    """The measurements as Markdown, one row per search page and size."""
    lines = [
        "| Search | Posts | Server CPU ms | of which database | Long post shown |",
        "|---|--:|--:|--:|---|",
    ]
    for size, found in result.get("results", {}).items():
        for name, query in found["queries"].items():
            database = query["database_ms"]
            lines.append(
                f"| {name} `{query['path'][:80]}` | {int(size):,} | {query['cpu_ms']:.1f} "
                f"| {'–' if database is None else f'{database:.1f}'} "
                f"| {'yes' if query['long_post_shown'] else 'no'} |"
            )
    return "\n".join(lines)


def size_in_name(url: str) -> int:
    """The size a data set's name tells (`sqlite-10000-...`, `fieldnotes_bench_100000`,
    `posts-10k`), or 0."""
    name = Path(sa.make_url(url).database or "").name
    sizes = [int(n) * (1000 if k else 1) for n, k in re.findall(r"(\d+)(k?)", name.lower())]
    return max(sizes, default=0)


def main(argv: list[str] | None = None) -> None:
    """`python -m bench.search DATABASE_URL...`: measure copies of these data sets (named
    by their URLs; a size is read from the name when it holds one)."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.search", description=__doc__.split("\n")[0]
    )
    parser.add_argument("urls", nargs="+", metavar="DATABASE_URL")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--warmup", type=int, default=WARMUP)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.urls[0], args.rounds, args.warmup)
        return
    for url in args.urls:
        database = "postgresql" if sa.make_url(url).get_backend_name() == "postgresql" else "sqlite"
        size = size_in_name(url)
        found = measure(database, {size: url}, rounds=args.rounds, warmup=args.warmup)
        if found.get("error"):
            sys.exit(f"{url}: {found['error']}")
        print(f"\n{database}, {url}\n")
        print(table(found))
        for size_text, one in found["results"].items():
            print(
                f"\n{int(size_text):,} posts: worst {one['worst']} {one['worst_ms']:.1f} ms, "
                f"{one['ratio']:.2f}× the one-word search ({one['one_word_ms']:.1f} ms)"
            )


if __name__ == "__main__":
    main()
