"""HTTP validators: ETags and Last-Modified for a representation, and early 304 answers.

An ETag names the build (code, templates, static files), the page settings, the data
version, who the page is for and what the view was asked for, so any of them changing
makes every ETag change.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from flask import Flask, current_app, request
from flask.wrappers import Response
from werkzeug.http import http_date, is_resource_modified

from blog.web import versions
from blog.web.headers import add_vary, public_cache_control
from blog.web.versions import State
from blog.web.viewer import has_credentials, viewer_key


@dataclass(frozen=True)
class Validator:
    """The ETag and Last-Modified of one representation, plus the state behind them."""

    etag: str
    last_modified: datetime | None
    state: State

    @property
    def header(self) -> str:
        """The ETag as sent: weak, since compressed and plain bodies are equivalent."""
        return f'W/"{self.etag}"'


_build_lock = threading.Lock()
_build_tokens: dict[str, str] = {}


def _files_digest(roots: Iterable[Path], *, contents: bool) -> str:
    """A digest of every file under the folders: of their bytes, or of their size and mtime."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            if "__pycache__" in path.parts:
                continue
            digest.update(str(path.relative_to(root)).encode())
            if contents:
                digest.update(path.read_bytes())
            else:
                info = path.stat()
                digest.update(f"{info.st_size}:{info.st_mtime_ns}".encode())
    return digest.hexdigest()


def build_token(app: Flask) -> str:
    """A digest of the code, templates and static files: a deploy changes every ETag.

    Read once per process from the files' bytes, so every worker agrees; in debug mode,
    where files change under a running server, from their sizes and times on every call.
    """
    if not app.debug and app.import_name in _build_tokens:
        return _build_tokens[app.import_name]
    roots = [Path(__file__).parents[1]]  # the blog package
    roots += [Path(folder) for folder in (app.template_folder, app.static_folder) if folder]
    if app.debug:
        return _files_digest(roots, contents=False)
    with _build_lock:
        if app.import_name not in _build_tokens:
            _build_tokens[app.import_name] = _files_digest(roots, contents=True)
        return _build_tokens[app.import_name]


def _settings_key() -> str:
    """The values of the settings that pages show (names, texts, page sizes)."""
    config = current_app.config
    names = [*sorted(k for k in config if k.startswith("SITE_")), "POSTS_PER_PAGE", "PICKS_COUNT"]
    return repr([config.get(name) for name in names])


def validator(*parts: object, state: State | None = None) -> Validator:
    """Validators for this request's representation; `parts` name it (view, page, fragment)."""
    state = state or versions.current()
    key = "|".join(
        (build_token(current_app), _settings_key(), repr(state.stamp), viewer_key(), repr(parts))
    )
    etag = hashlib.sha256(key.encode()).hexdigest()[:32]
    return Validator(etag, state.changed_at, state)


def not_modified(
    check: Validator,
    *,
    vary: Iterable[str] = (),
    personal: bool = False,
    mimetype: str | None = None,
) -> Response | None:
    """A 304 when the client already holds this representation, before anything renders."""
    environ = request.environ
    if request.method not in ("GET", "HEAD"):
        return None
    if "HTTP_IF_NONE_MATCH" not in environ and "HTTP_IF_MODIFIED_SINCE" not in environ:
        return None  # not conditional: skip parsing the headers
    if not (request.if_none_match or request.if_modified_since):
        return None
    # "*" matches any current representation, but whether there is one is the view's to
    # find out: cacheable answers it once the view has found the resource.
    if request.if_none_match.star_tag:
        return None
    if is_resource_modified(request.environ, etag=check.header, last_modified=check.last_modified):
        return None
    response = current_app.response_class(status=304, mimetype=mimetype)
    return cacheable(response, check, vary=vary, personal=personal)


def cacheable(
    response: Response,
    check: Validator,
    *,
    vary: Iterable[str] = (),
    personal: bool = False,
) -> Response:
    """Give a response its validators, its Vary and a Cache-Control.

    `personal` marks an HTML page whose header can show the signed-in editor: it varies by
    Cookie, and it is private to the browser when the request carries credentials.
    """
    headers = response.headers
    headers["ETag"] = check.header
    if check.last_modified is not None:
        headers["Last-Modified"] = http_date(check.last_modified)
    add_vary(response, (*vary, "Cookie") if personal else vary)
    if personal and has_credentials():
        response.cache_control.private = True
        response.cache_control.no_cache = True
    else:
        public_cache_control(response)
    # "If-None-Match: *" matches any current representation (RFC 9110 13.1.2): the view got
    # here, so the resource exists, and the client already holds a copy of it.
    if response.status_code == 200 and request.if_none_match.star_tag:
        return _not_modified(response)
    return response


def _not_modified(response: Response) -> Response:
    """The response as a 304: its validators and caching headers, no body."""
    response.status_code = 304
    response.set_data(b"")
    for name in ("Content-Type", "Content-Length", "Content-Encoding"):
        response.headers.pop(name, None)
    return response
