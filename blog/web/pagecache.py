"""Rendered pages kept in each server process and served before Flask runs.

A listing or post page is rendered once per data version; its body, compressed forms and
response headers are kept under the request that asked for it. `KeptPages`, a WSGI wrapper
in front of the app, answers the same request again from memory after one primary-key read
of the state row, which every write moves on (blog/caching.py): a page can never outlive the
data it shows, in this process or any other. Requests with credentials, other methods, a
changed version or a scheduled post that has come due go through to Flask as usual.
"""

from __future__ import annotations

import gzip
import threading
import weakref
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import brotli
import sqlalchemy as sa
from flask import Flask, current_app, request
from flask.wrappers import Response
from werkzeug.http import (
    is_resource_modified,
    parse_accept_header,
    parse_cookie,
    remove_entity_headers,
)

from blog import hotreads, sitestate
from blog.models import utcnow
from blog.sitestate import StateRead
from blog.web.caching import Validator, add_vary, carries_credentials, has_credentials

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

MAX_ENTRIES = 2048
ENCODINGS = ("br", "gzip")
# The request's keeper: the view leaves the page it rendered here for KeptPages to keep.
ENVIRON_KEY = "fieldnotes.kept_page"
# What a kept page depends on besides the data: the request line and the headers pages vary by.
KEY_HEADERS = ("HTTP_HX_REQUEST", "HTTP_HX_TARGET", "HTTP_HX_HISTORY_RESTORE_REQUEST")


@dataclass
class Entry:
    """One rendered page: its body, the compressed forms made so far and its headers."""

    body: bytes
    stamp: tuple[Any, Any]  # (version, changed_at) of the state the page was rendered from
    etag: str = ""
    last_modified: datetime | None = None
    headers: list[tuple[str, str]] = field(default_factory=list)  # without length or encoding
    compressed: dict[str, bytes] = field(default_factory=dict)


class _Store:
    """One app's kept pages, all of one stamp: an entry of another stamp drops the rest."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.entries: dict[tuple[str | None, ...], Entry] = {}
        self.stamp: tuple[Any, Any] | None = None

    def put(self, key: tuple[Any, ...], entry: Entry) -> None:
        """Keep an entry (the oldest goes first when full)."""
        with self.lock:
            if self.stamp != entry.stamp:
                self.entries.clear()
                self.stamp = entry.stamp
            if len(self.entries) >= MAX_ENTRIES:
                self.entries.pop(next(iter(self.entries)))
            self.entries[key] = entry

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.stamp = None


# Every app's store, so that clear() reaches them all (apps share a process in tests).
_stores: weakref.WeakSet[_Store] = weakref.WeakSet()


def enabled() -> bool:
    """Whether pages are kept (PAGE_CACHE=off turns it off, for measuring cold renders)."""
    return current_app.config["PAGE_CACHE"] and not has_credentials()


def keep(check: Validator, response: Response) -> Response:
    """Hand a freshly rendered 200 page to KeptPages, then send it the way a kept one is sent."""
    if not enabled() or response.status_code != 200 or response.is_streamed:
        return response
    entry = Entry(
        response.get_data(),
        stamp=(check.state.version, check.state.changed_at),
        etag=check.header,
        last_modified=check.last_modified,
    )
    request.environ[ENVIRON_KEY] = entry
    return _send(entry)


def clear() -> None:
    """Forget every kept page."""
    for store in list(_stores):
        store.clear()


_encodings: dict[str | None, str | None] = {}


def best_encoding(accepted: str | None) -> str | None:
    """The encoding to send for an Accept-Encoding header (remembered: clients send few)."""
    try:
        return _encodings[accepted]
    except KeyError:
        best = parse_accept_header(accepted).best_match(ENCODINGS)
        if len(_encodings) < 256:
            _encodings[accepted] = best
        return best


def _send(entry: Entry) -> Response:
    """A response with the body in the best encoding the client accepts."""
    encoding = best_encoding(request.headers.get("Accept-Encoding"))
    response = current_app.response_class(mimetype="text/html")
    add_vary(response, ("Accept-Encoding",))
    if encoding is None:
        response.set_data(entry.body)
        return response
    response.set_data(_body(entry, encoding, current_app.config["PAGE_CACHE_BR_LEVEL"]))
    response.headers["Content-Encoding"] = encoding
    return response


def _body(entry: Entry, encoding: str | None, br_level: int) -> bytes:
    """The entry's body in an encoding, compressed once (so at a high level) and kept."""
    if encoding is None:
        return entry.body
    data = entry.compressed.get(encoding)
    if data is None:
        if encoding == "br":
            data = brotli.compress(entry.body, quality=br_level)
        else:
            data = gzip.compress(entry.body, compresslevel=9, mtime=0)
        entry.compressed[encoding] = data
    return data


# --- Serving kept pages before Flask -------------------------------------------------------


class KeptPages:
    """WSGI wrapper: answers a kept page's request from memory while the version holds."""

    def __init__(self, wsgi_app: WSGIApplication, app: Flask) -> None:
        self.wsgi_app = wsgi_app
        self.app = app
        self.store = _Store()
        _stores.add(self.store)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Any:
        """Serve the kept page for this request, or let Flask render (and keep) it."""
        config = self.app.config
        if (
            not config["PAGE_CACHE"]
            or self.app.debug  # templates change under a debug server
            or environ.get("REQUEST_METHOD") not in ("GET", "HEAD")
            or self._has_credentials(environ)
        ):
            return self.wsgi_app(environ, start_response)
        key = (
            environ.get("SCRIPT_NAME"),
            environ.get("PATH_INFO"),
            environ.get("QUERY_STRING"),
            environ.get("wsgi.url_scheme"),
            environ.get("HTTP_HOST"),
            *(environ.get(name) for name in KEY_HEADERS),
        )
        entry = self.store.entries.get(key)
        if entry is not None and environ.get("HTTP_IF_NONE_MATCH", "").strip() != "*":
            read = self._state()
            if read is not None:
                state, next_publish_at = read
                if next_publish_at is None or next_publish_at > utcnow():
                    if (state.version, state.changed_at) == entry.stamp:
                        return self._serve(entry, environ, start_response)
                    # The page is out of date. Views that read the state row alone reuse
                    # this one; the listing reads it again with its page, so they agree.
                    environ[sitestate.ENVIRON_KEY] = read
        return self._render(key, environ, start_response)

    def _state(self) -> StateRead | None:
        """The state row, or None when it cannot be read (Flask then answers, and reports)."""
        try:
            rows = hotreads.reads(self.app).fetch(sitestate.READ)
        except sa.exc.DBAPIError:
            return None
        return sitestate.from_row(rows[0] if rows else None)

    def _has_credentials(self, environ: WSGIEnvironment) -> bool:
        """True when the request carries a session or remember-me cookie."""
        if "HTTP_COOKIE" not in environ:
            return False
        return carries_credentials(parse_cookie(environ), self.app.config)

    def _render(
        self, key: tuple[Any, ...], environ: WSGIEnvironment, start_response: StartResponse
    ) -> Any:
        """Let Flask answer; keep the page it rendered when the response may be shared."""
        sent: list[Any] = []

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            sent[:] = [status, headers]
            return start_response(status, headers, exc_info)

        result = self.wsgi_app(environ, start)
        entry = environ.get(ENVIRON_KEY)
        if entry is not None and sent and sent[0].startswith("200"):
            names = {name.lower() for name, _ in sent[1]}
            if "set-cookie" not in names:
                drop = {"content-length", "content-encoding"}
                entry.headers = [(n, v) for n, v in sent[1] if n.lower() not in drop]
                self.store.put(key, entry)
        return result

    def _serve(self, entry: Entry, environ: WSGIEnvironment, start_response: StartResponse) -> Any:
        """Send the kept page: a 304 when the client holds it, else the best encoding."""
        if ("HTTP_IF_NONE_MATCH" in environ or "HTTP_IF_MODIFIED_SINCE" in environ) and (
            not is_resource_modified(environ, etag=entry.etag, last_modified=entry.last_modified)
        ):
            headers = list(entry.headers)
            remove_entity_headers(headers)
            start_response("304 NOT MODIFIED", headers)
            return []
        encoding = best_encoding(environ.get("HTTP_ACCEPT_ENCODING"))
        body = _body(entry, encoding, self.app.config["PAGE_CACHE_BR_LEVEL"])
        headers = [*entry.headers, ("Content-Length", str(len(body)))]
        if encoding is not None:
            headers.append(("Content-Encoding", encoding))
        start_response("200 OK", headers)
        return [] if environ["REQUEST_METHOD"] == "HEAD" else [body]


def init_app(app: Flask) -> None:
    """Serve kept pages in front of the app (inside any proxy fix, outside everything else)."""
    app.wsgi_app = KeptPages(app.wsgi_app, app)  # type: ignore[method-assign]
