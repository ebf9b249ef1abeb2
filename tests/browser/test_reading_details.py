"""What a reader notices on a post page and on a phone: the reading measure, headings' links,
code headers, related posts, the picks' bylines, the topic row and tables."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import OpenPage, Site

pytestmark = pytest.mark.browser

PHONE, DESKTOP = 375, 1280
# A demo post with SQL, a table, headings and related posts (other tests add newer posts, so
# the home page's first post is not it).
DEMO_POST = "/posts/soft-deletes-caused-more-bugs-than-they-prevented"

# Characters a full line of body text holds: the column's width over the text's mean
# character width, in the font the page uses.
CHARACTERS_PER_LINE = """() => {
  const ps = [...document.querySelectorAll('.prose > p')];
  const style = getComputedStyle(ps[0]);
  const context = document.createElement('canvas').getContext('2d');
  context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const text = ps.map((p) => p.textContent).join(' ');
  return ps[0].clientWidth / (context.measureText(text).width / text.length);
}"""


def middle(page: Page, selector: str) -> float:
    """The vertical centre of the first element matching `selector`."""
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box["y"] + box["height"] / 2


def test_a_post_reads_at_a_comfortable_measure(open_page: OpenPage):
    page = open_page(viewport={"width": DESKTOP, "height": 900})
    page.goto(DEMO_POST)
    page.evaluate("() => document.fonts.ready.then(() => true)")
    assert 60 <= page.evaluate(CHARACTERS_PER_LINE) <= 75
    # The title fills the column before it wraps: no balanced, half-empty lines.
    assert page.locator(".post-title").evaluate("(h) => getComputedStyle(h).textWrap") != "balance"


def test_heading_links_show_on_hover_and_focus_only(open_page: OpenPage):
    page = open_page(viewport={"width": DESKTOP, "height": 900})
    page.goto(DEMO_POST)
    link = page.locator(".prose h2 .headerlink").first
    opacity = "(a) => getComputedStyle(a).opacity"
    assert link.evaluate(opacity) == "0"
    page.locator(".prose h2").first.hover()
    assert link.evaluate(opacity) == "1"
    page.mouse.move(0, 0)
    link.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert link.evaluate("(a) => document.activeElement === a") and link.evaluate(opacity) == "1"


def test_code_headers_centre_the_label_and_tokens_never_look_like_errors(open_page: OpenPage):
    page = open_page(viewport={"width": DESKTOP, "height": 900})
    page.goto(DEMO_POST)
    assert page.locator(".highlight .code-copy").count(), "the post should have code"
    assert (
        abs(middle(page, ".highlight .code-language") - middle(page, ".highlight .code-copy")) <= 2
    )
    # Pygments' Error class marks what its lexer did not expect ($1 in SQL), not bad code.
    styles = page.evaluate(
        """() => [...document.querySelectorAll('.highlight .err')].map((e) => {
          const own = getComputedStyle(e), around = getComputedStyle(e.closest('code'));
          return own.color === around.color && own.textDecorationLine === 'none';
        })"""
    )
    assert all(styles), styles


def test_related_posts_share_one_row(open_page: OpenPage):
    page = open_page(viewport={"width": DESKTOP, "height": 900})
    page.goto(DEMO_POST)
    tops = page.eval_on_selector_all(
        ".related .card", "(cards) => cards.map((c) => Math.round(c.getBoundingClientRect().top))"
    )
    assert 1 <= len(tops) <= 3 and len(set(tops)) == 1, tops


def test_a_phone_shows_the_whole_featured_drawing_bylines_and_topics(
    open_page: OpenPage, site: Site
):
    page = open_page(viewport={"width": PHONE, "height": 800})
    site.visit(page, "home")
    art = page.locator(".card-featured .card-art")
    ratio = art.evaluate("(img) => img.clientWidth / img.clientHeight")
    assert abs(ratio - 16 / 9) < 0.05, f"the featured drawing is cropped to {ratio:.2f}:1"
    cut = page.eval_on_selector_all(
        ".cards-picks .card-meta", "(ms) => ms.filter((m) => m.scrollWidth > m.clientWidth).length"
    )
    assert cut == 0, "a pick's byline is cut short"
    hidden = page.eval_on_selector_all(
        ".topic-filter a",
        """(links) => links.filter((a) => {
          const box = a.getBoundingClientRect();
          return box.left < 0 || box.right > document.documentElement.clientWidth;
        }).map((a) => a.textContent.trim())""",
    )
    assert hidden == [], f"topics off screen: {hidden}"


def test_a_wide_table_scrolls_in_its_own_focusable_region(open_page: OpenPage):
    page = open_page(viewport={"width": PHONE, "height": 800})
    page.goto(DEMO_POST)
    table = page.locator(".prose table").first
    assert table.count(), "the post should have a table"
    region = table.evaluate(
        """(t) => [getComputedStyle(t).overflowX, t.tabIndex,
                   getComputedStyle(t.querySelector('td')).verticalAlign]"""
    )
    assert region == ["auto", 0, "top"], region
