"""URL converters: path values that routes take, refused (404) before any view or query."""

from __future__ import annotations

from werkzeug.routing import BaseConverter

# The largest value an SQL INTEGER column holds on every database the blog runs on:
# PostgreSQL's INTEGER is 32-bit (SQLite's would hold 64). The id columns are INTEGER.
MAX_ROW_ID = 2**31 - 1


def whole_numbers_up_to(limit: int) -> str:
    """A regex matching exactly the decimal numbers 1 to `limit`, with no leading zero.

    The range is in the pattern, not in `to_python`: werkzeug answers a value refused there
    with 405 when another method's rule matched the same path, and an id out of range is 404.
    """
    digits = str(limit)
    options = [digits]
    if len(digits) > 1:
        options.append(f"[1-9][0-9]{{0,{len(digits) - 2}}}")  # every shorter number
    for place, digit in enumerate(digits):
        # Numbers as long as `limit` that first fall below it at this place.
        low = 1 if place == 0 else 0
        if int(digit) > low:
            rest = len(digits) - place - 1
            options.append(f"{digits[:place]}[{low}-{int(digit) - 1}][0-9]{{{rest}}}")
    return "(?:" + "|".join(options) + ")"


class RowIdConverter(BaseConverter):
    """`<id:name>`: a row's id as the database stores it, in its one spelling.

    Plain ASCII digits without a leading zero, from 1 to MAX_ROW_ID; anything else (negative,
    zero, zero-padded, too large for the column, not a number) matches no route, so it is
    the site's 404 page, never a query the database or its driver would refuse.
    """

    regex = whole_numbers_up_to(MAX_ROW_ID)
    weight = 50  # like werkzeug's int converter: a number outranks a free-text segment

    def to_python(self, value: str) -> int:
        """The id as a number (the pattern has checked its range)."""
        return int(value)

    def to_url(self, value: int) -> str:
        """The id as the one path segment the pattern accepts."""
        return str(int(value))
