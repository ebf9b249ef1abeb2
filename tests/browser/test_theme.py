"""Themes, print and phones: dark mode and its toggle, the print stylesheet, a one-row header."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import AXE_SCRIPT, OpenPage, Site, require
from tests.browser.test_accessibility import describe, load_axe_on_every_page

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 667}

# The page's background as [r, g, b] (the body paints it) and <html data-theme>.
LOOK = """() => ({
  background:
    getComputedStyle(document.body).backgroundColor.match(/\\d+/g).slice(0, 3).map(Number),
  theme: document.documentElement.dataset.theme ?? null,
})"""


def look(page: Page) -> dict[str, Any]:
    """The page's background colour and chosen theme."""
    return page.evaluate(LOOK)


def is_dark(page: Page) -> bool:
    """Whether the page's background is dark (every channel below a third)."""
    return max(look(page)["background"]) < 85


def contrast_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's colour-contrast violations on the page as it is now."""
    if not page.evaluate("() => typeof window.axe?.run === 'function'"):
        page.add_script_tag(path=str(AXE_SCRIPT))
    result = page.evaluate(
        "() => axe.run(document, {runOnly: {type: 'rule', values: ['color-contrast']},"
        " resultTypes: ['violations']})"
    )
    return result["violations"]


def test_dark_system_preference_is_dark_with_enough_contrast(open_page: OpenPage, site: Site):
    """With the system set to dark, home and a post are dark and pass axe's contrast rule."""
    require(AXE_SCRIPT.exists(), "axe-core is missing from node_modules: run `make setup`")
    page = open_page(color_scheme="dark", bypass_csp=True)
    load_axe_on_every_page(page)
    found = {}
    for name in ("home", "post"):
        site.visit(page, name)
        assert is_dark(page), f"{name} is not dark: {look(page)}"
        violations = contrast_violations(page)
        if violations:
            found[name] = describe(violations)
    assert not found, "axe found contrast problems in the dark theme:\n" + "\n".join(
        f"{name}:\n{text}" for name, text in found.items()
    )


def test_without_javascript_the_system_theme_applies_and_the_toggle_is_hidden(
    open_page: OpenPage,
):
    """No script: the media query alone makes the page dark, and there is no toggle to press."""
    page = open_page(color_scheme="dark", java_script_enabled=False)
    page.goto("/")
    assert is_dark(page) and look(page)["theme"] is None
    expect(page.locator("#theme-toggle")).to_be_hidden()


def test_toggle_cycles_by_keyboard_and_the_choice_survives_a_reload(page: Page):
    """System, light, dark and back: Enter and Space switch, the name says which, reloads
    keep it."""
    page.goto("/")
    toggle = page.locator("#theme-toggle")
    expect(toggle).to_have_accessible_name("Theme: system")
    assert not is_dark(page) and look(page)["theme"] is None
    toggle.focus()
    page.keyboard.press("Enter")
    expect(toggle).to_have_accessible_name("Theme: light")
    assert look(page)["theme"] == "light"
    page.keyboard.press("Space")
    expect(toggle).to_have_accessible_name("Theme: dark")
    assert is_dark(page) and look(page)["theme"] == "dark"
    page.reload()
    expect(toggle).to_have_accessible_name("Theme: dark")
    assert is_dark(page) and look(page)["theme"] == "dark"
    toggle.click()
    expect(toggle).to_have_accessible_name("Theme: system")
    page.reload()
    expect(toggle).to_have_accessible_name("Theme: system")
    assert not is_dark(page) and look(page)["theme"] is None


PRINTED = """() => {
  const shown = (s) => [...document.querySelectorAll(s)].some((el) => el.checkVisibility());
  const prose = document.querySelector(".prose");
  const link = document.createElement("a");
  link.href = "https://example.com/printed";
  link.textContent = "a link";
  prose.append(link);
  const code = document.querySelector(".prose pre");
  const body = getComputedStyle(document.body);
  return {
    shown: ["nav.site-nav", "#site-search", ".search-summary", "#theme-toggle", ".cta",
            ".headerlink"].filter(shown),
    colours: [body.color, body.backgroundColor],
    after: getComputedStyle(link, "::after").content,
    wraps: code ? getComputedStyle(code).whiteSpace : "pre-wrap",
  };
}"""


def test_print_shows_the_article_without_the_controls(page: Page, site: Site):
    """Printed, a post (even in the dark theme) drops the header controls and ¶ marks, in
    black on white, with link addresses and wrapped code; a listing drops "read more"."""
    site.visit(page, "post")
    page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; }")
    page.emulate_media(media="print")
    printed = page.evaluate(PRINTED)
    assert printed["shown"] == [], f"still printed: {printed['shown']}"
    assert printed["colours"] == ["rgb(0, 0, 0)", "rgb(255, 255, 255)"]
    assert printed["after"] == '" (https://example.com/printed)"'
    assert printed["wraps"] == "pre-wrap"
    site.visit(page, "home")
    expect(page.locator(".read-more")).to_be_hidden()


def test_phone_header_is_one_row_and_the_topic_filter_is_near_the_top(open_page: OpenPage):
    """At 375 × 667 the header is one row, its search opens from a labelled button, and the
    topic filter starts within a screen and a half."""
    page = open_page(viewport=PHONE)
    page.goto("/")
    header = page.locator(".site-header").bounding_box()
    assert header is not None and header["height"] < 80, f"header is {header}"
    top = page.locator(".topic-filter").evaluate("(el) => el.getBoundingClientRect().top")
    assert top < 1.5 * PHONE["height"], f"the topic filter starts at {top}px"
    box = page.locator("#site-search-q")
    expect(box).to_be_hidden()
    summary = page.locator(".search-summary")
    expect(summary).to_have_accessible_name("Search the blog")
    summary.focus()
    page.keyboard.press("Enter")
    expect(box).to_be_visible()
    page.keyboard.press("Tab")
    expect(box).to_be_focused()
