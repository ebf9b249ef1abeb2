"""Code blocks: Pygments' HTML with a language label and a focusable, named scroll region.

Python-Markdown's codehilite hands the formatter the block's language as ``lang_str``
("language-python"); the block comes out as

    <div class="highlight"><p class="code-language">Python</p>
    <pre tabindex="0" role="group" aria-label="Python code"><span></span><code>…</code></pre></div>

so a keyboard can reach (and scroll) a block wider than the page and a screen reader names
it. The label is written here, on the server, so feeds carry it too; the copy button is
added in the browser (static/js/code.js), where the Clipboard API exists.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any

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


class CodeFormatter(HtmlFormatter):
    """Pygments' HTML formatter with the block's language label and a named scroll region."""

    def __init__(self, **options: Any) -> None:
        lang_str = str(options.pop("lang_str", ""))
        super().__init__(**options)
        lang = lang_str[len(LANG_PREFIX) :] if lang_str.startswith(LANG_PREFIX) else ""
        self.language = language_name(lang)

    def wrap(self, source: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
        """The label, then the code in a focusable <pre> named after its language."""
        name = html.escape(self.language)
        if name:
            yield 0, f'<p class="{CODE_LABEL_CLASS}">{name}</p>'
        label = f"{name} code" if name else "Code"
        yield 0, f'<pre tabindex="0" role="group" aria-label="{label}"><span></span><code>'
        yield from source
        yield 0, "</code></pre>"
