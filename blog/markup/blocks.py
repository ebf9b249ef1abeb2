"""Block-level rules of the pipeline: text direction, table alignment and header cells.

* Text direction. A block of text gets ``dir="auto"``, so the browser sets it from its first
  strong character and the punctuation of a right-to-left paragraph lands on its left. A
  block that only holds other blocks (a blockquote, a list, a table) cannot use "auto", as
  the browser skips children that carry their own ``dir``: it gets ``dir="rtl"`` when its
  first strong character is right-to-left, so its rule, markers and columns follow its text.
* Tables. Alignment becomes an ``align-*`` class (the Content-Security-Policy allows no
  inline style, and ``align`` is obsolete); a header cell with nothing in it becomes a data
  cell, and a header row with nothing in it is dropped; a table, which scrolls when wide,
  takes keyboard focus.
"""

from __future__ import annotations

import unicodedata
import xml.etree.ElementTree as etree

from markdown.util import HTML_PLACEHOLDER_RE

ALIGN_CLASSES = {"left": "align-left", "center": "align-center", "right": "align-right"}
# Blocks that hold text (and inline markup) only.
TEXT_BLOCKS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "th", "td", "dt", "figcaption", "summary"}
)
# Blocks that hold text or, in loose lists, other blocks.
MIXED_BLOCKS = frozenset({"li", "dd"})
# Blocks that hold other blocks only.
OUTER_BLOCKS = frozenset({"blockquote", "ul", "ol", "dl", "table"})
_RTL = frozenset({"R", "AL"})


def _strong_direction(text: str | None) -> str | None:
    """ "rtl" or "ltr" after the first strongly directional character of `text`, else None."""
    for ch in text or "":
        kind = unicodedata.bidirectional(ch)
        if kind == "L":
            return "ltr"
        if kind in _RTL:
            return "rtl"
    return None


def _first_strong(root: etree.Element) -> dict[etree.Element, str | None]:
    """Each element's first strong direction over its text, in one pass (children first)."""
    found: dict[etree.Element, str | None] = {}
    stack: list[tuple[etree.Element, bool]] = [(root, False)]
    while stack:
        element, children_done = stack.pop()
        if not children_done:
            stack.append((element, True))
            stack.extend((child, False) for child in element)
            continue
        direction = _strong_direction(element.text)
        for child in element:
            if direction is not None:
                break
            direction = found[child] or _strong_direction(child.tail)
        found[element] = direction
    return found


def _is_stashed_block(element: etree.Element) -> bool:
    """True for the paragraph Python-Markdown puts where a highlighted code block will go:
    it is matched as a bare ``<p>placeholder</p>``, so it must stay without attributes."""
    text = (element.text or "").strip()
    return len(element) == 0 and HTML_PLACEHOLDER_RE.fullmatch(text) is not None


def set_directions(root: etree.Element) -> None:
    """dir="auto" on text blocks, dir="rtl" on containers whose text starts right-to-left."""
    directions = _first_strong(root)
    for element in root.iter():
        tag = element.tag
        holds_text = tag in TEXT_BLOCKS or (
            tag in MIXED_BLOCKS and bool((element.text or "").strip())
        )
        if holds_text and not _is_stashed_block(element):
            element.set("dir", "auto")
        elif (tag in OUTER_BLOCKS or tag in MIXED_BLOCKS) and directions[element] == "rtl":
            element.set("dir", "rtl")


def _is_empty(cell: etree.Element) -> bool:
    """True for a cell with no text and no elements."""
    return len(cell) == 0 and not (cell.text or "").strip()


def tidy_tables(root: etree.Element) -> None:
    """Alignment as classes, no empty header cells, and focusable (scrolling) tables."""
    for table in root.iter("table"):
        table.set("tabindex", "0")
        for head in table.findall("thead"):
            cells = [cell for row in head for cell in row]
            if cells and all(_is_empty(cell) for cell in cells):
                table.remove(head)
                continue
            for cell in cells:
                if cell.tag == "th" and _is_empty(cell):
                    cell.tag = "td"
        for cell in table.iter():
            align = cell.attrib.pop("align", None) if cell.tag in ("th", "td") else None
            if align in ALIGN_CLASSES:
                cell.set("class", ALIGN_CLASSES[align])
