"""Back after "read more" keeps the reader's place, with and without the back/forward cache.

Playwright starts Chromium with `--disable-back-forward-cache`, so the suite's shared browser
is one that loads a page afresh on Back: there static/js/place.js puts back the list the
reader left. One test starts a second Chromium without that switch, as readers' browsers
are, to hold the listing to staying eligible for the cache (no `no-store`, no unload handler).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import (
    CHROMIUM,
    CHROMIUM_ARGS,
    DEFAULT_TIMEOUT_MS,
    PER_PAGE,
    LiveServer,
    PageWatch,
    Site,
    TopicLink,
    card_titles,
    counter_text,
    expected_counter,
)

pytestmark = pytest.mark.browser

OPENED = 18  # the card the reader opens, on the second page they read more to
SHOWS = "window.pageShows"
RECORD_SHOWS = f"{SHOWS} = []; addEventListener('pageshow', (e) => {SHOWS}.push(e.persisted))"
NAVIGATION_TYPE = "performance.getEntriesByType('navigation')[0].type"
LIST_TOP = "document.getElementById('all-posts').getBoundingClientRect().top"


def card_link(page: Page, number: int):
    """The title link of the list's card `number` (from 1)."""
    return page.locator("#post-list > li").nth(number - 1).locator(".card-title a")


def read_more_twice_and_open(page: Page, topic: TopicLink | None, total: int):
    """From the home page (and the topic chosen in the filter), read more twice and open
    card 18; return the cards shown then and card 18's distance from the top of the window."""
    page.goto("/")
    if topic:
        page.locator(f"#filter-{topic.slug}").click()
        expect(page.locator(f"#filter-{topic.slug}")).to_have_attribute("aria-current", "page")
    page.evaluate(RECORD_SHOWS)
    for number in (2, 3):
        page.locator("#more .read-more").click()
        page.wait_for_url(f"**?page={number}")
        expect(page.locator("#post-list .card")).to_have_count(min(number * PER_PAGE, total))
    titles = card_titles(page)
    link = card_link(page, OPENED)
    link.scroll_into_view_if_needed()
    top = link.evaluate("(a) => a.getBoundingClientRect().top")
    link.click()
    page.wait_for_url("**/posts/**")
    return titles, top


def assert_place_kept(page: Page, titles: list[str], top: float, total: int) -> None:
    """Every card the reader had is there, the counter says so, card 18 is where it was."""
    expect(page.locator("#post-list .card")).to_have_count(len(titles))
    assert card_titles(page) == titles
    assert counter_text(page) == expected_counter(1, len(titles), total)
    expect(page.locator(".newer")).to_have_count(0)
    now = card_link(page, OPENED).evaluate("(a) => a.getBoundingClientRect().top")
    assert abs(now - top) < 2, f"card {OPENED} was {top} px down the window, now {now} px"


@pytest.mark.parametrize("on_topic", [False, True], ids=["all-topics", "topic"])
def test_back_without_the_cache_restores_the_cards(page: Page, site: Site, on_topic: bool):
    """Back to a page loaded afresh shows every card the reader had, card 18 in view and
    focused, and read more goes on from there; a reload then shows only that page's cards,
    with the link to newer ones."""
    topic = site.biggest_topic if on_topic else None
    total = topic.count if topic else site.total
    assert total >= 2 * PER_PAGE + 1 and total >= OPENED, "the demo needs three pages here"
    titles, top = read_more_twice_and_open(page, topic, total)

    page.go_back()
    assert page.evaluate(NAVIGATION_TYPE) == "back_forward"
    assert page.evaluate(f"typeof {SHOWS}") == "undefined", "the page was not loaded afresh"
    assert_place_kept(page, titles, top, total)
    expect(card_link(page, OPENED)).to_be_focused()
    if topic:
        return

    page.locator("#more .read-more").click()
    page.wait_for_url("**/?page=4")
    expect(page.locator("#post-list .card")).to_have_count(len(titles) + PER_PAGE)
    fourth = card_titles(page)[len(titles) :]
    page.reload()
    assert page.evaluate(NAVIGATION_TYPE) == "reload"
    assert card_titles(page) == fourth
    assert counter_text(page) == expected_counter(37, 48, total)
    expect(page.locator(".newer a")).to_have_attribute("href", "/?page=3#all-posts")


def test_back_when_the_saved_list_is_stale_or_garbage(page: Page, site: Site):
    """When the saved list does not end with the cards a fresh load brings (posts came or
    went), or what is saved is garbage, Back shows the fresh page at its list."""
    titles, _ = read_more_twice_and_open(page, None, site.total)
    third = titles[2 * PER_PAGE :]
    page.evaluate(
        """() => {
          const saved = JSON.parse(sessionStorage.getItem("fieldnotes-place"));
          const place = saved.find((p) => p.url === "/?page=3");
          place.html = place.html.replaceAll('href="/posts/', 'href="/posts/gone-');
          sessionStorage.setItem("fieldnotes-place", JSON.stringify([7, "junk", null, ...saved]));
        }"""
    )
    page.go_back()
    assert page.evaluate(NAVIGATION_TYPE) == "back_forward"
    assert card_titles(page) == third
    expect(page.locator(".newer a")).to_be_visible()
    assert abs(page.evaluate(LIST_TOP)) < 5, "Back did not land on the list"

    card_link(page, 1).click()
    page.wait_for_url("**/posts/**")
    page.evaluate("sessionStorage.setItem('fieldnotes-place', '{not json')")
    page.go_back()
    assert card_titles(page) == third


@pytest.fixture
def cached_page(browser: Browser, live_server: LiveServer, page_watch: PageWatch) -> Iterator[Page]:
    """A page in a second Chromium that keeps the back/forward cache on, as readers' do."""
    cached = browser.browser_type.launch(
        executable_path=str(CHROMIUM),
        headless=True,
        args=CHROMIUM_ARGS,
        ignore_default_args=["--disable-back-forward-cache"],
    )
    context = cached.new_context(base_url=live_server.url)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    context.on("request", page_watch.on_request)
    context.on("response", page_watch.on_response)
    context.on("page", page_watch.watch_page)
    page = context.new_page()
    yield page
    cached.close()
    assert not page_watch.problems(), page_watch.problems()


def test_back_with_the_cache_keeps_the_page(cached_page: Page, site: Site):
    """The listing stays eligible for the back/forward cache: Back brings the same document
    back (pageshow persisted), every card there and card 18 where it was."""
    page, topic = cached_page, site.biggest_topic
    refused: list[object] = []
    cdp = page.context.new_cdp_session(page)
    cdp.on("Page.backForwardCacheNotUsed", lambda event: refused.append(event))
    cdp.send("Page.enable")
    titles, top = read_more_twice_and_open(page, topic, topic.count)

    # A page from the cache fires no load event, which go_back would wait for.
    page.go_back(wait_until="commit")
    page.wait_for_function(f"{SHOWS}.length === 1")
    assert not refused, f"Chromium kept the page out of its back/forward cache: {refused}"
    assert page.evaluate(f"{SHOWS}[0]") is True
    assert page.evaluate(NAVIGATION_TYPE) == "navigate"
    assert_place_kept(page, titles, top, topic.count)
