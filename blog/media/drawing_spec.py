"""The `illustration:` field: a short written spec that chooses a post's drawing by hand.

    kind: bars; values: 800 ms, 120 ms
    kind: pipeline; count: 4; accent: 2; labels: build, test, stage, ship

Fields are `name: value` pairs separated by semicolons (or new lines), lists are separated by
commas; `kind` is required, the rest optional, and what the spec leaves out comes from the
post's words as usual. docs/writing.md ("Choosing the drawing") gives the rules; each broken one
gets a message naming the field, for the editor's 422 and for `posts import`.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import lru_cache

from blog.media.drawings import KINDS, PARTS, Spec
from blog.media.illustrations import fitted, spec_for

MAX_CHARS = 300
MAX_VALUES = 5
MAX_LABELS = 6
LABEL_CHARS = 12
NAMES = ("kind", "count", "accent", "values", "labels")
# A value: a plain decimal number (at most 6 digits, then at most 3 after the point) and an
# optional unit: %, x or ×, or a word of up to 8 letters (ms, GB, rps, days...).
_VALUE = re.compile(r"(\d{1,6}(?:\.\d{1,3})?)\s*(%|x|×|[^\W\d_]{1,8})?", re.IGNORECASE)
_PLAIN = re.compile(r"\d{1,6}(?:\.\d{1,3})?")
_NUMBERISH = re.compile(r"[-+]?(?:\d[\d.,_]*|\.\d+|nan|inf(?:inity)?)(?:e[-+]?\d+)?", re.IGNORECASE)
_FIELD = re.compile(r"\s*([^:]*?)\s*:\s*(.*?)\s*", re.DOTALL)


class SpecError(ValueError):
    """A spec that breaks a rule; the message says which, so a person can fix it."""

    @property
    def plain(self) -> str:
        """The message without the backticks around names, for the editor's pages."""
        return str(self).replace("`", "")


@dataclass(frozen=True)
class Written:
    """A checked spec: only what it names (0 and empty tuples for what it leaves out)."""

    kind: str
    count: int = 0
    accent: int = 0  # 1-based, as written
    values: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()

    def text(self) -> str:
        """The spec in its one stored spelling: fields in a fixed order, single spaces."""
        parts = [f"kind: {self.kind}"]
        if self.count:
            parts.append(f"count: {self.count}")
        if self.accent:
            parts.append(f"accent: {self.accent}")
        if self.values:
            parts.append("values: " + ", ".join(self.values))
        if self.labels:
            parts.append("labels: " + ", ".join(self.labels))
        return "; ".join(parts)


def _whole(name: str, raw: str, low: int, high: int) -> int:
    """A whole number from low to high, or a SpecError naming the field."""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 3 or not low <= int(raw) <= high:
        raise SpecError(f"`{name}` must be a whole number from {low} to {high}, not “{raw[:20]}”.")
    return int(raw)


def _items(name: str, raw: str, most: int) -> list[str]:
    """A comma-separated list of at most `most` non-empty items."""
    items = [item.strip() for item in raw.split(",")]
    if any(not item for item in items):
        raise SpecError(f"`{name}` has an empty item: separate items with single commas.")
    if len(items) > most:
        raise SpecError(f"`{name}` lists {len(items)} items; a drawing shows at most {most}.")
    return items


def _value(raw: str) -> str:
    """One value, normalized: "800ms" → "800 ms", "40 %" → "40%"."""
    match = _VALUE.fullmatch(raw)
    if match is not None:
        number, unit = match.groups()
        if unit is None:
            return number
        return f"{number}{unit}" if unit in ("%", "x", "×") else f"{number} {unit}"
    shown = f"“{raw[:20]}”"
    lead = _NUMBERISH.match(raw)
    if lead is None:
        raise SpecError(f"`values`: {shown} does not start with a number (like 800 ms or 40%).")
    if raw.startswith("-"):
        raise SpecError(f"`values`: {shown} is negative; values are sizes, 0 or more.")
    if not _PLAIN.fullmatch(lead.group()):
        raise SpecError(
            f"`values`: {shown} is not a number this field takes: write a decimal with at"
            " most 6 digits before the point and 3 after, then an optional unit (800 ms, 40%)."
        )
    raise SpecError(
        f"`values`: the unit of {shown} must be %, x or a word of at most 8 letters (ms, GB)."
    )


def _label(raw: str) -> str:
    """One label: 1 to 12 printable characters."""
    if len(raw) > LABEL_CHARS:
        raise SpecError(
            f"`labels`: “{raw[:20]}” is longer than {LABEL_CHARS} characters; a drawing has"
            " room for short words."
        )
    if not raw.isprintable():
        raise SpecError("`labels` may hold only printable characters.")
    return raw


def parse(text: str) -> Written | None:
    """The checked spec of the text, or None for an empty one (SpecError when it breaks a rule)."""
    if len(text) > MAX_CHARS:
        raise SpecError(
            f"The drawing's spec is {len(text):,} characters; the limit is {MAX_CHARS}."
        )
    if not text.strip():
        return None
    given: dict[str, str] = {}
    for part in re.split(r"[;\n]", text):
        if not part.strip():
            continue
        match = _FIELD.fullmatch(part)
        if match is None:
            raise SpecError(f"“{part.strip()[:30]}” is not a `name: value` field.")
        name, raw = match[1].lower(), match[2]
        if name not in NAMES:
            raise SpecError(f"Unknown field “{match[1][:20]}”; the fields are {', '.join(NAMES)}.")
        if name in given:
            raise SpecError(f"`{name}` is given twice; give each field once.")
        if not raw:
            raise SpecError(f"`{name}` has no value.")
        given[name] = raw
    if "kind" not in given:
        raise SpecError(f"Name the kind of drawing, like `kind: bars` ({', '.join(KINDS)}).")
    kind = given["kind"].lower()
    if kind not in KINDS:
        raise SpecError(
            f"There is no drawing of kind “{given['kind'][:20]}”; the kinds are {', '.join(KINDS)}."
        )
    span = KINDS[kind][1]
    count = _whole("count", given["count"], span.start, span.stop - 1) if "count" in given else 0
    accent = 0
    if "accent" in given:
        accent = _whole("accent", given["accent"], 1, count or span.stop - 1)
    values: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    if "values" in given:
        values = tuple(_value(item) for item in _items("values", given["values"], MAX_VALUES))
    if "labels" in given:
        labels = tuple(_label(item) for item in _items("labels", given["labels"], MAX_LABELS))
    return Written(kind, count, accent, values, labels)


def canonical(text: str) -> str:
    """The stored spelling of a spec, "" for none (SpecError when it breaks a rule)."""
    written = parse(text)
    return written.text() if written is not None else ""


@lru_cache(maxsize=1024)
def applied(text: str, slug: str, title: str, summary: str) -> Spec | None:
    """The drawing's spec: the written kind, drawn as the post's words would draw that kind
    (its phrases as labels, its numbers as values), with what the written spec names in
    their place. None when the text is empty, or no longer a valid spec (the words then
    decide)."""
    try:
        written = parse(text)
    except SpecError:
        return None
    if written is None:
        return None
    base = spec_for(written.kind, slug, title, summary)
    span = KINDS[written.kind][1]
    count = written.count
    if not count:
        fixed = PARTS.get(written.kind)
        if written.labels and fixed is not None and len(written.labels) - fixed >= span.start:
            count = len(written.labels) - fixed  # one part per label written
        else:
            count = base.count
        # The part named blue is drawn: the count grows to reach it.
        count = max(count, written.accent)
    chosen = dataclasses.replace(
        base,
        count=count,
        accent=written.accent - 1 if written.accent else base.accent,
        labels=written.labels or base.labels,
    )
    if written.values:  # the post's own reading of its numbers no longer applies
        chosen = dataclasses.replace(
            chosen, values=written.values, magnitudes=(), heading="", factor=""
        )
    return fitted(chosen)
