"""The htmx listing in Chromium: topic filter, history, reload and "read more"."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import (
    PER_PAGE,
    OpenPage,
    Site,
    card_titles,
    expected_counter,
    listing_state,
)

pytestmark = pytest.mark.browser

# A flag set in the page: it survives htmx swaps and history restores, not a page load.
MARK = "window.fieldnotesProbe = 'kept'"
MARKED = "window.fieldnotesProbe === 'kept'"


def choose_topic(page: Page, slug: str) -> None:
    """Click a topic in the filter and wait for its list to be swapped in by htmx."""
    with page.expect_response(lambda r: r.url.endswith(f"/topics/{slug}")) as response:
        page.locator(f"#filter-{slug}").click()
    assert response.value.request.headers.get("hx-request") == "true"
    assert response.value.request.headers.get("hx-target") == "all-posts"
    expect(page.locator(f"#filter-{slug}")).to_have_attribute("aria-current", "page")
    page.wait_for_url(f"**/topics/{slug}")


def full_load_state(open_page: OpenPage, path: str) -> dict:
    """The listing state of a plain, full page load of `path` in a fresh context."""
    fresh = open_page()
    fresh.goto(path)
    return listing_state(fresh)


def test_topic_filter_swaps_the_list_in_place(page: Page, open_page: OpenPage, site: Site):
    """Choosing a topic swaps the list without a page load and matches the topic's own page."""
    topic = site.biggest_topic
    page.goto("/")
    home = listing_state(page)
    assert home["current"] == ["filter-all"] and home["picks"] > 0
    page.evaluate(MARK)

    choose_topic(page, topic.slug)

    state = listing_state(page)
    assert page.evaluate(MARKED), "choosing a topic reloaded the page"
    assert state["path"] == f"/topics/{topic.slug}"
    assert state["current"] == [f"filter-{topic.slug}"]
    shown = min(PER_PAGE, topic.count)
    assert state["counter"] == expected_counter(1, shown, topic.count)
    assert len(state["cards"]) == shown
    # The page now speaks of the topic: its name heads it, its own count heads the list.
    assert state["h1"] == topic.name and home["h1"] != topic.name
    assert state["heading"].endswith(f"Posts about {topic.name} · {topic.count}")
    assert state["picks"] == 0, "editor's picks belong to the all-topics listing only"
    # The counter was replaced with the section: a lasting status region speaks for it.
    status = page.locator("#listing-status")
    expect(status).to_have_attribute("role", "status")
    expect(status).to_have_text(f"{topic.name}: {state['counter']}")
    # The swapped state is exactly what the topic's URL renders on a full load.
    assert state["title"].startswith(f"{topic.name} · ")
    assert state == full_load_state(open_page, state["path"])


def test_back_forward_and_reload_restore_each_state(page: Page, site: Site):
    """Back and forward walk through the filter states in place; a reload shows the same."""
    first, second = site.topics[0], site.biggest_topic
    if first == second:
        first = site.topics[1]
    page.goto("/")
    home = listing_state(page)
    page.evaluate(MARK)
    choose_topic(page, first.slug)
    at_first = listing_state(page)
    choose_topic(page, second.slug)
    at_second = listing_state(page)
    assert at_first["cards"] != at_second["cards"]

    page.go_back()
    page.wait_for_url(f"**/topics/{first.slug}")
    assert listing_state(page) == at_first
    page.go_back()
    page.wait_for_url(lambda url: url.endswith("/"))
    assert listing_state(page) == home
    page.go_forward()
    page.wait_for_url(f"**/topics/{first.slug}")
    assert listing_state(page) == at_first
    page.go_forward()
    page.wait_for_url(f"**/topics/{second.slug}")
    assert listing_state(page) == at_second
    assert page.evaluate(MARKED), "history navigation reloaded the page"

    page.reload()
    assert not page.evaluate(MARKED), "the reload should be a real page load"
    assert listing_state(page) == at_second


def test_read_more_is_named_for_the_posts_it_loads(page: Page, site: Site):
    """Chromium names "read more" for what comes next: posts, or posts about the topic chosen;
    the copy a swap brings keeps the name."""
    topic = site.biggest_topic
    assert site.total > 2 * PER_PAGE and topic.count > PER_PAGE, "the demo needs more posts"
    page.goto("/")
    named = page.get_by_role("link", name="read more posts", exact=True)
    expect(named).to_be_visible()
    named.click()
    expect(page.locator("#post-list .card")).to_have_count(2 * PER_PAGE)
    expect(named).to_be_visible()
    choose_topic(page, topic.slug)
    about = page.get_by_role("link", name=f"read more posts about {topic.name}", exact=True)
    expect(about).to_be_visible()


def test_read_more_appends_pages_until_the_end(page: Page, open_page: OpenPage, site: Site):
    """Each "read more" appends the next page's cards, moves focus and updates the counter."""
    page.goto("/")
    page.evaluate(MARK)
    # Watch the live region: it must stay the same element and announce every new count.
    page.evaluate(
        """() => {
          const counter = document.querySelector("#counter");
          window.counterNode = counter;
          window.announced = [];
          new MutationObserver(() => {
            window.announced.push(counter.textContent.replace(/\\s+/g, " ").trim());
          }).observe(counter, {childList: true, subtree: true, characterData: true});
        }"""
    )
    counter = page.locator("#counter")
    expect(counter).to_have_attribute("aria-live", "polite")
    oracle = open_page(java_script_enabled=False)
    shown = card_titles(page)
    assert len(shown) == PER_PAGE
    number = 1
    while shown and len(shown) < site.total:
        number += 1
        oracle.goto(f"/?page={number}")
        next_cards = card_titles(oracle)
        wanted_url = f"page={number}"
        with page.expect_response(lambda r, wanted_url=wanted_url: wanted_url in r.url) as response:
            page.locator("#more .read-more").click()
        assert response.value.request.headers.get("hx-target") == "post-list"
        expect(page.locator("#post-list .card")).to_have_count(len(shown) + len(next_cards))
        now = card_titles(page)
        assert now == shown + next_cards, f"page {number} was not appended exactly"
        assert len(next_cards) == min(PER_PAGE, site.total - len(shown))
        shown = now
        # Keyboard users land on the first new card.
        first_new = page.locator("#post-list > li").nth(len(shown) - len(next_cards))
        expect(first_new.locator(".card-title a")).to_be_focused()
        wanted = expected_counter(1, len(shown), site.total)
        expect(counter).to_have_text(wanted, use_inner_text=True)
        assert page.evaluate("window.announced.at(-1)") == wanted
        page.wait_for_url(f"**/?page={number}")

    assert len(shown) == site.total
    expect(page.locator("#more .read-more")).to_have_count(0)
    expect(page.locator("#more")).to_have_count(1)
    assert page.evaluate("window.counterNode === document.querySelector('#counter')")
    assert page.evaluate("window.announced.length") == number - 1
    assert page.evaluate(MARKED)


def test_back_after_read_more_restores_the_shorter_list(page: Page):
    """Back after "read more" shows the first page again; forward brings the longer list back."""
    page.goto("/")
    first_page = listing_state(page)
    page.locator("#more .read-more").click()
    expect(page.locator("#post-list .card")).to_have_count(2 * PER_PAGE)
    page.wait_for_url("**/?page=2")
    longer = listing_state(page)
    page.go_back()
    page.wait_for_url(lambda url: url.endswith("/"))
    assert listing_state(page) == first_page
    page.go_forward()
    page.wait_for_url("**/?page=2")
    assert listing_state(page) == longer
