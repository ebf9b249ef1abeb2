"""Callouts: note, tip, warning and danger blocks, with an icon and a role screen readers say.

Two ways to write one, both common elsewhere, both giving the same HTML:

* GitHub's, a quotation whose first line names the kind (GitHub's five kinds are read as
  ours: IMPORTANT as a note, CAUTION as danger)::

      > [!WARNING]
      > Take a backup first.

* Python-Markdown's admonitions, with a title of one's own, and pymdownx's collapsible form
  (``???`` folded, ``???+`` open)::

      !!! tip "Faster builds"
          Cache the dependencies.

      ??? note "Why not a cron job?"
          Because ...

A callout comes out as ``<div class="callout callout-tip" role="note">`` holding a title
paragraph, ``<p class="callout-title">``, whose first child is the kind's icon (an SVG the
screen reader skips), then the body; a collapsible one is ``<details class="callout …">`` with
the title as its ``<summary>``. Any other kind is a note.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

from markdown import Markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

from blog.markup.policy import CALLOUT_KINDS

TITLES = {"note": "Note", "tip": "Tip", "warning": "Warning", "danger": "Danger"}
# Other names for the kinds, GitHub's and Python-Markdown's usual ones among them.
ALIASES = {
    "important": "note",
    "info": "note",
    "abstract": "note",
    "hint": "tip",
    "success": "tip",
    "caution": "danger",
    "error": "danger",
    "failure": "danger",
    "bug": "danger",
    "attention": "warning",
}
# 20 × 20 icons drawn with the text colour: i in a circle, a light bulb, ! in a triangle,
# ! in an octagon.
ICONS = {
    "note": ("M10 2a8 8 0 1 0 0 16a8 8 0 1 0 0-16z", "M10 9v5", "M10 6v.5"),
    "tip": ("M7 13a5 5 0 1 1 6 0v2h-6z", "M8 18h4"),
    "warning": ("M10 2l8.5 15h-17z", "M10 8v4", "M10 14.5v.5"),
    "danger": ("M7 2h6l5 5v6l-5 5h-6l-5-5v-6z", "M10 6v5", "M10 13.5v.5"),
}
_GITHUB_PREFIX = "[!"


def kind_of(name: str) -> str:
    """One of CALLOUT_KINDS for a name as written ("WARNING", "caution", "tip")."""
    name = name.strip().lower()
    name = ALIASES.get(name, name)
    return name if name in CALLOUT_KINDS else "note"


def icon(kind: str) -> etree.Element:
    """The kind's icon: stroked paths in the text colour, hidden from screen readers."""
    svg = etree.Element(
        "svg",
        {
            "width": "20",
            "height": "20",
            "viewBox": "0 0 20 20",
            "aria-hidden": "true",
            "fill": "none",
            "stroke": "currentColor",
            "stroke-width": "1.6",
            "stroke-linecap": "round",
            "stroke-linejoin": "round",
        },
    )
    for data in ICONS[kind]:
        etree.SubElement(svg, "path", {"d": data})
    return svg


def _titled(title: etree.Element, kind: str, text: str | None) -> None:
    """Put the icon first in the title element, then `text` (None keeps what it holds)."""
    if text is not None:
        for child in list(title):
            title.remove(child)
        title.text = text
    mark = icon(kind)
    mark.tail = title.text
    title.text = None
    title.insert(0, mark)


def _classes(element: etree.Element) -> list[str]:
    return (element.get("class") or "").split()


class CalloutTreeprocessor(Treeprocessor):
    """Turns admonitions, collapsible details and GitHub's alerts into callouts."""

    def run(self, root: etree.Element) -> None:
        for parent in list(root.iter()):
            for index, child in enumerate(list(parent)):
                if child.tag == "div" and "admonition" in _classes(child):
                    self._admonition(child)
                elif child.tag == "details":
                    self._details(child)
                elif child.tag == "blockquote":
                    callout = self._alert(child)
                    if callout is not None:
                        parent.remove(child)
                        parent.insert(index, callout)

    @staticmethod
    def _admonition(div: etree.Element) -> None:
        """Python-Markdown's `<div class="admonition tip">` with its title paragraph."""
        names = [name for name in _classes(div) if name != "admonition"]
        kind = kind_of(names[0] if names else "note")
        div.attrib.clear()
        div.set("class", f"callout callout-{kind}")
        div.set("role", "note")
        title = div[0] if len(div) and "admonition-title" in _classes(div[0]) else None
        if title is None:
            title = etree.Element("p")
            div.insert(0, title)
            _titled(title, kind, TITLES[kind])
        else:
            _titled(title, kind, None if (title.text or len(title)) else TITLES[kind])
        title.attrib.clear()
        title.set("class", "callout-title")

    @staticmethod
    def _details(details: etree.Element) -> None:
        """pymdownx's `<details class="tip">` with its `<summary>` title."""
        names = _classes(details)
        kind = kind_of(names[0] if names else "note")
        opened = details.get("open") is not None
        details.attrib.clear()
        details.set("class", f"callout callout-{kind}")
        if opened:
            details.set("open", "")
        summary = details[0] if len(details) and details[0].tag == "summary" else None
        if summary is None:
            summary = etree.Element("summary")
            details.insert(0, summary)
            _titled(summary, kind, TITLES[kind])
        else:
            _titled(summary, kind, None if (summary.text or len(summary)) else TITLES[kind])
        summary.attrib.clear()
        summary.set("class", "callout-title")

    @staticmethod
    def _alert(quote: etree.Element) -> etree.Element | None:
        """GitHub's `> [!NOTE]` quotation as a callout; None for any other quotation."""
        first = quote[0] if len(quote) and quote[0].tag == "p" else None
        text = (first.text or "") if first is not None else ""
        if first is None or not text.startswith(_GITHUB_PREFIX):
            return None
        head, _, rest = text.partition("\n")
        name = head[len(_GITHUB_PREFIX) :].rstrip()
        if not name.endswith("]") or not name[:-1].isalpha():
            return None
        kind = kind_of(name[:-1])
        callout = etree.Element("div", {"class": f"callout callout-{kind}", "role": "note"})
        title = etree.SubElement(callout, "p", {"class": "callout-title"})
        _titled(title, kind, TITLES[kind])
        if rest.strip() or len(first):
            first.text = rest
            callout.append(first)
        for child in list(quote)[1:]:
            callout.append(child)
        callout.tail = quote.tail
        return callout


class CalloutExtension(Extension):
    """Registers :class:`CalloutTreeprocessor` after the inline patterns, before the
    pipeline's own rules (priority 1)."""

    def extendMarkdown(self, md: Markdown) -> None:
        md.treeprocessors.register(CalloutTreeprocessor(md), "callouts", 4)
