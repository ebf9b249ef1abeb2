"""End to end in Chromium: an editor logs in, writes an illustrated post, publishes it, edits it."""

from __future__ import annotations

import io
import re
import uuid
from urllib.parse import urlsplit

import PIL.Image
import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import publish_and_wait

pytestmark = pytest.mark.browser

BODY = "## Findings\n\nThe *index* was missing, so every lookup read the whole table."


def cover_png() -> bytes:
    """A small two-colour PNG to upload as the post's illustration."""
    image = PIL.Image.new("RGB", (640, 360), (31, 95, 191))
    image.paste((247, 246, 242), (0, 240, 640, 360))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def save_and_wait(page: Page) -> None:
    """Press Save and wait for htmx to swap in the saved editor."""
    with page.expect_response(
        lambda r: r.request.method == "POST" and "/editor/posts/" in r.url
    ) as answer:
        page.locator("#save-button").click()
    assert answer.value.status == 200, answer.value.text()
    assert answer.value.request.headers.get("hx-request") == "true"
    expect(page.locator("#saved-notice")).to_be_visible()


def test_editor_writes_illustrates_publishes_edits_and_logs_out(
    page: Page, live_server, page_watch
):
    """From `editors create` to a published, illustrated post on the home page, then an edit."""
    # The drawing beside the form follows the fields as they are typed; a save can leave the
    # page while its latest preview is still on the way, and the browser drops it.
    page_watch.expect_superseded("/editor/drawing")
    run = uuid.uuid4().hex[:8]
    email, password = f"e2e-{run}@example.com", "a passphrase only this test knows"
    made = live_server.flask(
        "editors",
        "create",
        email,
        "--name",
        "Eve Author",
        "--password-stdin",
        input=password + "\n",
    )
    assert made.returncode == 0, made.stderr

    # Log in from the header's link.
    page.goto("/")
    page.locator(".site-nav a.login").click()
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/editor/")
    expect(page.locator(".site-nav .account-write")).to_be_visible()

    # Write the post.
    page.get_by_role("link", name="New post").click()
    page.wait_for_url("**/editor/posts/new")
    title = f"Tracing a slow query {run}"
    page.get_by_label("Title").fill(title)
    expect(page.locator("#slug-hint")).to_contain_text(f"/posts/tracing-a-slow-query-{run}")
    page.get_by_label("Topics").fill("Databases, Reliability")
    expect(page.get_by_label("Author 1", exact=True)).to_have_value("Eve Author")

    previews: list[str] = []
    page.on(
        "request",
        lambda r: (
            previews.append(r.headers.get("hx-request", "")) if "/editor/preview" in r.url else None
        ),
    )
    body = page.locator("#body")
    body.click()
    body.press_sequentially(BODY, delay=5)
    expect(page.locator("#preview h2")).to_contain_text("Findings")
    expect(page.locator("#preview em")).to_have_text("index")
    assert previews and all(flag == "true" for flag in previews)
    assert len(previews) < len(BODY), "the preview should wait for a pause in typing"

    page.set_input_files(
        "#image", files=[{"name": "cover.png", "mimeType": "image/png", "buffer": cover_png()}]
    )
    page.get_by_label("Alt text").fill("A blue field over a pale strip")
    publish_and_wait(page)
    page.wait_for_url(re.compile(r".*/editor/posts/\d+$"))
    edit_url = page.url
    # The editor asks for a copy of unsaved text kept in the browser as it opens (GET
    # .../autosave); leaving the page at once cancels that request, which is no failure.
    page_watch.expect_superseded(urlsplit(edit_url).path + "/autosave")
    expect(page.locator("#post-state")).to_have_text("Published")
    current = page.locator(".image-current img")
    expect(current).to_have_attribute("src", re.compile(r"^/images/[0-9a-f]{64}\.png$"))
    image_src = current.get_attribute("src")

    # Readers find it on the home page, illustrated.
    page.goto("/")
    card = page.locator("#post-list .card", has_text=title)
    expect(card).to_have_count(1)
    art = card.locator("img.card-art")
    expect(art).to_have_attribute("src", image_src or "")
    expect(art).to_have_attribute("width", "640")
    expect(art).to_have_attribute("alt", "A blue field over a pale strip")
    art.scroll_into_view_if_needed()
    # It loads one of its sizes: the original (640 px) or its 480 px copy, in WebP or PNG.
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=art.element_handle())
    loaded = art.evaluate("img => img.currentSrc")
    sha256 = (image_src or "").rsplit("/", 1)[1].split(".")[0]
    assert re.search(rf"/images/{sha256}(-480\.(webp|png)|\.png)$", loaded), loaded
    card.locator(".card-title a").click()
    expect(page.locator("h1.post-title")).to_have_text(title)
    expect(page.locator(".prose h2")).to_contain_text("Findings")
    post_url = page.url

    # Edit it: Save draft keeps the new title from readers, as draft changes the editor
    # opens on; Update puts it live, with an "Updated" date.
    page.goto(edit_url)
    page.get_by_label("Title").fill(f"Tracing a slow query, revisited {run}")
    save_and_wait(page)
    expect(page.locator("#pending-banner")).to_contain_text("Draft changes, not yet live")
    page.goto(post_url)
    expect(page.locator("h1.post-title")).to_have_text(title)
    page.goto(edit_url)
    expect(page.get_by_label("Title")).to_have_value(f"Tracing a slow query, revisited {run}")
    publish_and_wait(page, "Update the post readers see now?")
    expect(page.locator("#pending-banner")).to_have_count(0)
    page.goto(post_url)
    expect(page.locator("h1.post-title")).to_have_text(f"Tracing a slow query, revisited {run}")
    expect(page.locator(".post-meta")).to_contain_text("Updated")

    # Browse the listing signed in: htmx keeps a snapshot of the page, logout form included.
    page.goto("/")
    page.locator(".topic-filter a", has_text="Databases").click()
    page.wait_for_url("**/topics/databases")
    kept = "sessionStorage.getItem('htmx-history-cache') || ''"
    assert "logout-form" in page.evaluate(kept)

    # Log out: htmx's snapshots of signed-in pages go with the session.
    page.locator(".logout-button").click()
    page.wait_for_url(lambda url: url.rstrip("/") == live_server.url.rstrip("/"))
    expect(page.locator(".site-nav a.login")).to_be_visible()
    assert page.evaluate(kept) == ""
    page.go_back()
    page.wait_for_url("**/topics/databases")
    expect(page.locator(".site-nav a.login")).to_be_visible()
    expect(page.locator(".logout-button")).to_have_count(0)
    page.goto("/editor/")
    page.wait_for_url(re.compile(r".*/login\?next=/editor/$"))
