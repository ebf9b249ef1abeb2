"""Filters and globals the templates use to show dates, pictures, counts and names.

Dates are stored as naive UTC and shown in the site's time zone, SITE_TIMEZONE.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import Flask, current_app, url_for

from blog.models import Author


class Slugged(Protocol):
    """A topic as listings know it: a stored Topic or a row of the topic filter."""

    @property
    def slug(self) -> str: ...


def zone_named(name: str) -> ZoneInfo:
    """The IANA time zone called `name`, or a RuntimeError that says what is expected."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise RuntimeError(
            "SITE_TIMEZONE must be an IANA time zone name like UTC, America/New_York or "
            f"Europe/Berlin (as in the tz database, capitals included), not {name!r}."
        ) from None


def check_site_timezone(config: Mapping[str, Any]) -> None:
    """Refuse to start with a SITE_TIMEZONE that names no time zone."""
    zone_named(str(config.get("SITE_TIMEZONE") or "UTC"))


def site_zone() -> ZoneInfo:
    """The zone the site shows dates in and the editor takes them in (checked at start)."""
    return ZoneInfo(current_app.config.get("SITE_TIMEZONE") or "UTC")


def in_site_zone(value: datetime) -> datetime:
    """A stored naive UTC time as an aware time in the site's zone (in UTC at the very ends
    of the calendar, where the zone's offset would leave it)."""
    instant = value.replace(tzinfo=UTC)
    try:
        return instant.astimezone(site_zone())
    except (OverflowError, ValueError):
        return instant


def long_date(value: datetime | None) -> str:
    """A date as readers see it, in the site's zone, like `Nov 12, 2025`."""
    if not value:
        return ""
    local = in_site_zone(value)
    return f"{local:%b} {local.day}, {local.year}"


def site_datetime(value: datetime | None, seconds: bool = False) -> str:
    """A time as the editor shows it, in the site's zone: `2027-01-15 09:00 EST` (with
    `seconds`, `2027-01-15 09:00:05 EST`, to tell revisions saved a minute apart)."""
    if not value:
        return ""
    return in_site_zone(value).strftime("%Y-%m-%d %H:%M:%S %Z" if seconds else "%Y-%m-%d %H:%M %Z")


def site_time(value: datetime | None) -> str:
    """The time of day in the site's zone, with the zone's abbreviation: `09:00 EST`."""
    return f"{in_site_zone(value):%H:%M %Z}" if value else ""


# The longest summary a card shows whole: editors write one or two sentences (the demo's run
# from 200 to 250 characters); a longer one is cut at a word.
CARD_SUMMARY_LENGTH = 280


def card_summary(text: str, length: int = CARD_SUMMARY_LENGTH) -> str:
    """The summary as written when it fits in `length` characters, else cut at a word and
    ending in "…"."""
    if len(text) <= length:
        return text
    cut = text[: length - 1]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:.…-–—") + "…"


T = TypeVar("T")


def joined(items: Iterable[T]) -> list[tuple[str, T]]:
    """Each item with the words put before it when several are named in a sentence (a
    post's authors): "A", "A and B", "A, B and C"."""
    listed = list(items)
    last = len(listed) - 1
    return [
        ("" if index == 0 else " and " if index == last else ", ", item)
        for index, item in enumerate(listed)
    ]


def in_words(names: Iterable[str]) -> str:
    """Names as a sentence says them: "A", "A and B", "A, B and C"."""
    return "".join(before + name for before, name in joined(names))


def iso_datetime(value: datetime | None) -> str:
    """The instant for a <time datetime> attribute: the site's local time with its offset,
    like `2026-01-14T22:00:00-05:00`, or `Z` when the offset is zero."""
    if not value:
        return ""
    local = in_site_zone(value)
    offset = local.utcoffset() or timedelta()
    if offset % timedelta(minutes=1):  # old local mean times: HTML offsets have no seconds
        local = value.replace(tzinfo=UTC)
        offset = timedelta()
    stamp = local.replace(microsecond=0).isoformat()
    return stamp.removesuffix("+00:00") + "Z" if not offset else stamp


def listing_url(of: Author | Slugged | None, page: int = 1) -> str:
    """The URL of a listing state: all posts, a topic's or an author's, at a page (page 1
    has no parameter)."""
    args: dict[str, Any] = {"page": page} if page > 1 else {}
    if of is None:
        return url_for("public.home", **args)
    if isinstance(of, Author):
        return url_for("public.author", slug=of.slug, **args)
    return url_for("public.topic", slug=of.slug, **args)


def listing_url_for(of: Author | Slugged | None) -> Callable[[int], str]:
    """A page-number → URL function for one listing, for the "read more" control."""
    return lambda page: listing_url(of, page)


def init_app(app: Flask) -> None:
    """Check SITE_TIMEZONE, register the filters and globals, and keep templates lean on
    whitespace."""
    check_site_timezone(app.config)
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
    app.jinja_env.filters["long_date"] = long_date
    app.jinja_env.filters["iso_datetime"] = iso_datetime
    app.jinja_env.filters["site_datetime"] = site_datetime
    app.jinja_env.filters["site_time"] = site_time
    app.jinja_env.globals["site_zone"] = site_zone
    app.jinja_env.filters["card_summary"] = card_summary
    app.jinja_env.globals["listing_url"] = listing_url
    app.jinja_env.globals["listing_url_for"] = listing_url_for
    app.jinja_env.globals["joined"] = joined
