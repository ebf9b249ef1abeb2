"""Worker memory under anonymous requests that differ in everything a page must not depend on.

`measure(server, ...)` reads each gunicorn worker's resident memory (VmRSS in
/proc/<pid>/status), sends REQUESTS anonymous GETs over loopback, each with a random query
string (`?utm_x=<random>&page=1` or `?v=<random>`), a Host header that spells the site's
own name differently each time (case, a random port; one in ten names another host, which
the site refuses with a 400 before its page cache) and, for half of them,
`HX-Request: true` with a random HX-Target, to the home page, a topic page or a post page,
then reads the memory again. A page cache keyed on any of those would grow with every
request; one keyed only on what the views read stays within its PAGE_CACHE_MB bound. The
values come from a seeded generator, so every run sends the same requests.
"""

from __future__ import annotations

import http.client
import random
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench import datasets, servers
from bench.servers import Server

REQUESTS = 5000
THREADS = 4  # two per worker: each always has the next request waiting
HEADROOM_MB = 20  # what a worker may grow besides its page cache
SEED = 8
POST_PAGES = 24  # the newest posts, whose pages the requests ask for
ENCODINGS = ("", "gzip", "br", "gzip, br")
# The names the bench's servers answer for (their SITE_URL is on the loopback).
OWN_NAMES = ("localhost", "127.0.0.1")


def worker_pids(master: int) -> list[int]:
    """The process ids of the gunicorn master's children (its workers)."""
    try:
        return sorted(
            int(pid) for pid in Path(f"/proc/{master}/task/{master}/children").read_text().split()
        )
    except OSError:
        pass
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # The command name is in parentheses and may hold spaces: read after the last one.
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == master:
            found.append(int(stat.parent.name))
    return sorted(found)


def rss_mb(pid: int) -> float | None:
    """The process's resident memory in megabytes (MiB), or None when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def requests(count: int = REQUESTS, seed: int = SEED) -> list[tuple[str, dict[str, str]]]:
    """`count` anonymous requests: a path with a random query string, and random headers."""
    rng = random.Random(seed)
    slugs = [datasets.post_spec(index).slug for index in range(POST_PAGES)]
    topics = [slug for _, slug in datasets.TOPICS]
    made = []
    for _ in range(count):
        token = f"{rng.getrandbits(64):016x}"
        path = rng.choice(("/", f"/topics/{rng.choice(topics)}", f"/posts/{rng.choice(slugs)}"))
        query = f"?utm_x={token}&page=1" if rng.random() < 0.5 else f"?v={token}"
        if rng.random() < 0.1:  # another host: refused before the page cache
            host = f"h{rng.getrandbits(48):012x}.example"
        else:  # the site's own name (a loopback SITE_URL), spelt another way
            name = "".join(c.upper() if rng.random() < 0.5 else c for c in rng.choice(OWN_NAMES))
            host = f"{name}:{rng.randrange(1, 65536)}"
        headers = {"Host": host}
        if rng.random() < 0.5:
            headers |= {"HX-Request": "true", "HX-Target": f"t{rng.getrandbits(48):012x}"}
        encoding = rng.choice(ENCODINGS)
        if encoding:
            headers["Accept-Encoding"] = encoding
        made.append((path + query, headers))
    return made


def _send(port: int, path: str, headers: dict[str, str]) -> int | str:
    """GET once over loopback: the status, or the name of the error."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status
    except (OSError, http.client.HTTPException) as error:
        return error.__class__.__name__
    finally:
        connection.close()


def measure(server: Server, page_cache_mb: int, count: int = REQUESTS) -> dict[str, Any]:
    """Each worker's memory before and after `count` varied anonymous requests."""
    pids = worker_pids(server.process.pid)
    before = {pid: rss_mb(pid) for pid in pids}
    sent = requests(count)
    started = time.monotonic()
    with ThreadPoolExecutor(THREADS) as pool:
        answers = Counter(
            str(status) for status in pool.map(lambda r: _send(server.port, *r), sent)
        )
    seconds = time.monotonic() - started
    servers.settle(server)
    after_pids = worker_pids(server.process.pid)
    workers = []
    for pid in sorted(set(pids) | set(after_pids)):
        old, new = before.get(pid), rss_mb(pid)
        workers.append(
            {
                "pid": pid,
                "before_mb": old,
                "after_mb": new,
                "growth_mb": None if old is None or new is None else new - old,
            }
        )
    return {
        "server": server.name,
        "requests": count,
        "seconds": round(seconds, 1),
        "answers": dict(sorted(answers.items())),
        "page_cache_mb": page_cache_mb,
        "limit_mb": page_cache_mb + HEADROOM_MB,
        "workers": workers,
        # A worker that died or was replaced during the run cannot be compared.
        "replaced": sorted(set(pids) ^ set(after_pids)),
    }
