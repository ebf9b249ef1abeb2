"""Query parameters that several pages read, parsed and refused in one place."""

from __future__ import annotations

from flask import abort, request

# Nine digits: past any page a blog can have, and within every database's integers.
MAX_PAGE_DIGITS = 9


def page_number() -> int:
    """The `page` query parameter as a positive whole number (400 otherwise)."""
    raw = request.args.get("page", "1")
    if not (raw.isascii() and raw.isdigit()) or len(raw) > MAX_PAGE_DIGITS:
        abort(400, description="The page number must be a whole number, like ?page=2.")
    number = int(raw)
    if number < 1:
        abort(400, description="Page numbers start at 1.")
    return number
