"""Keyboard only: every control is reachable with Tab, usable with Enter, and shows its focus."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PER_PAGE, Site

pytestmark = pytest.mark.browser

# Every element the Tab key should stop at, in document order, kept on window for lookups.
# A radio group is one stop (its checked button, or its first); arrows move inside it.
COLLECT_CONTROLS = """() => {
  const selector = "a[href], button, input, select, textarea, summary, [tabindex]";
  const radioStop = (el) => {
    const group = [...document.querySelectorAll('input[type="radio"]')]
      .filter((r) => r.name === el.name && r.form === el.form);
    return (group.find((r) => r.checked) || group[0]) === el;
  };
  window.tabControls = [...document.querySelectorAll(selector)].filter((el) =>
    el.tabIndex >= 0 && !el.disabled && el.type !== "hidden" &&
    (el.type !== "radio" || radioStop(el)) &&
    el.checkVisibility({visibilityProperty: true}));
  return window.tabControls.map((el) => el.outerHTML.slice(0, 120));
}"""

# Where the focus is and whether a sighted keyboard user can see it.
FOCUS = """() => {
  const el = document.activeElement;
  const style = getComputedStyle(el);
  const rect = el.getBoundingClientRect();
  return {
    index: window.tabControls ? window.tabControls.indexOf(el) : -1,
    tag: el.tagName.toLowerCase(),
    id: el.id,
    text: el.textContent.replace(/\\s+/g, " ").trim().slice(0, 80),
    classes: el.className,
    ring: el.matches(":focus-visible") && style.outlineStyle !== "none"
      && parseFloat(style.outlineWidth) >= 2,
    onScreen: rect.width > 0 && rect.height > 0 && rect.bottom > 0 && rect.right > 0
      && rect.top < innerHeight && rect.left < innerWidth,
  };
}"""


def focus(page: Page) -> dict[str, Any]:
    """The focused element, as far as the tests need to know it."""
    return page.evaluate(FOCUS)


def tab_to(page: Page, selector: str, limit: int = 80) -> dict[str, Any]:
    """Press Tab until the element matching `selector` has focus; fail after `limit` presses."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return focus(page)
    pytest.fail(f"Tab never reached {selector}")


def test_tab_reaches_every_control_with_a_visible_focus(page: Page, site: Site):
    """On every page, Tab visits each control once, in order, each with a visible focus ring."""
    for name in site.paths:
        site.visit(page, name)
        controls = page.evaluate(COLLECT_CONTROLS)
        assert controls, f"{name}: no controls found"
        visited = []
        # A date-time field takes one Tab per part (day, month, year, ...): allow for a few.
        for _ in range(len(controls) + 20):
            page.keyboard.press("Tab")
            where = focus(page)
            if visited and where["index"] == visited[-1]:
                continue  # still inside a multi-part field
            if where["index"] < 0 or where["index"] in visited:
                break  # past the last control, or wrapped round to the first
            assert where["ring"], f"{name}: no visible focus on {controls[where['index']]}"
            assert where["onScreen"], f"{name}: focus is off screen on {controls[where['index']]}"
            visited.append(where["index"])
        assert visited == list(range(len(controls))), f"{name}: Tab order skipped controls"


def test_skip_link_moves_focus_to_the_content(page: Page):
    """The first Tab shows the skip link; Enter on it puts focus at the start of the content."""
    page.goto("/")
    page.keyboard.press("Tab")
    first = focus(page)
    assert first["classes"] == "skip-link" and first["onScreen"] and first["ring"]
    page.keyboard.press("Enter")
    assert focus(page)["id"] == "main"
    page.keyboard.press("Tab")
    assert page.evaluate("document.querySelector('main').contains(document.activeElement)")


def test_keyboard_journey_filter_read_more_and_post(page: Page, site: Site):
    """Filter with Enter, load more with Enter, land on the new cards, open a post."""
    topic = site.biggest_topic
    assert topic.count > PER_PAGE
    page.goto("/")
    tab_to(page, f"#filter-{topic.slug}")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/topics/{topic.slug}")
    link = page.locator(f"#filter-{topic.slug}")
    expect(link).to_have_attribute("aria-current", "page")
    # The swap replaced the link: focus stays on its new copy, still visibly.
    expect(link).to_be_focused()
    assert focus(page)["ring"]

    tab_to(page, "#more .read-more")
    page.keyboard.press("Enter")
    cards = page.locator("#post-list .card-title a")
    expect(cards).to_have_count(min(2 * PER_PAGE, topic.count))
    expect(cards.nth(PER_PAGE)).to_be_focused()
    landed = focus(page)
    assert landed["ring"] and landed["onScreen"]
    # Each card is its title, then its byline's link to the author's page.
    bylines = page.locator("#post-list .card-author")
    page.keyboard.press("Tab")
    expect(bylines.nth(PER_PAGE)).to_be_focused()
    page.keyboard.press("Tab")
    expect(cards.nth(PER_PAGE + 1)).to_be_focused()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    expect(cards.nth(PER_PAGE)).to_be_focused()

    title = cards.nth(PER_PAGE).inner_text()
    page.keyboard.press("Enter")
    expect(page.locator("h1.post-title")).to_have_text(title)
    tab_to(page, ".back a")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url.endswith("/"))
    expect(page.locator("#filter-all")).to_have_attribute("aria-current", "page")


def test_keyboard_login_form_controls_and_logout(page: Page, site: Site):
    """Log in with Tab and Enter, toggle a checkbox with Space, log out with Space."""
    page.goto("/login")
    tab_to(page, "input[type=email]")
    page.keyboard.type(site.account.email)
    page.keyboard.press("Tab")
    expect(page.locator("input[type=password]")).to_be_focused()
    page.keyboard.type(site.account.password)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/login" not in url)

    page.goto(site.paths["editor"])
    checkbox = page.locator("input[type=checkbox]").first
    tab_to(page, "input[type=checkbox]")
    page.keyboard.press("Space")
    expect(checkbox).to_be_checked()
    assert focus(page)["ring"]
    page.keyboard.press("Space")
    expect(checkbox).not_to_be_checked()

    tab_to(page, ".logout-button")
    assert focus(page)["ring"]
    page.keyboard.press("Space")
    page.wait_for_url(lambda url: url.endswith("/"))
    expect(page.locator(".site-nav .login")).to_be_visible()
