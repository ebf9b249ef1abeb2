"""Error pages in the site's layout, and refusals made before any view runs."""

from __future__ import annotations

from flask import Flask, abort, current_app, render_template, request
from flask.wrappers import Response
from werkzeug.exceptions import HTTPException, InternalServerError

from blog.extensions import db

TITLES = {
    400: "That request did not make sense",
    403: "Not for your role",
    404: "Nothing here",
    405: "Not allowed",
    409: "No longer possible",  # the post or the page changed since it was loaded
    410: "No longer here",
    413: "Too large",
    414: "Address too long",
    422: "Could not be accepted",  # well-formed, but its content is refused (the reason follows)
    429: "Slow down",
}


def _refuse_oversized_query() -> None:
    """Turn away absurd query strings before they reach a view."""
    if len(request.query_string) > current_app.config["MAX_QUERY_STRING"]:
        abort(400, description="The address carries more query text than this site accepts.")


def _refuse_nul_in_path() -> None:
    """No page lives at an address with a NUL character (and PostgreSQL refuses it in queries)."""
    if "\x00" in request.path:
        abort(404, description="There is nothing at this address.")


def error_page(code: int, description: str | None = None) -> Response:
    """The site's error page for an HTTP status, in its layout and with that status.

    `description` tells the reader what went wrong; a 500 page never shows it.
    """
    title = TITLES.get(code, "Something went wrong")
    error = HTTPException(description=description)
    page = render_template("errors/error.html", code=code, title=title, error=error)
    return current_app.make_response((page, code))


def _error_page(error: HTTPException) -> Response:
    """Render an HTTP error as the site's error page."""
    return error_page(error.code or 500, error.description)


def _unexpected(error: Exception) -> Response:
    """Log an unexpected failure and show a plain 500 page, never a traceback."""
    current_app.logger.exception("Unhandled error", exc_info=error)
    # The page's header asks the database who is logged in: a failed transaction must not
    # turn the error page itself into a second failure.
    db.session.rollback()
    return _error_page(InternalServerError())


def init_app(app: Flask) -> None:
    """Register the error pages and the early refusals."""
    app.before_request(_refuse_oversized_query)
    app.before_request(_refuse_nul_in_path)
    app.register_error_handler(HTTPException, _error_page)
    app.register_error_handler(Exception, _unexpected)
