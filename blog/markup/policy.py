"""Allowlist policy for the Markdown pipeline: tags, attributes, URLs, ids, classes.

Pure functions with no dependency on the sanitizer library, so the policy survives
a swap of ``blog.markup.sanitize``'s engine and doubles as an independent check of
its output (``find_violations``).
"""

from __future__ import annotations

import html
import re
import unicodedata
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

from pygments.token import STANDARD_TYPES

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})

HTML_TAGS = frozenset(
    {
        *("p", "br", "hr", "blockquote", "pre", "code", "span", "div"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "sup"),
        *("a", "img", "picture", "source", "ul", "ol", "li", "dl", "dt", "dd"),
        *("table", "thead", "tbody", "tr", "th", "td"),
        # What raw HTML in a post adds: inline text elements and the rest of a table.
        *("sub", "b", "i", "s", "u", "small", "q", "cite", "samp", "var", "caption", "tfoot"),
        # Callouts, figures, keys, abbreviations, marked text and diff lines.
        *("details", "summary", "figure", "figcaption", "kbd", "abbr", "mark", "ins", "del"),
    }
)

# MathML Core's presentation elements that blog/markup/formulas.py writes. Never
# <annotation-xml> (its text/html encoding makes HTML inside MathML), <maction> or <mglyph>.
MATHML_TAGS = frozenset(
    {
        *("math", "semantics", "annotation", "mrow", "mi", "mn", "mo", "ms", "mtext"),
        *("mspace", "msup", "msub", "msubsup", "mfrac", "msqrt", "mroot", "munder", "mover"),
        *("munderover", "mtable", "mtr", "mtd", "mstyle", "mpadded", "mphantom", "menclose"),
        *("mmultiscripts", "mprescripts", "none"),
    }
)
# The shapes a Graphviz drawing is made of (blog/markup/diagrams.py) and the callouts' icons.
# Nothing that refers to anything: no <a>, <use>, <image>, <foreignObject>, <style>,
# <script>, no animation (<set>, <animate> can rewrite an attribute) and no filters.
SVG_TAGS = frozenset(
    {"svg", "g", "path", "polygon", "polyline", "ellipse", "circle", "rect", "line", "text"}
)
ALLOWED_TAGS = HTML_TAGS | MATHML_TAGS | SVG_TAGS

# Blocks that carry a text direction (blog/markup/blocks.py): "auto", or "rtl" on containers.
DIRECTED_TAGS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "dt", "dd", "blockquote", "ul", "ol"}
    | {"dl", "table", "th", "td", "figcaption", "summary"}
)
DIRECTIONS = frozenset({"auto", "rtl"})

# Attributes other than id/class/dir, per tag; values are further checked below.
ALLOWED_ATTRIBUTES = {
    "a": frozenset({"href", "title", "rel"}),
    "img": frozenset(
        {"src", "alt", "title", "width", "height", "srcset", "sizes", "loading", "decoding"}
    ),
    "source": frozenset({"srcset", "sizes", "type"}),
    "ol": frozenset({"start"}),
    # A code block's scroll region (blog/markup/code.py) and a table take keyboard focus.
    "pre": frozenset({"tabindex", "role", "aria-label"}),
    "table": frozenset({"tabindex"}),
    "abbr": frozenset({"title"}),
    # A formula that could not be read says why (blog/markup/formulas.py).
    "code": frozenset({"title"}),
    # A callout is announced as a note (blog/markup/callouts.py).
    "div": frozenset({"role"}),
    "details": frozenset({"open"}),
    # A task's box says whether it is done (blog/markup/tasks.py).
    "span": frozenset({"role", "aria-label"}),
    # Cells of a table written in HTML.
    "th": frozenset({"colspan", "rowspan"}),
    "td": frozenset({"colspan", "rowspan"}),
}
CODE_LABEL_MAX = 200  # a language name of at most LABEL_MAX characters, escaped, plus " code"
# Roles, by tag, and the one value each may take.
ROLES = {"pre": "group", "div": "note", "span": "img", "svg": "img"}
LABEL_MAX = CODE_LABEL_MAX

# MathML attributes (none refers to anything: `href` is not among them) and the values they
# take: a word, a number or a length, nothing with a colon, a bracket or a quote.
MATHML_ATTRIBUTES = {
    "math": frozenset({"display"}),
    "annotation": frozenset({"encoding"}),
    "mo": frozenset(
        {"stretchy", "fence", "form", "separator", "accent", "lspace", "rspace", "minsize"}
        | {"maxsize", "movablelimits", "largeop", "symmetric"}
    ),
    "mover": frozenset({"accent"}),
    "munder": frozenset({"accentunder"}),
    "munderover": frozenset({"accent", "accentunder"}),
    "mfrac": frozenset({"linethickness"}),
    "mspace": frozenset({"width", "height", "depth", "linebreak"}),
    "mtable": frozenset(
        {"columnalign", "rowalign", "rowspacing", "columnspacing", "columnlines", "rowlines"}
        | {"frame", "displaystyle"}
    ),
    "mtr": frozenset({"columnalign", "rowalign"}),
    "mtd": frozenset({"columnalign", "rowalign", "columnspan", "rowspan"}),
    "mstyle": frozenset({"displaystyle", "scriptlevel"}),
    "mpadded": frozenset({"width", "height", "depth", "lspace", "voffset"}),
    "menclose": frozenset({"notation"}),
    **{tag: frozenset({"mathvariant"}) for tag in ("mi", "mn", "mtext", "ms")},
}
_MATHML_VALUE_RE = re.compile(r"[A-Za-z0-9. %-]{1,60}")
MATH_DISPLAYS = frozenset({"block", "inline"})
TEX_ENCODING = "application/x-tex"

# SVG attributes, by tag; each kind of value is checked by a pattern below.
_PAINT = frozenset({"fill", "stroke", "fill-opacity", "stroke-opacity", "stroke-width"})
_LINES = frozenset({"stroke-dasharray", "stroke-linecap", "stroke-linejoin"})
_SHAPE = _PAINT | _LINES | {"transform"}
SVG_ATTRIBUTES = {
    "svg": frozenset({"width", "height", "viewbox", "role", "aria-label", "aria-hidden"})
    | _PAINT
    | _LINES,
    "g": _SHAPE,
    "path": _SHAPE | {"d"},
    "polygon": _SHAPE | {"points"},
    "polyline": _SHAPE | {"points"},
    "ellipse": _SHAPE | {"cx", "cy", "rx", "ry"},
    "circle": _SHAPE | {"cx", "cy", "r"},
    "rect": _SHAPE | {"x", "y", "width", "height", "rx", "ry"},
    "line": _SHAPE | {"x1", "y1", "x2", "y2"},
    "text": _SHAPE
    | {"x", "y", "text-anchor", "font-family", "font-size", "font-weight", "font-style"},
}
# Each pattern matches in one way only (a separator between numbers), so none backtracks.
_NUMBER = r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e-?[0-9]+)?"
_NUMBER_RE = re.compile(_NUMBER)
_LENGTH_RE = re.compile(f"{_NUMBER}(?:pt|px|em|%)?")
_NUMBERS = rf"{_NUMBER}(?:[ ,]+{_NUMBER})*"
_NUMBERS_RE = re.compile(_NUMBERS)
_PATH_RE = re.compile(r"[MmLlHhVvCcSsQqTtAaZz0-9., eE+-]{1,100000}")
_STEP = rf"(?:scale|rotate|translate|matrix)\({_NUMBERS}\)"
_TRANSFORM_RE = re.compile(rf"{_STEP}(?: {_STEP})*")
# A colour by name or number; never url(...), which could point at another document.
_COLOUR_RE = re.compile(r"[A-Za-z]{1,20}|#[0-9A-Fa-f]{3,8}")
_FONT_RE = re.compile(r"[A-Za-z0-9 ,-]{1,80}")
SVG_WORDS = {
    "text-anchor": frozenset({"start", "middle", "end"}),
    "font-weight": frozenset({"bold", "normal"}),
    "font-style": frozenset({"italic", "normal"}),
    "stroke-linecap": frozenset({"butt", "round", "square"}),
    "stroke-linejoin": frozenset({"miter", "round", "bevel"}),
    "aria-hidden": frozenset({"true"}),
}
SVG_VALUE_RES = {
    **dict.fromkeys(("fill", "stroke"), _COLOUR_RE),
    **dict.fromkeys(("fill-opacity", "stroke-opacity", "stroke-width"), _NUMBER_RE),
    **dict.fromkeys(("x", "y", "cx", "cy", "rx", "ry", "r", "x1", "y1", "x2", "y2"), _NUMBER_RE),
    **dict.fromkeys(("width", "height", "font-size"), _LENGTH_RE),
    **dict.fromkeys(("viewbox", "points", "stroke-dasharray"), _NUMBERS_RE),
    "d": _PATH_RE,
    "transform": _TRANSFORM_RE,
    "font-family": _FONT_RE,
}

# Ids the pipeline sets: headings "s-…", footnotes "fn-…", references "fnref-…"/"fnref2-…".
HEADING_ID_PREFIX = "s-"
ID_PREFIXES = (HEADING_ID_PREFIX, "fn-", "fnref")
ID_RE = re.compile(r"(?:s|fn|fnref\d*)-[A-Za-z0-9_-]*")
ID_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "sup", "li"})

PYGMENTS_CLASSES = frozenset(c for c in STANDARD_TYPES.values() if c) | {"hll"}
CALLOUT_KINDS = ("note", "tip", "warning", "danger")
CALLOUT_CLASSES = frozenset({"callout", *(f"callout-{kind}" for kind in CALLOUT_KINDS)})
ALLOWED_CLASSES = {
    "div": frozenset({"highlight", "footnote", "numbered"}) | CALLOUT_CLASSES,
    "details": CALLOUT_CLASSES,
    "a": frozenset({"headerlink", "footnote-ref", "footnote-backref"}),
    "span": PYGMENTS_CLASSES | {"line", "code-file", "keys", "task-box"},
    "p": frozenset({"code-language", "callout-title"}),
    "summary": frozenset({"callout-title"}),
    "code": frozenset({"math-error"}),
    "mark": frozenset({"hll"}),
    "figure": frozenset({"figure", "figure-wide", "diagram", "diagram-failed"}),
    "ul": frozenset({"task-list"}),
    "li": frozenset({"task", "task-done"}),
    "th": frozenset({"align-left", "align-center", "align-right"}),
    "td": frozenset({"align-left", "align-center", "align-right"}),
}

REL_TOKENS = frozenset({"noopener", "noreferrer", "nofollow"})
# Values the pipeline sets on the site's own images (blog/markup/images.py), and no others.
FIXED_VALUES = {
    "loading": frozenset({"lazy"}),
    "decoding": frozenset({"async"}),
    "type": frozenset({"image/webp"}),
}
_SIZE_RE = re.compile(r"[1-9][0-9]{0,4}")
_SPAN_RE = re.compile(r"[1-9][0-9]{0,2}")
_SIZES_RE = re.compile(r"[a-z0-9 ().:,-]{1,100}")
_CANDIDATE_RE = re.compile(r"(\S+) [1-9][0-9]{0,4}w")
_SCHEME_RE = re.compile(r"([a-z][a-z0-9+.\-]*):")
_INVISIBLE = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp", "Co", "Cn"})
AMP_SUBSTITUTE = "\x02amp\x03"  # Python-Markdown's placeholder for "&" in attributes


def _decode_url(value: str) -> str | None:
    """Undo entity and percent encoding until stable; None if it never settles."""
    current = value.replace(AMP_SUBSTITUTE, "&")
    for _ in range(6):
        decoded = unquote(html.unescape(current), errors="replace")
        if decoded == current:
            return current
        current = decoded
    return None


def url_scheme(value: str) -> str | None:
    """Lower-case scheme of a URL as a browser could see it; "" if relative, None if opaque."""
    decoded = _decode_url(value)
    if decoded is None:
        return None
    folded = unicodedata.normalize("NFKC", decoded)
    compact = "".join(
        ch for ch in folded if not ch.isspace() and unicodedata.category(ch) not in _INVISIBLE
    )
    match = _SCHEME_RE.match(compact.lower())
    return match.group(1) if match else ""


def is_safe_url(value: str) -> bool:
    """True for relative URLs and http/https/mailto ones, in any encoding."""
    scheme = url_scheme(value)
    return scheme is not None and (scheme == "" or scheme in SAFE_SCHEMES)


def web_link(value: str | None) -> str | None:
    """The address stripped when it is an absolute http(s) one with a host; None for anything
    else (a `javascript:` address, a relative path, a space or a stray control character).
    The one rule for an author's own link, where it is stored, imported and shown."""
    url = (value or "").strip()
    if not url.isprintable() or " " in url or url_scheme(url) not in ("http", "https"):
        return None
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return url


def is_external_url(value: str) -> bool:
    """True for absolute http(s) and protocol-relative URLs (another host)."""
    scheme = url_scheme(value)
    stripped = value.strip().replace("\\", "/")
    return scheme in ("http", "https") or (scheme == "" and stripped.startswith("//"))


def allow_attribute(tag: str, name: str, value: str) -> bool:
    """Attribute filter: the single source of truth for what may survive sanitizing."""
    name, tag = name.lower(), tag.lower()
    if tag in MATHML_TAGS:
        return _allow_mathml(tag, name, value)
    if tag in SVG_TAGS:
        return _allow_svg(tag, name, value)
    if name == "id":
        return tag in ID_TAGS and ID_RE.fullmatch(value) is not None
    if name == "class":
        tokens = value.split()
        allowed = ALLOWED_CLASSES.get(tag, frozenset())
        return bool(tokens) and all(token in allowed for token in tokens)
    if name == "dir":
        return tag in DIRECTED_TAGS and value in DIRECTIONS
    if name not in ALLOWED_ATTRIBUTES.get(tag, ()):
        return False
    if name in ("href", "src"):
        return is_safe_url(value)
    if name == "rel":
        tokens = value.split()
        return bool(tokens) and set(tokens) <= REL_TOKENS
    if name == "tabindex":
        return value == "0"
    if name == "role":
        return value == ROLES.get(tag)
    if name == "aria-label":
        return 0 < len(value) <= LABEL_MAX
    if name == "open":
        return value == ""
    if name == "start":
        return value.isdigit()
    if name in ("width", "height"):
        return _SIZE_RE.fullmatch(value) is not None
    if name in ("colspan", "rowspan"):
        return _SPAN_RE.fullmatch(value) is not None
    if name == "srcset":
        return all(_safe_candidate(item) for item in value.split(", "))
    if name == "sizes":
        return _SIZES_RE.fullmatch(value) is not None
    if name in FIXED_VALUES:
        return value in FIXED_VALUES[name]
    return True


def _allow_mathml(tag: str, name: str, value: str) -> bool:
    """MathML's attributes: presentation only, each with a plain word or number."""
    if name not in MATHML_ATTRIBUTES.get(tag, ()):
        return False
    if name == "display":
        return value in MATH_DISPLAYS
    if name == "encoding":
        return value == TEX_ENCODING
    return _MATHML_VALUE_RE.fullmatch(value) is not None


def _allow_svg(tag: str, name: str, value: str) -> bool:
    """SVG's attributes: geometry, paint and text layout, each value matched in full."""
    if name not in SVG_ATTRIBUTES.get(tag, ()):
        return False
    if name == "role":
        return value == ROLES[tag]
    if name == "aria-label":
        return 0 < len(value) <= LABEL_MAX
    if name in SVG_WORDS:
        return value in SVG_WORDS[name]
    return SVG_VALUE_RES[name].fullmatch(value) is not None


def _safe_candidate(candidate: str) -> bool:
    """True for one srcset entry the pipeline writes: a safe address and a width."""
    found = _CANDIDATE_RE.fullmatch(candidate)
    return found is not None and "," not in found.group(1) and is_safe_url(found.group(1))


# Where foreign content starts, and the elements allowed inside it.
FOREIGN_ROOTS = {"svg": SVG_TAGS, "math": MATHML_TAGS}
FOREIGN_ONLY = (SVG_TAGS | MATHML_TAGS) - HTML_TAGS


class _Auditor(HTMLParser):
    """Re-parse sanitized HTML and record anything outside the policy.

    SVG and MathML must hold only their own elements, and theirs appear nowhere else: an
    HTML element inside <svg> is where parsers disagree (a browser moves a <p> out of it,
    the sanitizer's parser may not), the ground mutation XSS is built on."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.violations: list[str] = []
        self.foreign: tuple[str, int] | None = None  # (root tag, elements open inside it)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_TAGS:
            self.violations.append(f"tag <{tag}>")
        if self.foreign is not None:
            root, depth = self.foreign
            if tag not in FOREIGN_ROOTS[root]:
                self.violations.append(f"tag <{tag}> inside <{root}>")
            self.foreign = (root, depth + 1)
        elif tag in FOREIGN_ROOTS:
            self.foreign = (tag, 1)
        elif tag in FOREIGN_ONLY:
            self.violations.append(f"tag <{tag}> outside <svg> and <math>")
        for name, value in attrs:
            if not allow_attribute(tag, name, value or ""):
                self.violations.append(f"attribute {name!r} on <{tag}>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag not in ALLOWED_TAGS:
            self.violations.append(f"end tag </{tag}>")
        if self.foreign is not None:
            root, depth = self.foreign
            self.foreign = (root, depth - 1) if depth > 1 else None

    def handle_comment(self, data: str) -> None:
        self.violations.append("comment")

    def handle_decl(self, decl: str) -> None:
        self.violations.append("declaration")

    def handle_pi(self, data: str) -> None:
        self.violations.append("processing instruction")

    def unknown_decl(self, data: str) -> None:
        self.violations.append("declaration")


def find_violations(markup: str) -> list[str]:
    """Policy violations in already-sanitized HTML (empty list when clean)."""
    auditor = _Auditor()
    auditor.feed(markup)
    auditor.close()
    return auditor.violations
