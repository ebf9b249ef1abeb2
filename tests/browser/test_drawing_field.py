"""The editor's Drawing field in Chromium: the live preview follows the spec typed."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PageWatch, Site, log_in

pytestmark = pytest.mark.browser


def test_the_drawing_preview_follows_the_spec_typed(page: Page, site: Site, page_watch: PageWatch):
    """The preview shows the post's drawing when the editor opens, redraws what a spec names
    as it is typed, says what is wrong with a broken one, and draws again once it is fixed
    (with the CSP in force: the page watch fails the test on any console error)."""
    page_watch.expect_status(422)  # the broken spec's answer
    log_in(page, site.account)
    page.goto("/editor/posts/new")
    preview = page.locator("#drawing-preview")
    page.get_by_label("Title").fill("Failover across three regions")
    expect(preview.locator("figcaption")).to_contain_text("Chosen from the post’s words")
    field = page.get_by_role("textbox", name="Drawing")
    field.fill("kind: bars; values: 800ms, 120 ms")
    drawing = preview.locator("svg")
    expect(preview.locator("figcaption code")).to_have_text("kind: bars; values: 800 ms, 120 ms")
    assert "“800 ms” and “120 ms”" in (drawing.get_attribute("aria-label") or "")
    field.fill("kind: teapot")
    expect(preview.locator(".hint-problem")).to_contain_text("There is no drawing of kind “teapot”")
    expect(drawing).to_have_count(0)
    field.fill("kind: queue")
    expect(preview.locator("figcaption code")).to_have_text("kind: queue")
