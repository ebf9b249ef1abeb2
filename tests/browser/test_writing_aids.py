"""The editor's writing aids in Chromium: the cheat sheet, the live word count, Ctrl+S and
the preview in the post template, the writer's place across saves, the formatting toolbar."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Page, expect

from blog.extensions import db
from blog.models import Post
from tests.browser.conftest import (
    Capture,
    HeldRequests,
    LiveServer,
    OpenPage,
    PageWatch,
    Site,
    delete_posts,
    log_in,
    settle,
    signed_in,
)

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
            and "/presence" not in r.url
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

    # Typed and saved again before htmx has settled the last save's answer (it settles a
    # moment after the swap; held back here): the new text is still sent, not taken as saved.
    page.evaluate("() => { htmx.config.defaultSettleDelay = 3000; }")
    body.press("End")
    body.press_sequentially(" Eight.", delay=5)
    with page.expect_response(lambda r: r.request.method == "POST" and r.url == page.url):
        body.press("Control+s")
    expect(
        page.locator("#post-editor.htmx-settling, #post-editor .htmx-settling").first
    ).to_be_attached()
    body.press("End")
    body.press_sequentially(" Nine.", delay=5)
    edit_url = page.url
    with page.expect_response(lambda r: r.request.method == "POST" and r.url == edit_url) as sent:
        body.press("Control+s")
    # Sent by htmx, or (the new form not taken up by htmx yet) as the form's own POST, which
    # then loads the saved editor: stored either way.
    assert sent.value.status in (200, 303)
    assert live_body(live_server, page).endswith("Seven. Eight. Nine.")
    assert len(saves) == 4
    settle(page)  # htmx's settle, or the saved editor loaded (no "leave the page?" asked)

    # The preview link opens the saved draft in the post template, in a new tab.
    with page.context.expect_page() as opened:
        page.locator("#preview-link").click()
    preview = opened.value
    expect(preview.locator("h1.post-title")).to_have_text(f"Shortcut notes {run}")
    expect(preview.locator("#preview-note")).to_contain_text("readers cannot see it yet")
    expect(preview.locator(".prose")).to_contain_text("Seven.")
    delete_posts(live_server, [f"shortcut-notes-{run}"])


# A window and a colour scheme for each journey below: a wide window in the light theme, a
# phone in the dark one.
SCREENS = [
    pytest.param({"width": 1280, "height": 900}, "light", id="1280-light"),
    pytest.param({"width": 390, "height": 800}, "dark", id="390-dark"),
]

# Where the writer is: the focused element, its selection and scroll, the body's place on
# screen.
PLACE_JS = """() => {
  const el = document.activeElement;
  const body = document.getElementById("body");
  return {
    id: el.id, start: el.selectionStart ?? null, end: el.selectionEnd ?? null,
    scrollTop: el.scrollTop, bodyTop: Math.round(body.getBoundingClientRect().top),
  };
}"""


LEAVING_ASKS = (
    "() => { const e = new Event('beforeunload', {cancelable: true}); "
    "window.dispatchEvent(e); return e.defaultPrevented; }"
)


def live_body(live_server: LiveServer, page: Page) -> str:
    """The stored body of the post the page edits."""
    post_id = int(page.url.rsplit("/", 1)[1])
    with live_server.app.app_context():
        post = db.session.get(Post, post_id)
        assert post is not None
        body = post.body_markdown
        db.session.remove()
    return body


def save_with(page: Page, key: str | None = None, button: str = "#save-button") -> None:
    """Save with a key (Ctrl+S, Meta+S) or the button, and wait for the saved editor."""
    with page.expect_response(
        lambda r: r.request.method == "POST" and re.search(r"/editor/posts/(new|\d+)$", r.url)
    ) as answer:
        if key:
            page.keyboard.press(key)
        else:
            page.locator(button).click()
    assert answer.value.status == 200, answer.value.text()[:300]
    page.wait_for_function(
        "() => document.getElementById('post-form').dataset.outcome === 'saved'"
        " && !document.querySelector('.htmx-settling, .htmx-request')"
    )


@pytest.mark.parametrize(("viewport", "scheme"), SCREENS)
def test_a_save_leaves_the_writer_where_they_were(
    open_page: OpenPage,
    site: Site,
    live_server: LiveServer,
    page_watch: PageWatch,
    viewport: dict[str, int],
    scheme: str,
):
    """Ctrl+S, Cmd+S and the Save button keep focus, caret, selection and scroll; the next
    keys land at the caret; the status is polite. A refused save still takes focus to it."""
    run = uuid.uuid4().hex[:8]
    page_watch.expect_status(422)
    page = open_page(viewport=viewport, color_scheme=scheme)
    signed_in(page, site.account)
    page.goto("/editor/posts/new")
    page.get_by_label("Title", exact=True).fill(f"Keeping my place {run}")
    page.get_by_label("Topics").fill("Databases")
    lines = [f"Line {n} of a body long enough to scroll inside its box." for n in range(80)]
    body = page.locator("#body")
    body.fill("\n".join(lines))
    # The caret in the middle of line 40, the box scrolled to it, the page scrolled too.
    at = len("\n".join(lines[:40])) + 8
    body.evaluate(
        "(el, at) => { el.focus(); el.setSelectionRange(at, at); el.scrollTop = 300; }", at
    )
    body.scroll_into_view_if_needed()
    page.evaluate("() => window.scrollBy(0, 120)")
    before = page.evaluate(PLACE_JS)
    assert before["id"] == "body" and before["scrollTop"] == 300

    save_with(page, "Control+s")
    page.wait_for_url(re.compile(r".*/editor/posts/\d+$"))
    status = page.locator("#save-status")
    expect(status).to_contain_text("Saved at")
    expect(status).to_have_attribute("role", "status")
    expect(status).to_have_attribute("aria-live", "polite")
    after = page.evaluate(PLACE_JS)
    assert after["id"] == "body" and (after["start"], after["end"]) == (at, at)
    assert after["scrollTop"] == 300
    assert abs(after["bodyTop"] - before["bodyTop"]) <= 1, (before, after)
    page.keyboard.type("XY")
    assert body.input_value()[at : at + 2] == "XY"
    body_before = body.input_value()

    # Typing goes on while a save is on its way: those keys land too, after the saved text,
    # and count as a change (leaving asks; the next Ctrl+S sends them).
    held = HeldRequests(page, "**/editor/posts/*")
    page.keyboard.press("Control+s")
    held.wait(1)
    page.keyboard.type("Z1")
    expect(page.locator("#save-button")).to_be_disabled()
    with page.expect_response(lambda r: r.request.method == "POST" and r.status == 200):
        held.release()
    page.wait_for_function(
        "() => document.getElementById('post-form').dataset.outcome === 'saved'"
        " && !document.querySelector('.htmx-settling, .htmx-request')"
    )
    expect(body).to_have_value(re.compile("^" + re.escape(body_before[:at] + "XYZ1")))
    place = page.evaluate(PLACE_JS)
    assert (place["id"], place["start"], place["end"]) == ("body", at + 4, at + 4)
    assert page.evaluate(LEAVING_ASKS) is True
    save_with(page, "Control+s")
    assert live_body(live_server, page).startswith(body_before[:at] + "XYZ1")

    # A selection in the title survives Cmd+S.
    title = page.get_by_label("Title", exact=True)
    title.press("End")
    title.press_sequentially(" again")
    title.evaluate("el => { el.focus(); el.setSelectionRange(0, 7); }")
    save_with(page, "Meta+s")
    place = page.evaluate(PLACE_JS)
    assert (place["id"], place["start"], place["end"]) == ("title", 0, 7)

    # The Save button keeps focus; Enter on it saves again, from where the writer is.
    page.locator("#save-button").focus()
    body.evaluate("el => el.value += ' More.'")
    page.locator("#save-button").focus()
    save_with(page, "Enter")
    expect(page.locator("#save-button")).to_be_focused()
    assert page.locator("#body").input_value().endswith(" More.")

    # A refused save moves focus to what went wrong.
    title.fill("x" * 301)
    title.focus()
    with page.expect_response(lambda r: r.request.method == "POST" and r.status == 422):
        page.keyboard.press("Control+s")
    expect(status).to_have_attribute("role", "alert")
    expect(status).to_be_focused()
    # Closed first: its autosave of the refused text would write while the post is deleted.
    page.close()
    delete_posts(live_server, [f"keeping-my-place-{run}"])


PLAIN = "Pools keep connections warm.\nStart small.\nGrow later.\nMeasure."


def select(page: Page, text: str) -> None:
    """Select the first `text` in the body (and focus it)."""
    page.locator("#body").evaluate(
        "(el, text) => { const at = el.value.indexOf(text); el.focus();"
        " el.setSelectionRange(at, at + text.length); }",
        text,
    )


@pytest.mark.parametrize(("viewport", "scheme"), SCREENS)
def test_the_toolbar_and_its_shortcuts_write_markdown(
    open_page: OpenPage,
    site: Site,
    page_watch: PageWatch,
    capture: Capture,
    viewport: dict[str, int],
    scheme: str,
):
    """The toolbar is one Tab stop whose arrows move along it; each tool writes Markdown
    around the selection or on its lines, says what it did politely, and Ctrl+Z undoes it;
    Ctrl+B, Ctrl+I and Ctrl+K (Cmd too) do the same in the body."""
    # Each tool's change asks for a preview, as typing does: a newer one replaces the last.
    page_watch.expect_superseded("/editor/preview")
    page = open_page(viewport=viewport, color_scheme=scheme)
    signed_in(page, site.account)
    page.goto("/editor/posts/new")
    body = page.locator("#body")
    said = page.locator("#toolbar-status")
    expect(said).to_have_attribute("aria-live", "polite")
    toolbar = page.get_by_role("toolbar", name="Formatting for the body")
    expect(toolbar).to_be_visible()
    body.fill(PLAIN)

    # Keyboard: Tab from the summary lands on the first tool only; arrows move, Enter acts.
    select(page, "warm")
    page.get_by_label("Summary").focus()
    page.keyboard.press("Tab")
    expect(toolbar.get_by_role("button", name="Bold")).to_be_focused()
    page.keyboard.press("ArrowRight")
    expect(toolbar.get_by_role("button", name="Italic")).to_be_focused()
    page.keyboard.press("Tab")
    expect(body).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(toolbar.get_by_role("button", name="Italic")).to_be_focused()
    page.keyboard.press("Home")
    expect(toolbar.get_by_role("button", name="Bold")).to_be_focused()
    page.keyboard.press("Enter")
    expect(body).to_have_value(PLAIN.replace("warm", "**warm**"))
    expect(body).to_be_focused()
    assert body.evaluate("el => el.value.slice(el.selectionStart, el.selectionEnd)") == "warm"
    expect(said).to_have_text("Bold added.")
    # The same tool again takes it off; Ctrl+Z brings it back, as the browser's own edits do.
    page.keyboard.press("Control+b")
    expect(body).to_have_value(PLAIN)
    expect(said).to_have_text("Bold removed.")
    page.keyboard.press("Control+z")
    expect(body).to_have_value(PLAIN.replace("warm", "**warm**"))

    select(page, "connections")
    page.keyboard.press("Meta+i")
    expect(body).to_have_value(re.compile(r"\*connections\* \*\*warm\*\*"))
    select(page, "Pools")
    page.keyboard.press("Control+k")
    expect(body).to_have_value(re.compile(r"^\[Pools\]\(https://\) keep"))
    expect(said).to_have_text("Link added: type its address.")
    page.keyboard.type("https://example.com/pools")
    expect(body).to_have_value(re.compile(r"^\[Pools\]\(https://example.com/pools\) keep"))

    # Line tools work on every selected line.
    select(page, "Start small.\nGrow later.")
    toolbar.get_by_role("button", name="Bulleted list").click()
    expect(body).to_have_value(re.compile(r"\.\n\n- Start small\.\n- Grow later\.\n"))
    expect(said).to_have_text("List added to 2 lines.")
    select(page, "Measure")
    toolbar.get_by_role("button", name="Heading").click()
    expect(body).to_have_value(re.compile(r"later\.\n\n## Measure\.$"))
    toolbar.get_by_role("button", name="Quotation").click()
    expect(body).to_have_value(re.compile(r"later\.\n\n> ## Measure\.$"))
    select(page, "small")
    toolbar.get_by_role("button", name="Code").click()
    expect(body).to_have_value(re.compile(r"- Start `small`\."))
    body.evaluate("el => { el.focus(); el.setSelectionRange(el.value.length, el.value.length); }")
    toolbar.get_by_role("button", name="Image").click()
    expect(body).to_have_value(re.compile(r"!\[description of the image\]\(https://\)$"))
    expect(said).to_have_text("Image added: type its description.")
    # The preview follows what the tools wrote, as it follows typing.
    expect(page.locator("#preview strong")).to_have_text("warm")
    expect(page.locator("#preview > ul > li")).to_have_count(2)
    expect(page.locator("#preview blockquote h2")).to_contain_text("Measure.")
    toolbar.get_by_role("button", name="Italic").focus()
    capture(page, f"editor-toolbar-{viewport['width']}")
    # The titles name the shortcuts, which the cheat sheet lists with Ctrl+S.
    assert toolbar.get_by_role("button", name="Link").get_attribute("title") == "Link (Ctrl+K)"
    page.get_by_text("Markdown cheat sheet").click()
    expect(page.locator("#editor-shortcuts")).to_contain_text("Ctrl+S saves")
