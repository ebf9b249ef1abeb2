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

ALLOWED_TAGS = frozenset(
    {
        *("p", "br", "hr", "blockquote", "pre", "code", "span", "div"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "sup"),
        *("a", "img", "picture", "source", "ul", "ol", "li", "dl", "dt", "dd"),
        *("table", "thead", "tbody", "tr", "th", "td"),
    }
)

# Blocks that carry a text direction (blog/markup/blocks.py): "auto", or "rtl" on containers.
DIRECTED_TAGS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "dt", "dd", "blockquote", "ul", "ol"}
    | {"dl", "table", "th", "td"}
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
}
CODE_LABEL_MAX = 200  # a language name of at most LABEL_MAX characters, escaped, plus " code"

# Ids the pipeline sets: headings "s-…", footnotes "fn-…", references "fnref-…"/"fnref2-…".
HEADING_ID_PREFIX = "s-"
ID_PREFIXES = (HEADING_ID_PREFIX, "fn-", "fnref")
ID_RE = re.compile(r"(?:s|fn|fnref\d*)-[A-Za-z0-9_-]*")
ID_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "sup", "li"})

PYGMENTS_CLASSES = frozenset(c for c in STANDARD_TYPES.values() if c) | {"hll"}
ALLOWED_CLASSES = {
    "div": frozenset({"highlight", "footnote"}),
    "a": frozenset({"headerlink", "footnote-ref", "footnote-backref"}),
    "span": PYGMENTS_CLASSES,
    "p": frozenset({"code-language"}),
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
    name = name.lower()
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
        return value == "group"
    if name == "aria-label":
        return 0 < len(value) <= CODE_LABEL_MAX
    if name == "start":
        return value.isdigit()
    if name in ("width", "height"):
        return _SIZE_RE.fullmatch(value) is not None
    if name == "srcset":
        return all(_safe_candidate(item) for item in value.split(", "))
    if name == "sizes":
        return _SIZES_RE.fullmatch(value) is not None
    if name in FIXED_VALUES:
        return value in FIXED_VALUES[name]
    return True


def _safe_candidate(candidate: str) -> bool:
    """True for one srcset entry the pipeline writes: a safe address and a width."""
    found = _CANDIDATE_RE.fullmatch(candidate)
    return found is not None and "," not in found.group(1) and is_safe_url(found.group(1))


class _Auditor(HTMLParser):
    """Re-parse sanitized HTML and record anything outside the policy."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.violations: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_TAGS:
            self.violations.append(f"tag <{tag}>")
        for name, value in attrs:
            if not allow_attribute(tag, name, value or ""):
                self.violations.append(f"attribute {name!r} on <{tag}>")

    def handle_endtag(self, tag: str) -> None:
        if tag not in ALLOWED_TAGS:
            self.violations.append(f"end tag </{tag}>")

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
