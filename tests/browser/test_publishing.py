"""Writing without friction, in Chromium at 1280 and 390 px: the action bar stays on screen,
a new post is stored at its first autosave, Preview opens what is typed, publishing asks
once, and a live post's Save draft keeps its changes from readers until Update. axe checks
each state in both colour schemes; with --screenshots the bar is captured as it is seen."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest
import sqlalchemy as sa
from playwright.sync_api import Page, expect

from blog.extensions import db
from blog.models import Post, utcnow
from tests.authoring.test_scheduled_changes import fall_due as scheduled_changes_due
from tests.browser.conftest import (
    AXE_SCRIPT,
    EditorAccount,
    LiveServer,
    OpenPage,
    delete_posts,
    log_in,
    publish_and_wait,
    require,
    screenshots,
    settle,
)
from tests.browser.test_accessibility import audit, describe, load_axe_on_every_page
from tests.browser.test_authoring import cover_png

pytestmark = pytest.mark.browser


def bar_on_screen(page: Page) -> None:
    """The action bar's buttons are inside the viewport, whatever the scroll."""
    height = page.viewport_size["height"] if page.viewport_size else 0
    box = page.locator("#action-bar").bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height + 1, box
    expect(page.locator("#save-button")).to_be_in_viewport()


def audited(page: Page, state: str, found: dict[str, str]) -> None:
    """axe on the page as it stands, in the light and the dark scheme."""
    for scheme in ("dark", "light"):
        page.emulate_media(color_scheme=scheme)
        violations = audit(page)
        if violations:
            found[f"{state} ({scheme})"] = describe(violations)


def fall_due(live_server: LiveServer, slug: str) -> None:
    """Move the post's scheduled changes into the past, as the clock would."""
    with live_server.app.app_context():
        post_id = db.session.scalar(sa.select(Post.id).where(Post.slug == slug))
    scheduled_changes_due(live_server.app, post_id)


def shoot_bar(page: Page, name: str, wanted: bool) -> None:
    """The screen as the writer sees it, the bar at its foot, in both schemes."""
    if wanted:
        screenshots(page, name, full_page=False)


@pytest.mark.parametrize("width", [1280, 390])
def test_bar_autosave_preview_publish_and_draft_changes(
    open_page: OpenPage,
    live_server: LiveServer,
    editor_account: EditorAccount,
    request: pytest.FixtureRequest,
    width: int,
) -> None:
    """One writing session: the bar stays on screen while the title is typed at the top; the
    first autosave with a title (no topic yet) stores the draft and moves the address;
    Preview shows the typed text and a picture chosen but not saved in a new tab; Publish
    asks, then publishes; a later Save draft (Ctrl+S) keeps the change from readers under a
    banner until Update; changes scheduled for later reach readers only once their time has
    come."""
    require(AXE_SCRIPT.exists(), "axe-core is missing from node_modules: run `make setup`")
    wanted = bool(request.config.getoption("screenshots", default=False))
    run = uuid.uuid4().hex[:8]
    title = f"Bar journey {width} {run}"
    slug = f"bar-journey-{width}-{run}"
    page = open_page(viewport={"width": width, "height": 800}, bypass_csp=True)
    load_axe_on_every_page(page)
    found: dict[str, str] = {}
    try:
        log_in(page, editor_account)
        page.goto("/editor/posts/new")
        settle(page)
        page.get_by_label("Title", exact=True).fill(title)
        bar_on_screen(page)
        status = page.locator("#autosave-status")
        expect(status).to_have_text("Unsaved changes")
        page.locator("#body").fill("First words of the journey.")
        # Four seconds after the last change, the draft is stored, with no topic yet, and
        # the page moves to it.
        expect(status).to_have_text(
            re.compile(r"^Autosaved \d\d:\d\d .* as a draft$"), timeout=15_000
        )
        page.wait_for_url(re.compile(r".*/editor/posts/\d+$"))
        edit_url = page.url
        page.get_by_label("Topics").fill("Databases")  # publishing needs one
        audited(page, "new post, autosaved", found)
        shoot_bar(page, f"action-bar-{width}", wanted)

        # Preview: the typed text and a picture chosen but not yet saved, in the post
        # template, in a new tab.
        page.locator("#body").fill("Typed for the preview only.")
        page.set_input_files(
            "#image", files=[{"name": "cover.png", "mimeType": "image/png", "buffer": cover_png()}]
        )
        page.get_by_label("Alt text").fill("A blue field over a pale strip")
        with page.context.expect_page() as opened:
            page.locator("#preview-button").click()
        preview = opened.value
        preview.wait_for_load_state()
        expect(preview.locator("h1.post-title")).to_have_text(title)
        expect(preview.locator(".prose")).to_contain_text("Typed for the preview only.")
        expect(preview.locator(".typed-preview-card")).to_contain_text(title)
        art = preview.locator("img.post-art")
        expect(art).to_have_attribute("alt", "A blue field over a pale strip")
        expect(art).to_have_attribute("src", re.compile(r"/images/[0-9a-f]{64}(-\d+)?\.png$"))
        art.scroll_into_view_if_needed()
        preview.wait_for_function(
            "img => img.complete && img.naturalWidth > 0", arg=art.element_handle()
        )
        preview.close()

        # Publish asks first, then the post is live.
        page.locator("#body").fill("Published words.")
        publish_and_wait(page)
        expect(page.locator("#post-state")).to_have_text("Published")
        expect(page.locator("#publish-button")).to_have_text("Update")
        bar_on_screen(page)

        # A change saved as a draft (Ctrl+S) stays out of readers' sight until Update.
        page.locator("#body").fill("Published words. A change not yet live.")
        with page.expect_response(lambda r: r.request.method == "POST" and r.url == edit_url):
            page.keyboard.press("Control+s")
        banner = page.locator("#pending-banner")
        expect(banner).to_contain_text("Draft changes, not yet live")
        # The status beside the buttons says the same, after focus went back to the body.
        expect(page.locator("#body")).to_be_focused()
        expect(status).to_have_text(re.compile(r"^Draft changes saved \d\d:\d\d .*\(not live\)$"))
        audited(page, "draft changes of a live post", found)
        shoot_bar(page, f"action-bar-draft-changes-{width}", wanted)
        reader = page.context.new_page()
        reader.goto(f"/posts/{slug}")
        expect(reader.locator(".prose")).to_have_text(re.compile(r"^\s*Published words\.\s*$"))
        with page.expect_response(lambda r: r.request.method == "POST" and r.url == edit_url):
            page.locator("#publish-button").click()
        expect(page.locator("#publish-question h2")).to_have_text(
            "Update the post readers see now?"
        )
        expect(page.locator("#publish-changes")).to_contain_text("1 line added, 1 line removed")
        audited(page, "update question", found)
        shoot_bar(page, f"action-bar-question-{width}", wanted)
        with page.expect_response(lambda r: r.request.method == "POST" and r.url == edit_url):
            page.locator("#confirm-button").click()
        expect(page.locator("#saved-notice")).to_contain_text("Updated: readers see this version")
        expect(banner).to_have_count(0)
        reader.reload()
        expect(reader.locator(".prose")).to_contain_text("A change not yet live.")

        # Changes scheduled for later wait under a banner; readers keep the live text until
        # their time, then the first request after it puts them live.
        page.locator("#body").fill("Published words. A change not yet live. Scheduled too.")
        page.locator("#published_at").fill(
            (utcnow() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
        )
        expect(page.locator("#publish-button")).to_have_text("Schedule")
        with page.expect_response(lambda r: r.request.method == "POST" and r.url == edit_url):
            page.locator("#publish-button").click()
        expect(page.locator("#publish-question h2")).to_have_text("Schedule these changes?")
        with page.expect_response(lambda r: r.request.method == "POST" and r.url == edit_url):
            page.locator("#confirm-button").click()
        expect(banner).to_contain_text("Draft changes, scheduled for")
        expect(status).to_have_text(re.compile(r"^Changes scheduled for \d{4}-\d\d-\d\d "))
        expect(page.locator("#publish-button")).to_have_text("Update")
        audited(page, "scheduled changes", found)
        shoot_bar(page, f"action-bar-scheduled-{width}", wanted)
        reader.reload()
        expect(reader.locator(".prose")).not_to_contain_text("Scheduled too.")
        fall_due(live_server, slug)
        for _ in range(50):  # the page cache looks at the data version every 100 ms
            reader.reload()
            if "Scheduled too." in reader.locator(".prose").inner_text():
                break
            reader.wait_for_timeout(100)
        expect(reader.locator(".prose")).to_contain_text("Scheduled too.")
        assert not found, "axe found WCAG violations:\n" + "\n".join(
            f"{name}:\n{text}" for name, text in found.items()
        )
    finally:
        delete_posts(live_server, [slug])
