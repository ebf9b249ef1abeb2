"""Blueprint illustrations for posts without an uploaded image, drawn from what the post says.

The title and summary are read (`wording`): their noun phrases, and their numbers with what
they measure. A post that sets numbers side by side ("from 1.2 GB to 140 MB", "forty percent
reserved and twelve percent used") is drawn as a chart of those numbers; any other is a
schematic of the engineering objects its words name (`vocabulary`), labelled with its own
phrases. What the words do not settle (which row is struck, which part is blue) comes from a
hash of the slug. The alt text is written from the same `Spec` as the SVG, so the two cannot
disagree.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from xml.sax.saxutils import escape, quoteattr

from blog.media import wording
from blog.media.blueprint import BLUE, HEIGHT, INK, LABEL_SIZE, PAPER, STYLE, WIDTH
from blog.media.drawings import CHARTS, KINDS, PARTS, Spec
from blog.media.vocabulary import VOCABULARY, asks, matches

__all__ = ["HEIGHT", "WIDTH", "Illustration", "candidates", "illustration", "read_post"]

# Only this much of a title and summary is read: enough for any real one, bounded for others.
_TITLE_CHARS, _SUMMARY_CHARS = 300, 600
LABEL_CHARS = 30  # the longest label any part has room for
_VALUE_CHARS = 26


@dataclass(frozen=True)
class Illustration:
    """A standalone SVG document, its alt text, and a short hash of the SVG for its URL."""

    svg: str
    alt: str
    kind: str
    version: str

    @property
    def inline(self) -> str:
        """The SVG without its stylesheet, for a page to show inline and colour itself."""
        return re.sub(r"<style>.*?</style>", "", self.svg, count=1)


def _seed(slug: str) -> int:
    return int.from_bytes(hashlib.sha256(slug.encode("utf-8", "replace")).digest()[:8], "big")


def _lower_first(text: str, phrase: wording.Phrase, reading: wording.Reading) -> str:
    """A phrase that opens a sentence, its first word in lower case when the post writes that
    word in lower case elsewhere ("Flaky tests" → "flaky tests", "Postgres" stays)."""
    first = text.split(" ", 1)[0]
    if not first[:1].isupper() or not first[1:].islower():
        return text
    if re.search(rf"\b{re.escape(first.lower())}\b", reading.text):
        return first.lower() + text[len(first) :]
    return text


def _fitting(phrase: wording.Phrase, at: int, room: int) -> str:
    """The phrase, or the longest part of it that fits `room` and still names the matched
    word: a tail that keeps the phrase's last word ("state cache" of "server state cache"),
    else one ending at the matched word. A plural matched before the end ends the phrase
    ("resolvers cache answers" → "resolvers")."""
    words = phrase.text.split(" ")
    if len(words) != len(phrase.words):
        return phrase.text if len(phrase.text) <= room else ""
    end = len(words)
    if at < end - 1 and phrase.words[at].endswith("s") and not phrase.words[at].endswith("ss"):
        end = at + 1
    spans = [(start, end) for start in range(0, at + 1)]
    spans += [(start, at + 1) for start in range(0, at + 1) if at + 1 < end]
    for start, stop in spans:
        text = " ".join(words[start:stop])
        if len(text) <= room:
            return text
    return ""


_DIMENSIONS = {"#time": "time", "#bytes": "bytes", "#share": "share", "#times": "times"}


def _figure_slot(reading: wording.Reading, stem: str, used: set[str], room: int) -> str:
    """A figure of the post for a `#` slot: a count of the named noun ("#commits"), or any
    figure of a dimension ("#time", "#bytes")."""
    for figure in reading.figures:
        if stem in _DIMENSIONS:
            fits = figure.dimension == _DIMENSIONS[stem]
        else:
            fits = figure.dimension == "count" and matches(figure.noun, stem[1:].rstrip("s"))
        if fits and figure.text.lower() not in used and len(figure.text) <= room:
            return figure.text
    return ""


def _slot(reading: wording.Reading, stems: tuple[str, ...], used: set[str], room: int) -> str:
    """The phrase (or figure) of the post that names a part: for the slot's first stem any
    phrase holds, the first such phrase, the title's before the summary's; not one already
    used, and one that fits."""
    for stem in stems:
        if stem.startswith("#"):
            text = _figure_slot(reading, stem, used, room)
            if text:
                return text
            continue
        for phrase in reading.phrases:
            for i, word in enumerate(phrase.words):
                if not matches(word, stem):
                    continue
                text = _fitting(phrase, i, room)
                text = _lower_first(text, phrase, reading) if text else ""
                if text and not _named(text, used):
                    return text
    return ""


def _named(text: str, used: set[str]) -> bool:
    """Whether a label names what one already given does: the same words, or the same last
    two ("database failover drill" after "failed failover drill")."""
    low = text.lower()
    words = low.split()
    for u in used:
        other = u.split()
        if low == u or (len(words) > 1 and other[-2:] == words[-2:]):
            return True
        if (len(words) == 1 and other[-1] == low) or (len(other) == 1 and words[-1] == u):
            return True  # "alert" after "disk usage alert": the same thing, shorter
    return False


# Kinds whose parts come in the post's own order (stages, events, layers): a part no stem
# names takes the post's next phrase of two words or more.
_IN_ORDER = frozenset({"pipeline", "timeline", "stack", "flow"})


def _labels(kind: str, reading: wording.Reading) -> tuple[str, ...]:
    """The phrases of the post that name a kind's parts, one per slot ("" where none does),
    each short enough for the room its slot has."""
    entry = VOCABULARY.get(kind)
    if entry is None:
        return ()
    rooms = [chars for _, chars in KINDS[kind][2]] or [LABEL_CHARS]
    used: set[str] = set()
    out = []
    for i, stems in enumerate(entry.slots):
        room = rooms[min(i, len(rooms) - 1)]
        text = _slot(reading, stems, used, room)
        if text:
            used.add(text.lower())
        out.append(text)
    if kind in _IN_ORDER:
        for i, text in enumerate(out):
            room = rooms[min(i, len(rooms) - 1)]
            spare = [
                p.text
                for p in reading.phrases
                if len(p.words) > 1 and len(p.text) <= room and not _named(p.text, used)
            ]
            if not text and spare:
                out[i] = spare[0]
                used.add(out[i].lower())
    while out and not out[-1]:
        out.pop()
    return tuple(out)


def _count(kind: str, reading: wording.Reading) -> int:
    """The number of parts the post gives for a kind ("three regions"), or 0."""
    entry = VOCABULARY.get(kind)
    if entry is None:
        return 0
    span = KINDS[kind][1]
    for figure in reading.figures:
        if figure.dimension == "count" and figure.noun in entry.counted and figure.value in span:
            return int(figure.value)
    return 0


def _scores(reading: wording.Reading) -> dict[str, float]:
    """How loudly the post's words ask for each schematic: a word asks once in the title
    (three times as loud) and once in the summary."""
    scores = dict.fromkeys(VOCABULARY, 0.0)
    seen: set[tuple[str, bool]] = set()
    for token in reading.tokens:
        if token.kind != "word":
            continue
        place = (token.low, reading.in_title(token.start))
        if place in seen:
            continue
        seen.add(place)
        for kind, loud in asks(token.low):
            scores[kind] += (3.0 if place[1] else 1.0) * loud
    return scores


Chart = tuple[str, tuple[str, ...], tuple[float, ...], str, tuple[str, ...], str]


def _chart(reading: wording.Reading) -> tuple[Chart, float] | None:
    """The chart the post's numbers make, if they make one, and how strongly the post asks for
    it: a change of one measure the title speaks of most, a bare share least (a schematic the
    words ask for more loudly wins). The chart is its kind, its values as written and their
    sizes, its heading, the names of its parts and a factor."""
    title = {t.low for t in reading.tokens if reading.in_title(t.start)}
    for compared in reading.comparisons:
        figures = compared.figures
        heading = compared.measure if len(compared.measure) <= 40 else ""
        titled = any(w.lower() in title for w in heading.split()) or any(
            reading.in_title(f.start) for f in figures
        )
        if compared.relative and not figures:
            return ("shift", (), (), heading, (), compared.relative), 5.0
        values = tuple(f.text for f in figures)
        if any(len(v) > _VALUE_CHARS for v in values):
            continue
        sizes = tuple(f.value for f in figures)
        if compared.relative == "cut":
            return ("fraction", values, sizes, heading, (), ""), 5.0
        if len(figures) < 2:
            continue
        kind = {"rate": "fraction", "time": "shift"}.get(figures[0].dimension, "bars")
        if kind == "fraction":
            sizes = tuple(100 * v for v in sizes)
        # a shift says whether it is a change (an arrow from before to after) or a pair
        chart = (kind, values, sizes, heading, compared.names, "change" if compared.change else "")
        if compared.change:
            return chart, 20.0 if titled else 12.0
        return chart, 20.0 if compared.names else 6.0
    shares = sorted(
        (f for f in reading.figures if f.dimension == "share"),
        key=lambda f: f.noun not in ("percent", "%"),
    )
    for figure in shares:
        if len(figure.text) <= _VALUE_CHARS:
            heading = _after_of(reading, figure)
            kind = "gauge" if figure.noun in ("percent", "%") else "fraction"
            return (kind, (figure.text,), (figure.value,), heading, (), ""), 8.0 if heading else 3.0
    for figure in reading.figures:
        if figure.dimension == "rate" and len(figure.text) <= _VALUE_CHARS:
            return ("fraction", (figure.text,), (100 * figure.value,), "", (), ""), 8.0
    return None


def _after_of(reading: wording.Reading, figure: wording.Figure) -> str:
    """What a share is a share of: the phrase after it ("a third of our database CPU")."""
    after = [p for p in reading.phrases if p.start >= figure.end]
    if after and after[0].start - figure.end < 16:
        text = after[0].text
        return text if len(text) <= 40 else ""
    if figure.start > 0:
        before = [p for p in reading.phrases if p.start < figure.start]
        if before and figure.start - (before[-1].start + len(before[-1].text)) < 12:
            return before[-1].text
    return ""


def ranked(reading: wording.Reading, seed: int) -> list[str]:
    """The kinds that suit the post, best first: the chart its numbers make and the
    schematics its words ask for, by how loudly; ties settled by the slug's hash, and a
    post whose words ask for nothing gets a kind from the hash alone."""
    scores = _scores(reading)
    turn = (seed >> 3) % 97
    order = sorted(VOCABULARY, key=lambda k: (-scores[k], (turn * 31 + _TIE[k]) % 65536))
    asked = [k for k in order if scores[k] > 0]
    if not asked:
        asked = [_UNASKED[(seed >> 40) % len(_UNASKED)]]
    charted = _chart(reading)
    if charted is None:
        return asked
    (kind, *_), strength = charted
    place = next((i for i, k in enumerate(asked) if scores[k] <= strength), len(asked))
    return [*asked[:place], kind, *[k for k in asked[place:] if k != kind]]


# What a post whose words name nothing is drawn as: kinds that vary most with the slug.
_UNASKED = ("pipeline", "timeline", "nodes", "ring", "grid", "queue", "cluster", "tree")


# A fixed number per kind: with the slug's hash, it settles ties the same way every time.
_TIE = {kind: int.from_bytes(hashlib.sha256(kind.encode()).digest()[:2], "big") for kind in KINDS}


def spec_of(kind: str, reading: wording.Reading, seed: int) -> Spec:
    """The spec of one kind for a post: its chart values when it is the post's chart, its
    labels from the post's phrases, and its count from a number the post gives."""
    charted = _chart(reading)
    if charted is not None and charted[0][0] == kind:
        _, values, sizes, heading, names, factor = charted[0]
        count = len(values) or 2
        if kind == "shift":
            count = 2 if factor else 1
            factor = "" if factor == "change" else factor
        return fitted(
            Spec(kind, count, len(values) - 1, names, values, seed, heading, sizes, factor)
        )
    if kind in CHARTS:
        return fitted(Spec(kind, 0, seed >> 8, _labels(kind, reading), (), seed))
    labels = _labels(kind, reading)
    count = _count(kind, reading)
    if kind in PARTS:  # one part per label the post gives: no part goes unnamed
        fixed = PARTS[kind]
        parts = [label for label in labels[fixed:] if label]
        labels = (*labels[:fixed], *parts)
        span = KINDS[kind][1]
        if len(parts) >= span.start:
            count = min(len(parts), span.stop - 1)
    return fitted(Spec(kind, count, seed >> 8, labels, (), seed))


def read_post(slug: str, title: str = "", summary: str = "") -> Spec:
    """What the post's words ask to be drawn; the slug's hash settles the rest."""
    seed = _seed(slug)
    reading = wording.read(title[:_TITLE_CHARS], summary[:_SUMMARY_CHARS])
    return spec_of(ranked(reading, seed)[0], reading, seed)


def spec_for(kind: str, slug: str, title: str = "", summary: str = "") -> Spec:
    """The spec of a given kind for a post, as its words would draw that kind."""
    reading = wording.read(title[:_TITLE_CHARS], summary[:_SUMMARY_CHARS])
    return spec_of(kind, reading, _seed(slug))


def candidates(slug: str, title: str = "", summary: str = "", most: int = 4) -> list[str]:
    """The kinds an editor may switch to for these words, best first."""
    reading = wording.read(title[:_TITLE_CHARS], summary[:_SUMMARY_CHARS])
    kinds = ranked(reading, _seed(slug))
    kinds += [k for k in _UNASKED if k not in kinds]  # the general ones after those asked for
    return kinds[:most]


def fitted(spec: Spec) -> Spec:
    """The spec with its count inside what its kind can draw, and its accent among the parts.

    A count of 0 lets the seed choose. Anything that makes a `Spec` goes through here, so a
    drawing never gets numbers it cannot show.
    """
    if spec.kind not in KINDS:
        raise ValueError(f"no drawing of kind {spec.kind!r}")
    span = KINDS[spec.kind][1]
    count = (
        min(max(spec.count, span.start), span.stop - 1)
        if spec.count
        else span[spec.seed % len(span)]
    )
    labels = tuple(label[:LABEL_CHARS] for label in spec.labels[:6])
    values = tuple(value[:_VALUE_CHARS] for value in spec.values[:5])
    return dataclasses.replace(
        spec,
        count=count,
        accent=spec.accent % count,
        labels=labels,
        values=values,
        heading=spec.heading[:40],
        magnitudes=spec.magnitudes[: len(values)],
    )


def illustration(
    slug: str,
    title: str = "",
    summary: str = "",
    site: str = "Fieldnotes",
    spec: Spec | None = None,
) -> Illustration:
    """The drawing for a post: from `spec` when one is given, else from its slug and words."""
    if spec is not None:
        return _drawn(fitted(spec), site)
    return _from_words(slug, title[:_TITLE_CHARS], summary[:_SUMMARY_CHARS], site)


@lru_cache(maxsize=4096)
def _from_words(slug: str, title: str, summary: str, site: str) -> Illustration:
    """illustration, cached on the words read: every card of every listing asks for one."""
    return _drawn(read_post(slug, title, summary), site)


_GRID = "".join(f"M{x} 0V{HEIGHT}" for x in range(40, WIDTH, 40)) + "".join(
    f"M0 {y}H{WIDTH}" for y in range(40, HEIGHT, 40)
)


@lru_cache(maxsize=4096)
def _drawn(spec: Spec, site: str) -> Illustration:
    """The SVG and alt text of one spec (cached: the same spec always draws the same)."""
    draw = KINDS[spec.kind][0]
    body, what = draw(spec, random.Random(spec.seed))
    alt = f"{site} illustration: a blueprint drawing of {what}."
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label={quoteattr(alt)}>'
        f"<title>{escape(alt)}</title><style>{STYLE}</style>"
        f'<rect class="p" fill="{PAPER}" width="{WIDTH}" height="{HEIGHT}"/>'
        f'<path class="g" fill="none" stroke="{BLUE}" stroke-opacity=".12" d="{_GRID}"/>'
        f'<g class="motif motif-{spec.kind}" fill="none" stroke="{INK}" stroke-width="2.5" '
        f'stroke-linecap="round" stroke-linejoin="round" font-size="{LABEL_SIZE}" '
        f'font-family="ui-monospace, Menlo, Consolas, monospace">{body}</g></svg>'
    )
    version = hashlib.sha256(svg.encode("utf-8")).hexdigest()[:16]
    return Illustration(svg=svg, alt=alt, kind=spec.kind, version=version)
