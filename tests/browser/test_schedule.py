"""Scheduling in Chromium: an editor in New York schedules a post for 09:00 local time on a
January day; it is stored as 14:00 UTC and goes live at that time."""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta

import pytest
import sqlalchemy as sa
from playwright.sync_api import Page, expect

from blog.extensions import db
from blog.models import PUBLISHED, Post, SiteState, live, utcnow
from tests.browser.conftest import (
    SITE_TIMEZONE,
    EditorAccount,
    LiveServer,
    OpenPage,
    PageWatch,
    create_account,
    log_in,
    publish_and_wait,
)

pytestmark = pytest.mark.browser

NEW_YORK = "America/New_York"


def save_and_wait(page: Page) -> None:
    """Press Save and wait for htmx to swap in the saved editor."""
    with page.expect_response(
        lambda r: r.request.method == "POST" and "/editor/posts/" in r.url
    ) as answer:
        page.locator("#save-button").click()
    assert answer.value.status == 200, answer.value.text()[:500]
    expect(page.locator("#saved-notice")).to_be_visible()


def stored(live_server: LiveServer, slug: str) -> Post:
    """The post as the served database holds it."""
    with live_server.app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        assert post is not None
        db.session.expunge(post)
        return post


def live_at(live_server: LiveServer, slug: str, moment: datetime) -> bool:
    """Whether readers get the post at `moment`, by the one rule of what is live."""
    with live_server.app.app_context():
        found = db.session.scalar(sa.select(Post.id).where(Post.slug == slug, live(moment)))
        return found is not None


def let_time_pass(live_server: LiveServer, slug: str) -> None:
    """Let the clock pass the post's time, as the database sees it: the post's time and the
    state row's record of the next one move back to a second ago, with no write by the app."""
    due = utcnow() - timedelta(seconds=1)
    with live_server.app.app_context(), db.engine.begin() as connection:
        posts, state = Post.__table__, SiteState.__table__
        connection.execute(posts.update().where(posts.c.slug == slug).values(published_at=due))
        connection.execute(state.update().values(next_publish_at=due))


def take_away(live_server: LiveServer, slug: str) -> None:
    """Remove the test's post from the shared server's database."""
    from blog.authoring.editor import trash

    with live_server.app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        if post is not None:
            trash.move_to_trash(post, "browser suite")
            db.session.commit()


def test_an_editor_in_new_york_schedules_a_post_for_nine_in_the_morning(
    open_page: OpenPage, live_server: LiveServer, page_watch: PageWatch
):
    """09:00 in New York on a January day is stored as 14:00 UTC; the editor shows it back as
    09:00 EST; a browser in Chicago sees 08:00 beside the field; readers get the post only
    from 14:00 UTC on."""
    assert SITE_TIMEZONE == NEW_YORK  # the served site's zone (tests/browser/conftest.py)
    run = uuid.uuid4().hex[:8]
    account = create_account(
        live_server,
        EditorAccount(f"ny-{run}@example.com", "a passphrase for New York", "Nia York"),
    )
    year = utcnow().year + 1  # a January still to come
    title = f"Morning release notes {run}"
    slug = f"morning-release-notes-{run}"
    page_watch.expect_status(404)  # readers asking for the post before its time

    editor = open_page(timezone_id=NEW_YORK)
    assert editor.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone") == NEW_YORK
    log_in(editor, account)
    try:
        editor.goto("/editor/posts/new")
        editor.get_by_label("Title").fill(title)
        editor.get_by_label("Topics").fill("Infrastructure")
        editor.locator("#body").fill("What ships at nine.")
        when = editor.get_by_label(f"Publish at ({NEW_YORK})")
        when.fill(f"{year}-01-15T09:00")
        # The browser is in the site's zone: nothing to convert, no note.
        expect(editor.locator("#published_at-zone")).to_have_count(0)
        # The main button says what the date makes of it, and asks before scheduling.
        expect(editor.locator("#publish-button")).to_have_text("Schedule")
        publish_and_wait(editor, "Schedule for readers?")
        editor.wait_for_url(re.compile(r".*/editor/posts/\d+$"))
        edit_url = editor.url
        expect(editor.locator("#post-state")).to_have_text(
            f"Scheduled: goes live {year}-01-15 09:00 EST"
        )
        expect(editor.get_by_label(f"Publish at ({NEW_YORK})")).to_have_value(f"{year}-01-15T09:00")
        expect(editor.locator("#publish-button")).to_have_text("Schedule")
        expect(editor.locator("#unpublish-button")).to_have_text("Unschedule")

        post = stored(live_server, slug)
        assert post.status == PUBLISHED
        assert post.published_at == datetime(year, 1, 15, 14, 0)  # 09:00 EST is 14:00 UTC

        # A colleague whose browser is in Chicago sees the moment in their own zone too.
        colleague = open_page(timezone_id="America/Chicago")
        log_in(colleague, account)
        colleague.goto(edit_url)
        note = colleague.locator("#published_at-zone")
        expect(note).to_have_text("= 08:00 in your zone, America/Chicago")
        field = colleague.get_by_label(f"Publish at ({NEW_YORK})")
        assert "published_at-zone" in (field.get_attribute("aria-describedby") or "")
        field.fill(f"{year}-01-15T00:30")
        expect(note).to_have_text(f"= 23:30 on {year}-01-14 in your zone, America/Chicago")

        # Readers: not before 14:00 UTC, from then on.
        assert not live_at(live_server, slug, datetime(year, 1, 15, 13, 59, 59))
        assert live_at(live_server, slug, datetime(year, 1, 15, 14, 0))
        reader = open_page(timezone_id=NEW_YORK)
        assert reader.goto(f"/posts/{slug}").status == 404
        let_time_pass(live_server, slug)
        assert reader.goto(f"/posts/{slug}").status == 200
        expect(reader.locator("h1.post-title")).to_have_text(title)
        reader.goto("/")
        expect(reader.locator("#post-list .card-title a", has_text=title)).to_have_count(1)
    finally:
        take_away(live_server, slug)
