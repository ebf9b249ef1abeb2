"""Python-Markdown's link and image processors, without their quadratic scans.

For every `[` in a paragraph, Python-Markdown's link processors walk character by
character to the matching `]`, and for every `](` to the matching `)`: a paragraph of
12,000 `[` took 24 seconds. Here each text is scanned once for where its brackets and
parentheses close, and each lookup is then a dictionary read. The results are exactly
Python-Markdown's (tests/markup/test_links.py compares them on generated text); a link
destination with a quote in it (a title) still takes the original walk, which the
pipeline's time limit (blog/markup/budget.py) bounds.
"""

from __future__ import annotations

import bisect
import re
from functools import cached_property

from markdown import Markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import (
    ImageInlineProcessor,
    ImageReferenceInlineProcessor,
    LinkInlineProcessor,
    ReferenceInlineProcessor,
    ShortImageReferenceInlineProcessor,
    ShortReferenceInlineProcessor,
)

_SQUARE_RE = re.compile(r"[\[\]]")
_ROUND_RE = re.compile(r"[()]")
_QUOTE_RE = re.compile(r"['\"]")


def _closing(pattern: re.Pattern[str], text: str, opening: str) -> dict[int, int]:
    """Where each opening character of `text` is closed (unclosed ones are left out)."""
    closed: dict[int, int] = {}
    open_at: list[int] = []
    for match in pattern.finditer(text):
        if match.group() == opening:
            open_at.append(match.start())
        elif open_at:
            closed[open_at.pop()] = match.start()
    return closed


class _Scan:
    """One text's brackets, parentheses and quotes, each found in one pass when needed."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def square(self) -> dict[int, int]:
        return _closing(_SQUARE_RE, self.text, "[")

    @cached_property
    def round(self) -> dict[int, int]:
        return _closing(_ROUND_RE, self.text, "(")

    @cached_property
    def quotes(self) -> list[int]:
        return [match.start() for match in _QUOTE_RE.finditer(self.text)]

    def quote_in(self, start: int, end: int) -> bool:
        """True when a quote character sits at a position from `start` up to `end`."""
        index = bisect.bisect_left(self.quotes, start)
        return index < len(self.quotes) and self.quotes[index] < end


class _Scanned(LinkInlineProcessor):
    """`getText` and `getLink` answered from a scan of the whole text."""

    _scan: _Scan | None = None

    def _scan_of(self, data: str) -> _Scan:
        """The scan of `data`, kept while the processor is handed the same string (it is,
        for every match it tries in one pass)."""
        scan = self._scan
        if scan is None or scan.text is not data:
            scan = self._scan = _Scan(data)
        return scan

    def getText(self, data: str, index: int) -> tuple[str, int, bool]:
        """The text up to the `]` closing the `[` before `index` (Python-Markdown's result)."""
        opening = index - 1
        if opening < 0 or data[opening] != "[":
            return super().getText(data, index)
        close = self._scan_of(data).square.get(opening)
        if close is None:
            return data[index:], len(data), False
        return data[index:close], close + 1, True

    def getLink(self, data: str, index: int) -> tuple[str, str | None, int, bool]:
        """The destination between `(` at `index` and its `)` (Python-Markdown's result)."""
        match = self.RE_LINK.match(data, pos=index)
        if match is None or match.group(1):
            return super().getLink(data, index)  # no `(`, or `(<...>)`: a regex does it
        start = match.end()
        scan = self._scan_of(data)
        close = scan.round.get(index)
        if scan.quote_in(start, len(data) if close is None else close):
            return super().getLink(data, index)  # maybe a title: the original rules
        if close is None:
            return "", None, len(data), False
        return self.unescape(data[start:close]).strip(), None, close + 1, True


class _Link(_Scanned):
    pass


class _Image(_Scanned, ImageInlineProcessor):
    pass


class _Reference(_Scanned, ReferenceInlineProcessor):
    pass


class _ShortReference(_Scanned, ShortReferenceInlineProcessor):
    pass


class _ImageReference(_Scanned, ImageReferenceInlineProcessor):
    pass


class _ShortImageReference(_Scanned, ShortImageReferenceInlineProcessor):
    pass


_FASTER: dict[type, type] = {
    LinkInlineProcessor: _Link,
    ImageInlineProcessor: _Image,
    ReferenceInlineProcessor: _Reference,
    ShortReferenceInlineProcessor: _ShortReference,
    ImageReferenceInlineProcessor: _ImageReference,
    ShortImageReferenceInlineProcessor: _ShortImageReference,
}


class LinearLinksExtension(Extension):
    """Gives Python-Markdown's own link and image processors the scanning methods above."""

    def extendMarkdown(self, md: Markdown) -> None:
        for processor in md.inlinePatterns:
            faster = _FASTER.get(type(processor))
            if faster is not None:
                # Same object, same name, priority and pattern: only the two methods change.
                processor.__class__ = faster
