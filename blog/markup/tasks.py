"""Task lists: `- [ ] to do` and `- [x] done` as list items with a box that says which.

No form control (nothing to tick on a page that is read): the box is a character, ☐ or ☑,
in ``<span class="task-box" role="img" aria-label="Done">``, so screen readers say "Done" or
"Not done" and feed readers show the box.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

from markdown import Markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

MARKS = {"[ ]": False, "[x]": True, "[X]": True}


def _holder(item: etree.Element) -> etree.Element:
    """Where an item's text starts: the item, or its first paragraph in a loose list."""
    if not (item.text or "").strip() and len(item) and item[0].tag == "p":
        return item[0]
    return item


class TaskTreeprocessor(Treeprocessor):
    """Marks the items of bulleted lists that start with a box."""

    def run(self, root: etree.Element) -> None:
        for listing in root.iter("ul"):
            tasks = [item for item in listing if item.tag == "li" and self._task(item)]
            if tasks:
                listing.set("class", "task-list")

    @staticmethod
    def _task(item: etree.Element) -> bool:
        """Turn the item's leading `[ ]` or `[x]` into its box; False when it has none."""
        holder = _holder(item)
        text = holder.text or ""
        done = MARKS.get(text[:3])
        if done is None or not text[3:4].isspace():
            return False
        item.set("class", "task task-done" if done else "task")
        box = etree.Element(
            "span",
            {"class": "task-box", "role": "img", "aria-label": "Done" if done else "Not done"},
        )
        box.text = "☑" if done else "☐"
        box.tail = text[3:]
        holder.text = None
        holder.insert(0, box)
        return True


class TaskExtension(Extension):
    """Registers :class:`TaskTreeprocessor` after the inline patterns."""

    def extendMarkdown(self, md: Markdown) -> None:
        md.treeprocessors.register(TaskTreeprocessor(md), "tasks", 5)
