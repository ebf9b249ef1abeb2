"""A post's body in the browser: code blocks labelled, focusable and copied; RTL text; the
demo post that uses every element for engineering posts."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from blog import markup
from tests.browser.conftest import AXE_SCRIPT, OpenPage, require
from tests.browser.test_accessibility import audit, describe
from tests.web.test_validity import VNU_JAR, nu_errors

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


# The demo post with a formula, a diagram, callouts, a figure, code options, a diff, tasks,
# keys, abbreviations and marked text (demo/README.md).
ENGINEERING_POST = "/posts/a-bloom-filter-in-front-of-the-object-store"
BOX = "(el) => { const r = el.getBoundingClientRect(); return [r.width, r.height]; }"
BEFORE = "(el) => getComputedStyle(el, '::before').content"
COLOUR = "(el) => getComputedStyle(el).color"


def test_the_engineering_demo_post_shows_every_element(open_page: OpenPage, tmp_path):
    """Formulas are drawn as MathML, the diagram as SVG in the text colour (light on a dark
    page), callouts are notes (the collapsible one opens), the wide figure leaves the text
    column, lines are numbered without the numbers being copied, diff lines are <ins> and
    <del>, task boxes say Done; axe and the Nu HTML checker find nothing."""
    require(AXE_SCRIPT.exists(), "axe-core is missing from node_modules: run `make setup`")
    page = open_page(
        bypass_csp=True,
        viewport={"width": 1280, "height": 900},
        permissions=["clipboard-read", "clipboard-write"],
    )
    page.goto(ENGINEERING_POST)
    prose = page.locator(".prose")
    formulas = prose.locator("math")
    assert formulas.count() >= 10
    width, height = formulas.locator("visible=true").first.evaluate(BOX)
    assert width > 5 and height > 5, "MathML should be laid out as a formula"
    display = prose.locator('math[display="block"]').first
    assert display.evaluate(BOX)[0] > 100
    diagram = prose.locator("figure.diagram svg")
    expect(diagram).to_have_attribute("role", "img")
    expect(diagram).to_have_accessible_name("Where the filter sits")
    # Scaled to the reading column (36rem), the drawing keeps its shape: drawn, not collapsed.
    assert diagram.evaluate(BOX)[1] > 30
    expect(prose.locator("figure.diagram figcaption")).to_have_text("Where the filter sits")
    callouts = prose.locator('div.callout[role="note"]')
    assert callouts.count() == 4
    expect(callouts.first.locator(".callout-title")).to_have_text("Note")
    details = prose.locator("details.callout")
    expect(details.locator("p").first).to_be_hidden()
    details.locator("summary").click()
    expect(details.locator("p").first).to_be_visible()
    figure = prose.locator("figure.figure-wide")
    column = prose.evaluate(BOX)[0]
    assert figure.evaluate(BOX)[0] > column + 100, "a wide figure should leave the text column"
    expect(figure.locator("figcaption")).to_contain_text("False positives against bits per key")
    block = prose.locator(".highlight.numbered")
    lines = block.locator("span.line")
    assert lines.first.evaluate(BEFORE).startswith("counter(line)")
    expect(block.locator(".code-file")).to_have_text("bloom.py")
    assert block.locator("mark.hll").count() == 2
    block.locator(".code-copy").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("import hashlib\nimport math\n") and "1import" not in copied
    diff = prose.locator(".highlight", has=page.locator("ins"))
    assert diff.locator("del").count() == 1 and diff.locator("ins").count() == 4
    boxes = prose.locator(".task-box")
    assert [boxes.nth(i).get_attribute("aria-label") for i in range(boxes.count())] == [
        *["Done"] * 3,
        "Not done",
    ]
    assert prose.locator("kbd").count() >= 2 and prose.locator("abbr[title]").count() >= 2
    violations = audit(page)
    assert not violations, describe(violations)
    light = diagram.evaluate(COLOUR)
    page.emulate_media(color_scheme="dark")
    dark = diagram.evaluate(COLOUR)
    assert light != dark, "the diagram's lines and text should follow the colour scheme"
    violations = audit(page)
    assert not violations, describe(violations)
    require(VNU_JAR.is_file(), f"the Nu HTML checker is missing at {VNU_JAR}: run `make setup`")
    served = tmp_path / "engineering-post.html"
    served.write_text(page.request.get(ENGINEERING_POST).text(), encoding="utf-8")
    errors = nu_errors([served])
    assert not errors, "\n".join(f"{m.get('lastLine')}: {m['message']}" for m in errors)
