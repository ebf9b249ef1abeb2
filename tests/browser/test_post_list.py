"""The editor's post list in Chromium: search as you type, page with Next, and Back."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, expect

from blog.authoring import store
from blog.extensions import db
from blog.models import utcnow
from tests.browser.conftest import (
    EditorAccount,
    LiveServer,
    create_account,
    delete_posts,
    log_in,
)

pytestmark = pytest.mark.browser

RUN = uuid.uuid4().hex[:8]
WORD = f"ledger{RUN}"  # in the titles of this module's posts only
MADE = 60  # more than one page of 50


def query(url: str) -> dict[str, list[str]]:
    """The query parameters of an address."""
    return parse_qs(urlsplit(url).query)


@pytest.fixture(scope="module")
def listed(live_server: LiveServer) -> Iterator[None]:
    """Sixty published posts whose titles hold WORD, deleted again afterwards."""
    slugs = [f"{WORD}-{n:02d}" for n in range(1, MADE + 1)]
    now = utcnow()
    with live_server.app.app_context():
        author = store.author_named("Lee Ledger")
        topic = store.topic_named("Operations")
        for n, slug in enumerate(slugs, start=1):
            store.new_post(
                title=f"Reconciling the {WORD} part {n:02d}",
                slug=slug,
                body=f"Part {n} of the ledger notes.",
                author=author,
                topics=[topic],
                published_at=now - timedelta(days=2, hours=n),
            )
        db.session.commit()
        db.session.remove()
    try:
        yield
    finally:
        delete_posts(live_server, slugs)


def test_search_then_next_page_follows_in_the_address_and_back_returns(
    page: Page, live_server: LiveServer, listed: None
) -> None:
    """Typing a word swaps the table in place and puts ?q= in the address; Next adds
    ?page=2; Back goes to the first page of the search, then to the whole list."""
    account = create_account(
        live_server,
        EditorAccount(f"lister-{RUN}@example.com", "a passphrase for the list test", "Lis Ter"),
    )
    log_in(page, account)
    page.goto("/editor/")
    counter = page.locator("#post-counter")
    expect(counter).to_contain_text("Showing 1–50 of ")
    everything = counter.inner_text()
    page.evaluate("window.listProbe = 'kept'")

    search = page.get_by_label("Search", exact=True)
    search.fill(WORD)
    page.wait_for_url(lambda url: query(url) == {"q": [WORD]})
    expect(counter).to_have_text(f"Showing 1–50 of {MADE} posts")
    expect(page.locator("#post-table tbody tr")).to_have_count(50)
    assert page.evaluate("window.listProbe") == "kept", "the search reloaded the page"
    assert page.evaluate("document.activeElement.id") == "post-search", "typing moved focus"
    expect(page.locator("#post-list-status")).to_have_text(f"Showing 1–50 of {MADE} posts")

    page.locator("#page-next").click()
    page.wait_for_url(lambda url: query(url) == {"q": [WORD], "page": ["2"]})
    expect(counter).to_have_text(f"Showing 51–{MADE} of {MADE} posts")
    expect(page.locator("#post-table tbody tr")).to_have_count(MADE - 50)
    expect(page.locator("#page-previous")).to_be_visible()
    expect(search).to_have_value(WORD)
    assert page.evaluate("window.listProbe") == "kept", "Next reloaded the page"

    page.go_back()
    page.wait_for_url(lambda url: query(url) == {"q": [WORD]})
    expect(counter).to_have_text(f"Showing 1–50 of {MADE} posts")
    expect(search).to_have_value(WORD)

    page.go_back()
    page.wait_for_url(lambda url: urlsplit(url).path == "/editor/" and not urlsplit(url).query)
    expect(counter).to_have_text(everything)
    expect(search).to_have_value("")

    page.go_forward()
    page.wait_for_url(lambda url: query(url) == {"q": [WORD]})
    expect(counter).to_have_text(f"Showing 1–50 of {MADE} posts")
