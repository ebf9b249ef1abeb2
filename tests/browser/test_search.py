"""Search as you type, in Chromium: results show before the word is finished, in place."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from bs4 import BeautifulSoup
from playwright.sync_api import Page, expect

from tests.browser.conftest import LiveServer, PageWatch, delete_posts
from tests.conftest import PostFactory

pytestmark = pytest.mark.browser

# Words the demo content never uses, so what a search finds is what this module added.
TYPED = "kv cache"
SEVERAL = "hdrhistogram"


def result_count(live_server: LiveServer, query: str) -> int:
    """How many results the search page lists for `query` (its first page)."""
    url = f"{live_server.url}/search?{urlencode({'q': query})}"
    with urllib.request.urlopen(url, timeout=30) as response:
        page = BeautifulSoup(response.read(), "lxml")
    return len(page.select("#result-list .card-title a"))


@pytest.fixture(scope="module")
def searchable(live_server: LiveServer) -> Iterator[None]:
    """Posts for the searches below on the served database, deleted again afterwards."""
    for query in (TYPED, "kv cach", SEVERAL):
        assert result_count(live_server, query) == 0, f"the demo now matches {query!r}: reword"
    factory = PostFactory(live_server.app)
    slugs = factory.create(1, title="Sizing the KV cache", body="How the kv cache grows.")
    slugs += factory.create(13, body=f"Notes on tail latency, read from the {SEVERAL}.")
    slugs += factory.create(2, body="Nothing related.")
    try:
        yield
    finally:
        delete_posts(live_server, slugs)


def test_typing_in_the_header_shows_results_before_the_word_is_finished(
    page: Page, page_watch: PageWatch, live_server: LiveServer, searchable: None
):
    """Done means: typing "kv cache" shows the post before the reader finishes typing."""
    # Each keystroke replaces the search in flight (hx-sync="replace"): htmx aborts it.
    page_watch.expect_superseded("/search")
    page.goto("/")
    page.evaluate("window.searchProbe = 'kept'")
    history_before = page.evaluate("history.length")
    box = page.locator("#site-search-q")
    box.click()
    box.press_sequentially("kv cach", delay=40)
    expect(page.locator("#result-list .card-title a")).to_have_text(["Sizing the KV cache"])
    assert box.input_value() == "kv cach"
    box.press_sequentially("e", delay=40)
    page.wait_for_url(lambda url: parse_qs(urlsplit(url).query) == {"q": [TYPED]})
    expect(page.locator("#search-status")).to_have_text(f"1 result for “{TYPED}”")
    assert page.locator(".search-snippet mark").all_inner_texts() == ["kv", "cache"]
    assert page.evaluate("window.searchProbe") == "kept", "typing reloaded the page"
    assert page.evaluate("document.activeElement.id") == "site-search-q", "typing moved focus"
    added = page.evaluate("history.length") - history_before
    assert added == 1, "one history entry for the search, not one per keystroke"
    assert page.title() == f"“{TYPED}” · Search · Fieldnotes"
    box.press("Enter")
    expect(page.locator("#search-title")).to_be_focused()
    page.go_back()
    page.wait_for_url(f"{live_server.url}/")
    expect(page.locator("#site-search-q")).to_have_value("")
    assert page.locator(".hero").count() == 1, "back should show the home page again"


def test_read_more_adds_the_next_results_and_moves_focus_to_them(
    page: Page, live_server: LiveServer, searchable: None
):
    """Thirteen results: "read more" appends the thirteenth and moves focus to it."""
    page.goto(f"/search?{urlencode({'q': SEVERAL})}")
    # Each thumbnail is the whole drawing scaled down: its box keeps the drawing's 16:9 shape
    # and nothing of it is cropped away.
    art = page.locator("#result-list .card-art").first
    shape = art.evaluate(
        "(img) => [img.clientWidth / img.clientHeight, getComputedStyle(img).objectFit]"
    )
    assert abs(shape[0] - 16 / 9) < 0.05 and shape[1] == "contain", shape
    page.locator("#result-more .read-more").click()
    expect(page.locator("#result-list > li")).to_have_count(13)
    counter = " ".join(page.locator("#result-counter").inner_text().split())
    assert counter == "Showing 1–13 of 13 results"
    focused = page.evaluate(
        "document.activeElement.closest('li') === "
        "document.querySelectorAll('#result-list > li')[12]"
    )
    assert focused, "read more should move focus to the first new result"
