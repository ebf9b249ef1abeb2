"""Rendered pages kept in each server process, keyed by the shared data version.

Every write moves the version (blog/caching.py), so an entry can never outlive the data it
shows: a lookup under a newer version finds nothing and the old entries are dropped. Entries
keep their compressed forms, made once, so a hit costs one primary-key read and a copy.
Only anonymous readers' pages are kept; editors see their own header.
"""

from __future__ import annotations

import gzip
import threading
from dataclasses import dataclass, field

import brotli
from flask import current_app, request
from flask.wrappers import Response

from blog.caching import Validator, has_credentials

MAX_ENTRIES = 2048
ENCODINGS = ("br", "gzip")


@dataclass
class Entry:
    """One rendered body and the compressed forms made of it so far."""

    body: bytes
    mimetype: str
    compressed: dict[str, bytes] = field(default_factory=dict)


_lock = threading.Lock()
_version: object = None
_entries: dict[str, Entry] = {}


def enabled() -> bool:
    """Whether pages are kept (PAGE_CACHE=off turns it off, for measuring cold renders)."""
    return current_app.config["PAGE_CACHE"] and not has_credentials()


def get(check: Validator) -> Response | None:
    """The kept page with this validator (it names the page and the version), or None."""
    if not enabled():
        return None
    with _lock:
        entry = _entries.get(check.etag) if _version == check.state.version else None
    if entry is None:
        return None
    return _send(entry)


def put(check: Validator, response: Response) -> Response:
    """Keep a freshly rendered 200 page, then send it the way a kept one is sent."""
    global _version
    if not enabled() or response.status_code != 200 or response.is_streamed:
        return response
    entry = Entry(response.get_data(), response.mimetype or "text/html")
    with _lock:
        if _version != check.state.version:
            _entries.clear()
            _version = check.state.version
        if len(_entries) >= MAX_ENTRIES:
            _entries.pop(next(iter(_entries)))
        _entries[check.etag] = entry
    return _send(entry)


def clear() -> None:
    """Forget every kept page."""
    with _lock:
        _entries.clear()


def _send(entry: Entry) -> Response:
    """A response with the body in the best encoding the client accepts."""
    encoding = request.accept_encodings.best_match(ENCODINGS)
    response = current_app.response_class(mimetype=entry.mimetype)
    response.vary.add("Accept-Encoding")
    if encoding is None:
        response.set_data(entry.body)
        return response
    data = entry.compressed.get(encoding)
    if data is None:
        data = _compress(entry.body, encoding)
        entry.compressed[encoding] = data
    response.set_data(data)
    response.headers["Content-Encoding"] = encoding
    return response


def _compress(body: bytes, encoding: str) -> bytes:
    """Compress at the configured levels; kept pages are compressed once, so go high."""
    if encoding == "br":
        return brotli.compress(body, quality=current_app.config["PAGE_CACHE_BR_LEVEL"])
    return gzip.compress(body, compresslevel=9, mtime=0)
