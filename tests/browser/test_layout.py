"""Layout at phone and desktop widths, screenshots for review (`make screenshots`), and
pictures that never shift."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PER_PAGE, Capture, HeldRequests, OpenPage, Site

pytestmark = pytest.mark.browser

PHONE, DESKTOP = 375, 1280

LOAD_ALL_IMAGES = """async () => {
  for (const img of document.images) img.loading = "eager";
  await Promise.all([...document.images].map((img) => img.decode().catch(() => null)));
}"""

# Chromium's own layout-shift score, summed from the start of the page (an init script runs
# before any page script and is not subject to the page's CSP).
TRACK_LAYOUT_SHIFT = """window.layoutShift = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (!entry.hadRecentInput) window.layoutShift += entry.value;
  }
}).observe({type: "layout-shift", buffered: true});"""

# Two frames and a task later, every shift so far has reached the observer.
LAYOUT_SHIFT = """() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(
  () => setTimeout(() => resolve(window.layoutShift)))))"""


# Elements reaching past the right edge, except inside a box that scrolls or clips them
# (a wide code block scrolls on its own without moving the page).
PAST_THE_EDGE = """(limit) => {
  const contained = (el) => {
    for (let box = el.parentElement; box && box !== document.body; box = box.parentElement) {
      if (getComputedStyle(box).overflowX !== "visible") return true;
    }
    return false;
  };
  return [...document.querySelectorAll("body *")]
    .filter((el) => el.getBoundingClientRect().right > limit + 1 && !contained(el))
    .map((el) => el.tagName.toLowerCase() + "." + el.className).slice(0, 5);
}"""


# Phrases that must not break across lines: "5 min read" and each date.
BROKEN_PHRASES = """() => {
  const lines = (rects) => new Set([...rects].map((r) => Math.round(r.top))).size;
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const found of node.data.matchAll(/\\d+\\s+min\\s+read/g)) {
      const range = document.createRange();
      range.setStart(node, found.index);
      range.setEnd(node, found.index + found[0].length);
      if (lines(range.getClientRects()) > 1) broken.push(found[0]);
    }
  }
  for (const time of document.querySelectorAll("time")) {
    if (lines(time.getClientRects()) > 1) broken.push(time.textContent);
  }
  return broken;
}"""


def card_columns(page: Page, selector: str = "#post-list .card") -> int:
    """How many distinct columns the cards sit in."""
    lefts = page.eval_on_selector_all(
        selector, "(cards) => cards.map((c) => Math.round(c.getBoundingClientRect().left))"
    )
    return len(set(lefts))


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_pages_fit_the_width_and_are_captured(
    open_page: OpenPage, site: Site, capture: Capture, width: int
):
    """No page scrolls sideways; cards are one column on a phone, a grid on a desktop."""
    page = open_page(viewport={"width": width, "height": 900})
    for name in site.paths:
        site.visit(page, name)
        page.evaluate(LOAD_ALL_IMAGES)
        overflow = page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{name} at {width}px scrolls sideways by {overflow}px"
        wide = page.evaluate(PAST_THE_EDGE, width)
        assert not wide, f"{name} at {width}px has elements past the edge: {wide}"
        broken = page.evaluate(BROKEN_PHRASES)
        assert not broken, f"{name} at {width}px breaks {broken} across lines"
        if page.locator("#post-list").count():
            columns = card_columns(page)
            # A grid of three, or as many as there are cards (an author with one post).
            grid = min(3, page.locator("#post-list .card").count())
            assert columns == 1 if width == PHONE else columns >= grid, f"{name}: {columns} columns"
        capture(page, f"{name}-{width}")


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_images_reserve_their_space(open_page: OpenPage, width: int):
    """Every picture carries width and height, so loading them moves nothing."""
    page = open_page(viewport={"width": width, "height": 900})
    held = HeldRequests(page, "**/illustrations/*.svg*")
    page.add_init_script(TRACK_LAYOUT_SHIFT)
    page.goto("/", wait_until="domcontentloaded")
    sizes = page.eval_on_selector_all(
        "img", "(imgs) => imgs.map((i) => [i.getAttribute('width'), i.getAttribute('height')])"
    )
    assert sizes and all(w and h and int(w) > 0 and int(h) > 0 for w, h in sizes), sizes
    where = (
        "() => [...document.querySelectorAll('.card-title, #counter')]"
        ".map((e) => e.getBoundingClientRect().top)"
    )
    held.wait()
    # The self-hosted fonts swap in once (font-display: swap), moving the text a little: far
    # under the 0.1 that counts as a good page. The pictures must move nothing after that.
    page.evaluate("() => document.fonts.ready.then(() => true)")
    font_shift = page.evaluate(LAYOUT_SHIFT)
    assert font_shift < 0.05
    assert page.evaluate("document.querySelector('.card-featured img').complete") is False
    before = page.evaluate(where)
    held.release()
    page.evaluate(LOAD_ALL_IMAGES)
    assert page.evaluate(where) == before
    assert page.evaluate(LAYOUT_SHIFT) == font_shift


def test_listing_works_before_pictures_load(open_page: OpenPage, site: Site):
    """With every picture still pending, the filter and "read more" already work."""
    page = open_page()
    held = HeldRequests(page, "**/illustrations/*.svg*")
    page.goto("/", wait_until="domcontentloaded")
    topic = site.biggest_topic
    page.locator(f"#filter-{topic.slug}").click()
    expect(page.locator(f"#filter-{topic.slug}")).to_have_attribute("aria-current", "page")
    page.locator("#more .read-more").click()
    expect(page.locator("#post-list .card")).to_have_count(min(2 * PER_PAGE, topic.count))
    held.wait()
    assert page.evaluate("document.querySelector('.card-featured img').complete") is False
    held.release()


def test_a_long_word_in_a_title_wraps_on_a_phone(open_page: OpenPage, site: Site):
    """A title made of one long word (a Kubernetes kind, say) breaks inside its card."""
    page = open_page(viewport={"width": PHONE, "height": 900})
    site.visit(page, "home")
    spill = page.evaluate(
        """() => [...document.querySelectorAll('#post-list .card-title a')].map((a) => {
          a.textContent = 'HorizontalPodAutoscalerControllerReconciliation';
          const text = document.createRange();
          text.selectNodeContents(a);
          const card = a.closest('.card').getBoundingClientRect();
          return text.getBoundingClientRect().right - card.right;
        })"""
    )
    assert spill and max(spill) <= 0, f"titles run past their cards by {max(spill)} px"
