"""The template filters: dates shown in the site's time zone (SITE_TIMEZONE), and its check."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from flask import Flask

from blog import create_app
from blog.web.templating import (
    iso_datetime,
    long_date,
    site_datetime,
    site_time,
    zone_named,
)

ROOT = Path(__file__).resolve().parents[2]
WINTER = datetime(2026, 1, 15, 3, 0)  # 22:00 EST on 14 January in New York
SUMMER = datetime(2026, 7, 15, 3, 0)  # 23:00 EDT on 14 July in New York


def shown(app: Flask, zone: str, value: datetime | None) -> dict[str, str]:
    """What every date filter makes of `value` on a site in `zone`."""
    with app.test_request_context():
        saved = app.config["SITE_TIMEZONE"]
        app.config["SITE_TIMEZONE"] = zone
        try:
            return {
                "long": long_date(value),
                "instant": iso_datetime(value),
                "editor": site_datetime(value),
                "time": site_time(value),
            }
        finally:
            app.config["SITE_TIMEZONE"] = saved


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            WINTER,
            {
                "long": "Jan 14, 2026",
                "instant": "2026-01-14T22:00:00-05:00",
                "editor": "2026-01-14 22:00 EST",
                "time": "22:00 EST",
            },
        ),
        (
            SUMMER,
            {
                "long": "Jul 14, 2026",
                "instant": "2026-07-14T23:00:00-04:00",
                "editor": "2026-07-14 23:00 EDT",
                "time": "23:00 EDT",
            },
        ),
    ],
    ids=["january-est", "july-edt"],
)
def test_dates_are_shown_in_new_york(app, value, expected):
    """A post published at 03:00 UTC shows the day before in New York, in winter and summer."""
    assert shown(app, "America/New_York", value) == expected


def test_dates_in_utc_by_default(app):
    """Unset, SITE_TIMEZONE is UTC: the stored day, and instants written with Z."""
    assert app.config["SITE_TIMEZONE"] == "UTC"
    assert shown(app, "UTC", WINTER) == {
        "long": "Jan 15, 2026",
        "instant": "2026-01-15T03:00:00Z",
        "editor": "2026-01-15 03:00 UTC",
        "time": "03:00 UTC",
    }


def test_no_date_shows_nothing(app):
    """A draft without a date gets empty strings, not "None"."""
    assert set(shown(app, "America/New_York", None).values()) == {""}


@pytest.mark.parametrize(
    "value", [datetime(1, 1, 1), datetime(9999, 12, 31, 23, 59), datetime(1800, 6, 1, 12, 0)]
)
@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Tokyo", "Pacific/Kiritimati"])
def test_the_ends_of_the_calendar_never_fail(app, value, zone):
    """A stored time the zone's offset would carry past year 1 or 9999 is shown in UTC; an
    offset in seconds (old local mean times) is written in UTC, as HTML wants whole minutes."""
    result = shown(app, zone, value)
    assert result["long"] and result["instant"]
    instant = result["instant"]
    assert instant.endswith("Z") or (instant[-6] in "+-" and instant[-3] == ":")


def test_the_date_filters_reach_cards_and_post_pages(app, client, posts):
    """The listing's card and the post page show the New York day of a post published at
    03:00 UTC (the filters carry the zone; the templates only call them)."""
    [slug] = posts.create(1, title="Late night release", published_at=WINTER)
    saved = app.config["SITE_TIMEZONE"]
    app.config["SITE_TIMEZONE"] = "America/New_York"
    try:
        card = BeautifulSoup(client.get("/").get_data(as_text=True), "lxml")
        post = BeautifulSoup(client.get(f"/posts/{slug}").get_data(as_text=True), "lxml")
        found = BeautifulSoup(client.get("/search?q=late+night").get_data(as_text=True), "lxml")
    finally:
        app.config["SITE_TIMEZONE"] = saved
    assert card.select_one("#post-list .card time").text == "Jan 14, 2026"
    assert post.select_one(".post-meta time").text == "Jan 14, 2026"
    assert post.select_one(".post-meta time")["datetime"] == "2026-01-14T22:00:00-05:00"
    assert found.select_one(".card time").text == "Jan 14, 2026"


@pytest.mark.parametrize(
    "name", ["Mars/Olympus", "america/new_york", "America", "../../etc/passwd", "/etc/localtime"]
)
def test_an_unknown_zone_is_refused_with_a_clear_message(name):
    """Only IANA zone names are accepted; the message says what is expected."""
    with pytest.raises(RuntimeError, match="SITE_TIMEZONE must be an IANA time zone name"):
        zone_named(name)


def test_the_app_refuses_to_start_with_an_unknown_zone(database_url):
    """create_app checks SITE_TIMEZONE, so a server never starts with one it cannot use."""
    with pytest.raises(RuntimeError, match="not 'Europe/Atlantis'"):
        create_app(
            {
                "SECRET_KEY": "x",
                "SQLALCHEMY_DATABASE_URI": database_url,
                "SITE_TIMEZONE": "Europe/Atlantis",
            }
        )


def test_the_setting_is_read_from_the_environment(tmp_path):
    """SITE_TIMEZONE comes from the environment: a known zone is taken, an unknown one stops
    the start with the message and nothing else."""
    script = (
        "from blog import create_app; "
        "print(create_app({'SECRET_KEY': 'x'}).config['SITE_TIMEZONE'])"
    )
    env = os.environ | {"DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}"}

    def start(zone: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env=env | {"SITE_TIMEZONE": zone},
            capture_output=True,
            text=True,
            timeout=60,
        )

    good = start("America/New_York")
    assert good.returncode == 0, good.stderr
    assert good.stdout.strip() == "America/New_York"
    bad = start("Nowhere/Special")
    assert bad.returncode != 0
    assert "SITE_TIMEZONE must be an IANA time zone name" in bad.stderr
    assert "'Nowhere/Special'" in bad.stderr
