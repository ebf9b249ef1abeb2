"""Block rules: text direction on blocks, table alignment classes and header cells."""

from __future__ import annotations

import time

import pytest
from bs4 import BeautifulSoup

from blog import markup
from blog.markup.budget import DEFAULT_LIMIT
from blog.markup.policy import find_violations

ARABIC = "مرحبا بالعالم!"
HEBREW = "מה שלומך?"


def row(cells: str) -> str:
    """Cells in a table, as the sanitizer keeps them."""
    return f"<table><tbody><tr>{cells}</tr></tbody></table>"


def soup_of(text: str) -> BeautifulSoup:
    """The rendered body, parsed."""
    return BeautifulSoup(markup.render(text).html, "lxml")


def test_text_blocks_take_their_direction_from_their_text():
    """Paragraphs, headings, list items, terms and cells carry dir="auto"."""
    soup = soup_of(
        f"## {HEBREW}\n\n{ARABIC}\n\n- {HEBREW}\n- English.\n\nTerm\n: {ARABIC}\n\n"
        f"| a | {HEBREW} |\n|---|---|\n| 1 | 2 |"
    )
    for element in soup.select("h2, p, li, dt, dd, th, td"):
        assert element.get("dir") == "auto", element


@pytest.mark.parametrize(
    ("source", "selector", "direction"),
    [
        (f"> {ARABIC}\n>\n> English after.", "blockquote", "rtl"),
        (f"> English first.\n>\n> {ARABIC}", "blockquote", None),
        (f"- {HEBREW}\n- {HEBREW}", "ul", "rtl"),
        (f"1. 42 {HEBREW}\n2. x", "ol", "rtl"),
        ("- English\n- list", "ul", None),
        (f"| {HEBREW} | b |\n|---|---|\n| 1 | 2 |", "table", "rtl"),
        (f"- {HEBREW}\n\n    second paragraph\n\n- {HEBREW}", "li", "rtl"),
    ],
)
def test_containers_follow_their_first_strong_character(source, selector, direction):
    """A block of blocks cannot use "auto" (it skips children with their own dir), so it is
    "rtl" when its text starts right-to-left, and left alone otherwise."""
    assert soup_of(source).select_one(selector).get("dir") == direction


def test_nested_right_to_left_quotes():
    """Every level of a nested quote written right-to-left is rtl, its paragraphs auto."""
    soup = soup_of(f"> {HEBREW}\n>\n> > {ARABIC}\n> >\n> > > {HEBREW}")
    quotes = soup.select("blockquote")
    assert len(quotes) == 3 and all(q["dir"] == "rtl" for q in quotes)
    assert [p["dir"] for p in soup.select("p")] == ["auto"] * 3


def test_a_code_block_is_not_wrapped_in_a_paragraph():
    """The paragraph standing in for a highlighted block gets no dir, so the block replaces
    it whole, inside a quote or a list as at the top."""
    source = f"```python\nx = 1\n```\n\n> {HEBREW}\n>\n>     code\n\n-   a\n\n        b"
    rendered = markup.render(source).html
    assert rendered.count('<div class="highlight">') == 3
    soup = BeautifulSoup(rendered, "lxml")
    # Left wrapped, the sanitizer would split the paragraph round the block, leaving empty ones.
    assert all(p.get_text(strip=True) for p in soup.select("p"))


def test_alignment_becomes_classes():
    """ ":--", ":-:" and "--:" give align-left/center/right on header and body cells."""
    soup = soup_of("| l | c | r | n |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |")
    for row in soup.select("tr"):
        classes = [cell.get("class") for cell in row.find_all(["th", "td"])]
        assert classes == [["align-left"], ["align-center"], ["align-right"], None]
    assert "align=" not in str(soup) and "style=" not in str(soup)


def test_an_empty_header_cell_becomes_a_data_cell():
    """A header cell with nothing in it is a <td>; the others stay <th>."""
    soup = soup_of("| | Price |\n|---|--:|\n| Tea | 3 |")
    header = soup.select_one("thead tr")
    assert [cell.name for cell in header.find_all(["th", "td"])] == ["td", "th"]
    assert soup.select("th:empty") == []


def test_a_header_row_with_nothing_in_it_is_dropped():
    """A table whose header row is all empty has no header row at all."""
    soup = soup_of("| | |\n|:--|--:|\n| Tea | 3 |\n| Cake | 4 |")
    assert soup.select("thead, th") == []
    assert [td.get("class") for td in soup.select("tr")[0].select("td")] == [
        ["align-left"],
        ["align-right"],
    ]


def test_a_header_cell_holding_only_an_image_is_kept():
    """An image (or any element) is content: its cell stays a header."""
    soup = soup_of("| ![Logo of the tea shop](/static/favicon.svg) | b |\n|---|---|\n| 1 | 2 |")
    assert [cell.name for cell in soup.select("thead tr > *")] == ["th", "th"]


def test_tables_take_keyboard_focus():
    """A table scrolls sideways when wide, so it is focusable."""
    assert soup_of("| a |\n|---|\n| 1 |").table["tabindex"] == "0"


def test_a_table_with_1000_columns():
    """A thousand columns render quickly, every cell aligned and directed, nothing unsafe."""
    columns = 1000
    source = (
        "| " + " | ".join(f"h{i}" for i in range(columns)) + " |\n"
        "|" + "--:|" * columns + "\n"
        "| " + " | ".join(f"{HEBREW}" for _ in range(columns)) + " |\n"
    )
    started = time.process_time()
    rendered = markup.render(source).html
    assert time.process_time() - started < DEFAULT_LIMIT
    soup = BeautifulSoup(rendered, "lxml")
    cells = soup.select("th, td")
    assert len(cells) == 2 * columns
    assert all(c["class"] == ["align-right"] and c["dir"] == "auto" for c in cells)
    assert find_violations(rendered) == [] and markup.sanitize(rendered) == rendered


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('<p dir="auto">x</p>', '<p dir="auto">x</p>'),
        ('<p dir="ltr">x</p>', "<p>x</p>"),
        ('<blockquote dir="rtl">x</blockquote>', '<blockquote dir="rtl">x</blockquote>'),
        ('<span dir="auto">x</span>', "<span>x</span>"),
        (row('<td class="align-right">x</td>'), row('<td class="align-right">x</td>')),
        (row('<td class="align-diagonal">x</td>'), row("<td>x</td>")),
        (row('<td align="right">x</td>'), row("<td>x</td>")),
        (row('<td style="text-align:right">x</td>'), row("<td>x</td>")),
        ('<pre tabindex="5" role="button" aria-label="x">c</pre>', '<pre aria-label="x">c</pre>'),
        ('<div tabindex="0" aria-label="x">c</div>', "<div>c</div>"),
        ('<p class="code-language evil">x</p>', "<p>x</p>"),
    ],
)
def test_the_policy_allows_exactly_what_the_blocks_need(raw, expected):
    """dir only as "auto"/"rtl" on blocks, align-* classes on cells, focus on pre/table."""
    assert markup.sanitize(raw) == expected
