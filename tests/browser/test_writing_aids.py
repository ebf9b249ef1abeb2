"""The editor's writing aids in Chromium: the cheat sheet, the live word count, Ctrl+S and
the preview in the post template."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import HeldRequests, LiveServer, Site, delete_posts, log_in

pytestmark = pytest.mark.browser


def test_cheat_sheet_word_count_ctrl_s_and_preview(page: Page, site: Site, live_server: LiveServer):
    """An editor opens the cheat sheet, sees the count follow the typing, saves with Ctrl+S
    (once, however often it is pressed during a save; not at all with nothing changed) and
    opens the saved draft in the post template."""
    run = uuid.uuid4().hex[:8]
    saves: list[str] = []
    page.on(
        "request",
        lambda r: (
            saves.append(r.url)
            if r.method == "POST"
            and "/preview" not in r.url
            and "/autosave" not in r.url
            and "/editor/posts/" in r.url
            else None
        ),
    )
    log_in(page, site.account)
    page.goto("/editor/posts/new")
    sheet = page.locator("#markdown-help table")
    expect(sheet).to_be_hidden()
    page.get_by_text("Markdown cheat sheet").click()
    expect(sheet).to_be_visible()
    expect(sheet).to_contain_text("[^1]: The note.")

    page.get_by_label("Title", exact=True).fill(f"Shortcut notes {run}")
    page.get_by_label("Topics").fill("Databases")
    body = page.locator("#body")
    body.click()
    body.press_sequentially("Three short words", delay=5)
    expect(page.locator("#writing-stats")).to_have_text(re.compile(r"^3 words\s*·\s*1 min read$"))
    body.press_sequentially(" and two more", delay=5)
    expect(page.locator("#writing-stats")).to_contain_text("6 words")

    # Ctrl+S saves the new draft, as Save does.
    body.press("Control+s")
    page.wait_for_url(re.compile(r".*/editor/posts/\d+$"))
    expect(page.locator("#saved-notice")).to_be_visible()
    assert len(saves) == 1

    # Nothing changed: nothing is sent. (The status line is shared with the editor's other
    # scripts, and under load one of them sometimes replaces "Nothing to save" at once.)
    page.locator("#title").press("Control+s")
    page.wait_for_timeout(500)
    assert len(saves) == 1

    # Pressed again and again while a save is on its way: one save.
    body.press("End")
    body.press_sequentially(" Seven.", delay=5)
    held = HeldRequests(page, "**/editor/posts/*")
    body.press("Control+s")
    held.wait(1)
    body.press("Control+s")
    page.keyboard.press("Meta+s")
    page.wait_for_timeout(300)
    assert len(held.routes) == 1 and len(saves) == 2
    held.release()
    expect(page.locator("#save-status")).to_contain_text("Saved")
    expect(page.locator("#body")).to_have_value("Three short words and two more Seven.")
    assert len(saves) == 2

    # The preview link opens the saved draft in the post template, in a new tab.
    with page.context.expect_page() as opened:
        page.locator("#preview-link").click()
    preview = opened.value
    expect(preview.locator("h1.post-title")).to_have_text(f"Shortcut notes {run}")
    expect(preview.locator("#preview-note")).to_contain_text("readers cannot see it yet")
    expect(preview.locator(".prose")).to_contain_text("Seven.")
    delete_posts(live_server, [f"shortcut-notes-{run}"])
