"""Images in a body: the site's own offer their resized copies, others are only found.

The render is told, for each address of a stored image the text uses, its size and the
srcset values of its copies (the caller looks them up: the pipeline reads no database).
Such an image becomes a <picture> with a WebP <source> ahead of an <img> that has its own
srcset, `sizes` for the text column, its width and height (so the page does not jump as it
loads) and lazy loading. Images from other sites are left alone: the Content-Security-Policy
blocks them, and `external_sources` lets the editor's preview say so.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree
from collections.abc import Mapping
from dataclasses import dataclass
from html.parser import HTMLParser

from markdown import Markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

from blog.markup.policy import is_external_url

# How wide a body image is shown: the text column, or the whole screen on a phone.
BODY_SIZES = "(min-width: 760px) 700px, 100vw"


@dataclass(frozen=True, slots=True)
class Copies:
    """What the render needs to offer a stored image's resized copies."""

    width: int
    height: int
    srcset: str  # copies in the image's own format, the original last
    webp_srcset: str  # the same widths in WebP ("" when the image is a WebP itself)


class ImagesTreeprocessor(Treeprocessor):
    """Gives each stored image the copies listed in `known`, keyed by the address written."""

    known: Mapping[str, Copies] = {}

    def run(self, root: etree.Element) -> None:
        if not self.known:
            return
        for parent in list(root.iter()):
            for index, child in enumerate(list(parent)):
                copies = self.known.get(child.get("src") or "") if child.tag == "img" else None
                if copies is not None:
                    self._offer(parent, index, child, copies)

    @staticmethod
    def _offer(parent: etree.Element, index: int, img: etree.Element, copies: Copies) -> None:
        """Add the copies to `img`, inside a <picture> when there are WebP ones."""
        img.set("width", str(copies.width))
        img.set("height", str(copies.height))
        img.set("loading", "lazy")
        img.set("decoding", "async")
        if not copies.srcset:
            return
        img.set("srcset", copies.srcset)
        img.set("sizes", BODY_SIZES)
        if not copies.webp_srcset:
            return
        picture = etree.Element("picture")
        etree.SubElement(
            picture, "source", {"type": "image/webp", "srcset": copies.webp_srcset}
        ).set("sizes", BODY_SIZES)
        picture.tail, img.tail = img.tail, None
        parent.remove(img)
        picture.append(img)
        parent.insert(index, picture)


class ImagesExtension(Extension):
    """Registers :class:`ImagesTreeprocessor` after the inline patterns made the <img>s."""

    def extendMarkdown(self, md: Markdown) -> None:
        md.treeprocessors.register(ImagesTreeprocessor(md), "images", 2)


class _Sources(HTMLParser):
    """Collects the addresses of images on other sites, in order, once each."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: dict[str, None] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        src = dict(attrs).get("src") if tag == "img" else None
        if src and is_external_url(src):
            self.found[src] = None


def external_sources(html: str) -> list[str]:
    """The addresses of the images on other sites that rendered HTML shows."""
    parser = _Sources()
    parser.feed(html)
    parser.close()
    return list(parser.found)
