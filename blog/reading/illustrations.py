"""Blueprint illustrations for posts without an uploaded image, drawn from what the post says.

The kind of drawing and its labels come from the numbers and words of the title and summary
("p99 fell from 800 ms to 120 ms" draws two bars labelled with those numbers, "three regions"
three sites, "queue" a queue); what the text does not settle comes from a hash of the slug.
The alt text is written from the same `Spec` as the SVG, so the two cannot disagree.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from xml.sax.saxutils import escape, quoteattr

from blog.reading.drawings import BLUE, INK, KINDS, PAPER, Spec, quoted, text

WIDTH = 640
HEIGHT = 360

# Only this much of a title and summary is read: enough for any real one, bounded for others.
_TITLE_CHARS, _SUMMARY_CHARS = 300, 600
_VALUE = re.compile(
    r"(?<![\w.,])(\d{1,6}(?:[.,]\d{1,3})?)(?:\s?(ms|µs|ns|s|%|×|x|gb|mb|kb|tb|k|rps|qps|"
    r"seconds?|minutes?|hours?|days?|weeks?|months?|years?|times|rows|posts))?(?![\w.,]?\d|\w)",
    re.IGNORECASE,
)
_COUNT_WORDS = "two three four five six seven eight nine ten eleven twelve".split()  # noqa: SIM905
_COUNTED = re.compile(
    r"\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[2-9]|1[0-2])\s+"
    r"([^\W\d_]{3,})",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]{3,}")
_STOP = frozenset(
    """the and for with from into onto our ours we us how why what when where which who that
    this these those was were are is be been not nor nobody without instead actually again after
    before about over under than then them they you your its their there here all any both each
    every more most less least some such only own same too very can will just one two three four
    five six seven eight nine ten eleven twelve half twice off out yet but did does doing done
    has have had via per got get made make makes making took take taught learned stopped still
    thing things way ways really fine next behind both rather nothing everything whole never
    could would should might must may also even much many new use used using find found going
    went right first last like know
    ms gb mb kb tb rps qps seconds minutes hours days weeks months years times rows""".split()  # noqa: SIM905
)
# Words that choose a kind: a stem of four letters or more matches words it starts; a shorter
# one matches the word or its plural.
KEYWORDS: dict[str, tuple[str, ...]] = {
    "bars": (
        "latency",
        "faster",
        "slower",
        "speed",
        "cutting",
        "cut",
        "shav",
        "halv",
        "cost",
        "bill",
        "size",
        "cheaper",
        "bench",
        "image",
    ),
    "histogram": ("histogram", "distribut", "percentil", "tail", "outlier", "spread", "relevance"),
    "timeline": (
        "timeline",
        "history",
        "year",
        "month",
        "week",
        "rewrite",
        "version",
        "postmortem",
        "incident",
        "outage",
        "bisect",
        "drill",
        "schedul",
        "dates",
    ),
    "stack": ("stack", "framework", "dependenc", "library", "packag", "monorepo", "terraform"),
    "queue": ("queue", "backlog", "consumer", "kafka", "job", "webhook", "message", "batch"),
    "pool": (
        "pool",
        "worker",
        "connection",
        "thread",
        "concurren",
        "autoscal",
        "spot",
        "instance",
        "rightsiz",
    ),
    "grid": ("shard", "partition", "grid", "matrix", "tile", "table", "row", "column", "index"),
    "flow": ("flag", "decision", "rule", "branch", "guideline", "review", "quarantin", "choos"),
    "gauge": (
        "budget",
        "slo",
        "sla",
        "uptime",
        "limit",
        "quota",
        "threshold",
        "percent",
        "capacity",
        "error",
        "alert",
        "bloat",
    ),
    "tree": ("tree", "hierarch", "component", "schema", "type", "token", "dom", "layout"),
    "ring": ("ring", "rotat", "cycle", "loop", "circuit", "retry", "retries", "bucket"),
    "pipeline": (
        "pipeline",
        "ci",
        "build",
        "deploy",
        "release",
        "rollout",
        "export",
        "import",
        "etl",
        "training",
        "preview",
        "replication",
    ),
    "nodes": (
        "region",
        "zone",
        "datacenter",
        "cluster",
        "replica",
        "failover",
        "dns",
        "edge",
        "cdn",
        "kubernetes",
        "mesh",
    ),
    "layers": (
        "layer",
        "cache",
        "caching",
        "proxy",
        "tier",
        "sandbox",
        "secur",
        "secret",
        "store",
        "storage",
        "session",
    ),
    "wave": (
        "traffic",
        "load",
        "spike",
        "burst",
        "signal",
        "metric",
        "monitor",
        "drift",
        "memory",
        "leak",
        "logs",
        "logging",
    ),
    "funnel": ("funnel", "conversion", "search", "filter", "ranking", "signup", "select"),
    "network": ("service", "api", "client", "microservic", "call", "depend", "model"),
    "sequence": (
        "protocol",
        "handshake",
        "request",
        "auth",
        "login",
        "idempoten",
        "timeout",
        "deadline",
        "shutdown",
        "sigterm",
    ),
}


@dataclass(frozen=True)
class Illustration:
    """A standalone SVG document, its alt text, and a short hash of the SVG for its URL."""

    svg: str
    alt: str
    kind: str
    version: str


def _matches(word: str, stem: str) -> bool:
    return word.startswith(stem) if len(stem) > 3 else word in (stem, stem + "s")


def _kind_of(words: list[str]) -> str | None:
    """The first kind one of the words asks for, in the order the words come."""
    for word in words:
        for kind, stems in KEYWORDS.items():
            if any(_matches(word, stem) for stem in stems):
                return kind
    return None


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _COUNT_WORDS.index(word.lower()) + 2


def read_post(slug: str, title: str = "", summary: str = "") -> Spec:
    """What the post's words ask to be drawn; the slug's hash settles the rest."""
    seed = int.from_bytes(hashlib.sha256(slug.encode("utf-8", "replace")).digest()[:8], "big")
    wording = f"{title[:_TITLE_CHARS]} \n {summary[:_SUMMARY_CHARS]}"
    values: list[str] = []
    for match in _VALUE.finditer(wording):
        number, unit = match.groups()
        value = f"{number}{unit}" if unit in ("%", "x", "×") else f"{number} {unit or ''}".strip()
        if len(values) < 5 and not any(v.partition(" ")[0] == number for v in values):
            values.append(value)
    words = [w.lower() for w in _WORD.findall(wording)]
    labels = list(dict.fromkeys(w[:12] for w in words if w not in _STOP))[:6]
    counted = _COUNTED.search(wording)
    kind = _kind_of(words)
    if kind is None:
        kind = (
            "bars" if len(values) >= 2 else "nodes" if counted else sorted(KINDS)[seed % len(KINDS)]
        )
    return fitted(
        Spec(
            kind,
            _count(counted[1]) if counted else 0,
            seed >> 8,
            tuple(labels),
            tuple(values),
            seed,
        )
    )


def fitted(spec: Spec) -> Spec:
    """The spec with its count inside what its kind can draw, and its accent among the parts.

    A count of 0 lets the seed choose. Anything that makes a `Spec` (a future front-matter
    field, say) goes through here, so a drawing never gets numbers it cannot show.
    """
    if spec.kind not in KINDS:
        raise ValueError(f"no drawing of kind {spec.kind!r}")
    span = KINDS[spec.kind][1]
    count = (
        min(max(spec.count, span.start), span.stop - 1)
        if spec.count
        else span[spec.seed % len(span)]
    )
    labels = tuple(label[:12] for label in spec.labels[:6])
    values = tuple(value[:12] for value in spec.values[:5])
    return dataclasses.replace(
        spec, count=count, accent=spec.accent % count, labels=labels, values=values
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


_GRID = "".join(f"M{x} 0V{HEIGHT}" for x in range(20, WIDTH, 20)) + "".join(
    f"M0 {y}H{WIDTH}" for y in range(20, HEIGHT, 20)
)
_MAJOR = "".join(f"M{x} 0V{HEIGHT}" for x in range(80, WIDTH, 80)) + "".join(
    f"M0 {y}H{WIDTH}" for y in range(80, HEIGHT, 80)
)


@lru_cache(maxsize=4096)
def _drawn(spec: Spec, site: str) -> Illustration:
    """The SVG and alt text of one spec (cached: the same spec always draws the same)."""
    draw, _, suggests = KINDS[spec.kind]
    body, what = draw(spec, random.Random(spec.seed))
    unshown = [v for v in spec.values if f"“{v}”" not in what][:3]
    caption = " · ".join([f"FIG. {spec.kind.upper()}", *unshown])
    if unshown:
        said = f"The caption in the corner reads {spec.kind} and gives {quoted(unshown)}."
    else:
        said = f"The caption in the corner names it a {spec.kind} drawing."
    alt = (
        f"{site} illustration: a blueprint drawing, in blue and dark ink on a pale grid, of "
        f"{what}. {said} It suggests a post about {suggests}."
    )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label={quoteattr(alt)}>'
        f"<title>{escape(alt)}</title>"
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="{PAPER}"/>'
        f'<path fill="none" stroke="{BLUE}" stroke-opacity=".08" d="{_GRID}"/>'
        f'<path fill="none" stroke="{BLUE}" stroke-opacity=".16" d="{_MAJOR}"/>'
        f'<rect x="12" y="12" width="{WIDTH - 24}" height="{HEIGHT - 24}" fill="none" '
        f'stroke="{BLUE}" stroke-opacity=".4"/>'
        f'<g class="motif motif-{spec.kind}" fill="{PAPER}" stroke="{INK}" stroke-width="2" '
        f'stroke-linecap="round" stroke-linejoin="round" '
        f'font-family="ui-monospace, Menlo, Consolas, monospace">{body}'
        f"{text(26, 336, caption, 'start', 11)}</g></svg>"
    )
    version = hashlib.sha256(svg.encode("utf-8")).hexdigest()[:16]
    return Illustration(svg=svg, alt=alt, kind=spec.kind, version=version)
