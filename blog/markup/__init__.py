"""Fieldnotes Markdown pipeline: Markdown -> pipeline ids/links -> sanitized HTML.

Defences are stacked, so no single layer is trusted alone:

1. Raw HTML in Markdown is kept as HTML (so Markdown's text rules, typographic quotes
   among them, never reach inside a tag) and held, with everything else, to the allow-list
   below; what a script or style element holds is dropped, not shown. Control characters,
   including Markdown's own placeholder markers, are stripped from the input.
2. ``markup_tree.PipelineTreeprocessor`` drops unsafe href/src values, adds rel to
   external links and gives every id the pipeline's prefix.
3. ``sanitize`` runs bleach with an explicit tag list and a callable attribute filter
   (``markup_policy.allow_attribute``) that also checks URLs, ids and classes.
4. ``sanitize`` re-parses bleach's output with the standard library and, should
   anything outside the policy remain, returns the text escaped instead.

Every render runs under a time limit (``budget.within``; the app's MARKDOWN_TIME_LIMIT,
``budget.DEFAULT_LIMIT`` seconds outside an app) and raises ``TooSlow`` past it, so text
built to be slow to parse costs a request at most that long.

The bottom layer: it imports nothing of the blog but itself, and every area may import it.
"""

from __future__ import annotations

import html
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass

import bleach
import markdown
from flask import current_app, has_app_context

from blog.markup.budget import DEFAULT_LIMIT, TooSlow, within
from blog.markup.callouts import CalloutExtension
from blog.markup.code import CodeFormatter, FenceOptionsExtension
from blog.markup.diagrams import DiagramExtension
from blog.markup.figures import FigureExtension
from blog.markup.formulas import FormulaExtension
from blog.markup.images import Copies, ImagesExtension
from blog.markup.links import LinearLinksExtension
from blog.markup.policy import ALLOWED_TAGS, SAFE_SCHEMES, allow_attribute, find_violations
from blog.markup.tasks import TaskExtension
from blog.markup.text import TextStats, minutes_for, text_stats, truncate_words
from blog.markup.text import plain_text as _plain_text
from blog.markup.tree import PipelineExtension, heading_slug

__all__ = [
    "PIPELINE_VERSION",
    "Copies",
    "Rendered",
    "TocEntry",
    "TooSlow",
    "derive_summary",
    "plain_text",
    "reading_minutes",
    "render",
    "sanitize",
]

# Bumped when the HTML a body renders to changes, so stored renders are made again (on the
# next save, and by `posts rerender`). 2: code labels and focus, table alignment, dir. 3: the
# site's own images in bodies offer their resized copies (srcset). 4: formulas, diagrams,
# callouts, figures, code titles, marked and numbered lines, diff lines, task lists, keys,
# abbreviations and marked text. 5: raw HTML in Markdown goes through the allow-list instead of
# being shown as text.
PIPELINE_VERSION = 5
TOC_MIN_SECTIONS = 3
SUMMARY_LIMIT = 300
WORDS_PER_MINUTE = 230

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

_EXTENSIONS = [
    DiagramExtension(),
    FenceOptionsExtension(),
    "fenced_code",
    "codehilite",
    "tables",
    "footnotes",
    "def_list",
    "smarty",
    "toc",
    "pymdownx.magiclink",
    "admonition",
    "pymdownx.details",
    "abbr",
    "pymdownx.keys",
    "pymdownx.mark",
    FormulaExtension(),
    CalloutExtension(),
    TaskExtension(),
    FigureExtension(),
    LinearLinksExtension(),
    ImagesExtension(),
    PipelineExtension(),
]
_EXTENSION_CONFIGS = {
    "codehilite": {
        "css_class": "highlight",
        "guess_lang": False,
        "use_pygments": True,
        "pygments_formatter": CodeFormatter,
    },
    "tables": {"use_align_attribute": True},
    "footnotes": {"SEPARATOR": "-"},
    "toc": {
        "slugify": heading_slug,
        "permalink": True,
        "permalink_class": "headerlink",
        "permalink_title": "Permanent link",
        "toc_depth": "2-3",
        "marker": "",
    },
}


@dataclass(frozen=True)
class TocEntry:
    level: int
    id: str
    title: str  # plain text


@dataclass(frozen=True)
class Rendered:
    html: str  # sanitized body HTML
    toc: list[TocEntry]  # headings level 2-3 in order
    reading_minutes: int
    summary: str  # plain text from the first paragraph (for when the editor's is empty)
    words: int = 0  # prose and code words, the ones the reading time counts

    @property
    def show_toc(self) -> bool:
        """True when the post has TOC_MIN_SECTIONS or more top-level sections."""
        if not self.toc:
            return False
        top = min(entry.level for entry in self.toc)
        return sum(entry.level == top for entry in self.toc) >= TOC_MIN_SECTIONS


_local = threading.local()


def _converter() -> markdown.Markdown:
    """One Markdown instance per thread (instances are not thread-safe)."""
    md = getattr(_local, "md", None)
    if md is None:
        md = markdown.Markdown(extensions=_EXTENSIONS, extension_configs=_EXTENSION_CONFIGS)
        _local.md = md
    return md


def _flatten(tokens: list[dict]) -> list[TocEntry]:
    entries: list[TocEntry] = []
    for token in tokens:
        if 2 <= token["level"] <= 3:
            title = " ".join(html.unescape(token["name"]).split())
            entries.append(TocEntry(level=token["level"], id=token["id"], title=title))
        entries.extend(_flatten(token.get("children", [])))
    return entries


def _to_html(
    markdown_text: str,
    *,
    nofollow: bool = False,
    images: Mapping[str, Copies] | None = None,
    limit: float = DEFAULT_LIMIT,
) -> tuple[str, list[TocEntry]]:
    """Markdown to sanitized HTML plus TOC entries; diagrams share `limit` seconds."""
    md = _converter()
    md.reset()
    md.treeprocessors["fieldnotes"].nofollow = nofollow
    md.treeprocessors["images"].known = images or {}
    md.preprocessors["diagrams"].limit = limit
    body = md.convert(_CONTROL_RE.sub("", markdown_text or ""))
    # Only raw HTML can make markup a parser rebuilds: without a tag, one pass is enough.
    settle = _RAW_TAG.search(markdown_text or "") is not None
    return sanitize(_drop_unseen(body), settle=settle), _flatten(getattr(md, "toc_tokens", []))


# Elements whose content is never text a reader should see: the sanitizer would keep it.
_UNSEEN_OPEN = re.compile(r"<(script|style|template|noscript)\b", re.IGNORECASE)


def _drop_unseen(html_text: str) -> str:
    """The HTML without script, style, template and noscript elements and what they hold
    (only tidiness: ``sanitize`` removes the elements themselves either way). Linear: an
    element left open is not looked for again."""
    kept: list[str] = []
    position = 0
    unclosed: set[str] = set()
    for opened in _UNSEEN_OPEN.finditer(html_text):
        name = opened[1].lower()
        if opened.start() < position or name in unclosed:
            continue
        closing = re.compile(rf"</{name}\s*>", re.IGNORECASE).search(html_text, opened.end())
        if closing is None:
            unclosed.add(name)
            continue
        kept.append(html_text[position : opened.start()])
        position = closing.end()
    kept.append(html_text[position:])
    return "".join(kept)


def _time_limit(given: float | None) -> float:
    """The limit a render runs under: `given`, else the app's setting, else the default."""
    if given is not None:
        return given
    if has_app_context():
        return float(current_app.config.get("MARKDOWN_TIME_LIMIT", DEFAULT_LIMIT))
    return DEFAULT_LIMIT


def _timed(
    markdown_text: str,
    nofollow: bool,
    time_limit: float | None,
    images: Mapping[str, Copies] | None = None,
) -> tuple[str, list[TocEntry], TextStats]:
    """The sanitized HTML, TOC entries and text stats, or TooSlow past the time limit."""

    limit = _time_limit(time_limit)

    def work() -> tuple[str, list[TocEntry], TextStats]:
        body, toc = _to_html(markdown_text, nofollow=nofollow, images=images, limit=limit)
        return body, toc, text_stats(body)

    _converter()  # built before the clock starts (and before a fork, so the child has it)
    try:
        return within(limit, work)
    except TooSlow:
        _local.md = None  # stopped halfway: its state is not worth keeping
        raise


def render(
    markdown_text: str,
    *,
    nofollow: bool = False,
    time_limit: float | None = None,
    images: Mapping[str, Copies] | None = None,
) -> Rendered:
    """Render a post body; the html is sanitized and safe to mark as Markup.

    `images` gives, by the address the text uses, the resized copies of the site's own
    images. Raises TooSlow when it takes longer than `time_limit` seconds (by default the
    app's MARKDOWN_TIME_LIMIT), having kept nothing.
    """
    body, toc, stats = _timed(markdown_text, nofollow, time_limit, images)
    return Rendered(
        html=body,
        toc=toc,
        reading_minutes=minutes_for(stats, WORDS_PER_MINUTE),
        summary=truncate_words(stats.first_paragraph, SUMMARY_LIMIT),
        words=stats.prose_words + stats.code_words,
    )


_PRE_NEWLINE = re.compile(r"(<pre\b[^>]*>)\n")
# A tag, comment or declaration a body may hold as raw HTML.
_RAW_TAG = re.compile(r"<[A-Za-z!/?]")
SANITIZE_PASSES = 4


def sanitize(html: str, *, settle: bool = True) -> str:
    """Allowlist-sanitize HTML. The ONLY place the sanitizer library (bleach) is called.

    With `settle`, cleaning goes on until nothing changes: HTML that a parser rebuilds (a
    list item left open before a table, as raw HTML may write it) then reads the same to the
    next parser, a browser's included, and markup that never settles is shown as text.
    Without it, one pass (the pipeline's own markup, with no raw HTML, is stable in one).
    """
    cleaned = html
    for _ in range(SANITIZE_PASSES if settle else 1):
        again = bleach.clean(
            cleaned,
            tags=ALLOWED_TAGS,
            attributes=allow_attribute,
            protocols=SAFE_SCHEMES,
            strip=True,
            strip_comments=True,
        )
        if again == cleaned:
            break
        cleaned = again
    else:
        if settle:
            return _escape_all(cleaned)
    if find_violations(cleaned):  # belt and braces: never trust one parser's view
        return _escape_all(cleaned)
    # An HTML parser drops the newline right after <pre>, and the serializer does not put
    # one back as the HTML standard says it should: double it, so what browsers show keeps
    # a leading blank line and cleaning the output again changes nothing.
    return _PRE_NEWLINE.sub("\\1\n\n", cleaned)


def _escape_all(markup: str) -> str:
    """Last-resort output: the markup shown as text."""
    return html.escape(markup, quote=False)


def derive_summary(markdown_text: str, limit: int = SUMMARY_LIMIT) -> str:
    """Plain-text summary from the first paragraph, cut at a word boundary (TooSlow as render)."""
    _, _, stats = _timed(markdown_text, False, None)
    return truncate_words(stats.first_paragraph, limit)


def reading_minutes(markdown_text: str, wpm: int = WORDS_PER_MINUTE) -> int:
    """Whole minutes to read a body (code words count half), at least 1 (TooSlow as render)."""
    _, _, stats = _timed(markdown_text, False, None)
    return minutes_for(stats, wpm)


def plain_text(text: str) -> str:
    """Strip any markup (HTML or inline Markdown) from a one-line field."""
    return _plain_text(text or "")
