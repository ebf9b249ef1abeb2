"""Filters and globals the templates use to show dates, pictures and counts."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from flask import Flask, url_for

from blog.models import Topic
from blog.reading.pictures import picture


def long_date(value: datetime | None) -> str:
    """A date as readers see it, like `Nov 12, 2025`."""
    return f"{value:%b} {value.day}, {value.year}" if value else ""


# Grid cards show the summary up to this many characters, about what search engines show of
# a description: two or three lines that keep the cards of a row the same height.
CARD_SUMMARY_LENGTH = 160


def card_summary(text: str, length: int = CARD_SUMMARY_LENGTH) -> str:
    """A summary cut at a word boundary to at most `length` characters, ending in "…"."""
    if len(text) <= length:
        return text
    cut = text[: length - 1]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:.…-–—") + "…"


def iso_date(value: datetime | None) -> str:
    """A date for a <time datetime> attribute."""
    return value.date().isoformat() if value else ""


def listing_url(topic: Topic | None, page: int = 1) -> str:
    """The URL of a listing state: all topics or one, at a page (page 1 has no parameter)."""
    args: dict[str, Any] = {"page": page} if page > 1 else {}
    if topic is None:
        return url_for("public.home", **args)
    return url_for("public.topic", slug=topic.slug, **args)


def listing_url_for(topic: Topic | None) -> Callable[[int], str]:
    """A page-number → URL function for one listing, for the "read more" control."""
    return lambda page: listing_url(topic, page)


def init_app(app: Flask) -> None:
    """Register the filters and globals, and keep templates lean on whitespace."""
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
    app.jinja_env.filters["long_date"] = long_date
    app.jinja_env.filters["iso_date"] = iso_date
    app.jinja_env.filters["card_summary"] = card_summary
    app.jinja_env.globals["picture"] = picture
    app.jinja_env.globals["listing_url"] = listing_url
    app.jinja_env.globals["listing_url_for"] = listing_url_for
