"""Python-Markdown extension that applies the pipeline's own link, URL and id rules,
and its block rules (``blocks``: text direction, tables).

Runs after every other tree processor (so after inline patterns, footnotes and the
table of contents), before serialization and sanitizing.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from markdown import Markdown
from markdown.extensions import Extension
from markdown.extensions.toc import slugify as toc_slugify
from markdown.treeprocessors import Treeprocessor

from blog.markup.blocks import set_directions, tidy_tables
from blog.markup.policy import HEADING_ID_PREFIX, ID_RE, is_external_url, is_safe_url

_ID_SPLIT_RE = re.compile(r"(s|fn|fnref\d*)-(.*)", re.DOTALL)
_ID_UNSAFE_RE = re.compile(r"[^A-Za-z0-9_-]+")


def heading_slug(value: str, separator: str) -> str:
    """Heading id: fixed prefix plus an ASCII slug, never empty after the prefix."""
    return HEADING_ID_PREFIX + (toc_slugify(value, separator) or "section")


class PipelineTreeprocessor(Treeprocessor):
    """Vet URLs, set rel on external links, normalize pipeline-made ids, apply block rules."""

    nofollow = False

    def run(self, root: etree.Element) -> None:
        tidy_tables(root)
        set_directions(root)
        renamed = self._normalize_ids(root)
        rel = "noopener noreferrer nofollow" if self.nofollow else "noopener noreferrer"
        for element in root.iter("a"):
            href = element.get("href")
            element.attrib.pop("target", None)
            if href is None:
                continue
            if not is_safe_url(href):
                del element.attrib["href"]
            elif href.startswith("#") and href[1:] in renamed:
                element.set("href", "#" + renamed[href[1:]])
            elif is_external_url(href):
                element.set("rel", rel)
        for element in root.iter("img"):
            src = element.get("src")
            if src is not None and not is_safe_url(src):
                del element.attrib["src"]

    @staticmethod
    def _normalize_ids(root: etree.Element) -> dict[str, str]:
        """Give every id the pipeline's prefix and a safe charset; return renames."""
        used = {el.get("id") for el in root.iter() if ID_RE.fullmatch(el.get("id") or "")}
        renamed: dict[str, str] = {}
        for element in root.iter():
            old = element.get("id")
            if old is None or ID_RE.fullmatch(old):
                continue
            match = _ID_SPLIT_RE.fullmatch(old)
            if match is None:
                del element.attrib["id"]
                continue
            base = f"{match.group(1)}-{_ID_UNSAFE_RE.sub('-', match.group(2)).strip('-')}"
            new, n = base, 1
            while new in used:
                n += 1
                new = f"{base}-{n}"
            used.add(new)
            renamed[old] = new
            element.set("id", new)
        return renamed


class PipelineExtension(Extension):
    """Registers :class:`PipelineTreeprocessor` last. Raw HTML stays on: Markdown keeps it
    out of its text rules (no typographic quote enters a tag), and ``sanitize`` holds it to
    the allow-list with the rest of the page."""

    def extendMarkdown(self, md: Markdown) -> None:
        md.treeprocessors.register(PipelineTreeprocessor(md), "fieldnotes", 1)
