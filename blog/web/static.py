"""Static files at content-hashed URLs, cached for a year by browsers and proxies."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Any

from flask import Flask, current_app, request
from flask.wrappers import Response
from werkzeug.security import safe_join

STATIC_MAX_AGE = 31_536_000  # a year: the URL changes whenever the file does

_digest_lock = threading.Lock()
_digests: dict[tuple[str, int, int], str] = {}


def static_digest(filename: str) -> str | None:
    """A short hash of a static file's bytes, cached until the file changes (None if absent)."""
    folder = current_app.static_folder
    path = safe_join(folder, filename) if folder else None
    if path is None:
        return None
    try:
        info = Path(path).stat()
    except OSError:
        return None
    key = (path, info.st_mtime_ns, info.st_size)
    with _digest_lock:
        if key not in _digests:
            _digests[key] = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
        return _digests[key]


def _hash_static_urls(endpoint: str, values: dict[str, Any]) -> None:
    """Add `v=<content hash>` to every static URL, so a changed file gets a new URL."""
    if endpoint == "static" and "filename" in values and "v" not in values:
        digest = static_digest(values["filename"])
        if digest:
            values["v"] = digest


def _static_cache_control(response: Response) -> Response:
    """A year of immutable caching for a URL whose hash matches; revalidation otherwise."""
    if request.endpoint != "static" or response.status_code >= 400:
        return response
    filename = (request.view_args or {}).get("filename", "")
    asked = request.args.get("v")
    response.cache_control.clear()
    if asked and asked == static_digest(filename):
        response.cache_control.public = True
        response.cache_control.max_age = STATIC_MAX_AGE
        response.cache_control.immutable = True
    else:
        response.cache_control.no_cache = True
    return response


def init_app(app: Flask) -> None:
    """Hash static URLs and let browsers keep a file as long as its URL holds."""
    app.url_defaults(_hash_static_urls)
    app.after_request(_static_cache_control)
