"""SQL statements and template renders per request, cold and warm, counted in-process.

`bench.run` starts `python -m bench.sqlcount OUTPUT` with a JSON job on stdin and the server's
environment (so settings read at import, like a cache switch, are the server's). The process
imports the blog but builds no app; each request then runs in a forked child that builds a
fresh app, sends the request twice with the Flask test client and counts what each did:
the first is cold (new process, new app), the second warm.

Statements are counted with SQLAlchemy's `before_cursor_execute`; transaction control
(BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE) is counted apart, since SQLite sends BEGIN
through the cursor and PostgreSQL does not. Renders count Flask's `template_rendered` and
jinja2-fragments' block signals: a warm request that renders nothing was served from a cache.

Job:    {"requests": [{"id", "database_url", "path", "headers": [[name, value]], "app"}],
         "discover": database_url or null}      ("app" is "blog" or "inmemory")
Answer: {"discover": {...} or null, "results": {id: {"status": [cold, warm],
         "statements": [cold, warm], "transaction_control": [cold, warm],
         "renders": [cold, warm], "ms": [cold, warm] (in-process time),
         "sql": [[cold statements...], [warm statements...]]}}}
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from flask import Flask, template_rendered
from jinja2_fragments import flask as fragments

from bench import reference_app
from blog import create_app
from blog.extensions import db

_CONTROL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b", re.IGNORECASE)
_RENDER_SIGNALS = (
    template_rendered,
    fragments.template_block_rendered,
    fragments.template_blocks_rendered,
)
SECRET = "bench-not-a-secret"
# A request slower than this is not sent a second time (the warm count repeats the cold one).
TOO_SLOW_MS = 20_000


def _in_child(work: Callable[[], Any]) -> Any:
    """Run `work` in a forked child and return its JSON-able result (or raise its error)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            payload = {"ok": work()}
        except BaseException:
            payload = {"error": traceback.format_exc()}
        with os.fdopen(write_end, "w") as pipe:
            json.dump(payload, pipe)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        payload = json.loads(pipe.read() or '{"error": "the child died"}')
    os.waitpid(pid, 0)
    if "error" in payload:
        raise RuntimeError(payload["error"])
    return payload["ok"]


def _app(kind: str, database_url: str) -> Flask:
    """A fresh blog app, or the in-memory reference, on `database_url`."""
    settings = {"SECRET_KEY": SECRET, "SQLALCHEMY_DATABASE_URI": database_url}
    if kind == "inmemory":
        return reference_app.inmemory(settings)
    return create_app(settings)


def count(job: dict[str, Any]) -> dict[str, Any]:
    """Send one request twice to a fresh app and count statements and renders of each."""
    app = _app(job.get("app", "blog"), job["database_url"])
    with app.app_context():
        engine = db.engine
    rounds: list[dict[str, Any]] = []

    def on_statement(_conn, _cursor, statement: str, *_args: Any) -> None:
        rounds[-1]["sql"].append(" ".join(statement.split())[:300])

    def on_render(*_args: Any, **_kwargs: Any) -> None:
        rounds[-1]["renders"] += 1

    sa.event.listen(engine, "before_cursor_execute", on_statement)
    for signal in _RENDER_SIGNALS:
        signal.connect(on_render, app)
    client = app.test_client()
    headers = [tuple(pair) for pair in job.get("headers", [])]
    for _ in range(2):
        rounds.append({"sql": [], "renders": 0})
        started = time.perf_counter()
        rounds[-1]["status"] = client.get(job["path"], headers=headers).status_code
        rounds[-1]["ms"] = round((time.perf_counter() - started) * 1000, 1)
        if rounds[-1]["ms"] > TOO_SLOW_MS:
            rounds.append(rounds[-1])  # no second try of a request this slow
            break
    control = [[s for s in r["sql"] if _CONTROL.match(s)] for r in rounds]
    return {
        "status": [r["status"] for r in rounds],
        "statements": [len(r["sql"]) - len(c) for r, c in zip(rounds, control, strict=True)],
        "transaction_control": [len(c) for c in control],
        "renders": [r["renders"] for r in rounds],
        "ms": [r["ms"] for r in rounds],
        "sql": [r["sql"] for r in rounds],
    }


def discover(database_url: str) -> dict[str, Any]:
    """What the plan depends on: page size, page cache bound, routes, how the app compresses."""
    app = _app("blog", database_url)
    rules = {rule.rule for rule in app.url_map.iter_rules()}
    compressed = app.test_client().get("/", headers={"Accept-Encoding": "gzip, br"})
    uses_compress = reference_app.uses_flask_compress(app)
    return {
        "per_page": app.config["POSTS_PER_PAGE"],
        "page_cache_mb": app.config.get("PAGE_CACHE_MB"),
        "search": "/search" in rules,
        "flask_compress": uses_compress,
        "home_content_encoding": compressed.headers.get("Content-Encoding"),
        "compress_settings": reference_app.compression_settings(app)
        if uses_compress or compressed.headers.get("Content-Encoding")
        else None,
    }


def main() -> None:
    """Read a job from stdin, write the counts as JSON to the file named by the argument."""
    job = json.load(sys.stdin)
    answer: dict[str, Any] = {"discover": None, "results": {}}
    if job.get("discover"):
        answer["discover"] = _in_child(lambda: discover(job["discover"]))
    for request in job.get("requests", []):
        try:
            answer["results"][request["id"]] = _in_child(lambda r=request: count(r))
        except RuntimeError as error:
            answer["results"][request["id"]] = {"error": str(error)}
    with open(sys.argv[1], "w") as output:
        json.dump(answer, output)


if __name__ == "__main__":
    main()
