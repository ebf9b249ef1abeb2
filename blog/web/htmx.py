"""The one place that decides whether a request gets the whole page or a swapped fragment."""

from __future__ import annotations

from collections.abc import Mapping

from flask import make_response, render_template
from flask.wrappers import Response
from htmx_flask import request
from htmx_flask.requests import HtmxHeaders
from jinja2_fragments.flask import render_block

# A response that depends on these request headers must say so to shared caches.
VARY = ("HX-Request", "HX-Target", "HX-History-Restore-Request")


def fragment_for(fragments: Mapping[str, str], htmx: HtmxHeaders | None = None) -> str | None:
    """The block to render for this request (or for `htmx`, another request's htmx headers),
    or None for the whole page.

    `fragments` maps the id of an htmx swap target to the template block that fills it.
    A history-restore request, or a swap aimed anywhere else, gets the whole page.
    """
    htmx = request.htmx if htmx is None else htmx
    if not htmx or htmx.history_restore_request:
        return None
    return fragments.get(htmx.target or "")


def render(template: str, block: str | None, status: int = 200, **context: object) -> Response:
    """Render the whole `template`, or only `block` of it, marked as varying by htmx headers."""
    if block is None:
        body = render_template(template, fragment=None, **context)
    else:
        body = render_block(template, block, fragment=block, **context)
    response = make_response(body, status)
    response.headers["Vary"] = ", ".join(VARY)  # a fresh response: nothing to merge with
    return response
