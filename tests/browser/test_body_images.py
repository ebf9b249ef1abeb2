"""End to end in Chromium: an image pasted into the body, described, saved and published, is
served to readers in resized copies through srcset."""

from __future__ import annotations

import base64
import io
import re
import uuid

import PIL.Image
import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import EditorAccount, LiveServer, delete_posts, log_in, publish_and_wait

pytestmark = pytest.mark.browser

ALT = "Latency fell from 800 ms to 120 ms"

PASTE = """([data, name]) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const files = new DataTransfer();
  files.items.add(new File([bytes], name, { type: "image/png" }));
  const paste = new ClipboardEvent(
    "paste", { clipboardData: files, bubbles: true, cancelable: true });
  document.getElementById("body").dispatchEvent(paste);
}"""


def chart_png() -> str:
    """A 1200×600 PNG (wide enough for 480 and 960 px copies), base64-encoded."""
    image = PIL.Image.new("RGB", (1200, 600), (247, 246, 242))
    image.paste((31, 95, 191), (100, 300, 500, 600))
    image.paste((191, 60, 31), (700, 500, 1100, 600))
    out = io.BytesIO()
    image.save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


def test_an_image_pasted_into_the_body_is_served_with_srcset(
    page: Page, live_server: LiveServer, editor_account: EditorAccount
):
    """Paste, alt text asked for inline (refused blank), Markdown at the cursor, the preview
    and then the published post offer the copies; the browser loads a WebP copy."""
    run = uuid.uuid4().hex[:8]
    title = f"Pasted chart {run}"
    log_in(page, editor_account)
    page.goto("/editor/posts/new")
    page.get_by_label("Title").fill(title)
    page.get_by_label("Topics").fill("Databases")
    body = page.locator("#body")
    body.fill("Before the chart.\n\n\n\nAfter the chart.")
    body.evaluate("el => el.setSelectionRange(19, 19)")  # on the empty line between

    page.evaluate(PASTE, [chart_png(), "chart.png"])
    alt = page.locator("#body-image-alt")
    expect(alt).to_be_focused()
    expect(page.locator("#body-image-status")).to_contain_text("Describe “chart.png”")
    page.locator("#body-image-insert").click()
    expect(page.locator("#body-image-status")).to_contain_text("alt text is required")
    alt.fill(ALT)
    alt.press("Enter")
    inserted = re.compile(
        r"^Before the chart\.\n\n!\[" + ALT + r"\]\(/images/[0-9a-f]{64}\.png\)\n\nAfter"
    )
    expect(body).to_have_value(inserted)
    expect(page.locator("#body-image-panel")).to_be_hidden()
    expect(page.locator("#preview picture source[type='image/webp']")).to_have_count(1)

    publish_and_wait(page)
    page.locator("#saved-notice a", has_text="View the post").click()
    page.wait_for_url(re.compile(r".*/posts/pasted-chart-"))
    slug = page.url.rsplit("/", 1)[1]
    try:
        img = page.locator(".prose picture img")
        expect(img).to_have_attribute("alt", ALT)
        expect(img).to_have_attribute("srcset", re.compile(r"-480\.png 480w, .*-960\.png 960w"))
        expect(img).to_have_attribute("sizes", re.compile(r"100vw"))
        source = page.locator(".prose picture source[type='image/webp']")
        expect(source).to_have_attribute("srcset", re.compile(r"-480\.webp 480w, .*-960\.webp"))
        img.scroll_into_view_if_needed()
        page.wait_for_function(
            "img => img.complete && img.naturalWidth > 0", arg=img.element_handle()
        )
        # 700 px shown at this screen's density: the 960 px WebP copy, not the 1200 px PNG.
        current = img.evaluate("img => img.currentSrc")
        assert re.search(r"-960\.webp$", current), current
        served = page.request.get(current)
        assert served.headers["content-type"] == "image/webp"
        assert PIL.Image.open(io.BytesIO(served.body())).size == (960, 480)
    finally:
        delete_posts(live_server, [slug])
