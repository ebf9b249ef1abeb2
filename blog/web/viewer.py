"""Who a request is for: an anonymous reader, or someone who may be a signed-in editor.

Pages for anonymous readers may be shared by every cache; a request with a session or
remember-me cookie gets private answers and never a shared copy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from flask import current_app, request
from flask.wrappers import Response
from werkzeug.http import parse_cookie

# The remember-me cookie's name when the settings name none (Flask-Login's default).
REMEMBER_COOKIE_DEFAULT = "remember_token"


def credential_cookies(config: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """Names of the cookies that can carry a signed-in editor."""
    config = current_app.config if config is None else config
    return (
        config.get("SESSION_COOKIE_NAME") or "session",
        config.get("REMEMBER_COOKIE_NAME") or REMEMBER_COOKIE_DEFAULT,
    )


def carries_credentials_in(environ: Mapping[str, Any], config: Mapping[str, Any]) -> bool:
    """True when a WSGI request carries a session or remember-me cookie."""
    if "HTTP_COOKIE" not in environ:  # most readers: skip parsing cookies
        return False
    cookies = parse_cookie(environ.get("HTTP_COOKIE", ""))
    return any(name in cookies for name in credential_cookies(config))


def has_credentials() -> bool:
    """True when this request carries a session or remember-me cookie."""
    return carries_credentials_in(request.environ, current_app.config)


def viewer_key() -> str:
    """Who the page is for: empty for anonymous readers, a digest of their cookies otherwise."""
    if "HTTP_COOKIE" not in request.environ:
        return ""
    values = [request.cookies.get(name, "") for name in credential_cookies()]
    if not any(values):
        return ""
    return hashlib.sha256("\0".join(values).encode()).hexdigest()


# A cookie scripts may read, set while an editor is logged in: it tells a page's script that
# asking for the editor's own links (the Edit link on a post) is worth a request. It grants
# nothing (the request it leads to is checked like any other) and is no credential: pages
# are cached and shared alike with it or without it.
EDITOR_HINT_COOKIE = "fieldnotes_editor"


def mark_editor(response: Response) -> Response:
    """Set the editor hint on a response that logs someone in."""
    response.set_cookie(
        EDITOR_HINT_COOKIE,
        "1",
        httponly=False,  # read by scripts: that is its whole use
        secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")),
        samesite="Lax",
    )
    return response


def unmark_editor(response: Response) -> Response:
    """Take the editor hint away on a response that logs someone out."""
    response.delete_cookie(
        EDITOR_HINT_COOKIE,
        httponly=False,
        secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")),
        samesite="Lax",
    )
    return response
