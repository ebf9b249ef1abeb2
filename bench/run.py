"""The listing benchmark (issue 8): one command that measures the listing against its targets.

    .venv/bin/python -m bench.run          # SQLite and PostgreSQL; 1,000, 10,000, 100,000 posts
    .venv/bin/python -m bench.run --quick  # smoke run: 1,000 and 10,000 posts, one 3 s run,
                                           # 10 saves

For each database it builds (or finds cached) data sets through the store (bench/datasets.py),
starts gunicorn (2 sync workers, 127.0.0.1) for the blog on each data set, for the blog with
caches off (at 10,000 posts, and at the largest size for its cold last page against its cold
page 1; at both, a cold search against a cold home page), and for the two references
(bench/reference_app.py), warms each server up with every request it will get (thrown away),
then runs wrk once per row per round, rounds
interleaved and in alternating order, the rows a target compares next to each other, so that
drift on a shared machine hits every row alike; medians of the rounds are reported, and each
target's ratio is the median of its per-round ratios. Bytes come from one plain HTTP fetch
per row; SQL statements and template renders per request from bench/sqlcount.py (cold: a
fresh app's first request; warm: the same again). After the timed rows, each worker's memory
is read before and after 5,000 anonymous requests with random query strings and headers
(bench/memory.py); with every server stopped, an editor's save of one post is timed at the
smallest and the largest size, on copies of those data sets (bench/editor_save.py), and the
server CPU of the worst searches is measured against a one-word search at 10,000 posts and at
the largest size, each copy with a post of 200,000 characters added (bench/search.py).

Output: a Markdown table on stdout and in bench/results/listing-<UTC time>.md, and the same
data as bench/results/listing-<UTC time>.json:

    {"schema": 1, "started": str, "elapsed_minutes": float, "settings": {...},
     "machine": {"cores", "load_start", "load_end", "commit", "wrk", "python"},
     "reference_compression": {COMPRESS_*: value} or null,
     "databases": {"sqlite" | "postgresql": {
         "skipped": str (only when not measured),
         "datasets": {size: {"url", "fingerprint", "origin"}}, "build_minutes": float,
         "inmemory_identical": bool, "page_weight": {"total", "parts": [[path, bytes]]},
         "rows": {key: {"label", "role", "name", "size", "encoding", "path", "headers",
                        "status", "bytes", "content_encoding", "probe_ms", "listing",
                        "counts": {"status", "statements", "renders", "transaction_control",
                                   "ms": [cold, warm], "sql": [[...], [...]]},
                        "runs": [{"rps", "p50_ms", "p99_ms", "requests", "non_2xx_3xx",
                                  "socket_errors"}],
                        "rps", "p50_ms", "p99_ms", "error"}},
         "memory": {"server", "requests", "seconds", "answers": {status: count},
                    "page_cache_mb", "limit_mb", "replaced": [pid],
                    "workers": [{"pid", "before_mb", "after_mb", "growth_mb"}]} or {"error"},
         "save": {"how", "post", "sizes": [small, big], "rounds": [{size: ms}],
                  "median_ms": {size: ms}, "statements": {size: n}, "status": [code],
                  "fields": [name], "error" (only when not measured)},
         "search": {"how", "sizes", "rounds", "error" (only when not measured),
                    "results": {size: {"long_post", "long_post_seconds", "one_word_ms",
                                       "worst", "worst_ms", "ratio", "long_post_shown",
                                       "queries": {name: {"path", "app_ms", "database_ms",
                                                          "cpu_ms", "long_post_shown"}}}}},
         "targets": [{"key", "label", "measured", "value", "limit", "result"}],
         "notes": [str]}}}
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import platform
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from bench import datasets, editor_save, memory, proxy, reference_app, report, servers, wrk
from bench import search as search_cpu
from bench.servers import Server

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
SIZES = (1_000, 10_000, 100_000)
MAIN_SIZE = 10_000  # most scenarios and the references run at this size
DEEP_PAGE = 800
COMPRESSED = ("Accept-Encoding", "gzip, br")
READ_MORE = (("HX-Request", "true"), ("HX-Target", "post-list"))
# The setting that turns the app's server-side caches off, for the cold-render row: the app
# must honour it (from the environment) for that row to mean "nothing cached".
COLD_ENV = {"PAGE_CACHE": "off"}
SECRET = "bench-not-a-secret"
# The app's page cache bound when it names none (its documented default), in MB.
PAGE_CACHE_MB = 32
# A row whose single probe request takes longer than this (seconds) is reported, not measured:
# wrk's connections would only pile up behind it until gunicorn kills its workers.
TOO_SLOW = 5.0
LOGS = Path(__file__).resolve().parent / ".data" / "logs"
_CLOCK = time.monotonic()


@dataclass(frozen=True)
class Row:
    """One line of the table: a server, a request, and how it is measured."""

    role: str  # app, app-cold, constant, constant-otf, inmemory
    name: str  # home, topic, page 800, last page, read more, post, 304, search
    size: int
    encoding: str  # plain or compressed
    request: wrk.Request
    expect: int = 200
    listing: bool = False

    @property
    def key(self) -> str:
        """A unique name for the row."""
        return f"{self.role}|{self.name}|{self.size}|{self.encoding}"

    @property
    def server(self) -> str:
        """The name of the server the row is measured on."""
        if self.role == "app":
            return f"app-{self.size}"
        if self.role == "app-cold":
            return f"app-cold-{self.size}"
        return "constant" if self.role.startswith("constant") else self.role

    @property
    def label(self) -> str:
        """How the table names the row."""
        return f"{report.ROLE_LABELS[self.role]} · {self.name} `{self.request.path}`"


def log(message: str) -> None:
    """Progress on stderr (minutes:seconds since the start), so stdout carries only the table."""
    elapsed = int(time.monotonic() - _CLOCK)
    print(f"{elapsed // 60:3d}:{elapsed % 60:02d} {message}", file=sys.stderr, flush=True)


def _encoded(headers: tuple[tuple[str, str], ...], encoding: str) -> tuple[tuple[str, str], ...]:
    """The headers, plus Accept-Encoding for the compressed variant."""
    return (*headers, COMPRESSED) if encoding == "compressed" else headers


def plan(sizes: list[int], main: int, discovered: dict[str, Any], everything: bool) -> list[Row]:
    """Every row to measure, in the order the table shows them."""
    per_page = discovered["per_page"]
    newest = datasets.post_spec(0).slug
    topic = datasets.TOPICS[0][1]
    both = ("plain", "compressed")
    rows: list[Row] = []

    def add(role: str, name: str, size: int, path: str, headers=(), *, encodings=both, **kw):
        for encoding in encodings:
            request = wrk.Request(path, _encoded(tuple(headers), encoding))
            rows.append(Row(role, name, size, encoding, request, **kw))

    for size in sorted(sizes):
        last = max(1, math.ceil(size / per_page))
        at_main = size == main
        scale = both if at_main or everything else ("compressed",)
        add("app", "home", size, "/", encodings=scale, listing=True)
        if at_main:
            add("app", "topic", size, f"/topics/{topic}", listing=True)
            add(
                "app",
                f"page {min(DEEP_PAGE, last)}",
                size,
                f"/?page={min(DEEP_PAGE, last)}",
                listing=True,
            )
            add("app", "read more", size, "/?page=2", READ_MORE, listing=True)
            add("app", "post", size, f"/posts/{newest}")
            if discovered["search"]:
                add("app", "search", size, f"/search?q={datasets.SEARCH_TERM}")
            # The If-None-Match value is filled in once the server has sent its ETag.
            add("app", "304", size, "/", encodings=("plain",), expect=304)
        elif size > main:
            add("app", "last page", size, f"/?page={last}", encodings=scale, listing=True)
    add("app-cold", "home", main, "/", encodings=both if everything else ("plain",))
    searched = f"/search?q={datasets.SEARCH_TERM}"
    if discovered["search"]:  # a search rendered cold, against a cold home page
        add("app-cold", "search", main, searched, encodings=("plain",))
    big = max(sizes)
    if big > main:
        # A cold render of the deepest page against one of page 1, on the largest data set.
        last = max(1, math.ceil(big / per_page))
        add("app-cold", "home", big, "/", encodings=("plain",))
        add("app-cold", "last page", big, f"/?page={last}", encodings=("plain",))
        if discovered["search"]:
            add("app-cold", "search", big, searched, encodings=("plain",))
    add("constant", "home", main, "/", encodings=both)
    if discovered.get("compress_settings"):
        path = reference_app.PER_REQUEST_PATH
        add("constant-otf", "home", main, path, encodings=("compressed",))
    add("inmemory", "home", main, "/", encodings=both if everything else ("plain",))
    return rows


def target_keys(rows: list[Row], sizes: list[int], main: int) -> dict[str, Any]:
    """Which rows each target compares."""
    small, big = min(sizes), max(sizes)
    # Targets name the sizes of the issue even when a run leaves them out.
    nominal_small = small if small < main else min(SIZES)
    nominal_big = big if big > main else max(SIZES)
    deep = next(
        (r.key for r in rows if r.name.startswith("page ") and r.encoding == "compressed"), ""
    )

    def key(role: str, name: str, size: int, encoding: str = "compressed") -> str:
        return f"{role}|{name}|{size}|{encoding}"

    return {
        "keys": {
            "home": key("app", "home", main),
            "topic": key("app", "topic", main),
            "deep": deep,
            "last": key("app", "last page", big),
            "home_big": key("app", "home", big) if big > main else "",
            "home_small": key("app", "home", small) if small < main else "",
            "more": key("app", "read more", main),
            "constant": key("constant", "home", main),
            "inmemory": key("inmemory", "home", main, "plain"),
            "cold": key("app-cold", "home", main, "plain"),
            "cold_home_big": key("app-cold", "home", big, "plain") if big > main else "",
            "cold_last_big": key("app-cold", "last page", big, "plain") if big > main else "",
            "cold_search": key("app-cold", "search", main, "plain"),
            "cold_search_big": key("app-cold", "search", big, "plain") if big > main else "",
        },
        "sizes": {"main": main, "big": nominal_big, "small": nominal_small},
    }


def paired(rows: list[Row], facts: dict[str, Any]) -> list[Row]:
    """The rows in measuring order: each pair a target compares side by side, then the rest."""
    keys = facts["keys"]
    order = [
        keys["constant"],
        keys["home"],
        keys["topic"],
        keys["deep"],
        keys["inmemory"],
        keys["cold"],
        keys["cold_search"],
        keys["home_small"],
        keys["home_big"],
        keys["last"],
        keys["cold_last_big"],
        keys["cold_home_big"],
        keys["cold_search_big"],
    ]
    rank = {key: index for index, key in enumerate(order) if key}
    return sorted(rows, key=lambda row: rank.get(row.key, len(rank)))


# --- In-process counts --------------------------------------------------------------------


def sqlcount(job: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    """Run bench/sqlcount.py in a new process with `env` added to the environment."""
    with tempfile.NamedTemporaryFile(suffix=".json") as output:
        done = subprocess.run(
            [sys.executable, "-m", "bench.sqlcount", output.name],
            input=json.dumps(job),
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=os.environ | {"PYTHONPATH": str(ROOT)} | env,
            timeout=3600,
        )
        if done.returncode != 0:
            raise RuntimeError(f"bench.sqlcount failed:\n{done.stderr[-4000:]}")
        return json.loads(Path(output.name).read_text())


def count_rows(rows: list[Row], sets: dict[int, datasets.DataSet], cold_env: dict[str, str]):
    """SQL statements and renders per request for every row that touches the blog."""
    jobs: dict[str, list[dict[str, Any]]] = {"normal": [], "cold": []}
    first: dict[tuple[str, str, int], str] = {}
    for row in rows:
        # Compression happens after the view: both encodings run the same statements.
        if (
            row.role.startswith("constant")
            or first.setdefault((row.role, row.name, row.size), row.key) != row.key
        ):
            continue
        kind = "normal" if row.role == "app" else "cold"
        jobs[kind].append(
            {
                "id": row.key,
                "database_url": sets[row.size].url,
                "path": row.request.path,
                "headers": [list(h) for h in row.request.headers],
                "app": "inmemory" if row.role == "inmemory" else "blog",
            }
        )
    counts: dict[str, Any] = {}
    for kind, requests in jobs.items():
        if requests:
            env = cold_env if kind == "cold" else {}
            counts |= sqlcount({"requests": requests}, env)["results"]
    for row in rows:
        shared = first.get((row.role, row.name, row.size))
        if shared and shared in counts:
            counts[row.key] = counts[shared]
    return counts


# --- Fetching ---------------------------------------------------------------------------------


class _Assets(HTMLParser):
    """Collects the stylesheets and scripts a page loads."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script" and values.get("src"):
            self.found.append(values["src"] or "")
        rel = (values.get("rel") or "").lower().split()
        if tag == "link" and values.get("href") and ({"stylesheet", "modulepreload"} & set(rel)):
            self.found.append(values["href"] or "")


def page_weight(server: Server, html: bytes) -> dict[str, Any]:
    """Compressed bytes of the page and of every same-site stylesheet and script it loads."""
    parser = _Assets()
    parser.feed(html.decode("utf-8", "replace"))
    headers = dict([COMPRESSED])
    page = servers.fetch(server, "/", headers)
    parts = [["/", len(page.body)]]
    for src in dict.fromkeys(parser.found):
        if src.startswith(("http://", "https://", "//")):
            parts.append([src, -1])
            continue
        asset = servers.fetch(server, src, headers)
        parts.append([src.split("?")[0], len(asset.body)])
    return {"total": sum(size for _, size in parts if size > 0), "parts": parts}


def probe(row: Row, server: Server) -> dict[str, Any]:
    """Fetch the row's request once: status, body bytes as sent, Content-Encoding, time."""
    started = time.monotonic()
    try:
        fetched = servers.fetch(server, row.request.path, dict(row.request.headers))
    except (OSError, http.client.HTTPException) as error:
        return {"status": None, "error": f"no answer ({error.__class__.__name__})"}
    seconds = time.monotonic() - started
    seen: dict[str, Any] = {
        "status": fetched.status,
        "bytes": len(fetched.body),
        "content_encoding": fetched.headers.get("content-encoding"),
        "probe_ms": round(seconds * 1000, 1),
    }
    if fetched.status != row.expect:
        seen["error"] = f"answered {fetched.status}, expected {row.expect}"
    elif seconds > TOO_SLOW:
        seen["error"] = f"too slow to load-test: one request took {seconds:.1f} s"
    return seen


# --- One database ---------------------------------------------------------------------------


def _median(values: list[float | None]) -> float | None:
    """The median of the known values, or None when there are none."""
    known = [value for value in values if value is not None]
    return statistics.median(known) if known else None


def _finite(value: float) -> float | None:
    """The value, or None when wrk had nothing to measure."""
    return value if math.isfinite(value) else None


def bench_database(database: str, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Build data sets, serve, probe, count and measure every row on one database."""
    notes: list[str] = []
    building = time.monotonic()
    sets = {
        size: datasets.ensure(database, size, rebuild=args.rebuild, log=log) for size in args.sizes
    }
    build_minutes = (time.monotonic() - building) / 60
    main = MAIN_SIZE if MAIN_SIZE in args.sizes else max(args.sizes)
    log(f"{database}: discovering the app's settings")
    discovered = sqlcount({"discover": sets[main].url}, {})["discover"]
    rows = plan(args.sizes, main, discovered, args.everything)
    facts = target_keys(rows, args.sizes, main)

    base_env = {"SECRET_KEY": SECRET}
    started: dict[str, Server] = {}
    try:
        for size, found in sets.items():
            env = base_env | {"DATABASE_URL": found.url}
            started[f"app-{size}"] = servers.start(
                f"{database}-app-{size}", "blog:create_app()", env, work
            )
        main_env = base_env | {"DATABASE_URL": sets[main].url} | args.cold_env
        for size in sorted({main, max(args.sizes)}):
            cold_env = base_env | {"DATABASE_URL": sets[size].url} | args.cold_env
            started[f"app-cold-{size}"] = servers.start(
                f"{database}-app-cold-{size}", "blog:create_app()", cold_env, work
            )
        started["inmemory"] = servers.start(
            f"{database}-inmemory", "bench.reference_app:inmemory()", main_env, work
        )
        for name, server in started.items():
            servers.wait_ready(server)
            if name.startswith("app"):
                # One request first, so that one-time catch-up work (after a migration, or when
                # a scheduled post has come due) is not counted as a cold request's cost.
                servers.fetch(server, "/")
        page = servers.fetch(started[f"app-{main}"], "/")
        packed = servers.fetch(started[f"app-{main}"], "/", dict([COMPRESSED]))
        page_file = work / f"{database}-home.html"
        page_file.write_bytes(page.body)
        packed_file = work / f"{database}-home.html.compressed"
        packed_file.write_bytes(packed.body)
        started["constant"] = servers.start(
            f"{database}-constant",
            "bench.reference_app:constant()",
            {
                "BENCH_PAGE_FILE": str(page_file),
                "BENCH_PAGE_COMPRESSED_FILE": str(packed_file),
                "BENCH_PAGE_ENCODING": packed.headers.get("content-encoding", ""),
                "BENCH_COMPRESS": json.dumps(discovered.get("compress_settings")),
            },
            work,
        )
        servers.wait_ready(started["constant"])
        inmemory_page = servers.fetch(started["inmemory"], "/")
        identical = inmemory_page.body == page.body
        if not identical:
            notes.append(
                f"The in-memory reference's page ({len(inmemory_page.body):,} bytes) differs "
                f"from the blog's ({len(page.body):,} bytes)."
            )
        weight = page_weight(started[f"app-{main}"], page.body)

        # The 304 row's validator is the ETag the server sends for the page.
        for index, row in enumerate(rows):
            if row.expect == 304:
                etag = servers.fetch(started[row.server], "/").headers.get("etag") or ""
                rows[index] = replace(row, request=wrk.Request("/", (("If-None-Match", etag),)))
        log(f"{database}: counting statements and renders per request")
        counts = count_rows(rows, sets, args.cold_env)

        log(f"{database}: fetching every row once")
        results: dict[str, dict[str, Any]] = {}
        measured: list[Row] = []
        for row in rows:
            server = started[row.server]
            result = _row_result(row, counts)
            if row.expect == 304 and not dict(row.request.headers).get("If-None-Match"):
                results[row.key] = result | {"error": "the page carries no ETag"}
                continue
            seen = probe(row, server)
            result |= {k: v for k, v in seen.items() if k != "error"}
            result["error"] = result["error"] or seen.get("error")
            if not result["error"]:
                measured.append(row)
            results[row.key] = result

        log(f"{database}: warming up ({args.warmup} s per server, thrown away)")
        for name, server in started.items():
            requests = [r.request for r in measured if r.server == name]
            if requests:
                wrk.warm_up(
                    server.base_url,
                    requests,
                    seconds=args.warmup,
                    threads=args.threads,
                    connections=args.connections,
                )
                servers.settle(server)
        measured = paired(measured, facts)
        for round_number in range(1, args.runs + 1):
            # Alternate the order, so that drift in the machine's load favours no row.
            for row in measured if round_number % 2 else measured[::-1]:
                server = started[row.server]
                if server.process.poll() is not None:
                    raise RuntimeError(f"{server.name} died:\n{server.log_tail()}")
                measurement, _ = wrk.run(
                    server.base_url,
                    row.request,
                    seconds=args.duration,
                    threads=args.threads,
                    connections=args.connections,
                )
                servers.settle(server)
                results[row.key]["runs"].append(
                    {
                        "rps": measurement.rps,
                        "p50_ms": _finite(measurement.p50_ms),
                        "p99_ms": _finite(measurement.p99_ms),
                        "requests": measurement.requests,
                        "non_2xx_3xx": measurement.non_2xx_3xx,
                        "socket_errors": measurement.socket_errors,
                    }
                )
                flag = "  (ERRORS)" if measurement.failed else ""
                log(
                    f"  [{database} {round_number}/{args.runs}] {row.label} {row.size:,} "
                    f"{row.encoding}: {measurement.rps:,.0f} req/s, p50 "
                    f"{measurement.p50_ms:.1f} ms{flag}"
                )
        facts["memory"] = measure_memory(database, started[f"app-{main}"], discovered, notes)
    finally:
        for server in started.values():
            servers.stop(server)
    # Last, with every server stopped: PostgreSQL copies a database only while nobody uses it.
    facts["save"] = measure_save(database, sets, args, work)
    facts["search"] = measure_search(database, sets, args, work)
    facts["proxy"] = measure_proxy(database, sets, args)

    for result in results.values():
        runs = result["runs"]
        result["rps"] = _median([r["rps"] for r in runs])
        result["p50_ms"] = _median([r["p50_ms"] for r in runs])
        result["p99_ms"] = _median([r["p99_ms"] for r in runs])
        bad = sum(r["non_2xx_3xx"] + r["socket_errors"]["timeout"] for r in runs)
        if bad and not result.get("error"):
            result["error"] = f"{bad} failed responses during the runs"
        if runs and not all(r["requests"] for r in runs) and not result.get("error"):
            result["error"] = "a run completed no request: raise --duration"
    facts["page_weight"] = weight
    return {
        "datasets": {
            size: {"url": found.url, "fingerprint": found.fingerprint, "origin": found.origin}
            for size, found in sets.items()
        },
        "build_minutes": build_minutes,
        "discovered": discovered,
        "inmemory_identical": identical,
        "page_weight": weight,
        "memory": facts["memory"],
        "save": facts["save"],
        "search": facts["search"],
        "rows": results,
        "proxy": facts["proxy"],
        "targets": report.evaluate(results, facts)
        + evaluate_search(results, facts)
        + evaluate_proxy(facts["proxy"]),
        "notes": notes + search_notes(facts["search"]) + proxy_notes(facts["proxy"]),
    }


def measure_memory(
    database: str, server: Server, discovered: dict[str, Any], notes: list[str]
) -> dict[str, Any]:
    """Each worker's memory before and after the varied anonymous requests (bench/memory.py)."""
    page_cache_mb = discovered.get("page_cache_mb")
    if page_cache_mb is None:
        page_cache_mb = PAGE_CACHE_MB
        notes.append(
            f"The app has no PAGE_CACHE_MB setting: the memory bound assumes {PAGE_CACHE_MB}."
        )
    log(f"{database}: {memory.REQUESTS:,} varied anonymous requests to {server.name}, for memory")
    try:
        found = memory.measure(server, page_cache_mb)
    except (OSError, RuntimeError) as error:
        return {"error": f"{error.__class__.__name__}: {error}"}
    growth = ", ".join(
        f"{w['before_mb']:.1f} → {w['after_mb']:.1f} MB"
        for w in found["workers"]
        if w["growth_mb"] is not None
    )
    log(f"  worker memory: {growth}; answers {found['answers']}")
    return found


def measure_save(
    database: str, sets: dict[int, datasets.DataSet], args: argparse.Namespace, work: Path
) -> dict[str, Any]:
    """An editor's save at the smallest and the largest size (bench/editor_save.py)."""
    small, big = min(sets), max(sets)
    if small == big:
        return {"error": "the run has one data set size"}
    log(f"{database}: {args.saves} editor's saves at {small:,} and at {big:,} posts, alternating")
    found = editor_save.measure(
        database,
        {small: sets[small].url, big: sets[big].url},
        rounds=args.saves,
        log=log,
        log_dir=work,
    )
    if found.get("error"):
        log(f"  not measured: {found['error']}")
    else:
        log(f"  median save: {found['median_ms']} ms; statements {found['statements']}")
    return found


def measure_proxy(
    database: str, sets: dict[int, datasets.DataSet], args: argparse.Namespace
) -> dict[str, Any] | None:
    """The home page at the main size through the production stack's proxy cache, beside
    nginx sending the same bytes as a static file and one app server alone (bench/proxy.py),
    on PostgreSQL, the production store."""
    if database != "postgresql":
        return None
    main = MAIN_SIZE if MAIN_SIZE in sets else max(sets)
    log(f"{database}: the home page at {main:,} posts through the proxy cache (bench/proxy.py)")
    try:
        return proxy.measure(database, main, rounds=args.runs, seconds=args.duration, log=log)
    except Exception as error:  # the rows measured so far still make their report
        log(f"  not measured: {error}")
        return {"error": str(error)}


def evaluate_proxy(found: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The proxy targets of issue 20, as the report lists its own."""
    if found is None:
        return []
    if found.get("error"):
        return [
            {
                "key": "proxy",
                "label": "Home through the proxy cache",
                "limit": "",
                "value": None,
                "measured": f"not measured: {found['error']}",
                "result": "n/a",
            }
        ]
    rps = found["rps"]
    return [
        {
            "key": f"proxy-{target['label']}",
            "label": f"Home at {found['size']:,} posts, compressed, {target['label']} (req/s)",
            "limit": f"≥ {target['limit']:g}×",
            "value": target["value"],
            "measured": f"{target['value']:.2f}× (medians: proxy cache {rps['proxy']:,.0f}, "
            f"static file {rps['static']:,.0f}, app alone {rps['app']:,.0f} req/s)",
            "result": "PASS" if target["passed"] else "FAIL",
        }
        for target in found["targets"]
    ]


def proxy_notes(found: dict[str, Any] | None) -> list[str]:
    """The proxy rows' rounds, for the notes under the targets."""
    if not found or found.get("error"):
        return []
    rounds = "; ".join(
        f"{name} " + ", ".join(f"{value:,.0f}" for value in values)
        for name, values in found["runs"].items()
    )
    return [
        f"Through the proxy (bench/proxy.py: nginx in front of two gunicorns of 2 sync "
        f"workers, {found['bytes']:,}-byte brotli home page, wrk -t{proxy.THREADS} "
        f"-c{proxy.CONNECTIONS}, rounds alternating, req/s): {rounds}."
    ]


def measure_search(
    database: str, sets: dict[int, datasets.DataSet], args: argparse.Namespace, work: Path
) -> dict[str, Any]:
    """The worst searches' server CPU against a one-word search, at the main and the largest
    size, each with a 200,000-character post added to a copy (bench/search.py)."""
    main = MAIN_SIZE if MAIN_SIZE in sets else max(sets)
    sizes = sorted({main, max(sets)})
    log(f"{database}: the worst searches against a one-word search, at {sizes} posts")
    found = search_cpu.measure(
        database,
        {size: sets[size].url for size in sizes},
        rounds=args.searches,
        log=log,
        log_dir=work,
    )
    if found.get("error"):
        log(f"  not measured: {found['error']}")
    return found


def _search_cpu(size_name: str, field: str) -> Callable[..., tuple[float | None, str]]:
    """Measure, at the size `size_name` of the targets, `field` of the search CPU result:
    the worst search over the one-word search ("ratio"), or the worst search's ms."""

    def measure(
        _rows: dict[str, dict[str, Any]], facts: dict[str, Any]
    ) -> tuple[float | None, str]:
        found = facts.get("search")
        if not found:
            return None, "not measured"
        if found.get("error"):
            return None, f"not measured: {found['error']}"
        sizes = [facts["sizes"][size_name]] if size_name else list(map(int, found["results"]))
        measured = [found["results"].get(str(size)) for size in sizes]
        if not all(measured):
            return None, f"not measured at {sizes[0]:,} posts: this run has {found['sizes']}"
        worst = max(measured, key=lambda one: one[field])
        value = worst[field]
        text = (
            f"{worst['worst']}: {worst['worst_ms']:.1f} ms, one word {worst['one_word_ms']:.1f} ms"
            f" ({worst['ratio']:.2f}×)"
        )
        if not worst["long_post_shown"]:
            text += "; the long post was not among the results of every search in its topic"
        return value, text

    return measure


# The targets of issue 19 (search): evaluated here, beside the report's, in the same table.
SEARCH_TARGETS = (
    report.Target(
        "search_cold_vs_home",
        "Cold render of `/search?q=" + datasets.SEARCH_TERM + "` at {main:,} posts (caches off) "
        "vs a cold render of home, plain",
        "≥ 0.50×",
        report._cold_ratio("cold_search", "cold", "cold_search", "cold"),
        lambda value: value >= 0.5,
    ),
    report.Target(
        "search_cold_vs_home_big",
        "Cold render of `/search?q=" + datasets.SEARCH_TERM + "` at {big:,} posts (caches off) "
        "vs a cold render of home, plain",
        "≥ 0.50×",
        report._cold_ratio("cold_search_big", "cold_home_big", "cold_search_big", "cold_home_big"),
        lambda value: value >= 0.5,
    ),
    report.Target(
        "search_worst_cpu",
        "Server CPU of the worst search vs a one-word search, at {main:,} posts",
        "≤ 3.00×",
        _search_cpu("main", "ratio"),
        lambda value: value <= 3.0,
    ),
    report.Target(
        "search_worst_cpu_big",
        "Server CPU of the worst search vs a one-word search, at {big:,} posts",
        "≤ 3.00×",
        _search_cpu("big", "ratio"),
        lambda value: value <= 3.0,
    ),
    report.Target(
        "search_worst_cpu_ms",
        "Server CPU of the worst search, at any size, a 200,000-character post among the posts",
        "≤ 1,000 ms",
        _search_cpu("", "worst_ms"),
        lambda value: value <= 1000,
    ),
)


def evaluate_search(rows: dict[str, dict[str, Any]], facts: dict[str, Any]) -> list[dict[str, Any]]:
    """The search targets' measured values and verdicts, as the report lists its own."""
    results = []
    for target in SEARCH_TARGETS:
        value, text = target.measure(rows, facts)
        results.append(
            {
                "key": target.key,
                "label": target.label.format(**facts["sizes"]),
                "limit": target.limit,
                "value": value,
                "measured": text,
                "result": target.verdict(value, facts),
            }
        )
    return results


def search_notes(found: dict[str, Any] | None) -> list[str]:
    """Each size's one-word and worst search, for the notes under the targets."""
    if not found or found.get("error"):
        return []
    notes = []
    for size, one in found["results"].items():
        searches = ", ".join(
            f"{name} {query['cpu_ms']:.1f}" for name, query in one["queries"].items()
        )
        notes.append(
            f"Search server CPU at {int(size):,} posts ({found['how']}; ms, median of "
            f"{found['rounds']} rounds, the database's share included on PostgreSQL): {searches}."
        )
    return notes


def _row_result(row: Row, counts: dict[str, Any], error: str | None = None) -> dict[str, Any]:
    """The JSON record of a row before it is measured."""
    count = counts.get(row.key) or {}
    return {
        "label": row.label,
        "role": row.role,
        "name": row.name,
        "size": row.size,
        "encoding": row.encoding,
        "path": row.request.path,
        "headers": [list(h) for h in row.request.headers],
        "listing": row.listing,
        "counts": count if "error" not in count else None,
        "runs": [],
        "rps": None,
        "p50_ms": None,
        "p99_ms": None,
        "error": error or count.get("error"),
    }


# --- The command ------------------------------------------------------------------------------


def _cold_setting(text: str) -> tuple[str, str]:
    """Parse NAME=VALUE."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {text!r}")
    return name, value


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.run", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 1,000 and 10,000 posts, one 3 s run per row, 10 saves per size",
    )
    parser.add_argument(
        "--sizes",
        type=datasets.sizes_argument,
        help="data set sizes, like 1k,10k,100k (default: all three)",
    )
    parser.add_argument(
        "--databases",
        default="sqlite,postgresql",
        help="comma-separated: sqlite, postgresql (default: both)",
    )
    parser.add_argument("--duration", type=float, help="seconds per wrk run (default 10)")
    parser.add_argument("--runs", type=int, help="runs per row; medians are reported (default 3)")
    parser.add_argument("--warmup", type=float, help="warm-up seconds per server (default 3)")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--everything", action="store_true", help="every row at every size, plain and compressed"
    )
    parser.add_argument(
        "--cold-env",
        type=_cold_setting,
        action="append",
        metavar="NAME=VALUE",
        help=f"setting that turns caches off (default: {COLD_ENV})",
    )
    parser.add_argument(
        "--saves", type=int, help="editor's saves per size, alternating (default 30; quick 10)"
    )
    parser.add_argument(
        "--searches",
        type=int,
        help=f"rounds of the search CPU measure (default {search_cpu.ROUNDS}; quick 2)",
    )
    parser.add_argument("--rebuild", action="store_true", help="rebuild the data sets")
    parser.add_argument("--label", default="", help="a note for the report's heading")
    parser.add_argument("--output", type=Path, default=RESULTS, help="folder for the results")
    args = parser.parse_args(argv)
    quick = args.quick
    args.sizes = args.sizes or ([1_000, 10_000] if quick else list(SIZES))
    args.duration = args.duration or (3 if quick else 10)
    args.runs = args.runs or (1 if quick else 3)
    args.warmup = args.warmup if args.warmup is not None else (1 if quick else 3)
    args.saves = args.saves or (10 if quick else editor_save.ROUNDS)
    args.searches = args.searches or (2 if quick else search_cpu.ROUNDS)
    args.cold_env = dict(args.cold_env) if args.cold_env else dict(COLD_ENV)
    args.databases = [d.strip() for d in args.databases.split(",") if d.strip()]
    for database in args.databases:
        if database not in datasets.DATABASES:
            parser.error(f"unknown database {database!r}")
    if min(args.runs, args.duration, args.connections, args.threads, args.saves) < 1:
        parser.error("runs, duration, connections, threads and saves must be at least 1")
    if args.searches < 1:
        parser.error("searches must be at least 1")
    return args


def _git_commit() -> str:
    """The checked-out commit, marked when the tree has uncommitted changes."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], capture_output=True, text=True, cwd=ROOT
        ).stdout.strip()
    except OSError:
        return "unknown"
    return f"{commit or 'unknown'}{' with uncommitted changes' if dirty else ''}"


def _wrk_version() -> str:
    """wrk's version line."""
    done = subprocess.run([wrk.available() or "wrk", "-v"], capture_output=True, text=True)
    return (done.stdout or done.stderr).splitlines()[0] if (done.stdout or done.stderr) else ""


def _load() -> str:
    """The 1-minute load average."""
    return f"{os.getloadavg()[0]:.2f}"


def _stop_on_sigterm(_signum: int, _frame: object) -> None:
    """Turn SIGTERM into an exit that still stops the servers we started."""
    raise SystemExit(143)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write the report; the exit status is 1 when a target is not met."""
    args = arguments(argv)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    if not wrk.available():
        log("wrk is not installed: `sudo apt-get install wrk` (Debian's package), or `make bench`.")
        return 2
    started = datetime.now(UTC)
    clock = time.monotonic()
    results: dict[str, Any] = {
        "schema": 1,
        "started": started.strftime("%Y-%m-%d %H:%M UTC"),
        "settings": {
            "command": shlex.join(
                ["python", "-m", "bench.run", *(argv if argv is not None else sys.argv[1:])]
            ),
            "sizes": args.sizes,
            "main_size": MAIN_SIZE if MAIN_SIZE in args.sizes else max(args.sizes),
            "duration": args.duration,
            "runs": args.runs,
            "warmup": args.warmup,
            "saves": args.saves,
            "searches": args.searches,
            "threads": args.threads,
            "connections": args.connections,
            "workers": servers.WORKERS,
            "cold_env": args.cold_env,
            "label": args.label,
        },
        "machine": {
            "cores": os.cpu_count(),
            "load_start": _load(),
            "commit": _git_commit(),
            "python": platform.python_version(),
            "wrk": _wrk_version(),
        },
        "reference_compression": None,
        "databases": {},
    }
    work = LOGS / started.strftime("%Y%m%d-%H%M%S")
    work.mkdir(parents=True, exist_ok=True)
    log(f"Server logs and captured pages: {work}")
    for database in args.databases:
        if database == "postgresql" and not datasets.postgres_reachable():
            reason = f"PostgreSQL unreachable at {datasets.POSTGRES_SERVER}"
            if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
                log(reason)
                return 2
            results["databases"][database] = {"skipped": reason}
            continue
        outcome = bench_database(database, args, work)
        results["databases"][database] = outcome
        results["reference_compression"] = outcome["discovered"].get("compress_settings")
    results["machine"]["load_end"] = _load()
    results["elapsed_minutes"] = (time.monotonic() - clock) / 60
    text = report.markdown(results)
    args.output.mkdir(parents=True, exist_ok=True)
    stem = args.output / f"listing-{started.strftime('%Y%m%d-%H%M%S')}"
    stem.with_suffix(".md").write_text(text)
    stem.with_suffix(".json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    print(text)
    log(f"Written: {stem}.md and {stem}.json")
    verdicts = [
        target["result"]
        for outcome in results["databases"].values()
        for target in outcome.get("targets", [])
    ]
    # A quick run cannot measure the 100,000-post targets: only failures count there.
    failed = "FAIL" in verdicts or (not args.quick and "n/a" in verdicts)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
