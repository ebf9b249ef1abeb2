"""Cache-Control and Vary: what browsers and shared caches may keep, and for how long."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from flask import Flask, current_app, request
from flask.wrappers import Response
from flask_compress import Compress

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

# Blueprints that serve authoring pages, drafts (the editors' previews of saved and typed
# posts, private draft links) and account links: never stored by any cache.
AUTHORING_BLUEPRINTS = frozenset(
    {"auth", "account", "editor", "drafts", "draft_links", "typed_preview"}
)


def public_cache_control(response: Response) -> None:
    """Let browsers and shared caches keep the response briefly, then revalidate it."""
    config = current_app.config
    response.headers["Cache-Control"] = _public_value(
        config["CACHE_MAX_AGE"], config["CACHE_STALE"]
    )


@functools.lru_cache(maxsize=16)
def _public_value(max_age: int, stale: int) -> str:
    """The Cache-Control value for shared responses with these settings."""
    value = f"public, max-age={max_age}"
    return f"{value}, stale-while-revalidate={stale}" if stale else value


def add_vary(response: Response, names: Iterable[str]) -> None:
    """Add header names to Vary (once each), as plain text: cheaper than werkzeug's HeaderSet,
    which parses and rewrites the header on every change."""
    current = ", ".join(response.headers.getlist("Vary"))  # get() raises inside when missing
    have = [name.strip() for name in current.split(",")] if current else []
    known = {name.lower() for name in have}
    for name in names:
        if name.lower() not in known:
            have.append(name)
            known.add(name.lower())
    if have:
        response.headers["Vary"] = ", ".join(have)


def _no_store(response: Response) -> None:
    """Forbid every cache from keeping the response."""
    response.cache_control.clear()
    response.cache_control.no_store = True
    response.cache_control.private = True


def cache_rules(response: Response) -> Response:
    """Authoring pages, cookies and errors are never stored by any cache."""
    if (
        request.blueprint in AUTHORING_BLUEPRINTS
        or "Set-Cookie" in response.headers
        or response.status_code >= 400
    ):
        _no_store(response)
    return response


class NoStoreWithCookies:
    """WSGI wrapper: a response that sets a cookie is never stored by any cache.

    It sees the final headers, after Flask has saved the session and every extension has
    set its cookies, which no after_request function can.
    """

    def __init__(self, wsgi_app: WSGIApplication) -> None:
        self.wsgi_app = wsgi_app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Any:
        """Pass the request through, rewriting Cache-Control when a cookie is set."""

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            if any(name.lower() == "set-cookie" for name, _ in headers):
                headers = [(n, v) for n, v in headers if n.lower() != "cache-control"]
                headers.append(("Cache-Control", "private, no-store"))
            return start_response(status, headers, exc_info)

        return self.wsgi_app(environ, start)


def init_app(app: Flask) -> None:
    """Apply the storing rules to every response, and compress what is worth it."""
    app.after_request(cache_rules)
    # One Compress per app: it keeps its settings on itself, so a shared one would let the
    # last app built decide for all of them.
    app.extensions["compress"] = Compress(app)
