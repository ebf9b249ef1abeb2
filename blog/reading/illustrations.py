"""Deterministic blueprint-style SVG illustrations for posts without an uploaded image."""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from xml.sax.saxutils import quoteattr

WIDTH = 640
HEIGHT = 360

PAPER = "#f7f6f2"
INK = "#2b2f36"
BLUE = "#1f5fbf"
TINT = "#d6e2f5"

_CARDINAL_WORDS = "zero one two three four five six seven eight nine ten eleven twelve"
_ORDINAL_WORDS = "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth"
_NUMBERS = tuple(_CARDINAL_WORDS.split())
_ORDINALS = tuple(_ORDINAL_WORDS.split())


@dataclass(frozen=True)
class Illustration:
    """A standalone SVG document and a one-sentence description of it."""

    svg: str
    alt: str


def _num(n: int) -> str:
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def _ord(index: int) -> str:
    return _ORDINALS[index] if 0 <= index < len(_ORDINALS) else f"{index + 1}th"


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _part(accent: bool = False, base: str = "part") -> str:
    if accent:
        return f'class="{base} accent" stroke="{BLUE}" fill="{TINT}"'
    return f'class="{base}"'


def _link(accent: bool = False) -> str:
    return f'class="link accent" stroke="{BLUE}"' if accent else 'class="link"'


def _arrow(x1: float, x2: float, y: float, attrs: str) -> str:
    """Horizontal arrow from x1 to x2 with its head at x2, as one path."""
    s = 1 if x2 > x1 else -1
    hx = x2 - 7 * s
    d = f"M{_f(x1)} {_f(y)}H{_f(x2)}M{_f(hx)} {_f(y - 5)}L{_f(x2)} {_f(y)}L{_f(hx)} {_f(y + 5)}"
    return f'<path {attrs} fill="none" d="{d}"/>'


def _rect(x: float, y: float, w: float, h: float, attrs: str) -> str:
    return f'<rect {attrs} x="{_f(x)}" y="{_f(y)}" width="{_f(w)}" height="{_f(h)}" rx="4"/>'


def _circle(cx: float, cy: float, r: float, attrs: str) -> str:
    return f'<circle {attrs} cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r)}"/>'


def _line(x1: float, y1: float, x2: float, y2: float, attrs: str) -> str:
    return f'<line {attrs} x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}"/>'


def _pipeline(rng: random.Random) -> tuple[str, str]:
    n = rng.randint(3, 5)
    accent = rng.randrange(n)
    gap = rng.randint(36, 60)
    w = (560 - (n - 1) * gap) / n
    h = rng.randint(60, 110)
    y = 180 - h / 2
    parts = []
    for i in range(n):
        x = 40 + i * (w + gap)
        parts.append(_rect(x, y, w, h, _part(i == accent)))
        if i < n - 1:
            parts.append(_arrow(x + w + 4, x + w + gap - 4, 180, _link()))
    alt = (
        f"Blueprint drawing of a pipeline of {_num(n)} boxes joined by arrows, "
        f"the {_ord(accent)} in blue."
    )
    return "".join(parts), alt


def _stack(rng: random.Random) -> tuple[str, str]:
    n = rng.randint(3, 6)
    accent = rng.randrange(n)
    taper = rng.random() < 0.5
    gap = 8
    h = (240 - (n - 1) * gap) / n
    step = rng.randint(30, 50)
    parts = []
    for i in range(n):
        w = 460 - (n - 1 - i) * step if taper else 400
        parts.append(_rect(320 - w / 2, 60 + i * (h + gap), w, h, _part(i == accent)))
    shape = "narrowing toward the top" if taper else "of equal width"
    alt = (
        f"Blueprint drawing of a stack of {_num(n)} layers {shape}, "
        f"the {_ord(accent)} from the top in blue."
    )
    return "".join(parts), alt


def _near_segment(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def _clear(pts: list[tuple[float, float]], i: int, j: int, r: float) -> bool:
    """True when the edge i-j passes clear of every other node."""
    return all(
        _near_segment(p, pts[i], pts[j]) > r + 6 for k, p in enumerate(pts) if k not in (i, j)
    )


def _graph(rng: random.Random) -> tuple[str, str]:
    n = rng.randint(4, 7)
    r = rng.randint(16, 22)
    hub = rng.randrange(n)
    for _ in range(100):
        cells = rng.sample(range(12), n)
        pts = [
            (125 + (c % 4) * 130 + rng.uniform(-20, 20), 70 + (c // 4) * 110 + rng.uniform(-12, 12))
            for c in cells
        ]
        if all(_clear(pts, hub, k, r) for k in range(n) if k != hub):
            break
    edges = [(hub, k) for k in range(n) if k != hub]
    degree = [1] * n
    degree[hub] = n - 1
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if hub not in (i, j)]
    rng.shuffle(pairs)
    for i, j in pairs[: rng.randint(1, n - 2)]:
        # Keep the hub strictly the best-connected node.
        if max(degree[i], degree[j]) + 1 < n - 1 and _clear(pts, i, j, r):
            edges.append((i, j))
            degree[i] += 1
            degree[j] += 1
    body = [_line(*pts[i], *pts[j], _link()) for i, j in edges]
    body += [_circle(x, y, r, _part(k == hub)) for k, (x, y) in enumerate(pts)]
    alt = (
        f"Blueprint drawing of a network of {_num(n)} nodes and {_num(len(edges))} edges, "
        "the best-connected node in blue."
    )
    return "".join(body), alt


def _bars(rng: random.Random) -> tuple[str, str]:
    n = rng.randint(4, 9)
    trend = rng.choice(("rising", "falling", "uneven"))
    heights = rng.sample(range(40, 241, 12), n)
    if trend != "uneven":
        heights.sort(reverse=trend == "falling")
    tallest = heights.index(max(heights))
    slot = 500 / n
    w = slot * rng.uniform(0.5, 0.7)
    body = ['<path class="axis" fill="none" d="M60 40V300H600"/>']
    for i, h in enumerate(heights):
        x = 80 + i * slot + (slot - w) / 2
        body.append(_rect(x, 300 - h, w, h, _part(i == tallest)))
    if trend == "uneven":
        alt = (
            f"Blueprint drawing of a bar chart of {_num(n)} bars of uneven height, "
            f"the tallest, {_ord(tallest)} from the left, in blue."
        )
    else:
        alt = (
            f"Blueprint drawing of a bar chart of {_num(n)} bars {trend} "
            "from left to right, the tallest in blue."
        )
    return "".join(body), alt


def _tree(rng: random.Random) -> tuple[str, str]:
    k = rng.randint(2, 4)
    branch = rng.randrange(k)
    g = rng.randint(2, 3)
    w, h = rng.randint(64, 84), rng.randint(34, 44)
    root = (320, 60)
    children = [(40 + (i + 0.5) * 560 / k, 170) for i in range(k)]
    bx = min(max(children[branch][0], 40 + g * 40), 600 - g * 40)
    grand = [(bx + (j - (g - 1) / 2) * 80, 280) for j in range(g)]
    gw = 64

    def elbow(p: tuple[float, float], c: tuple[float, float]) -> str:
        mid = (p[1] + c[1]) / 2
        d = f"M{_f(p[0])} {_f(p[1] + h / 2)}V{_f(mid)}H{_f(c[0])}V{_f(c[1] - h / 2)}"
        return f'<path {_link()} fill="none" d="{d}"/>'

    body = [elbow(root, c) for c in children]
    body += [elbow(children[branch], c) for c in grand]
    body.append(_rect(root[0] - w / 2, root[1] - h / 2, w, h, _part()))
    body += [
        _rect(x - w / 2, y - h / 2, w, h, _part(i == branch)) for i, (x, y) in enumerate(children)
    ]
    body += [_rect(x - gw / 2, y - h / 2, gw, h, _part()) for x, y in grand]
    alt = (
        f"Blueprint drawing of a tree: a root with {_num(k)} children, the {_ord(branch)} "
        f"in blue with {_num(g)} children of its own."
    )
    return "".join(body), alt


def _sequence(rng: random.Random) -> tuple[str, str]:
    lanes = rng.randint(2, 4)
    m = rng.randint(3, 6)
    accent = rng.randrange(m)
    xs = [80 + (i + 0.5) * 480 / lanes for i in range(lanes)]
    body = [
        f'<g class="part">{_rect(x - 40, 36, 80, 30, "")}'
        f'<path fill="none" stroke-dasharray="6 5" d="M{_f(x)} 66V324"/></g>'
        for x in xs
    ]
    for i in range(m):
        a, b = rng.sample(range(lanes), 2)
        y = 100 + i * 200 / (m - 1)
        body.append(_arrow(xs[a], xs[b], y, _link(i == accent)))
    alt = (
        f"Blueprint drawing of a sequence diagram: {_num(lanes)} lifelines exchanging "
        f"{_num(m)} messages, the {_ord(accent)} in blue."
    )
    return "".join(body), alt


def _ring(rng: random.Random) -> tuple[str, str]:
    n = rng.randint(5, 10)
    hub = rng.random() < 0.5
    big = rng.randint(105, 125)
    r = rng.randint(14, 19)
    pts = [
        (320 + big * math.sin(2 * math.pi * i / n), 180 - big * math.cos(2 * math.pi * i / n))
        for i in range(n)
    ]
    body = [_line(*pts[i], *pts[(i + 1) % n], _link()) for i in range(n)]
    if hub:
        body += [_line(320, 180, x, y, 'class="spoke"') for x, y in pts]
        body.append(_circle(320, 180, r + 8, _part(True, "hub")))
    body += [_circle(x, y, r, _part(not hub and i == 0)) for i, (x, y) in enumerate(pts)]
    if hub:
        alt = (
            f"Blueprint drawing of {_num(n)} nodes joined in a ring, each with a spoke "
            "to a central hub in blue."
        )
    else:
        alt = f"Blueprint drawing of {_num(n)} nodes joined in a ring, the top node in blue."
    return "".join(body), alt


def _queue(rng: random.Random) -> tuple[str, str]:
    n = rng.randint(5, 10)
    k = rng.randint(1, n - 2)
    w = min(52, 400 / n)
    h = rng.randint(56, 80)
    x0 = 320 - n * w / 2
    body = [_rect(x0 + i * w, 180 - h / 2, w, h, _part(i < k)) for i in range(n)]
    body.append(_arrow(x0 - 10, x0 - 70, 180, _link()))
    body.append(_arrow(x0 + n * w + 70, x0 + n * w + 10, 180, _link()))
    filled = "leftmost cell" if k == 1 else f"{_num(k)} leftmost cells"
    alt = (
        f"Blueprint drawing of a queue of {_num(n)} cells, arrows in at the right and out "
        f"at the left, the {filled} in blue."
    )
    return "".join(body), alt


MOTIFS: dict[str, Callable[[random.Random], tuple[str, str]]] = {
    "pipeline": _pipeline,
    "stack": _stack,
    "graph": _graph,
    "bars": _bars,
    "tree": _tree,
    "sequence": _sequence,
    "ring": _ring,
    "queue": _queue,
}

_GRID = "".join(f"M{x} 0V{HEIGHT}" for x in range(20, WIDTH, 20)) + "".join(
    f"M0 {y}H{WIDTH}" for y in range(20, HEIGHT, 20)
)
_MAJOR = "".join(f"M{x} 0V{HEIGHT}" for x in range(80, WIDTH, 80)) + "".join(
    f"M0 {y}H{WIDTH}" for y in range(80, HEIGHT, 80)
)


@lru_cache(maxsize=4096)
def illustration(seed: str) -> Illustration:
    """Return the blueprint illustration for a seed (normally a post slug)."""
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    rng = random.Random(int.from_bytes(digest[:16], "big"))
    name = rng.choice(sorted(MOTIFS))
    body, alt = MOTIFS[name](rng)
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label={quoteattr(alt)}>'
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="{PAPER}"/>'
        f'<path fill="none" stroke="{BLUE}" stroke-opacity=".08" d="{_GRID}"/>'
        f'<path fill="none" stroke="{BLUE}" stroke-opacity=".16" d="{_MAJOR}"/>'
        f'<rect x="12" y="12" width="{WIDTH - 24}" height="{HEIGHT - 24}" fill="none" '
        f'stroke="{BLUE}" stroke-opacity=".4"/>'
        f'<g class="motif motif-{name}" fill="{PAPER}" stroke="{INK}" stroke-width="2" '
        f'stroke-linecap="round" stroke-linejoin="round">{body}</g></svg>'
    )
    return Illustration(svg=svg, alt=alt)
