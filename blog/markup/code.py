"""Code blocks: Pygments' HTML with a language label and a focusable, named scroll region.

Python-Markdown's codehilite hands the formatter the block's language as ``lang_str``
("language-python"); the block comes out as

    <div class="highlight"><p class="code-language">Python</p>
    <pre tabindex="0" role="group" aria-label="Python code"><span></span><code>…</code></pre></div>

so a keyboard can reach (and scroll) a block wider than the page and a screen reader names
it. The label is written here, on the server, so feeds carry it too; the copy button is
added in the browser (static/js/code.js), where the Clipboard API exists.

A fence may also say, after its language, ``title="app.py"`` (a file name shown before the
language), ``hl_lines="2 4-5"`` (lines marked with <mark>) and ``linenums="1"`` (lines
numbered by the stylesheet, so that copying the code copies no number). In a ``diff`` block
added and removed lines are <ins> and <del>, which keep their + and -, so they are told apart
by more than colour.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

from markdown import Markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor
from pygments.formatters import HtmlFormatter
from pygments.lexers import find_lexer_class_by_name
from pygments.util import ClassNotFound

LANG_PREFIX = "language-"
CODE_LABEL_CLASS = "code-language"
# A language Pygments does not know is shown as written, when it is short enough to be a name.
LABEL_MAX = 24
NO_LABEL = frozenset({"", "text", "txt", "plain", "plaintext", "none"})
# Pygments' names where readers know the language by another one.
READABLE_NAMES = {
    "Bash": "Shell",
    "Bash Session": "Shell session",
    "Docker": "Dockerfile",
    "Text only": "",
}


def language_name(lang: str) -> str:
    """A readable name for a fence's language ("py" → "Python"), or "" for none or junk."""
    lang = lang.strip()
    if lang.lower() in NO_LABEL or len(lang) > 100:
        return ""
    try:
        name = find_lexer_class_by_name(lang.lower()).name
    except ClassNotFound:
        return lang if len(lang) <= LABEL_MAX else ""
    return READABLE_NAMES.get(name, name)


TITLE_MAX = 80  # characters of a file name shown above the code
# The formatter options a fence may set; anything else it writes is dropped.
PASSED_OPTIONS = frozenset({"cssclass", "wrapcode", "hl_lines"})
_HLL_OPEN, _SPAN_CLOSE = '<span class="hll">', "</span>"
_DIFF_LINE_RE = re.compile(r'<span class="(gi|gd)">(.*)</span>(\n?)', re.DOTALL)


def _numbered(value: object) -> bool:
    """True when `linenums` asks for numbers (codehilite hands it over as `linenos`)."""
    return value not in (None, False, 0, "", "false", "none")


class CodeFormatter(HtmlFormatter):
    """Pygments' HTML formatter with the block's language label and a named scroll region."""

    def __init__(self, **options: Any) -> None:
        lang_str = str(options.pop("lang_str", ""))
        title = " ".join(str(options.pop("title", "") or "").split())
        self.numbered = _numbered(options.pop("linenos", None))
        kept = {name: value for name, value in options.items() if name in PASSED_OPTIONS}
        if self.numbered:
            kept["cssclass"] = f"{kept.get('cssclass', 'highlight')} numbered"
        super().__init__(**kept)
        lang = lang_str[len(LANG_PREFIX) :] if lang_str.startswith(LANG_PREFIX) else ""
        self.language = language_name(lang)
        self.diff = lang.lower() in ("diff", "udiff", "patch")
        self.title = title if len(title) <= TITLE_MAX else ""

    def wrap(self, source: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
        """The label, then the code in a focusable <pre> named after its language."""
        name = html.escape(self.language)
        title = html.escape(self.title)
        if title:
            shown = f'<span class="code-file">{title}</span>' + (f" {name}" if name else "")
            yield 0, f'<p class="{CODE_LABEL_CLASS}">{shown}</p>'
        elif name:
            yield 0, f'<p class="{CODE_LABEL_CLASS}">{name}</p>'
        label = f"{name} code" if name else "Code"
        if title:
            label = f"{title}, {name} code" if name else f"{title}, code"
        yield 0, f'<pre tabindex="0" role="group" aria-label="{label}"><span></span><code>'
        for kind, line in source:
            yield kind, self._line(line) if kind == 1 else line
        yield 0, "</code></pre>"

    def _line(self, line: str) -> str:
        """One line of code: a marked line as <mark>, a diff's line as <ins> or <del>, and
        each line in a span the stylesheet numbers when numbers were asked for."""
        if line.startswith(_HLL_OPEN) and line.endswith(_SPAN_CLOSE):
            line = f'<mark class="hll">{line[len(_HLL_OPEN) : -len(_SPAN_CLOSE)]}</mark>'
        if self.diff:
            found = _DIFF_LINE_RE.fullmatch(line)
            if found:
                tag = "ins" if found.group(1) == "gi" else "del"
                line = f'<{tag}><span class="{found.group(1)}">{found.group(2)}</span></{tag}>'
                line += found.group(3)
        if self.numbered:
            return f'<span class="line">{line}</span>'
        return line


# An opening fence: backticks or tildes, a language, then name="value" options.
_FENCE_RE = re.compile(r"(?P<fence>`{3,}|~{3,})[ ]*(?P<info>[^`\n]*)")
_OPENER_RE = re.compile(
    r"\.?(?P<lang>[\w#.+-]+)(?P<options>(?:[ ]+[a-z_]+=(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s\"']+))*)[ ]*"
)
_OPTION_RE = re.compile(r"([a-z_]+)=(\"[^\"\n]*\"|'[^'\n]*'|[^\s\"']+)")
FENCE_OPTIONS = frozenset({"title", "hl_lines", "linenums"})


def fences(lines: list[str]) -> Iterator[tuple[int, int, re.Match[str]]]:
    """Each fenced block of `lines` at the top level: (first line, closing line, opening
    match). A block left open runs to the end (closing line is len(lines))."""
    index = 0
    while index < len(lines):
        opening = _FENCE_RE.fullmatch(lines[index])
        if opening is None:
            index += 1
            continue
        fence = opening.group("fence")
        end = index + 1
        while end < len(lines):
            if lines[end].rstrip(" ") == fence:
                break
            end += 1
        yield index, end, opening
        index = end + 1


def fence_options(info: str) -> tuple[str, dict[str, str]] | None:
    """A fence's language and options (`title`, `hl_lines`, `linenums`) when its info
    string is `lang` or `lang name="value" ...`; None for any other info string."""
    found = _OPENER_RE.fullmatch(info)
    if found is None:
        return None
    options = {
        name: value.strip("\"'") for name, value in _OPTION_RE.findall(found.group("options"))
    }
    if not set(options) <= FENCE_OPTIONS:
        return None
    return found.group("lang"), options


def _quoted(value: str) -> str:
    """A value in double quotes for the attribute form Python-Markdown reads."""
    return '"' + value.replace('"', "") + '"'


class FenceOptionsPreprocessor(Preprocessor):
    """Rewrites ```` ```lang title="a.py" linenums="1" ```` into the ```` ``` { .lang ... } ````
    form Python-Markdown's fenced_code reads, which hands the options to the formatter."""

    def run(self, lines: list[str]) -> list[str]:
        for index, _end, opening in list(fences(lines)):
            parsed = fence_options(opening.group("info"))
            if parsed is None or not parsed[1]:
                continue
            lang, options = parsed
            pairs = " ".join(f"{name}={_quoted(value)}" for name, value in options.items())
            lines[index] = f"{opening.group('fence')} {{ .{lang} {pairs} }}"
        return lines


class FenceOptionsExtension(Extension):
    """Registers :class:`FenceOptionsPreprocessor` ahead of fenced_code (priority 25)."""

    def extendMarkdown(self, md: Markdown) -> None:
        md.preprocessors.register(FenceOptionsPreprocessor(md), "fence_options", 27)
