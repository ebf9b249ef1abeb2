"""The editor in Chromium: a post deleted in another tab; what the editor is told by Save."""

from __future__ import annotations

import re
import uuid

import pytest
import sqlalchemy as sa
from playwright.sync_api import Dialog, Page, expect

from blog.authoring.revisions import SAVE as SAVE_KIND
from blog.extensions import db
from blog.models import Post, PostRevision
from tests.browser.conftest import (
    Capture,
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
    status = b.locator("#action-bar #save-status")
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
    # Nothing of B's is left waiting in the browser once it is saved: the editor forgets it
    # when htmx settles the answer, a moment after the swap the checks above waited for.
    b.wait_for_function(
        "() => !Object.keys(localStorage).some(k => k.startsWith('fieldnotes:'))", timeout=5_000
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
    status = page.locator("#action-bar #save-status")
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
    assert limit == 5 * 1024 * 1024
    huge = b"\0" * int(5.5 * 1024 * 1024)  # over the limit, small enough to send quickly
    page.set_input_files(
        "#image", files=[{"name": "huge.png", "mimeType": "image/png", "buffer": huge}]
    )
    expect(page.locator("#image-size-error")).to_have_text(
        "This image, “huge.png”, is 5.5 MB; the limit is 5 MB, so it was not attached. "
        "Choose a smaller file."
    )
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

    # Logged out meanwhile: the save opens the login dialog; closed unused, Save says so, once.
    assert live_server.flask("editors", "disable", account.email).returncode == 0
    page.locator("#body").fill("Words typed while logged out.")
    with page.expect_response(lambda r: r.request.method == "POST" and SAVE.search(r.url)):
        page.locator("#save-button").click()
    expect(page.locator("#session-dialog")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#session-dialog")).to_be_hidden()
    expect(status).to_have_text(
        "Not saved: you are logged out. Press Save to log in again; your text is still here."
    )
    expect(status).to_be_focused()
    expect(page.locator("#editor-alert")).to_be_empty()
    expect(page.locator("#body")).to_have_value("Words typed while logged out.")


SCREENS = [
    pytest.param({"width": 1280, "height": 900}, "light", id="1280-light"),
    pytest.param({"width": 390, "height": 800}, "dark", id="390-dark"),
]


def saves_of(live_server: LiveServer, post_id: int) -> int:
    """How many saves of the post are stored (autosaves of the text being typed left out)."""
    with live_server.app.app_context():
        count = db.session.scalar(
            sa.select(sa.func.count())
            .select_from(PostRevision)
            .where(PostRevision.post_id == post_id, PostRevision.kind == SAVE_KIND)
        )
        db.session.remove()
    return int(count or 0)


@pytest.mark.parametrize(("viewport", "scheme"), SCREENS)
def test_an_ended_session_logs_in_over_the_editor_and_saves_once(
    open_page: OpenPage,
    live_server: LiveServer,
    page_watch: PageWatch,
    capture: Capture,
    viewport: dict[str, int],
    scheme: str,
) -> None:
    """A save after a login elsewhere opens a login dialog: a wrong password says so and
    sends nothing; the right one saves the text once, and the caret is where it was. Logged
    in again in another tab instead, the next save goes through on its own."""
    page_watch.expect_status(400, 401)
    account = new_account(live_server, "Lou Loggedout")
    page = open_page(viewport=viewport, color_scheme=scheme)
    log_in(page, account)
    post_id = write_post(page, f"Session ends {uuid.uuid4().hex[:8]}", "Saved words.")
    saves: list[str] = []
    page.on("request", lambda r: saves.append(r.url) if SAVE.search(r.url) else None)
    body = page.locator("#body")
    body.fill("Saved words. Words typed after the session ended.")
    body.evaluate("el => { el.focus(); el.setSelectionRange(6, 6); }")
    log_in(open_page(), account)  # a login elsewhere ends this page's session

    # Typing asks for a preview, which meets the ended session: its alert's link logs in
    # here, in the same dialog (closed again with Escape, nothing waiting).
    with page.expect_response(lambda r: r.url.endswith("/editor/preview") and r.status == 401):
        page.keyboard.type("Kept ")
    alert = page.locator("#editor-alert")
    expect(alert).to_contain_text("You are logged out, so nothing was sent.")
    alert.get_by_role("link", name="Log in here").click()
    dialog = page.get_by_role("dialog", name="Log in to save")
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    body.evaluate("el => { el.focus(); el.setSelectionRange(11, 11); }")

    with page.expect_response(lambda r: SAVE.search(r.url) is not None and r.status == 401):
        page.keyboard.press("Control+s")
    expect(dialog).to_be_visible()
    expect(page.locator("#session-email")).to_have_value(account.email)
    expect(page.locator("#session-password")).to_be_focused()
    expect(page.locator("#save-status")).to_contain_text("Not saved: you were logged out")

    page.keyboard.type("not the password")
    with page.expect_response(lambda r: r.url.endswith("/login") and r.status == 401):
        page.keyboard.press("Enter")
    expect(dialog.get_by_role("alert")).to_have_text(
        "That email and password do not match an active editor account."
    )
    expect(page.locator("#session-password")).to_have_value("")
    expect(page.locator("#session-password")).to_be_focused()
    assert len(saves) == 1
    capture(page, f"editor-login-dialog-{viewport['width']}")

    page.keyboard.type(account.password)
    with page.expect_response(lambda r: SAVE.search(r.url) is not None and r.status == 200):
        page.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    expect(page.locator("#save-status")).to_contain_text("Saved at")
    assert len(saves) == 2
    assert stored(live_server, post_id) is not None
    assert (
        stored(live_server, post_id)[1] == "Saved Kept words. Words typed after the session ended."
    )
    assert saves_of(live_server, post_id) == 2
    expect(body).to_be_focused()
    assert body.evaluate("el => [el.selectionStart, el.selectionEnd]") == [11, 11]
    expect(alert).to_be_empty()

    # Logged in again in another tab of this browser: this page's form token is from the
    # session before, so the save is refused once and sent again with the new one by itself.
    log_in(open_page(), account)
    other_tab = page.context.new_page()
    log_in(other_tab, account)
    other_tab.close()
    page.keyboard.type("Yes. ")
    with page.expect_response(lambda r: SAVE.search(r.url) is not None and r.status == 200):
        page.keyboard.press("Control+s")
    expect(page.locator("#save-status")).to_contain_text("Saved at")
    assert len(saves) == 4
    assert stored(live_server, post_id)[1].startswith("Saved Kept Yes. words.")
    assert saves_of(live_server, post_id) == 3
    expect(page.locator("#editor-alert")).to_be_empty()


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (390, "dark")])
def test_two_editors_are_told_of_each_other_merge_and_choose_where_they_overlap(
    open_page: OpenPage, live_server: LiveServer, page_watch: PageWatch, width: int, scheme: str
) -> None:
    """Each editor sees the other has the post open; Ed's fix of paragraph 1 and Ana's new
    summary and footnote are merged with a note; then both retitle it and reword one line,
    and Ana is asked about those alone (the line's changed words marked), keeps her title
    and his line with radios, and saves."""
    run = uuid.uuid4().hex[:8]
    page_watch.expect_status(409)  # the overlap is the point
    options = {"viewport": {"width": width, "height": 900}, "color_scheme": scheme}
    ana, ed = open_page(**options), open_page(**options)
    log_in(ana, new_account(live_server, "Ana Merger"))
    log_in(ed, new_account(live_server, "Ed Fixer"))
    body = "Paragraph one has a typo in it.\n\nParagraph two.\n\nCited.[^1]\n\n[^1]: Roughly."
    post_id = write_post(ana, f"Merged post {run}", body)

    # The save that created the post started her page's heartbeat.
    expect(ana.locator("#presence input[name=shown]")).to_have_count(1)
    ed.goto(f"/editor/posts/{post_id}")
    expect(ed.locator("#presence")).to_contain_text("Ana Merger has had this post open since")
    ana.goto(f"/editor/posts/{post_id}")
    expect(ana.locator("#presence")).to_contain_text("Ed Fixer has had this post open since")
    expect(ana.locator("#presence")).to_have_attribute("role", "status")

    ed.locator("#body").fill(body.replace("a typo in it", "no typo in it"))
    press_and_wait(ed, "#save-button", 200)
    ana.get_by_label("Summary").fill("Ana's summary.")
    ana.locator("#body").fill(body.replace("Roughly.", "Page 12."))
    press_and_wait(ana, "#save-button", 200)
    status = ana.locator("#action-bar #save-status")
    expect(status).to_contain_text("Merged with Ed Fixer’s save of")
    expect(status).to_contain_text("both changes kept")
    merged = body.replace("a typo in it", "no typo in it").replace("Roughly.", "Page 12.")
    expect(ana.locator("#body")).to_have_value(merged)
    assert stored(live_server, post_id) == (f"Merged post {run}", merged)

    # Both retitle it and reword paragraph two (line 3): Ana is asked about those two alone.
    eds = merged.replace("Paragraph two.", "Paragraph two, checked by Ed.")
    ed.get_by_label("Title", exact=True).fill(f"Ed's title {run}")
    ed.locator("#body").fill(eds)
    press_and_wait(ed, "#save-button", 200)  # merged with Ana's save: nothing overlaps
    assert stored(live_server, post_id) == (f"Ed's title {run}", eds)
    ana.get_by_label("Title", exact=True).fill(f"Ana's title {run}")
    ana.locator("#body").fill(merged.replace("Paragraph two.", "Paragraph two, checked by Ana."))
    press_and_wait(ana, "#save-button", 409)
    expect(status).to_contain_text("2 changes overlap with yours")
    overlap = ana.locator(".overlap")
    expect(overlap).to_have_count(2)
    title, lines = overlap.nth(0), overlap.nth(1)
    expect(title.locator("legend")).to_have_text("Title")
    expect(title.locator(".overlap-theirs")).to_contain_text(f"Ed's title {run}")
    # The body's run is named by its line in Ana's text, and only the changed words are
    # marked, with words for screen readers.
    expect(lines.locator("legend")).to_have_text(re.compile(r"^Body, line 3$"))
    expect(lines.locator(".overlap-theirs del")).to_have_count(1)
    expect(lines.locator(".overlap-theirs del")).to_have_text("[removed: Ed]")
    expect(lines.locator(".overlap-mine ins")).to_have_count(1)
    expect(lines.locator(".overlap-mine ins")).to_have_text("[added: Ana]")
    expect(lines.locator(".overlap-mine")).to_contain_text("Paragraph two, checked by")
    assert ana.evaluate("() => document.documentElement.scrollWidth") <= ana.evaluate(
        "() => window.innerWidth"
    )
    assert ana.evaluate("() => window.innerWidth") == width
    title.get_by_label("Keep mine").check()
    lines.get_by_label("Keep theirs").check()
    press_and_wait(ana, "#save-choices-button", 200)
    expect(status).to_contain_text("your choice where they overlapped")
    assert stored(live_server, post_id) == (f"Ana's title {run}", eds)
