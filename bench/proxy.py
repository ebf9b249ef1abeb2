"""The home page through the production stack's proxy cache (deploy/stack.py), beside nginx
sending the same bytes as a static file, and beside one app server alone.

    .venv/bin/python -m bench.proxy --database postgresql [--size 10000] [--rounds 3] [--seconds 5]

The stack runs on a benchmark data set (bench/datasets.py, never rebuilt here) on free ports:
nginx in front of two gunicorns of two sync workers each. Every request asks for
`Accept-Encoding: gzip, br`. The rows, measured with wrk round by round in alternating order:

- proxy cache: `/` through nginx, answered from its cache (checked: X-Cache is HIT);
- static file: the exact body the cache holds, written to a file and sent by the same nginx
  with the same Content-Encoding (the cost of sending those bytes);
- app alone: `/` straight from app server A (its own page cache, no proxy).

Targets: proxy cache at least 0.5× the static file's req/s, and at least 5× the app alone's.
The exit status is 1 when a target is missed. `measure()` returns the numbers for other
scripts (bench/run.py).
"""

from __future__ import annotations

import argparse
import http.client
import os
import shutil
import socket
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import datasets, wrk
from deploy.stack import Stack

ACCEPT = ("Accept-Encoding", "gzip, br")
STATIC_PATH = "/bench/home-static"
THREADS = 2
CONNECTIONS = 32
TARGETS = (
    ("proxy cache / static file", "proxy", "static", 0.5),
    ("proxy cache / app alone", "proxy", "app", 5.0),
)


def _free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _fetch(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    """One compressed GET, its body as sent."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("GET", path, headers={"Host": "127.0.0.1", ACCEPT[0]: ACCEPT[1]})
        response = connection.getresponse()
        headers = {name.lower(): value for name, value in response.getheaders()}
        return response.status, headers, response.read()
    finally:
        connection.close()


def _static_location(body: Path, encoding: str) -> str:
    """An nginx location that sends `body` as the home page would be sent."""
    return f"""
        location = {STATIC_PATH} {{
            alias {body};
            default_type "text/html; charset=utf-8";
            add_header Content-Encoding {encoding};
            add_header Vary "Accept-Encoding";
            add_header Cache-Control "public, max-age=60";
        }}
"""


def measure(
    database: str,
    size: int,
    *,
    rounds: int = 3,
    seconds: float = 5,
    log: Any = print,
) -> dict[str, Any]:
    """Bring the stack up on the data set, measure the three rows, and take it down."""
    dataset = datasets.ensure(database, size, log=log)
    state = Path(tempfile.mkdtemp(prefix="fieldnotes-bench-proxy-"))
    body = state / "home-static.body"
    # The encoding the app picks for gzip, br is brotli; the location is written for it and
    # the body checked against it below.
    stack = Stack(
        state_dir=state,
        port=_free_port(),
        app_ports=(_free_port(), _free_port()),
        database_url=dataset.url,
        settings={"SECRET_KEY": "bench-not-a-secret"},
        extra_nginx=_static_location(body, "br"),
    )
    try:
        log(f"starting the stack on {database} with {size:,} posts ({dataset.origin})")
        stack.up(prepare=False)
        status, headers, sent = _fetch(stack.port, "/")
        status, headers, sent = _fetch(stack.port, "/")
        if status != 200 or headers.get("x-cache") != "HIT":
            raise RuntimeError(f"the home page is not served from the cache: {status} {headers}")
        if headers.get("content-encoding") != "br":
            raise RuntimeError(f"expected a brotli body, got {headers.get('content-encoding')}")
        body.write_bytes(sent)
        body.chmod(0o644)
        static = _fetch(stack.port, STATIC_PATH)
        if static[0] != 200 or static[2] != sent:
            raise RuntimeError("nginx does not send the cached bytes as a static file")
        urls = {
            "proxy": (f"http://127.0.0.1:{stack.port}", "/"),
            "static": (f"http://127.0.0.1:{stack.port}", STATIC_PATH),
            "app": (f"http://127.0.0.1:{stack.app_ports[0]}", "/"),
        }
        runs: dict[str, list[float]] = {name: [] for name in urls}
        order = list(urls)
        for number in range(rounds):
            for name in order if number % 2 == 0 else list(reversed(order)):
                base, path = urls[name]
                result, output = wrk.run(
                    base,
                    wrk.Request(path, (ACCEPT,)),
                    seconds=seconds,
                    threads=THREADS,
                    connections=CONNECTIONS,
                )
                if result.failed:
                    raise RuntimeError(f"wrk saw errors on {name}:\n{output}")
                runs[name].append(result.rps)
                log(f"round {number + 1} {name}: {result.rps:,.0f} req/s")
                if name == "app":  # let the queue wrk left behind drain before the next row
                    _fetch(stack.app_ports[0], "/robots.txt")
        rps = {name: statistics.median(values) for name, values in runs.items()}
        targets = []
        for label, top, bottom, limit in TARGETS:
            ratios = [a / b for a, b in zip(runs[top], runs[bottom], strict=True) if b]
            value = statistics.median(ratios)
            targets.append(
                {"label": label, "value": value, "limit": limit, "passed": value >= limit}
            )
        return {
            "database": database,
            "size": size,
            "bytes": len(sent),
            "rps": rps,
            "runs": runs,
            "targets": targets,
            "load": os.getloadavg()[0],
        }
    finally:
        stack.down(quiet=True)
        shutil.rmtree(state, ignore_errors=True)


def report(result: dict[str, Any]) -> str:
    """The numbers as a small Markdown table, with the targets."""
    labels = {"proxy": "proxy cache `/`", "static": "nginx static file", "app": "app alone `/`"}
    lines = [
        f"Home page at {result['size']:,} posts on {result['database']}, brotli body of "
        f"{result['bytes']:,} bytes; 1-minute load {result['load']:.2f}",
        "",
        "| Row | req/s (median) | runs |",
        "|---|---:|---|",
    ]
    for name, label in labels.items():
        runs = ", ".join(f"{value:,.0f}" for value in result["runs"][name])
        lines.append(f"| {label} | {result['rps'][name]:,.0f} | {runs} |")
    lines.append("")
    for target in result["targets"]:
        verdict = "PASS" if target["passed"] else "FAIL"
        lines.append(
            f"- {target['label']}: {target['value']:.2f}× (target ≥ {target['limit']}×) {verdict}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measure and print; the exit status is 1 when a target is missed."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.proxy", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--database", choices=datasets.DATABASES, default="postgresql")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5)
    args = parser.parse_args(argv)
    if wrk.available() is None:
        print(
            "wrk is not installed (Debian's wrk package; `make bench` installs it)", file=sys.stderr
        )
        return 1

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    result = measure(args.database, args.size, rounds=args.rounds, seconds=args.seconds, log=log)
    print(report(result))
    return 0 if all(target["passed"] for target in result["targets"]) else 1


if __name__ == "__main__":
    sys.exit(main())
