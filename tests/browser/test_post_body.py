"""A post's body in the browser: code blocks labelled, focusable and copied; RTL text."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from blog import markup
from tests.browser.conftest import AXE_SCRIPT, OpenPage, require
from tests.browser.test_accessibility import audit, describe

pytestmark = pytest.mark.browser

# A demo post whose code is wider than the column, so its blocks scroll sideways.
CODE_POST = "/posts/store-utc-render-local-our-rules-for-dates-and-time-zones"
SCROLLING = """() => [...document.querySelectorAll(".highlight pre")]
  .filter((pre) => pre.scrollWidth > pre.clientWidth).length"""


def test_scrolling_code_passes_axe(open_page: OpenPage):
    """Code that scrolls takes focus and is named: no scrollable-region-focusable violation."""
    require(AXE_SCRIPT.exists(), "axe-core is missing from node_modules: run `make setup`")
    page = open_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page.goto(CODE_POST)
    assert page.evaluate(SCROLLING) > 0, "the post should have code wider than its column"
    violations = audit(page)
    assert not violations, describe(violations)


def test_copy_button_copies_the_code_and_says_so(open_page: OpenPage):
    """Enter on a block's Copy button puts its code on the clipboard and announces "Copied"."""
    page: Page = open_page(permissions=["clipboard-read", "clipboard-write"])
    page.goto(CODE_POST)
    block = page.locator(".prose .highlight").first
    expect(block.locator(".code-language")).to_have_text("TypeScript")
    code = block.locator("pre")
    expect(code).to_have_attribute("aria-label", "TypeScript code")
    button = block.locator(".code-copy")
    expect(button).to_have_accessible_name("Copy TypeScript code")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#code-copy-status")).to_have_text("Copied")
    expect(button).to_contain_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == code.text_content()
    assert page.locator(".code-copy").count() == page.locator(".prose .highlight").count()


# Where the last character of each paragraph sits: left of its first one in right-to-left text.
ENDS = """() => [...document.querySelectorAll("p")].map((p) => {
  const text = p.firstChild, range = document.createRange();
  range.setStart(text, 0); range.setEnd(text, 1);
  const first = range.getBoundingClientRect().left;
  range.setStart(text, text.length - 1); range.setEnd(text, text.length);
  return {dir: getComputedStyle(p).direction, endsLeft: range.getBoundingClientRect().left < first};
})"""


def test_right_to_left_punctuation_lands_on_the_left(page: Page):
    """Hebrew and Arabic ending in punctuation read right to left, the mark at their left
    end, in a quote nested in a quote too; English stays left to right."""
    body = "מה שלומך?\n\n> مرحبا بالعالم!\n>\n> > שלום עולם.\n\nHello there!"
    page.set_content(f"<!doctype html><body>{markup.render(body).html}</body>")
    assert page.evaluate(ENDS) == [
        {"dir": "rtl", "endsLeft": True},
        {"dir": "rtl", "endsLeft": True},
        {"dir": "rtl", "endsLeft": True},
        {"dir": "ltr", "endsLeft": False},
    ]
    quotes = page.eval_on_selector_all(
        "blockquote", "(qs) => qs.map((q) => getComputedStyle(q).direction)"
    )
    assert quotes == ["rtl", "rtl"]
