"""Callouts: GitHub's alerts and admonitions as notes with an icon; collapsible ones."""

from __future__ import annotations

import pytest

from tests.markup.test_xss import rendered


@pytest.mark.parametrize(
    ("text", "kind", "title"),
    [
        ("> [!NOTE]\n> Read this.", "note", "Note"),
        ("> [!TIP]\n> Read this.", "tip", "Tip"),
        ("> [!WARNING]\n> Read this.", "warning", "Warning"),
        ("> [!CAUTION]\n> Read this.", "danger", "Danger"),
        ("> [!IMPORTANT]\n> Read this.", "note", "Note"),
        ('!!! danger "Data loss"\n    Read this.', "danger", "Data loss"),
        ("!!! tip\n    Read this.", "tip", "Tip"),
        ('!!! warning ""\n    Read this.', "warning", "Warning"),
        ("!!! unknownkind\n    Read this.", "note", "Unknownkind"),
    ],
)
def test_callouts_are_notes_with_an_icon_and_a_title(text, kind, title):
    """Both syntaxes give one callout: a note role, the kind's class, an icon, a title."""
    callout = rendered(text).find("div", class_="callout")
    assert callout["class"] == ["callout", f"callout-{kind}"] and callout["role"] == "note"
    heading = callout.find("p", class_="callout-title")
    assert heading.get_text() == title
    assert heading.svg["aria-hidden"] == "true" and heading.svg.find("path")
    assert callout.find_all("p")[-1].get_text() == "Read this."


@pytest.mark.parametrize(("marker", "opened"), [("???", False), ("???+", True)])
def test_collapsible_callouts_are_details(marker, opened):
    """`???` is a folded <details>, `???+` an open one, the title its summary."""
    details = rendered(f'{marker} warning "Before you upgrade"\n    Read this.').details
    assert details["class"] == ["callout", "callout-warning"]
    assert ("open" in details.attrs) is opened
    assert details.summary.get_text() == "Before you upgrade" and details.summary.svg


def test_a_quotation_that_is_not_an_alert_stays_a_quotation():
    """Only `[!KIND]` alone on the first line makes a callout."""
    for text in ("> [!NOTE] inline\n> text", "> Say [!NOTE] here.", "> [not] this"):
        page = rendered(text)
        assert page.blockquote is not None and page.find(class_="callout") is None


def test_a_callout_keeps_markdown_inside_and_hostile_titles_are_inert():
    """Lists and code inside a callout render; HTML in a title keeps only what the
    allow-list keeps, like HTML anywhere in a post."""
    page = rendered('!!! note "<img src=x onerror=alert(1)>"\n    - one\n    - `two`')
    callout = page.find(class_="callout")
    assert callout.ul and callout.code.get_text() == "two"
    assert page.img.attrs == {"src": "x"}
