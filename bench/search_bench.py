"""Search latency at 10,000 and 100,000 posts: p50/p95/p99 of `blog.reading.search.search_posts`.

For each size, a fresh database gets the schema from the migrations and the posts from a bulk
insert (the search triggers index every row as it lands, as they do for the editor). Bodies are
300 to 1,500 words: a Zipf-distributed background of about 6,000 words (common English and
made-up rare words) around the handful of engineering terms each post dwells on, so query
terms range from "in every post" to "in a handful", and a few known phrases ("kv cache",
"connection pool", ...) appear in a known share of posts. Then a fixed list of 50 queries
(words, phrases, the prefixes a reader types, stems, topic filters, later pages, literal junk)
runs many times through the query function, which does everything a results page needs:
rank, count, cards, snippets.

    .venv/bin/python -m bench.search_bench                     # SQLite, 10,000 and 100,000
    .venv/bin/python -m bench.search_bench --sizes 2000 --rounds 3
    .venv/bin/python -m bench.search_bench --database-url postgresql://postgres@127.0.0.1/postgres

With --database-url, each size also runs on a throwaway database created on that PostgreSQL
server (and dropped afterwards). The SQLite files live in a temporary folder unless --keep.
Target: p95 under 50 ms at 100,000 posts on SQLite. Wall-clock times grow when other work
shares the machine's two cores, so for SQLite (which searches in this process) the CPU time
per search is printed too, with the load average at the end of the run.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

SEED = 20261129
BATCH = 2000
TARGET_P95_MS = 50.0
NOW = datetime(2026, 11, 1, 12, 0)

TOPICS = (
    "Databases",
    "Infrastructure",
    "Reliability",
    "Observability",
    "Security",
    "Performance",
    "Frontend",
    "Machine Learning",
)
AUTHORS = ("Noor Haddad", "Ilse Varga", "Tomasz Lind", "Ayo Mensah", "Rhea Castell")


def _words(text: str) -> list[str]:
    """The words of a whitespace-separated list."""
    return text.split()


# The most frequent words of any English text: in nearly every post.
COMMON = _words(
    """
    the of and to a in is that for it as with was on be by this we are from at or an not
    but have which one all were when there can more if so what up out about into than them
    only some could then other time these two may first new also after most over like
    because each just where much how well before must through back still such way even
    """
)

# Engineering vocabulary: the words readers search for. Each post dwells on a few of them.
TECHNICAL = _words(
    """
    cache latency throughput database index query planner replica replication shard
    partition cluster node container kubernetes deployment rollout canary rollback
    incident postmortem outage alert dashboard metric trace span log sampling exporter
    queue broker consumer producer offset backpressure timeout retry backoff circuit
    breaker heartbeat lease quorum leader follower election consensus raft paxos journal
    checkpoint checkpointing compaction segment vacuum bloat autovacuum wal fsync
    transaction isolation deadlock lock contention mutex thread scheduler goroutine
    allocator heap garbage collector pause profile flamegraph benchmark regression
    migration schema column constraint foreign key primary tokenizer embedding model
    inference training gpu batch tensor gradient attention transformer kv prompt token
    context window quantization certificate tls handshake cipher secret vault policy
    permission audit firewall proxy gateway balancer router dns resolver socket connection
    pool worker memory leak cpu disk iops bandwidth network packet jitter bundle module
    dependency lockfile compiler linter formatter browser render hydration stylesheet
    layout accessibility htmx fragment template postgres sqlite redis kafka nginx terraform
    ansible prometheus grafana opentelemetry rust python golang java typescript wasm
    """
)

# Phrases placed in a known share of posts, and how often (per post).
PHRASES = {
    "kv cache": 0.01,
    "connection pool": 0.02,
    "write amplification": 0.005,
    "replication lag": 0.01,
    "query planner": 0.015,
    "circuit breaker": 0.01,
    "garbage collector": 0.008,
    "cold start": 0.006,
}

SYLLABLES = _words(
    "ka lo mi ne ru ta vo zi pe sa dri fen gol hap jur kel mon nip oct pra quil ros "
    "sev tam urn vex wil yor zan bre cho dax"
)
RARE_WORDS = 6000

QUERIES: list[tuple[str, str | None, int]] = [
    # single words, common to rare
    ("the", None, 1),
    ("cache", None, 1),
    ("latency", None, 1),
    ("database", None, 1),
    ("postgres", None, 1),
    ("autovacuum", None, 1),
    ("raft", None, 1),
    ("quantization", None, 1),
    ("hydration", None, 1),
    ("zeppelin", None, 1),
    # two or three words
    ("kv cache", None, 1),
    ("connection pool", None, 1),
    ("write amplification", None, 1),
    ("replication lag", None, 1),
    ("query planner", None, 1),
    ("circuit breaker timeout", None, 1),
    ("garbage collector pause", None, 1),
    ("postgres vacuum bloat", None, 1),
    ("kubernetes rollout canary", None, 1),
    ("tls handshake latency", None, 1),
    # phrases
    ('"kv cache"', None, 1),
    ('"connection pool"', None, 1),
    ('"write amplification"', None, 1),
    ('"cold start"', None, 1),
    ('"garbage collector" pause', None, 1),
    # what a reader types, keystroke by keystroke
    ("k", None, 1),
    ("kv", None, 1),
    ("kv c", None, 1),
    ("kv ca", None, 1),
    ("kv cac", None, 1),
    ("kv cach", None, 1),
    ("che", None, 1),
    ("checkp", None, 1),
    ("replicat", None, 1),
    ("connection po", None, 1),
    # stems
    ("checkpointing", None, 1),
    ("indexes", None, 1),
    ("caching", None, 1),
    # with a topic, and later pages
    ("latency", "databases", 1),
    ("kv cache", "machine-learning", 1),
    ("connection pool", "performance", 1),
    ("cache", None, 2),
    ("latency", None, 5),
    ("kv cache", None, 3),
    # literal junk
    ('"unbalanced quote', None, 1),
    ("NEAR(kv cache)", None, 1),
    ("-cache OR latency", None, 1),
    ("'; DROP TABLE posts; --", None, 1),
    ("🔥 cache", None, 1),
    ("title:kv", None, 1),
]


# --- Data --------------------------------------------------------------------------------


def rare_words(rng: random.Random) -> list[str]:
    """Made-up words of two to four syllables, distinct, for the long tail."""
    words: dict[str, None] = {}
    while len(words) < RARE_WORDS:
        words["".join(rng.choices(SYLLABLES, k=rng.randint(2, 4)))] = None
    return list(words)


class Writer:
    """Seeded text: titles, summaries and Markdown bodies.

    The background is common English plus a Zipf-distributed tail of made-up words; each
    post then dwells on its own handful of engineering words (as real posts do), with a
    sprinkle of others, so an engineering word is in some posts, not in all of them.
    """

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.background = COMMON + rare_words(self.rng)
        weights = [1 / (rank + 1) ** 1.07 for rank in range(len(self.background))]
        self.cumulative = list(itertools.accumulate(weights))
        self.focus: list[str] = TECHNICAL[:10]

    def start_post(self) -> None:
        """Pick the engineering words the next post dwells on."""
        self.focus = self.rng.sample(TECHNICAL, self.rng.randint(6, 14))

    def words(self, count: int) -> list[str]:
        """`count` words: mostly background, about one in six from the post's focus."""
        rng = self.rng
        words = rng.choices(self.background, cum_weights=self.cumulative, k=count)
        for position in range(count):
            roll = rng.random()
            if roll < 0.16:
                words[position] = rng.choice(self.focus)
            elif roll < 0.165:
                words[position] = rng.choice(TECHNICAL)
        return words

    def sentence(self) -> str:
        """A sentence of 6 to 18 words."""
        text = " ".join(self.words(self.rng.randint(6, 18)))
        return text[0].upper() + text[1:] + "."

    def title(self) -> str:
        """A title built around two of the post's focus words."""
        words = self.rng.sample(self.focus, 2) + self.words(self.rng.randint(2, 5))
        self.rng.shuffle(words)
        text = " ".join(words)
        return text[0].upper() + text[1:]

    def body(self, phrases: list[str]) -> str:
        """A Markdown body of 300 to 1,500 words in sections, carrying `phrases`."""
        target = self.rng.randint(300, 1500)
        paragraphs: list[str] = []
        written = 0
        while written < target:
            if paragraphs and self.rng.random() < 0.15:
                paragraphs.append("## " + " ".join(self.words(3)).capitalize())
            paragraph = " ".join(self.sentence() for _ in range(self.rng.randint(3, 7)))
            paragraphs.append(paragraph)
            written += len(paragraph.split())
        for phrase in phrases:
            where = self.rng.randrange(len(paragraphs))
            paragraphs[where] += f" The {phrase} mattered here."
        return "\n\n".join(paragraphs)


def post_rows(size: int, start: int, count: int, writer: Writer) -> tuple[list, list]:
    """Rows for posts `start`..`start+count` (0 is the newest) and for their topic links."""
    rng = writer.rng
    posts: list[dict] = []
    links: list[dict] = []
    for index in range(start, min(size, start + count)):
        writer.start_post()
        phrases = [p for p, share in PHRASES.items() if rng.random() < share]
        title = writer.title()
        summary = " ".join(writer.sentence() for _ in range(2))
        body = writer.body(phrases)
        topic_count = 1 if rng.random() < 0.6 else 2
        topics = rng.sample(range(len(TOPICS)), topic_count)
        published = NOW - timedelta(hours=index * 3 + rng.randint(0, 2))
        status = "draft" if rng.random() < 0.03 else "published"
        post_id = size - index  # ids grow with publish dates, as on a real blog
        posts.append(
            {
                "id": post_id,
                "slug": f"post-{post_id}",
                "title": title,
                "summary": summary,
                "excerpt": summary,
                "body_markdown": body,
                "body_html": "",
                "render_version": 0,
                "reading_minutes": max(1, len(body.split()) // 230),
                "status": status,
                "published_at": published if status == "published" else None,
                "updated_at": None,
                "featured": False,
                "editors_pick": False,
                "image_alt": None,
                "author_id": index % len(AUTHORS) + 1,
                "primary_topic_id": topics[0] + 1,
                "created_at": published,
                "modified_at": published,
            }
        )
        links += [
            {"post_id": post_id, "topic_id": topic + 1, "position": n}
            for n, topic in enumerate(topics)
        ]
    return posts, links


def load(url: str, size: int) -> float:
    """Create the schema at `url` and insert `size` posts; returns the seconds it took."""
    import flask_migrate

    from blog import create_app
    from blog.extensions import db
    from blog.models import Author, Post, PostTopic, Topic

    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        flask_migrate.upgrade(revision="heads")
        started = time.perf_counter()
        with db.engine.begin() as connection:
            connection.execute(
                sa.insert(Topic.__table__),
                [
                    {
                        "id": n + 1,
                        "name": name,
                        "slug": name.lower().replace(" ", "-"),
                        "position": n,
                    }
                    for n, name in enumerate(TOPICS)
                ],
            )
            connection.execute(
                sa.insert(Author.__table__),
                [
                    {"id": n + 1, "name": name, "slug": name.lower().replace(" ", "-")}
                    for n, name in enumerate(AUTHORS)
                ],
            )
        writer = Writer(SEED)
        for start in range(0, size, BATCH):
            posts, links = post_rows(size, start, BATCH, writer)
            with db.engine.begin() as connection:
                if connection.dialect.name == "sqlite":
                    # Links first, checked at commit: each post is then indexed once, with
                    # its topics, by the insert trigger (instead of once more per link).
                    connection.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
                    connection.execute(sa.insert(PostTopic.__table__), links)
                    connection.execute(sa.insert(Post.__table__), posts)
                else:
                    connection.execute(sa.insert(Post.__table__), posts)
                    connection.execute(sa.insert(PostTopic.__table__), links)
            done = min(size, start + BATCH)
            rate = done / (time.perf_counter() - started)
            print(f"    {done:>7,} posts loaded ({rate:,.0f} posts/s)", end="\r", flush=True)
        with db.engine.connect() as connection:
            if connection.dialect.name == "postgresql":
                connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
                    "VACUUM ANALYZE"
                )
            else:
                connection.exec_driver_sql("PRAGMA optimize")
                connection.exec_driver_sql(
                    "INSERT INTO post_search(post_search) VALUES('optimize')"
                )
                connection.commit()
        elapsed = time.perf_counter() - started
        print()
        db.session.remove()
        db.engine.dispose()
    return elapsed


# --- Measuring ---------------------------------------------------------------------------


def percentile(samples: list[float], share: float) -> float:
    """The sample at `share` (0..1) of the sorted samples, nearest rank."""
    ordered = sorted(samples)
    rank = max(0, min(len(ordered) - 1, round(share * len(ordered) + 0.5) - 1))
    return ordered[rank]


@dataclass
class Timings:
    """Per-search wall-clock and CPU times (ms), each query's median, and empty queries."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    per_query: dict[str, list[float]] = field(default_factory=dict)
    empty: int = 0


def measure(url: str, rounds: int) -> Timings:
    """Run every query `rounds` times through the query function and time each search."""
    from blog import create_app
    from blog.extensions import db
    from blog.models import Topic
    from blog.reading import search

    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": url})
    timings = Timings()
    with app.app_context():
        topics = {t.slug: t for t in db.session.scalars(sa.select(Topic))}
        for query, slug, page in QUERIES:  # warm the caches once, as a running server would
            search.search_posts(query, topic=topics.get(slug or ""), number=page)
        for _ in range(rounds):
            for query, slug, page in QUERIES:
                topic = topics.get(slug) if slug else None
                wall, cpu = time.perf_counter(), time.thread_time()
                results = search.search_posts(query, topic=topic, number=page)
                timings.cpu.append((time.thread_time() - cpu) * 1000)
                elapsed = (time.perf_counter() - wall) * 1000
                timings.wall.append(elapsed)
                label = query + (f" [{slug}]" if slug else "") + (f" p{page}" if page > 1 else "")
                timings.per_query.setdefault(label, []).append(elapsed)
                timings.empty += not results.page.posts
                db.session.remove()
        db.engine.dispose()
    timings.empty //= rounds
    return timings


def report(label: str, size: int, seconds: float, url: str, rounds: int) -> None:
    """Measure one data set and print its latency line and slowest queries.

    On SQLite the search runs in this thread, so its CPU time is also shown: unlike wall
    time, it hardly moves when other work shares the machine's cores.
    """
    timings = measure(url, rounds)
    p50, p95, p99 = (percentile(timings.wall, share) for share in (0.50, 0.95, 0.99))
    print(
        f"  {label:<10} {size:>7,} posts  load {seconds:6.1f} s   "
        f"p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  p99 {p99:6.1f} ms  "
        f"(p95 / {TARGET_P95_MS:.0f} ms target = {p95 / TARGET_P95_MS:.2f}; "
        f"{len(timings.wall)} searches, {timings.empty} of {len(QUERIES)} queries find nothing)"
    )
    if label == "sqlite":
        c50, c95, c99 = (percentile(timings.cpu, share) for share in (0.50, 0.95, 0.99))
        print(
            f"    CPU time per search: p50 {c50:.1f} ms  p95 {c95:.1f} ms  p99 {c99:.1f} ms  "
            f"(p95 / target = {c95 / TARGET_P95_MS:.2f}); load average {os.getloadavg()[0]:.1f}"
        )
    medians = {q: statistics.median(values) for q, values in timings.per_query.items()}
    slowest = sorted(medians.items(), key=lambda item: item[1], reverse=True)[:5]
    print("    slowest medians: " + ", ".join(f"{q!r} {ms:.1f} ms" for q, ms in slowest))


@contextmanager
def throwaway_postgres(server_url: str) -> Iterator[str]:
    """A new database on the server at `server_url`, dropped afterwards."""
    server = sa.make_url(with_driver(server_url))
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    name = f"fieldnotes_search_bench_{uuid.uuid4().hex[:10]}"
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def with_driver(url: str) -> str:
    """A postgres:// or postgresql:// URL with the psycopg 3 driver named."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


def main() -> None:
    """Build each size, measure it, print the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=10, help="times each query runs")
    parser.add_argument("--database-url", help="also run on a throwaway database on this server")
    parser.add_argument("--keep", type=Path, help="folder to keep the SQLite files in")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="fieldnotes-search-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"Search latency, {len(QUERIES)} queries x {args.rounds} rounds per size")
    for size in args.sizes:
        path = folder / f"search-{size}.sqlite3"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        url = f"sqlite:///{path}"
        seconds = load(url, size)
        report("sqlite", size, seconds, url, args.rounds)
        if not args.keep:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        if args.database_url:
            with throwaway_postgres(args.database_url) as pg_url:
                seconds = load(pg_url, size)
                report("postgresql", size, seconds, pg_url, args.rounds)
    if not args.keep:
        folder.rmdir()


if __name__ == "__main__":
    main()
