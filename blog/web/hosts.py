"""Which Host headers the site answers: SITE_URL's, and no other.

A request naming another host could otherwise steer what the app builds from the Host
header (the address of a trailing-slash redirect) or sit in caches under a name the site
does not have. It is a 400, before the page cache or any view runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from flask import Flask
from werkzeug.exceptions import BadRequest
from werkzeug.sansio.utils import host_is_trusted

# The development server of `make run` also answers the names of this machine's loopback.
LOOPBACK_NAMES = ("localhost", "127.0.0.1")
REFUSAL = "This site does not answer for that host name."


def trusted_hosts(config: dict[str, Any], debug: bool) -> list[str] | None:
    """SITE_HOSTS as set, or SITE_URL's host name, with the loopback names in debug mode or
    when SITE_URL is itself on the loopback (the default); None, meaning any host, for test
    apps that name none."""
    given = config.get("SITE_HOSTS")
    if given is not None:
        return list(given)
    if config.get("TESTING"):
        return None
    names = [urlsplit(config["SITE_URL"]).hostname or ""]
    if debug or names[0] in LOOPBACK_NAMES:
        names += [name for name in LOOPBACK_NAMES if name not in names]
    return names


class TrustedHostsOnly:
    """The outermost WSGI layer: a request naming another host gets a plain 400 page here,
    before the page cache, the routing (whose redirects are built on the Host header) or
    any view runs."""

    def __init__(self, wsgi_app: Any, hosts: Iterable[str]) -> None:
        self.wsgi_app = wsgi_app
        self.hosts = list(hosts)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        host = environ.get("HTTP_HOST") or environ.get("SERVER_NAME", "")
        if host_is_trusted(host.lower(), self.hosts):  # host names ignore case (RFC 9110)
            return self.wsgi_app(environ, start_response)
        response = BadRequest(REFUSAL).get_response(environ)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Content-Security-Policy"] = "default-src 'none'"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response(environ, start_response)


def init_app(app: Flask, wsgi: Any) -> Any:
    """Put the host check around `wsgi`, unless any host is allowed. (Not Flask's own
    TRUSTED_HOSTS, which would refuse the request contexts that commands and tests build.)"""
    hosts = trusted_hosts(app.config, app.debug)
    app.config["SITE_HOSTS"] = hosts
    if hosts is None:
        return wsgi
    return TrustedHostsOnly(wsgi, hosts)
