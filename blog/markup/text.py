"""Plain-text helpers for the Markdown pipeline: word counts, summaries, plain_text."""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

CODE_WORD_WEIGHT = 0.5  # readers skim code blocks: a code word counts as half a prose word
ELLIPSIS = "\u2026"

_WORD_RE = re.compile(r"\w+(?:['\u2019.-]\w+)*")
_SPACE_RE = re.compile(r"\s+")
_VOID = frozenset({"br", "hr", "img", "wbr", "input", "meta", "link", "source", "col"})
_SKIPPED_CLASSES = frozenset({"headerlink", "footnote-backref", "code-language"})
# A drawing's labels are not read as text; a formula is read as its TeX (its annotation).
_SKIPPED_TAGS = frozenset({"sup", "svg", "semantics"})
_TRAILING_JUNK = ",;:-\u2013\u2014([{\"'\u201c\u2018 "


@dataclass
class TextStats:
    """What the pipeline needs to know about rendered HTML as text."""

    prose_words: int = 0
    code_words: int = 0
    first_paragraph: str = ""
    paragraphs: list[str] = field(default_factory=list)


class _TextWalker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stats = TextStats()
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped)
        self.in_pre = 0
        self.in_tex = 0
        self.skipping = 0
        self.paragraph: list[str] | None = None
        self.paragraph_depth = -1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        skipped = bool(classes & _SKIPPED_CLASSES) or tag in _SKIPPED_TAGS
        if tag == "p" and not self.stack and self.paragraph is None:
            self.paragraph, self.paragraph_depth = [], 0
        self.stack.append((tag, skipped))
        self.in_pre += tag == "pre"
        self.in_tex += tag == "annotation"
        self.skipping += skipped

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not any(t == tag for t, _ in self.stack):
            return
        while self.stack:
            open_tag, skipped = self.stack.pop()
            self.in_pre -= open_tag == "pre"
            self.in_tex -= open_tag == "annotation"
            self.skipping -= skipped
            if open_tag == tag:
                break
        if self.paragraph is not None and len(self.stack) == self.paragraph_depth:
            text = _SPACE_RE.sub(" ", "".join(self.paragraph)).strip()
            self.stats.paragraphs.append(text)
            self.paragraph = None

    def handle_data(self, data: str) -> None:
        if self.in_pre:
            self.stats.code_words += len(_WORD_RE.findall(data))
            return
        if self.skipping and not self.in_tex:  # a formula's TeX is read, in its skipped math
            return
        self.stats.prose_words += len(_WORD_RE.findall(data))
        if self.paragraph is not None:
            self.paragraph.append(data)


def text_stats(markup: str) -> TextStats:
    """Word counts (prose vs code blocks) and top-level paragraphs of rendered HTML."""
    walker = _TextWalker()
    walker.feed(markup)
    walker.close()
    stats = walker.stats
    stats.first_paragraph = next((p for p in stats.paragraphs if p), "")
    return stats


def minutes_for(stats: TextStats, wpm: int) -> int:
    """Whole reading minutes (rounded half up), never less than 1."""
    words = stats.prose_words + CODE_WORD_WEIGHT * stats.code_words
    return max(1, math.floor(words / max(wpm, 1) + 0.5))


def truncate_words(text: str, limit: int) -> str:
    """Cut plain text at a word boundary so that the result, ellipsis included, fits limit."""
    text = _SPACE_RE.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    if limit < 2:
        return ELLIPSIS[:limit]
    head = text[: limit - 1]
    if not text[limit - 1].isspace() and " " in head:
        head = head.rsplit(" ", 1)[0]
    return head.rstrip(_TRAILING_JUNK) + ELLIPSIS


_CODE_SPAN_RE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_COMMENT_RE = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_TAG_RE = re.compile(r"</?[A-Za-z][^>]*>?|<[!?][^>]*>?")
_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK_RE = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_STRONG_RE = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EM_RE = re.compile(r"\*(?=\S)(.+?)(?<=\S)\*|(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)")
_ESCAPE_RE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _strip_inline(text: str) -> str:
    text = _COMMENT_RE.sub("", text)
    text = _TAG_RE.sub("", text)
    text = _IMAGE_RE.sub(r"\1", text)
    text = _LINK_RE.sub(r"\1", text)
    text = _STRONG_RE.sub(r"\2", text)
    text = _EM_RE.sub(lambda m: m.group(1) or m.group(2), text)
    return _ESCAPE_RE.sub(r"\1", text)


def plain_text(text: str) -> str:
    """Plain text of a one-line field written in inline Markdown and/or HTML.

    HTML tags and comments are removed, Markdown emphasis/links/images reduced to
    their text, code spans kept literally, entities decoded, whitespace collapsed.
    The result is text, not HTML: escape it (Jinja does) wherever it is output.
    """
    parts: list[str] = []
    last = 0
    for match in _CODE_SPAN_RE.finditer(text):
        parts.append(html.unescape(_strip_inline(text[last : match.start()])))
        parts.append(match.group(2).strip())
        last = match.end()
    parts.append(html.unescape(_strip_inline(text[last:])))
    joined = _CONTROL_RE.sub("", "".join(parts))
    return _SPACE_RE.sub(" ", joined).strip()
