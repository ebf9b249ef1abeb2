"""Figures: an image with a caption under it becomes ``<figure>`` with ``<figcaption>``.

The image stands alone on its line and the caption follows on the next line(s) of the same
paragraph; ``{.wide}`` right after the image lets the figure break out of the text column::

    ![Latency before and after the change](/images/….png){.wide}
    p99 latency over one week; the change shipped on Wednesday.

An image with nothing after it, or inside a sentence, stays as it is.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

from markdown import Markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

WIDE = "{.wide}"


class FigureTreeprocessor(Treeprocessor):
    """Makes a figure of each paragraph that is an image, a line break and a caption."""

    def run(self, root: etree.Element) -> None:
        for parent in list(root.iter()):
            for index, child in enumerate(list(parent)):
                if child.tag == "p":
                    figure = self._figure(child)
                    if figure is not None:
                        parent.remove(child)
                        parent.insert(index, figure)

    @staticmethod
    def _figure(paragraph: etree.Element) -> etree.Element | None:
        """The paragraph as a figure, or None when it is not an image and its caption."""
        if (paragraph.text or "").strip() or not len(paragraph) or paragraph[0].tag != "img":
            return None
        image = paragraph[0]
        after = image.tail or ""
        wide = after.startswith(WIDE)
        if wide:
            after = after[len(WIDE) :]
        line, newline, caption_text = after.partition("\n")
        if line.strip() or not newline or not (caption_text.strip() or len(paragraph) > 1):
            return None
        figure = etree.Element("figure", {"class": "figure figure-wide" if wide else "figure"})
        figure.tail = paragraph.tail
        image.tail = None
        figure.append(image)
        caption = etree.SubElement(figure, "figcaption")
        caption.text = caption_text.lstrip()
        for child in list(paragraph)[1:]:
            caption.append(child)
        return figure


class FigureExtension(Extension):
    """Registers :class:`FigureTreeprocessor` before the images get their copies (2)."""

    def extendMarkdown(self, md: Markdown) -> None:
        md.treeprocessors.register(FigureTreeprocessor(md), "figures", 3)
