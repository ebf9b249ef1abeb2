"""Rendered public pages kept in each server process and served before Flask runs.

A cached route's page is rendered once per data version and stored, with its compressed forms,
under a key made only of what its view reads: the endpoint and its path values, the query
parameters it recognises, and the htmx block it would render. Anything else a request
carries (tracking parameters, a Host header, an unknown HX-Target) neither makes a new
entry nor reaches the render. Each hit costs one primary-key read of the state row, which
every write moves on (blog/web/versions.py), so a page never outlives the data it shows, in
this process or any other. The store is bounded in bytes; the least recently used page
goes first.
"""

from __future__ import annotations

import gzip
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

import brotli
import sqlalchemy as sa
from flask import Flask
from flask_sqlalchemy.session import Session as AppSession
from htmx_flask.requests import HtmxHeaders
from werkzeug.datastructures import EnvironHeaders
from werkzeug.exceptions import HTTPException
from werkzeug.http import (
    is_resource_modified,
    parse_accept_header,
    parse_date,
    remove_entity_headers,
)
from werkzeug.routing import RequestRedirect

from blog.extensions import db
from blog.web.htmx import VARY, fragment_for
from blog.web.versions import State, StateReader
from blog.web.viewer import carries_credentials_in

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

ENCODINGS = ("br", "gzip")
# Compression levels that cost a fraction of a render (brotli 9 took three renders' time).
BROTLI_QUALITY = 5
GZIP_LEVEL = 6


@dataclass(frozen=True)
class CachedRoute:
    """What a cached view reads from a request besides its path: these query parameters, and
    the htmx swap targets it answers with a block (target id → block)."""

    params: tuple[str, ...] = ()
    fragments: Mapping[str, str] = field(default_factory=dict)


@dataclass
class Entry:
    """One rendered page: its body, the compressed forms made so far and its headers."""

    body: bytes
    stamp: tuple[Any, Any]  # the state the page was rendered from (State.stamp)
    headers: list[tuple[str, str]]  # without length or encoding
    etag: str | None
    last_modified: datetime | None
    compressed: dict[str, bytes]

    @property
    def size(self) -> int:
        """Bytes the entry holds, about: bodies and headers."""
        extra = sum(len(name) + len(value) for name, value in self.headers)
        return len(self.body) + sum(map(len, self.compressed.values())) + extra + 200


class Store:
    """One app's cached pages, at most `limit` bytes of them, least recently used out first."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.lock = threading.Lock()
        self.entries: OrderedDict[tuple[Any, ...], Entry] = OrderedDict()
        self.size = 0

    def get(self, key: tuple[Any, ...]) -> Entry | None:
        """The entry under `key`, now the most recently used."""
        with self.lock:
            entry = self.entries.get(key)
            if entry is not None:
                self.entries.move_to_end(key)
            return entry

    def put(self, key: tuple[Any, ...], entry: Entry) -> None:
        """Keep an entry, dropping the least recently used ones beyond the limit."""
        with self.lock:
            old = self.entries.pop(key, None)
            if old is not None:
                self.size -= old.size
            if entry.size > self.limit:
                return
            self.entries[key] = entry
            self.size += entry.size
            while self.size > self.limit:
                _, dropped = self.entries.popitem(last=False)
                self.size -= dropped.size

    def clear(self) -> None:
        """Forget every page."""
        with self.lock:
            self.entries.clear()
            self.size = 0


# Every app's page cache, so that clear() and a commit reach them all (apps share a process
# in tests).
_caches: weakref.WeakSet[PageCache] = weakref.WeakSet()


def clear() -> None:
    """Forget every cached page of every app in this process."""
    for cache in list(_caches):
        cache.store.clear()
        cache.recheck_now()


def _after_commit(_session: AppSession) -> None:
    """A commit in this process may have moved the data on: its next hit reads the row."""
    for cache in list(_caches):
        cache.recheck_now()


def best_encoding(accepted: str | None) -> str | None:
    """The encoding to send for an Accept-Encoding header."""
    return parse_accept_header(accepted).best_match(ENCODINGS) if accepted else None


def _compress(body: bytes, encoding: str) -> bytes:
    """The body in an encoding."""
    if encoding == "br":
        return brotli.compress(body, quality=BROTLI_QUALITY)
    return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)


class PageCache:
    """WSGI wrapper: answers a cached route's request from memory while the data version holds."""

    def __init__(self, wsgi_app: WSGIApplication, app: Flask, routes: Mapping[str, CachedRoute]):
        self.wsgi_app = wsgi_app
        self.app = app
        self.routes = dict(routes)
        self.store = Store(app.config["PAGE_CACHE_MB"] * 1024 * 1024)
        self.reader: StateReader | None = None  # made when the first request needs it
        # The state row as last read, and until when (time.monotonic()) it stands.
        self.state: State | None = None
        self.state_until = 0.0
        self.recheck = app.config["PAGE_CACHE_RECHECK_MS"] / 1000
        _caches.add(self)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        """Serve the cached page for this request, or let Flask render (and store) it."""
        if (
            not self.app.config["PAGE_CACHE"]
            or self.app.debug  # templates change under a debug server
            or environ.get("REQUEST_METHOD") not in ("GET", "HEAD")
            or carries_credentials_in(environ, self.app.config)
        ):
            return self.wsgi_app(environ, start_response)
        key = self.key(environ)
        if key is None:
            return self.wsgi_app(environ, start_response)
        state = self._state()
        if state is None or state.publish_due:  # Flask reads again, publishes, reports
            return self.wsgi_app(environ, start_response)
        entry = self.store.get(key)
        if entry is not None and entry.stamp == state.stamp:
            return self._serve(entry, environ, start_response)
        return self._render(key, state, environ, start_response)

    def key(self, environ: WSGIEnvironment) -> tuple[Any, ...] | None:
        """What the page depends on besides the data, or None for a route that is not cached."""
        adapter = self.app.url_map.bind_to_environ(environ)
        try:
            endpoint, values = adapter.match()
        except (HTTPException, RequestRedirect):
            return None
        route = self.routes.get(endpoint)
        if route is None:
            return None
        args: dict[str, str] = {}
        if route.params and environ.get("QUERY_STRING"):
            for name, value in parse_qsl(environ["QUERY_STRING"], keep_blank_values=True):
                if name in route.params:
                    args.setdefault(name, value)  # the view reads the first one
        block = fragment_for(route.fragments, HtmxHeaders(EnvironHeaders(environ)))
        return (endpoint, tuple(sorted(values.items())), tuple(sorted(args.items())), block)

    def _state(self) -> State | None:
        """The state row, or None when it cannot be read (Flask then answers, and reports).

        Read at most once per PAGE_CACHE_RECHECK_MS: on PostgreSQL the read is a round trip
        whose server-side work cost cached pages a quarter of their rate. A commit in this
        process reads it again at once; another process's write is seen within the interval.
        """
        now = time.monotonic()
        if self.state is not None and now < self.state_until:
            return self.state
        if self.reader is None:
            with self.app.app_context():
                self.reader = StateReader(db.engine)
        try:
            state = self.reader.read()
        except self.reader.engine.dialect.loaded_dbapi.Error:
            return None
        self.state, self.state_until = state, now + self.recheck
        return state

    def recheck_now(self) -> None:
        """Read the state row again on the next hit."""
        self.state = None

    def _render(
        self,
        key: tuple[Any, ...],
        state: State,
        environ: WSGIEnvironment,
        start_response: StartResponse,
    ) -> Iterable[bytes]:
        """Let Flask render the plain page; keep it when every cache may share it."""
        sent: list[Any] = []

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            sent[:] = [status, headers]
            if exc_info is not None:
                return start_response(status, headers, exc_info)
            return lambda _data: None  # a body written this way is not cached: never used here

        # The page cache compresses cached pages itself, once: ask Flask for the plain body.
        plain = {k: v for k, v in environ.items() if k != "HTTP_ACCEPT_ENCODING"}
        result = self.wsgi_app(plain, start)
        try:
            body = b"".join(result)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        status, headers = sent
        names = {name.lower(): value for name, value in headers}
        shared = "public" in names.get("cache-control", "") and "set-cookie" not in names
        if status.startswith("200") and shared and environ["REQUEST_METHOD"] == "GET":
            drop = {"content-length", "content-encoding"}
            kept = [(n, v) for n, v in headers if n.lower() not in drop]
            compressed = {encoding: _compress(body, encoding) for encoding in ENCODINGS}
            last_modified = parse_date(names.get("last-modified"))
            entry = Entry(
                body, state.stamp, _with_vary(kept), names.get("etag"), last_modified, compressed
            )
            self.store.put(key, entry)
            return self._send(entry, environ, start_response)
        start_response(status, headers)
        return [body]

    def _serve(
        self, entry: Entry, environ: WSGIEnvironment, start_response: StartResponse
    ) -> Iterable[bytes]:
        """Send the cached page: a 304 when the client holds it, else the best encoding."""
        if ("HTTP_IF_NONE_MATCH" in environ or "HTTP_IF_MODIFIED_SINCE" in environ) and (
            not is_resource_modified(environ, etag=entry.etag, last_modified=entry.last_modified)
        ):
            headers = list(entry.headers)
            remove_entity_headers(headers)
            start_response("304 NOT MODIFIED", headers)
            return []
        return self._send(entry, environ, start_response)

    def _send(
        self, entry: Entry, environ: WSGIEnvironment, start_response: StartResponse
    ) -> Iterable[bytes]:
        """Send the entry's body in the best encoding the client accepts."""
        encoding = best_encoding(environ.get("HTTP_ACCEPT_ENCODING"))
        body = entry.body if encoding is None else entry.compressed[encoding]
        headers = list(entry.headers)
        if encoding is not None:
            headers.append(("Content-Encoding", encoding))
        headers.append(("Content-Length", str(len(body))))
        start_response("200 OK", headers)
        return [] if environ["REQUEST_METHOD"] == "HEAD" else [body]


def _with_vary(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The headers with Vary naming Accept-Encoding and the htmx headers."""
    others = [(n, v) for n, v in headers if n.lower() != "vary"]
    names = [v.strip() for n, value in headers if n.lower() == "vary" for v in value.split(",")]
    for name in ("Accept-Encoding", *VARY):
        if name.lower() not in {known.lower() for known in names}:
            names.append(name)
    return [*others, ("Vary", ", ".join(name for name in names if name))]


def init_app(app: Flask, wsgi_app: WSGIApplication, routes: Mapping[str, CachedRoute]) -> PageCache:
    """The page cache of `app` in front of `wsgi_app`, for these cached routes (by endpoint)."""
    if not sa.event.contains(AppSession, "after_commit", _after_commit):
        sa.event.listen(AppSession, "after_commit", _after_commit)
    return PageCache(wsgi_app, app, routes)
