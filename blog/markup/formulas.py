"""Formulas: `$…$` inline and `$$…$$` display TeX, written on the server as MathML.

Every current browser draws MathML Core, so readers (and feed readers) get the formula with
no script. latex2mathml does the reading; what it makes is checked and written out here,
never passed on as its text (it does not escape `\\text{<b>}`, and writes commands it does
not know as letters):

* a formula that does not read (unbalanced braces, a command latex2mathml does not know, a
  fraction or power missing a part) becomes its source as code, ``<code class="math-error"
  title="…">``, the title saying why, which the editor's preview shows beside it;
* only the elements and attributes of the sanitizer's MathML allow-list are written
  (``policy.MATHML_TAGS``), colours and styles are left out, and the TeX travels inside as an
  ``<annotation>`` that browsers do not draw.

Dollars follow Pandoc's rule, so prices stay text: the opening `$` has a non-space after it,
the closing one a non-space before it and no digit after it ("$5 and $10" is text), and `\\$`
is a dollar sign.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as etree

from latex2mathml.converter import convert_to_element
from markdown import Markdown
from markdown.blockprocessors import BlockProcessor
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor

from blog.markup.policy import MATHML_TAGS, TEX_ENCODING, allow_attribute

FORMULA_MAX = 4_000  # characters of TeX in one formula
# Elements that take a fixed number of parts: a formula missing one does not read.
ARITY = {
    "mfrac": 2,
    "msup": 2,
    "msub": 2,
    "msubsup": 3,
    "mroot": 2,
    "munder": 2,
    "mover": 2,
    "munderover": 3,
}
_CHAR_REF_RE = re.compile(r"&#x([0-9A-Fa-f]{1,6});")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_UNESCAPED_BRACE_RE = re.compile(r"\\.|[{}]", re.DOTALL)
_INLINE_RE = r"(?<![\\$])\$(?![\s$])((?:\\.|[^\\$])+?)(?<![\s\\])\$(?![0-9$])"
_DISPLAY_RE = r"(?<![\\$])\$\$((?:\\.|[^\\$]|\$(?!\$))+?)\$\$"


class FormulaError(ValueError):
    """A formula that does not read, with why, in words for the writer."""


def _balanced(tex: str) -> bool:
    """True when every `{` has its `}` (escaped ones, `\\{`, aside)."""
    depth = 0
    for token in _UNESCAPED_BRACE_RE.findall(tex):
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _character(reference: re.Match[str]) -> str:
    """The character a reference names; U+FFFD for one no text may hold (a surrogate)."""
    code = int(reference.group(1), 16)
    return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"


def _text(value: str | None) -> str:
    """An element's text as characters: latex2mathml writes some as character references."""
    return _CONTROL_RE.sub("", _CHAR_REF_RE.sub(_character, value or ""))


def _tag(element: etree.Element) -> str:
    """An element's name without its namespace."""
    return str(element.tag).rpartition("}")[2]


def _check(element: etree.Element) -> None:
    """FormulaError when the tree holds something that did not read."""
    for node in element.iter():
        tag = _tag(node)
        if tag not in MATHML_TAGS:
            raise FormulaError(f"it needs <{tag}>, which is not drawn here")
        text = _text(node.text).strip()
        if tag in ("mi", "mo") and text.startswith("\\"):
            raise FormulaError(f"{text} is not a command this site knows")
        if tag in ARITY and len(node) != ARITY[tag]:
            raise FormulaError(f"a {tag.removeprefix('m')} is missing a part")


def _write(element: etree.Element, out: list[str]) -> None:
    """The element as HTML: allowed attributes only, text escaped."""
    tag = _tag(element)
    attributes = "".join(
        f' {name}="{html.escape(value)}"'
        for name, value in element.attrib.items()
        if allow_attribute(tag, name, value)
    )
    out.append(f"<{tag}{attributes}>")
    out.append(html.escape(_text(element.text), quote=False))
    for child in element:
        _write(child, out)
        out.append(html.escape(_text(child.tail), quote=False))
    out.append(f"</{tag}>")


def to_mathml(tex: str, *, display: bool = False) -> str:
    """The formula as MathML, its TeX kept as an annotation; FormulaError when it does not
    read."""
    tex = _CONTROL_RE.sub("", tex).strip()
    if not tex:
        raise FormulaError("it is empty")
    if len(tex) > FORMULA_MAX:
        raise FormulaError(f"it is {len(tex):,} characters long; the limit is {FORMULA_MAX:,}")
    if not _balanced(tex):
        raise FormulaError("its braces { } do not pair up")
    try:
        root = convert_to_element(tex, display="block" if display else "inline")
    except Exception as error:  # latex2mathml raises its own errors and plain ones alike
        reason = " ".join(str(error).split()) or type(error).__name__
        raise FormulaError(f"it does not read as TeX ({reason[:80]})") from None
    _check(root)
    parts = list(root)
    body = parts[0] if len(parts) == 1 and _tag(parts[0]) == "mrow" else None
    out = [f'<math display="{"block" if display else "inline"}"><semantics>']
    if body is None:
        out.append("<mrow>")
        out.append(html.escape(_text(root.text), quote=False))
        for child in parts:
            _write(child, out)
            out.append(html.escape(_text(child.tail), quote=False))
        out.append("</mrow>")
    else:
        _write(body, out)
    out.append(f'<annotation encoding="{TEX_ENCODING}">{html.escape(tex, quote=False)}')
    out.append("</annotation></semantics></math>")
    return "".join(out)


def formula_html(tex: str, *, display: bool = False) -> str:
    """The formula as MathML, or, when it does not read, its source as code saying why."""
    try:
        return to_mathml(tex, display=display)
    except FormulaError as error:
        source = f"$${tex}$$" if display else f"${tex}$"
        note = html.escape(f"Not shown as a formula: {error}")
        return f'<code class="math-error" title="{note}">{html.escape(source, quote=False)}</code>'


class InlineFormulaProcessor(InlineProcessor):
    """`$…$` (and `$$…$$` inside a line) as MathML, stashed so nothing else reads it."""

    def __init__(self, pattern: str, md: Markdown, *, display: bool) -> None:
        super().__init__(pattern, md)
        self.display = display

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[str, int, int]:
        stashed = self.md.htmlStash.store(formula_html(m.group(1), display=self.display))
        return stashed, m.start(0), m.end(0)


class DisplayFormulaProcessor(BlockProcessor):
    """A paragraph that is one `$$…$$` formula (it may span lines) becomes a display formula."""

    def test(self, parent: etree.Element, block: str) -> bool:
        text = block.strip()
        return (
            len(text) > 4
            and text.startswith("$$")
            and text.endswith("$$")
            and "$$" not in text[2:-2]
        )

    def run(self, parent: etree.Element, blocks: list[str]) -> bool:
        tex = blocks.pop(0).strip()[2:-2]
        paragraph = etree.SubElement(parent, "p")
        paragraph.text = self.parser.md.htmlStash.store(formula_html(tex, display=True))
        return True


class FormulaExtension(Extension):
    """Registers the formula processors, after code spans (so `` `$x$` `` stays code) and
    before emphasis (so `a_1 * b_2` inside a formula stays TeX); `\\$` is a dollar sign."""

    def extendMarkdown(self, md: Markdown) -> None:
        md.ESCAPED_CHARS.append("$")
        md.parser.blockprocessors.register(DisplayFormulaProcessor(md.parser), "formula", 75)
        md.inlinePatterns.register(
            InlineFormulaProcessor(_DISPLAY_RE, md, display=True), "display_formula", 186
        )
        md.inlinePatterns.register(
            InlineFormulaProcessor(_INLINE_RE, md, display=False), "formula", 185
        )
