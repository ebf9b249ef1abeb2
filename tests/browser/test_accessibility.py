"""Accessibility: an axe-core audit of every kind of page, plus the checks axe cannot make."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import AXE_SCRIPT, OpenPage, Site, require

pytestmark = pytest.mark.browser

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def audit(page: Page) -> list[dict[str, Any]]:
    """Run axe-core on the page for WCAG 2.2 A/AA rules; return its violations."""
    page.add_script_tag(path=str(AXE_SCRIPT))
    result = page.evaluate(
        "(tags) => axe.run(document,"
        " {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
        WCAG_TAGS,
    )
    return result["violations"]


def describe(violations: list[dict[str, Any]]) -> str:
    """Violations as a reader-friendly list: rule, impact, what to fix, and where."""
    lines = []
    for violation in violations:
        lines.append(f"- {violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"][:5]:
            summary = " ".join((node.get("failureSummary") or "").split())
            lines.append(f"    at {' '.join(node['target'])}: {summary}")
        if len(violation["nodes"]) > 5:
            lines.append(f"    ... and {len(violation['nodes']) - 5} more")
    return "\n".join(lines)


@pytest.fixture
def audit_page(open_page: OpenPage) -> Page:
    """A page that lets the injected axe script run past the CSP (only for this module)."""
    require(AXE_SCRIPT.exists(), "axe-core is missing from node_modules: run `make setup`")
    return open_page(bypass_csp=True)


def test_axe_finds_no_wcag_violations(audit_page: Page, site: Site):
    """Home, topic, page 2, post and the account pages pass the WCAG 2.2 A/AA rules."""
    found = {}
    for name in site.paths:
        site.visit(audit_page, name)
        audit_page.wait_for_load_state("networkidle")
        violations = audit(audit_page)
        if violations:
            found[name] = describe(violations)
    assert not found, "axe found WCAG violations:\n" + "\n".join(
        f"{name} ({site.paths[name]}):\n{text}" for name, text in found.items()
    )


def test_axe_after_swaps(audit_page: Page, site: Site):
    """The listing still passes after a topic swap and a "read more"."""
    topic = site.biggest_topic
    audit_page.goto("/")
    audit_page.locator(f"#filter-{topic.slug}").click()
    expect(audit_page.locator(f"#filter-{topic.slug}")).to_have_attribute("aria-current", "page")
    audit_page.locator("#more .read-more").click()
    expect(audit_page.locator("#post-list .card")).to_have_count(min(24, topic.count))
    violations = audit(audit_page)
    assert not violations, describe(violations)


PAGE_FACTS = """() => ({
  images: [...document.images].map((img) => ({
    src: img.getAttribute("src"), alt: img.getAttribute("alt"),
    width: img.getAttribute("width"), height: img.getAttribute("height"),
  })),
  headings: [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")].map((h) => ({
    level: Number(h.tagName[1]), text: h.textContent.replace(/\\s+/g, " ").trim(),
  })),
  lang: document.documentElement.lang,
})"""


def test_images_headings_and_filter_label(page: Page, site: Site):
    """Images say what they show, headings never skip a level, the filter is labelled."""
    for name in site.paths:
        site.visit(page, name)
        facts = page.evaluate(PAGE_FACTS)
        assert facts["lang"] == "en"
        for image in facts["images"]:
            alt = image["alt"] or ""
            file_name = image["src"].rsplit("/", 1)[-1]
            assert len(alt.split()) >= 4, f"{name}: alt text {alt!r} does not describe {file_name}"
            assert file_name not in alt and not re.search(r"\b(image|picture) of\b", alt, re.I)
        levels = [heading["level"] for heading in facts["headings"]]
        assert levels and levels[0] == 1 and levels.count(1) == 1, f"{name}: {facts['headings']}"
        jumps = [(a, b) for a, b in itertools.pairwise(levels) if b > a + 1]
        assert not jumps, f"{name}: heading levels skip {jumps}: {facts['headings']}"
    page.goto("/")
    expect(page.get_by_role("navigation", name="Filter by topic")).to_have_count(1)
