"""The editor in Chromium: a post deleted in another tab; what the editor is told by Save."""

from __future__ import annotations

import re
import uuid

import pytest
import sqlalchemy as sa
from playwright.sync_api import Dialog, Page, expect

from blog.extensions import db
from blog.models import Post
from tests.browser.conftest import (
    EditorAccount,
    LiveServer,
    OpenPage,
    PageWatch,
    create_account,
    log_in,
)

pytestmark = pytest.mark.browser

SAVE = re.compile(r"/editor/posts/(new|\d+)$")


def press_and_wait(page: Page, button: str, status: int) -> None:
    """Press a button of the editor and wait for htmx to swap in the answer."""
    with page.expect_response(
        lambda r: r.request.method == "POST" and SAVE.search(r.url) is not None
    ) as answer:
        page.locator(button).click()
    assert answer.value.status == status, answer.value.text()[:500]
    assert answer.value.request.headers.get("hx-request") == "true"
    page.wait_for_function("() => document.getElementById('post-form') !== null")


def write_post(page: Page, title: str, body: str) -> int:
    """Write and save a new draft through the editor; its id."""
    page.goto("/editor/posts/new")
    page.get_by_label("Title", exact=True).fill(title)
    page.get_by_label("Topics").fill("Infrastructure")
    page.locator("#body").fill(body)
    press_and_wait(page, "#save-button", 200)
    expect(page.locator("#save-status")).to_contain_text("Saved at")
    page.wait_for_url(re.compile(r".*/editor/posts/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def new_account(live_server: LiveServer, name: str) -> EditorAccount:
    """An editor account of the test's own, made with `flask editors create`."""
    account = EditorAccount(
        f"{name.split()[0].lower()}-{uuid.uuid4().hex[:8]}@example.com",
        f"a passphrase for {name}",
        name,
    )
    return create_account(live_server, account)


def stored(live_server: LiveServer, post_id: int) -> tuple[str, str] | None:
    """A post's title and body as stored, or None once it is gone."""
    with live_server.app.app_context():
        row = db.session.execute(
            sa.select(Post.title, Post.body_markdown).where(Post.id == post_id)
        ).one_or_none()
        db.session.remove()
    return (row.title, row.body_markdown) if row else None


def test_a_post_deleted_in_another_tab_keeps_the_text_and_saves_as_a_new_draft(
    open_page: OpenPage, live_server: LiveServer, page_watch: PageWatch
) -> None:
    """B types in a draft that A deletes; B's save is a 410 that keeps the text, and
    "Save as a new draft" stores it, leaving A's new post alone."""
    run = uuid.uuid4().hex[:8]
    # The 410 is the point; autosave may also hear that the post is gone.
    page_watch.expect_status(404, 410)
    a, b = open_page(), open_page()
    log_in(a, new_account(live_server, "Ada Deleter"))
    log_in(b, new_account(live_server, "Bo Writer"))
    draft_id = write_post(a, f"Shared draft {run}", "First words.")

    b.goto(f"/editor/posts/{draft_id}")
    b.locator("#body").click()
    b.keyboard.press("End")
    b.locator("#body").press_sequentially(" B's sentence that must not be lost.", delay=2)
    b_title = f"B's title {run}"
    b.get_by_label("Title", exact=True).fill(b_title)

    a.goto(f"/editor/posts/{draft_id}/delete")
    with a.expect_navigation():
        a.locator(".confirm-actions button[type=submit]").click()
    assert stored(live_server, draft_id) is None
    other_id = write_post(a, f"Another post {run}", "A's own text.")

    press_and_wait(b, "#save-button", 410)
    status = b.locator(".editor-actions #save-status")
    expect(status).to_contain_text("deleted while you were editing")
    expect(status).to_have_attribute("role", "alert")
    expect(status).to_be_focused()
    expect(b.locator("#gone-title")).to_be_visible()
    expect(b.locator("#body")).to_have_value("First words. B's sentence that must not be lost.")
    expect(b.get_by_label("Title", exact=True)).to_have_value(b_title)

    press_and_wait(b, "#save-as-draft", 200)
    expect(b.locator("#save-status")).to_contain_text("Saved at")
    b.wait_for_url(re.compile(r".*/editor/posts/\d+$"))
    new_id = int(b.url.rsplit("/", 1)[1])
    assert new_id not in (draft_id, other_id)
    assert stored(live_server, new_id) == (
        b_title,
        "First words. B's sentence that must not be lost.",
    )
    assert stored(live_server, other_id) == (f"Another post {run}", "A's own text.")
    # Nothing of B's is left waiting in the browser once it is saved.
    assert (
        b.evaluate("() => Object.keys(localStorage).filter(k => k.startsWith('fieldnotes:'))") == []
    )


def test_the_editor_is_told_beside_save_and_keeps_unsaved_text_in_the_browser(
    open_page: OpenPage, live_server: LiveServer, page_watch: PageWatch
) -> None:
    """Counts follow typing; a refused save, a save, a too-large image and an ended session
    are reported beside Save; unsaved text asks before leaving and is offered back on return."""
    page_watch.expect_status(401, 422)
    # An account of its own: the test ends its session by disabling it.
    account = new_account(live_server, "Tess Told")
    page = open_page()
    log_in(page, account)
    post_id = write_post(page, f"Told beside Save {uuid.uuid4().hex[:8]}", "Saved body.")

    title = page.get_by_label("Title", exact=True)
    title.fill("x" * 301)
    counter = page.locator("#title-count")
    expect(counter.locator(".field-count-value")).to_have_text("301 / 300")
    expect(counter.locator(".field-count-note")).to_have_text(": 1 over the limit")
    expect(counter).to_have_class(re.compile("field-count-over"))
    press_and_wait(page, "#save-button", 422)
    status = page.locator(".editor-actions #save-status")
    expect(status).to_contain_text("The title is 301 characters long; the limit is 300")
    expect(status).to_be_focused()
    expect(title).to_have_value("x" * 301)

    title.fill("A title that fits")
    expect(counter.locator(".field-count-value")).to_have_text("17 / 300")
    expect(counter).not_to_have_class(re.compile("field-count-over"))
    press_and_wait(page, "#save-button", 200)
    expect(status).to_have_attribute("role", "status")
    expect(status).to_contain_text("Saved at")
    leaving_asks = (
        "() => { const e = new Event('beforeunload', {cancelable: true}); "
        "window.dispatchEvent(e); return e.defaultPrevented; }"
    )
    # The editor takes the saved state once htmx has settled the swap, a moment after the
    # status text is in: leaving stops asking then.
    page.wait_for_function(f"() => !({leaving_asks})()", timeout=5000)
    assert page.evaluate(leaving_asks) is False

    # An image over the limit is refused before it is sent, and never silently.
    limit = int(page.locator("#image").get_attribute("data-max-bytes") or 0)
    page.set_input_files(
        "#image",
        files=[{"name": "huge.png", "mimeType": "image/png", "buffer": b"\0" * (limit + 1)}],
    )
    expect(page.locator("#image-size-error")).to_contain_text("“huge.png” is")
    expect(status).to_contain_text("it was not attached")
    expect(status).to_be_focused()
    assert page.locator("#image").evaluate("input => input.files.length") == 0

    # Unsaved text: leaving asks first, and coming back offers it again. Leaving may cut
    # short the preview of that text (sent 400 ms after typing): the browser drops it then.
    page_watch.expect_superseded("/editor/preview")
    page.locator("#body").fill("Saved body. Words typed after the save.")
    assert page.evaluate(leaving_asks) is True
    prompts: list[str] = []

    def accept(dialog: Dialog) -> None:
        prompts.append(dialog.type)
        dialog.accept()

    page.on("dialog", accept)
    page.goto(f"/editor/posts/{post_id}")
    assert prompts == ["beforeunload"]
    offer = page.locator("#draft-offer")
    expect(offer).to_contain_text("You have unsaved changes from")
    expect(page.locator("#body")).to_have_value("Saved body.")
    offer.get_by_role("button", name="Restore them").click()
    expect(page.locator("#body")).to_have_value("Saved body. Words typed after the save.")
    # Restoring types into the body, so its preview may still be on its way when Save
    # swaps the editor: htmx then drops that request, as it should.
    press_and_wait(page, "#save-button", 200)
    # The kept copy goes once htmx has settled the saved editor, a moment after the answer.
    page.wait_for_function(
        f"() => localStorage.getItem('fieldnotes:unsaved:{post_id}') === null", timeout=5000
    )

    # Logged out meanwhile: the alert at the top is also beside Save, with its login link.
    assert live_server.flask("editors", "disable", account.email).returncode == 0
    page.locator("#body").fill("Words typed while logged out.")
    with page.expect_response(lambda r: r.request.method == "POST" and SAVE.search(r.url)):
        page.locator("#save-button").click()
    expect(page.locator("#editor-alert")).to_contain_text("You are logged out")
    expect(status).to_contain_text("You are logged out, so this was not saved")
    expect(status.get_by_role("link", name="Log in in a new tab")).to_be_visible()
    expect(status).to_be_focused()
    expect(page.locator("#body")).to_have_value("Words typed while logged out.")
