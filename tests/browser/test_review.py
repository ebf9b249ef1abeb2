"""End to end in Chromium, on SQLite and on PostgreSQL: a writer drafts and submits a post, an
outside reviewer reads it through a draft link, an editor sends it back, the writer fixes it,
and the editor publishes it with a co-author, which ends the link."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import (
    EditorAccount,
    LiveServer,
    OpenPage,
    PageWatch,
    cheap_passwords,
    delete_posts,
    log_in,
    publish_and_wait,
    settle,
)

pytestmark = pytest.mark.browser


@pytest.fixture
def live_server(on_both_stores: LiveServer) -> LiveServer:
    """Each journey here runs on the suite's SQLite server, then on PostgreSQL."""
    return on_both_stores


@pytest.fixture
def run() -> str:
    """A word of this run, so accounts and posts never meet another run's."""
    return uuid.uuid4().hex[:8]


@pytest.fixture
def written(live_server: LiveServer, run: str) -> Iterator[list[str]]:
    """The slugs of the posts the test writes, deleted afterwards."""
    slugs: list[str] = []
    yield slugs
    delete_posts(live_server, slugs)


def account(live_server: LiveServer, run: str, name: str, role: str) -> EditorAccount:
    """An account of this role, made with `flask editors create --role`."""
    made = EditorAccount(
        email=f"{role}-{run}@example.com", password=f"a passphrase for the {role}", name=name
    )
    with cheap_passwords():
        result = live_server.flask(
            "editors", "create", made.email, "--name", name, "--role", role,
            "--password-stdin", input=made.password + "\n",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return made


def test_writer_submits_reviewer_reads_editor_sends_back_then_publishes(
    open_page: OpenPage, live_server: LiveServer, page_watch: PageWatch, run: str, written
):
    """The whole review, each person in a browser of their own."""
    page_watch.expect_superseded("/editor/drawing")
    writer_account = account(live_server, run, f"Wren Writer {run}", "writer")
    editor_account = account(live_server, run, f"Eda Editor {run}", "editor")
    title = f"Why the cache stampeded {run}"
    written.append(f"why-the-cache-stampeded-{run}")

    # The writer drafts a post and submits it: there is no Publish choice to make.
    writer = open_page()
    log_in(writer, writer_account)
    writer.get_by_role("link", name="New post").click()
    writer.get_by_label("Title").fill(title)
    writer.get_by_label("Topics").fill("Databases")
    expect(writer.get_by_label("Author")).to_have_value(writer_account.name)
    expect(writer.locator("#publish-button")).to_have_count(0)
    writer.locator("#body").fill("Every worker refilled the same key at once.")
    with writer.expect_response(lambda r: r.request.method == "POST" and "/editor/posts/" in r.url):
        writer.locator("#submit-review-button").click()
    expect(writer.locator("#post-state")).to_have_text("In review")
    writer.wait_for_url(re.compile(r".*/editor/posts/\d+$"))
    edit_url = writer.url

    # They make a draft link and pass it to someone outside, who needs no account. (The
    # editor the submit swapped in is let settle first: a click on a link in a page htmx is
    # still settling may be lost, as it was once in CI.)
    settle(writer)
    writer.get_by_role("link", name="Draft links").click()
    writer.wait_for_url(re.compile(r".*/editor/posts/\d+/links$"))
    writer.get_by_role("button", name="Make a draft link").click()
    link = writer.locator("#made-link-url").input_value()
    assert re.fullmatch(rf"{re.escape(live_server.url)}/drafts/[A-Za-z0-9_-]{{43}}", link)
    outsider = open_page()
    outsider.goto(link)
    expect(outsider.locator("h1.post-title")).to_have_text(title)
    expect(outsider.locator("#preview-note")).to_contain_text("shared for review")
    expect(outsider.locator('meta[name="robots"]')).to_have_attribute(
        "content", "noindex, nofollow"
    )

    # The editor finds it in the review queue and sends it back with a note.
    editor = open_page()
    log_in(editor, editor_account)
    editor.locator("#review-link").click()
    editor.get_by_role("link", name=title).click()
    settle(editor)
    editor.get_by_label("Note to the writer").fill("Say how long the stampede lasted.")
    editor.get_by_role("button", name="Send back to the writer").click()
    expect(editor.locator("#post-state")).to_have_text("Sent back")

    # The writer reads the note at the top of the form, fixes the post and submits it again.
    writer.goto(edit_url)
    expect(writer.locator("#review-note")).to_contain_text("Say how long the stampede lasted.")
    writer.locator("#body").fill("Every worker refilled the same key at once, for 40 seconds.")
    with writer.expect_response(lambda r: r.request.method == "POST" and "/editor/posts/" in r.url):
        writer.locator("#submit-review-button").click()
    expect(writer.locator("#post-state")).to_have_text("In review")

    # The editor credits a co-author (a new name, so the save asks first) and publishes it;
    # the draft link dies with the draft.
    coauthor = f"Cy Coauthor {run}"
    editor.goto(edit_url)
    settle(editor)
    editor.get_by_label("Author 2 (optional)", exact=True).fill(coauthor)
    page_watch.expect_status(422)
    with editor.expect_response(lambda r: r.request.method == "POST" and "/editor/posts/" in r.url):
        editor.locator("#publish-button").click()
    expect(editor.locator("#author-error")).to_contain_text(f"“{coauthor}” is not an author yet")
    editor.get_by_label(f"Create the new author “{coauthor}”").check()
    publish_and_wait(editor)
    expect(editor.locator("#post-state")).to_have_text("Published")
    page_watch.expect_status(404)
    outsider.reload()
    expect(outsider.locator(".error-page h1")).to_have_text("Nothing here")
    outsider.goto(f"/posts/why-the-cache-stampeded-{run}")
    expect(outsider.locator(".prose")).to_contain_text("for 40 seconds")
    byline = outsider.locator(".post-meta")
    expect(byline).to_contain_text(f"By {writer_account.name} and {coauthor} ·")
    expect(byline.locator("a.post-author")).to_have_text([writer_account.name, coauthor])
    data = json.loads(outsider.locator('script[type="application/ld+json"]').first.inner_text())
    assert [person["name"] for person in data["author"]] == [writer_account.name, coauthor]
    editor.goto(f"{edit_url}/revisions")
    expect(editor.locator("#state-changes .event-kind")).to_have_text(
        ["Published", "Sent for review", "Sent back to the writer", "Sent for review"]
    )
