"""Paging: the `page` query parameter, parsed and refused in one place, and the numbers a
page of a list needs (its counter and "read more")."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

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


Shown = TypeVar("Shown")


@dataclass(frozen=True)
class Page(Generic[Shown]):
    """One page of cards and the numbers the counter and "read more" need."""

    posts: Sequence[Shown]
    number: int
    per_page: int
    total: int

    @property
    def pages(self) -> int:
        """How many pages the listing has (at least one, even when empty)."""
        return last_page(self.total, self.per_page)

    @property
    def first(self) -> int:
        """1-based position of the page's first card."""
        return (self.number - 1) * self.per_page + 1

    @property
    def last(self) -> int:
        """1-based position of the page's last card."""
        return self.first + len(self.posts) - 1

    @property
    def next_number(self) -> int | None:
        """The next page's number, or None on the last page."""
        return self.number + 1 if self.number < self.pages else None


def last_page(total: int, per_page: int) -> int:
    """The number of the last page for `total` cards (1 for an empty listing)."""
    return max(1, math.ceil(total / per_page))
