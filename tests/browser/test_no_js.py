"""Without JavaScript the same journeys work through plain links."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PER_PAGE, OpenPage, Site, card_titles, counter_text
from tests.browser.conftest import expected_counter as expected

pytestmark = pytest.mark.browser


@pytest.fixture
def plain_page(open_page: OpenPage) -> Page:
    """A page with JavaScript turned off."""
    return open_page(java_script_enabled=False)


def assert_list_in_view(page: Page) -> None:
    """The list's heading is at the top of the window, where the reader lands."""
    top = page.evaluate("document.getElementById('all-posts').getBoundingClientRect().top")
    assert abs(top) < 5, f"the list starts {top} px from the top of the window"


def test_filter_and_pages_through_links(plain_page: Page, site: Site):
    """Topic links and "read more" load full pages, each with the right cards and counter."""
    topic = site.biggest_topic
    assert topic.count > PER_PAGE, "the demo needs a topic with more than one page"
    plain_page.goto("/")
    with plain_page.expect_request(f"**/topics/{topic.slug}") as request:
        plain_page.locator(f"#filter-{topic.slug}").click()
    assert request.value.is_navigation_request()
    assert "hx-request" not in request.value.headers
    plain_page.wait_for_load_state()
    # The link lands on the list, not at the top of the page.
    assert plain_page.url.endswith(f"/topics/{topic.slug}#all-posts")
    assert_list_in_view(plain_page)
    expect(plain_page.locator(f"#filter-{topic.slug}")).to_have_attribute("aria-current", "page")
    seen: list[str] = []
    number = 1
    while True:
        cards = card_titles(plain_page)
        first = (number - 1) * PER_PAGE + 1
        assert len(cards) == min(PER_PAGE, topic.count - first + 1)
        assert counter_text(plain_page) == expected(first, first + len(cards) - 1, topic.count)
        assert not set(cards) & set(seen), "a post showed up on two pages"
        seen += cards
        more = plain_page.locator("#more .read-more")
        if more.count() == 0:
            break
        number += 1
        with plain_page.expect_navigation():
            more.click()
        assert plain_page.url.endswith(f"/topics/{topic.slug}?page={number}#all-posts")
        assert_list_in_view(plain_page)
    assert len(seen) == topic.count


def test_post_and_back_through_links(plain_page: Page, site: Site):
    """A card opens its post; the post's topic link opens that topic's listing."""
    plain_page.goto("/")
    title = card_titles(plain_page)[0]
    with plain_page.expect_navigation():
        plain_page.locator("#post-list .card-title a").first.click()
    expect(plain_page.locator("h1.post-title")).to_have_text(title)
    topic_link = plain_page.locator(".post-topics a").first
    name = topic_link.text_content()
    with plain_page.expect_navigation():
        topic_link.click()
    expect(plain_page.locator('.topic-filter [aria-current="page"]')).to_contain_text(name)
    with plain_page.expect_navigation():
        plain_page.locator(".brand").click()
    assert counter_text(plain_page) == expected(1, PER_PAGE, site.total)
