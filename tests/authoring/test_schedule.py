"""Publish dates in the site's time zone, and the status an editor chooses: draft, scheduled
or published."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa
from flask import Flask

from blog.catalog import SCHEDULED
from blog.extensions import db
from blog.models import DRAFT, PUBLISHED, Post, PostRevision, utcnow
from tests.authoring.test_auth import csrf_token, editor_client, page
from tests.authoring.test_editor import (
    HX_EDITOR,
    create,
    field_error,
    new_post_form,
    save,
    stored,
)

__all__ = ["editor_client"]

NEW_YORK = "America/New_York"


@pytest.fixture
def new_york(app: Flask, monkeypatch: pytest.MonkeyPatch) -> str:
    """The site shows and takes dates in New York for this test."""
    monkeypatch.setitem(app.config, "SITE_TIMEZONE", NEW_YORK)
    return NEW_YORK


def typed(moment: datetime) -> str:
    """A time as a datetime-local field sends it."""
    return moment.strftime("%Y-%m-%dT%H:%M")


def later(**delta: float) -> str:
    """A UTC time to come, as typed into a site that runs in UTC."""
    return typed(utcnow() + timedelta(**delta))


def earlier(**delta: float) -> str:
    """A UTC time already past, as typed into a site that runs in UTC."""
    return typed(utcnow() - timedelta(**delta))


def post_new(client, **fields: object):
    """Send the new-post form with `fields` typed over the defaults."""
    return client.post("/editor/posts/new", data=new_post_form(client, **fields))


def is_live(client, slug: str = "notes-on-connection-pools") -> bool:
    """Whether readers can open the post."""
    return client.get(f"/posts/{slug}").status_code == 200


# The site's time zone --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("local", "utc", "abbreviation"),
    [
        ("2099-01-15T09:00", datetime(2099, 1, 15, 14, 0), "EST"),  # UTC-5 in winter
        ("2099-07-15T09:00", datetime(2099, 7, 15, 13, 0), "EDT"),  # UTC-4 in summer
    ],
    ids=["january", "july"],
)
def test_a_new_york_time_is_stored_as_utc_and_shown_back(
    app, editor_client, new_york, local, utc, abbreviation
):
    """09:00 in New York is 14:00 UTC in January and 13:00 UTC in July; the editor shows the
    stored time back as typed, with the zone in the label, and saving again changes nothing."""
    post_id = create(editor_client, status=SCHEDULED, published_at=local)
    assert stored(app, post_id).published_at == utc
    soup = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert soup.select_one("#published_at")["value"] == local
    assert soup.select_one("#published_at")["type"] == "datetime-local"
    assert soup.select_one("#published_at")["data-site-zone"] == NEW_YORK
    assert soup.select_one('label[for="published_at"]').text == "Publish at (America/New_York)"
    # The bar's main button keeps it scheduled; the other takes it back to draft.
    assert soup.select_one("#publish-button")["value"] == "schedule"
    assert soup.select_one("#publish-button").get_text(strip=True) == "Schedule"
    assert soup.select_one("#unpublish-button").get_text(strip=True) == "Unschedule"
    state = soup.select_one("#post-state").get_text(" ", strip=True)
    assert state == f"Scheduled: goes live {local.replace('T', ' ')} {abbreviation}"
    assert save(editor_client, post_id).status_code == 303
    assert stored(app, post_id).published_at == utc


def test_the_post_list_history_and_trash_show_times_in_the_site_zone(app, editor_client, new_york):
    """Every time the editor shows is New York's, named: the post list's publish date and last
    change, the history's revisions and the trash's delete time (never UTC clock times)."""
    post_id = create(editor_client, status=SCHEDULED, published_at="2099-01-15T09:00")
    changed = stored(app, post_id).modified_at
    local = changed.replace(tzinfo=UTC).astimezone(ZoneInfo(NEW_YORK))
    shown = f"{local:%Y-%m-%d %H:%M %Z}"
    row = page(editor_client.get("/editor/")).select_one("tbody tr")
    times = [(t.get_text(), t["datetime"]) for t in row.select("time")]
    assert times == [
        ("2099-01-15 09:00 EST", "2099-01-15T09:00:00-05:00"),
        (shown, local.replace(microsecond=0).isoformat()),
    ]
    revision = page(editor_client.get(f"/editor/posts/{post_id}/revisions")).select_one(
        "time.revision-when"
    )
    # The revision's own time: the post's and the revision's stamps are taken a moment apart,
    # and can fall either side of a second.
    with app.app_context():
        made = db.session.scalars(
            sa.select(PostRevision.created_at)
            .where(PostRevision.post_id == post_id)
            .order_by(PostRevision.id.desc())
        ).first()
    assert made is not None
    made_local = made.replace(tzinfo=UTC).astimezone(ZoneInfo(NEW_YORK))
    assert revision.get_text() == f"{made_local:%Y-%m-%d %H:%M:%S %Z}"
    token = csrf_token(editor_client, f"/editor/posts/{post_id}/delete")
    before = utcnow()
    deleting = editor_client.post(f"/editor/posts/{post_id}/delete", data={"csrf_token": token})
    assert deleting.status_code == 303
    after = utcnow()
    deleted = page(editor_client.get("/editor/trash")).select_one("tbody time").get_text()
    in_new_york = (
        moment.replace(tzinfo=UTC).astimezone(ZoneInfo(NEW_YORK)) for moment in (before, after)
    )
    assert deleted in {f"{moment:%Y-%m-%d %H:%M %Z}" for moment in in_new_york}


def test_the_label_names_utc_by_default(editor_client):
    """Unset, SITE_TIMEZONE is UTC: the field says so and takes times as UTC."""
    soup = page(editor_client.get("/editor/posts/new"))
    assert soup.select_one('label[for="published_at"]').text == "Publish at (UTC)"
    assert "first one is meant" in soup.select_one("#published_at-hint").text


def test_a_time_in_the_spring_forward_gap_is_a_422(app, editor_client, new_york):
    """02:30 on 8 March 2026 never happens in New York (02:00 jumps to 03:00): 422, saying so,
    with the text kept and nothing stored."""
    response = post_new(editor_client, published_at="2026-03-08T02:30", body="Kept body.")
    assert response.status_code == 422
    message = field_error(response, "published_at")
    assert "2026-03-08 02:30 does not exist in America/New_York" in message
    assert "forward by 1 hour" in message and "such as 03:30" in message
    soup = page(response)
    assert soup.select_one("#published_at")["value"] == "2026-03-08T02:30"
    assert soup.select_one("#body").text.strip() == "Kept body."
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == 0


def test_an_ambiguous_time_is_its_first_occurrence(app, editor_client, new_york):
    """01:30 on 1 November 2026 happens twice in New York (EDT, then EST): the first is meant.
    A stored second occurrence shown back unchanged stays the second."""
    post_id = create(editor_client, status=PUBLISHED, published_at="2026-11-01T01:30")
    assert stored(app, post_id).published_at == datetime(2026, 11, 1, 5, 30)  # 01:30 EDT
    with app.app_context():
        db.session.get(Post, post_id).published_at = datetime(2026, 11, 1, 6, 30)  # 01:30 EST
        db.session.commit()
    soup = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert soup.select_one("#published_at")["value"] == "2026-11-01T01:30"
    assert save(editor_client, post_id, title="Retitled").status_code == 303
    assert stored(app, post_id).published_at == datetime(2026, 11, 1, 6, 30)


def test_reader_dates_follow_the_site_zone(app, editor_client, client, new_york):
    """Published 03:00 UTC on 15 January is the evening of 14 January in New York."""
    create(editor_client, status=PUBLISHED, published_at="2026-01-14T22:00")
    post = page(client.get("/posts/notes-on-connection-pools"))
    shown = post.select_one(".post-meta time")
    assert shown.text == "Jan 14, 2026"
    card = page(client.get("/")).select_one("#post-list .card time")
    assert card.text == "Jan 14, 2026" and card["datetime"] == "2026-01-14T22:00:00-05:00"


# The status an editor chooses --------------------------------------------------------------


def test_scheduled_needs_a_date(editor_client):
    """Scheduled with no date: 422, beside the date field."""
    response = post_new(editor_client, status=SCHEDULED)
    assert response.status_code == 422
    assert "a scheduled post needs a date and time" in field_error(response, "published_at")


def test_scheduled_needs_a_time_to_come(editor_client):
    """Scheduled for a time already past: 422, pointing at Published instead."""
    response = post_new(editor_client, status=SCHEDULED, published_at=earlier(minutes=5))
    assert response.status_code == 422
    message = field_error(response, "published_at")
    assert "already passed" in message and "Published" in message


def test_a_scheduled_post_is_hidden_until_its_time(app, editor_client):
    """Scheduled for later: stored as a published post with that date, listed as scheduled,
    not on the site."""
    when = later(hours=3)
    post_id = create(editor_client, status=SCHEDULED, published_at=when)
    post = stored(app, post_id)
    assert post.status == PUBLISHED and typed(post.published_at) == when
    assert not is_live(editor_client)
    listed = page(editor_client.get("/editor/?status=scheduled"))
    assert [a.text for a in listed.select("tbody th a.edit-link")] == [post.title]


def test_a_scheduled_post_needs_a_body(editor_client):
    """Like a published post, a scheduled one must have something to show."""
    response = post_new(editor_client, status=SCHEDULED, published_at=later(days=1), body=" ")
    assert response.status_code == 422
    assert field_error(response, "body") == "A scheduled post needs a body."


def test_published_with_a_future_date_is_a_422(app, editor_client):
    """Published for a time still to come: 422 saying to choose Scheduled; nothing stored."""
    response = post_new(editor_client, status=PUBLISHED, published_at=later(days=2))
    assert response.status_code == 422
    assert "choose Scheduled" in field_error(response, "published_at")
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == 0


def test_published_with_no_date_is_live_now(app, editor_client):
    """Published with the date empty: live at once, dated this minute."""
    before = utcnow().replace(second=0, microsecond=0)
    post_id = create(editor_client, status=PUBLISHED)
    post = stored(app, post_id)
    assert post.status == PUBLISHED and before <= post.published_at <= utcnow()
    assert is_live(editor_client)


def test_published_with_a_past_date_is_live_with_that_date(app, editor_client):
    """Published with an earlier date: live, carrying it (a post moved from elsewhere)."""
    post_id = create(editor_client, status=PUBLISHED, published_at="2024-05-06T07:08")
    assert stored(app, post_id).published_at == datetime(2024, 5, 6, 7, 8)
    assert is_live(editor_client)


@pytest.mark.parametrize("when", [later(days=30), "2024-05-06T07:08"], ids=["future", "past"])
def test_a_draft_keeps_its_date_and_never_publishes(app, editor_client, when):
    """A draft with a date keeps it as the intended one; it is not scheduled, not live."""
    post_id = create(editor_client, status=DRAFT, published_at=when)
    post = stored(app, post_id)
    assert post.status == DRAFT and typed(post.published_at) == when
    assert not is_live(editor_client)
    assert not page(editor_client.get("/editor/?status=scheduled")).select("tbody th a")
    soup = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert soup.select_one("#post-state").get_text(strip=True) == "Draft"
    assert soup.select_one("#unpublish-button") is None
    assert soup.select_one("#published_at")["value"] == when
    # Its main button says what pressing it would do with that date.
    assert soup.select_one("#publish-button")["value"] == (
        "publish" if when.startswith("2024") else "schedule"
    )


def test_the_form_shows_the_state_readers_get(editor_client):
    """A live post opens with its state named and the bar offering what fits it: Update
    (its changes go to readers) and Unpublish; a form without a status field keeps the
    state as it is."""
    post_id = create(editor_client, status=PUBLISHED)
    soup = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert soup.select_one("#post-state").get_text(strip=True) == "Published"
    assert soup.select('input[name="status"]') == []
    assert soup.select_one("#publish-button")["value"] == "update"
    assert soup.select_one("#publish-button").get_text(strip=True) == "Update"
    assert soup.select_one("#unpublish-button").get_text(strip=True) == "Unpublish"
    assert save(editor_client, post_id, title="Still live").status_code == 303
    assert (
        page(editor_client.get(f"/editor/posts/{post_id}"))
        .select_one("#post-state")
        .get_text(strip=True)
        == "Published"
    )


def test_a_scheduled_time_that_passes_while_editing(app, editor_client, monkeypatch):
    """The form still says Scheduled after the time came: saving it is a 422 that says so,
    and unpublishing still works whatever the date."""
    when = utcnow().replace(second=0, microsecond=0) + timedelta(minutes=10)
    post_id = create(editor_client, status=SCHEDULED, published_at=typed(when))
    import blog.authoring.forms

    monkeypatch.setattr(blog.authoring.forms, "utcnow", lambda: when + timedelta(minutes=1))
    response = save(editor_client, post_id, status=SCHEDULED)
    assert response.status_code == 422
    assert "already passed" in field_error(response, "published_at")
    response = save(editor_client, post_id, status=SCHEDULED, action="confirm-unpublish")
    assert response.status_code == 303
    assert stored(app, post_id).status == DRAFT


def test_an_autosave_keeps_a_scheduled_form_as_a_published_revision(app, editor_client):
    """Autosaves take the form as it is: a scheduled one is kept as published, with its date."""
    post_id = create(editor_client)
    when = later(days=1)
    response = editor_client.post(
        f"/editor/posts/{post_id}/autosave",
        data=new_post_form(
            editor_client, post_id=str(post_id), status=SCHEDULED, published_at=when
        ),
    )
    assert response.status_code == 204
    with app.app_context():
        kept = db.session.scalars(
            sa.select(PostRevision).where(PostRevision.post_id == post_id)
        ).all()[-1]
        assert kept.kind == "autosave" and kept.status == PUBLISHED
        assert typed(kept.published_at) == when
    assert stored(app, post_id).status == DRAFT


# Hostile values ------------------------------------------------------------------------------

HOSTILE_DATES = {
    "200,000 characters": "2026-01-15T09:00" + "9" * 199_984,
    "February 30": "2026-02-30T09:00",
    "year 0": "0000-01-01T09:00",
    "random": "q\u202e9\x00<script>\u00e9\U0001f600;--",
    "hour 24": "2026-01-15T24:00",
    "other digits": "\uff12\uff10\uff12\uff16-01-15T09:00",
    "past the last year": "9999-12-31T23:59",  # 04:59 UTC in the year 10000 from New York
    "month 13": "2026-13-01T09:00",
    "date only": "2026-01-15",
}


@pytest.mark.parametrize("value", HOSTILE_DATES.values(), ids=HOSTILE_DATES.keys())
def test_hostile_dates_are_422s_never_500s(app, editor_client, new_york, value):
    """Whatever lands in the date field is a 422 with a message beside it, whatever the status
    and whether htmx sends it; nothing is stored."""
    for status in (DRAFT, SCHEDULED, PUBLISHED):
        for headers in ({}, HX_EDITOR):
            case = (status, "htmx" if headers else "page")
            data = new_post_form(editor_client, status=status, published_at=value)
            response = editor_client.post("/editor/posts/new", data=data, headers=headers)
            assert response.status_code == 422, case
            message = field_error(response, "published_at")
            assert message and len(message) < 300, case
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == 0


def test_hostile_dates_in_an_autosave_are_kept_without_a_date(app, editor_client):
    """An autosave keeps the text of a form whose date is nonsense, never a 500."""
    post_id = create(editor_client)
    for name, value in HOSTILE_DATES.items():
        data = new_post_form(
            editor_client, post_id=str(post_id), published_at=value, body=f"Typed ({name})."
        )
        response = editor_client.post(f"/editor/posts/{post_id}/autosave", data=data)
        assert response.status_code == 204, name
    with app.app_context():
        kept = db.session.scalars(
            sa.select(PostRevision).where(
                PostRevision.post_id == post_id, PostRevision.kind == "autosave"
            )
        ).all()
        assert {revision.body_markdown for revision in kept} >= {
            f"Typed ({name})." for name in HOSTILE_DATES
        }


def test_a_first_of_january_of_year_one_is_out_of_range_east_of_utc(app, editor_client):
    """Midnight of 1 January, year 1, in Tokyo is before the calendar starts in UTC: 422."""
    app.config["SITE_TIMEZONE"] = "Asia/Tokyo"
    try:
        response = post_new(editor_client, published_at="0001-01-01T00:00")
    finally:
        app.config["SITE_TIMEZONE"] = "UTC"
    assert response.status_code == 422
    assert "out of range in Asia/Tokyo" in field_error(response, "published_at")
