"""The blueprint drawings: one small function per kind, each returning SVG and what it shows.

Every function takes the drawing's `Spec` and a random source seeded from it, and returns the
drawing's SVG elements and a phrase saying what they show, labels and numbers included, so
the alt text is written from the very values that were drawn.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from xml.sax.saxutils import escape

INK = "#2b2f36"
BLUE = "#1f5fbf"
TINT = "#d6e2f5"
PAPER = "#f7f6f2"

_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()  # noqa: SIM905
_NTH = "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()  # noqa: SIM905


@dataclass(frozen=True)
class Spec:
    """What one drawing shows: its kind, how many parts, which part is blue, and its labels.

    `values` are numbers as the post wrote them ("800 ms"); `labels` are words from it.
    """

    kind: str
    count: int
    accent: int
    labels: tuple[str, ...]
    values: tuple[str, ...]
    seed: int


def num(n: int) -> str:
    """A count in words (to twelve), else in digits."""
    return _WORDS[n] if 0 <= n < len(_WORDS) else str(n)


def nth(i: int) -> str:
    """A zero-based position as an ordinal word."""
    return _NTH[i] if 0 <= i < len(_NTH) else f"{i + 1}th"


def quoted(words: list[str] | tuple[str, ...]) -> str:
    """Labels as a list in prose: "a", "b" and "c"."""
    items = [f"“{w}”" for w in words]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


_SCALE = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "kb": 1e3, "k": 1e3, "mb": 1e6, "gb": 1e9}
_SCALE |= {"tb": 1e12, "minute": 60, "minutes": 60, "hour": 3600, "hours": 3600}


def magnitude(value: str) -> float:
    """The size a written value stands for, in one unit per dimension ("1.2 GB" > "140 MB")."""
    digits, _, unit = value.partition(" ")
    try:
        return float(digits.rstrip("%x×").replace(",", "")) * _SCALE.get(unit.lower(), 1.0)
    except ValueError:
        return 1.0


def dimension(value: str) -> str:
    """What a written value measures: time, bytes, a share, or plain count."""
    unit = value.partition(" ")[2].lower() or value[-1:]
    if unit in ("ns", "µs", "ms", "s") or unit.startswith(("second", "minute", "hour")):
        return "time"
    return "bytes" if unit in ("kb", "mb", "gb", "tb") else "%" if unit == "%" else "plain"


def many(n: int, noun: str) -> str:
    """A count and its noun, plural when it is not one: "one link", "three links"."""
    return f"{num(n)} {noun}" if n == 1 else f"{num(n)} {noun}s"


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _part(accent: bool = False, base: str = "part") -> str:
    return f'class="{base} accent" stroke="{BLUE}" fill="{TINT}"' if accent else f'class="{base}"'


def _link(accent: bool = False) -> str:
    return f'class="link accent" stroke="{BLUE}"' if accent else 'class="link"'


def _rect(x: float, y: float, w: float, h: float, attrs: str, rx: int = 4) -> str:
    return f'<rect {attrs} x="{_f(x)}" y="{_f(y)}" width="{_f(w)}" height="{_f(h)}" rx="{rx}"/>'


def _circle(cx: float, cy: float, r: float, attrs: str) -> str:
    return f'<circle {attrs} cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r)}"/>'


def _line(x1: float, y1: float, x2: float, y2: float, attrs: str) -> str:
    return f'<line {attrs} x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}"/>'


def _path(d: str, attrs: str = 'class="link"') -> str:
    return f'<path {attrs} fill="none" d="{d}"/>'


def _arrow(x1: float, y1: float, x2: float, y2: float, attrs: str = 'class="link"') -> str:
    """A straight arrow from (x1, y1) with its head at (x2, y2)."""
    a = math.atan2(y2 - y1, x2 - x1)
    hx1, hy1 = x2 - 8 * math.cos(a - 0.45), y2 - 8 * math.sin(a - 0.45)
    hx2, hy2 = x2 - 8 * math.cos(a + 0.45), y2 - 8 * math.sin(a + 0.45)
    head = f"M{_f(hx1)} {_f(hy1)}L{_f(x2)} {_f(y2)}L{_f(hx2)} {_f(hy2)}"
    d = f"M{_f(x1)} {_f(y1)}L{_f(x2)} {_f(y2)}{head}"
    return _path(d, attrs)


def text(x: float, y: float, words: str, anchor: str = "middle", size: int = 13) -> str:
    """A label in the drawing's ink (escaped)."""
    return (
        f'<text class="label" x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" font-size="{size}" '
        f'fill="{INK}" stroke="none">{escape(words)}</text>'
    )


def _names(s: Spec, n: int, numbers_first: bool = False) -> list[str]:
    """Up to n labels for n parts: the post's words (or its numbers first)."""
    pool = [*s.values, *s.labels] if numbers_first else [*s.labels, *s.values]
    return pool[:n]


def _labelled(names: list[str], what: str) -> str:
    return f", labelled {quoted(names)}" if names else f", with no {what} labelled"


Drawing = tuple[str, str]


def bars(s: Spec, rng: random.Random) -> Drawing:
    """Bars: the post's numbers side by side, or bars of made-up height under its words."""
    alike = [v for v in s.values if dimension(v) == dimension(s.values[0])] if s.values else []
    if len(alike) >= 2:
        names = alike[:5]
        top = max(magnitude(v) for v in names) or 1.0
        heights = [max(12.0, 220 * magnitude(v) / top) for v in names]
        accent = len(names) - 1
    else:
        heights = [float(h) for h in rng.sample(range(40, 221, 10), s.count)]
        names = _names(s, s.count)
        accent = heights.index(max(heights))
    n = len(heights)
    slot = 520 / n
    w = slot * 0.56
    body = [_path("M60 44V280H600", 'class="axis"')]
    for i, h in enumerate(heights):
        x = 80 + i * slot + (slot - w) / 2
        body.append(_rect(x, 280 - h, w, h, _part(i == accent)))
        if i < len(names):
            body.append(text(x + w / 2, 298, names[i]))
    if len(alike) >= 2:
        trend = "falling" if heights[-1] < heights[0] else "rising"
        what = (
            f"a bar chart of {num(n)} bars {trend} from left to right, labelled "
            f"{quoted(names)}, the last bar in blue"
        )
    else:
        what = f"a bar chart of {num(n)} bars{_labelled(names, 'bar')}, the tallest in blue"
    return "".join(body), what


def histogram(s: Spec, rng: random.Random) -> Drawing:
    """A histogram with a long tail and a dashed marker at one bin."""
    n = rng.randint(12, 20)
    peak = rng.randint(2, 5)
    heights = [30 + 200 * math.exp(-(((i - peak) / (2.2 + i / 4)) ** 2)) for i in range(n)]
    mark = min(n - 1, peak + 3 + s.accent % (n - peak - 3))
    w = 520 / n
    body = [_path("M60 44V280H600", 'class="axis"')]
    body += [
        _rect(70 + i * w, 280 - h, w - 3, h, _part(i == mark), 1) for i, h in enumerate(heights)
    ]
    x = 70 + mark * w + w / 2
    body.append(_path(f"M{_f(x)} 280V52", f'class="marker" stroke="{BLUE}" stroke-dasharray="6 5"'))
    names = _names(s, 1, numbers_first=True)
    if names:
        body.append(text(x + 8, 64, names[0], "start"))
    what = (
        f"a histogram of {num(n)} bins peaking at the {nth(peak)} with a long tail to the right, "
        f"a dashed blue marker at the {nth(mark)} bin{_labelled(names, 'marker')}"
    )
    return "".join(body), what


def timeline(s: Spec, rng: random.Random) -> Drawing:
    """Milestones along a line, the post's numbers and words beside them."""
    n = s.count
    names = _names(s, n, numbers_first=True)
    xs = [110 + (i + rng.uniform(0.1, 0.9)) * 440 / n for i in range(n)]
    body = [_arrow(50, 180, 600, 180)]
    for i, x in enumerate(xs):
        body.append(_circle(x, 180, 11, _part(i == s.accent)))
        if i < len(names):
            body.append(text(x, 150 if i % 2 == 0 else 218, names[i]))
    what = (
        f"a timeline arrow with {num(n)} milestones{_labelled(names, 'milestone')}, "
        f"the {nth(s.accent)} milestone in blue"
    )
    return "".join(body), what


def stack(s: Spec, rng: random.Random) -> Drawing:
    """Layers stacked one on another, the widest at the bottom."""
    n = s.count
    names = _names(s, n)
    gap, h, step = 8, (220 - (n - 1) * 8) / n, rng.randint(24, 44)
    body = []
    for i in range(n):
        w = 480 - (n - 1 - i) * step
        y = 50 + i * (h + gap)
        body.append(_rect(320 - w / 2, y, w, h, _part(i == s.accent)))
        if i < len(names):
            body.append(text(320, y + h / 2 + 5, names[i]))
    what = (
        f"a stack of {num(n)} layers narrowing toward the top{_labelled(names, 'layer')}, "
        f"the {nth(s.accent)} layer from the top in blue"
    )
    return "".join(body), what


def queue(s: Spec, rng: random.Random) -> Drawing:
    """A queue of cells, arrows in at the right and out at the left, the oldest cells filled."""
    n = rng.randint(6, 10)
    k = 1 + s.accent % (n - 2)
    w, h = 400 / n, rng.randint(56, 80)
    x0 = 320 - n * w / 2
    body = [_rect(x0 + i * w, 170 - h / 2, w, h, _part(i < k), 2) for i in range(n)]
    body += [_arrow(x0 - 10, 170, x0 - 70, 170), _arrow(x0 + n * w + 70, 170, x0 + n * w + 10, 170)]
    names = _names(s, 2, numbers_first=True)
    for i, name in enumerate(names):
        body.append(text(320, 170 + (h / 2 + 28) * (1 if i else -1) + 4, name))
    what = (
        f"a queue of {num(n)} cells with arrows in at the right and out at the left, "
        f"the {'oldest cell' if k == 1 else num(k) + ' oldest cells'} in blue"
        f"{_labelled(names, 'cell')}"
    )
    return "".join(body), what


def pool(s: Spec, rng: random.Random) -> Drawing:
    """A pool of workers in a frame, some busy, fed by one arrow."""
    n = s.count
    cols = math.ceil(n / 2)
    busy = 1 + s.accent % (n - 1)
    body = [_rect(150, 80, 440, 190, 'class="frame"', 12), _arrow(40, 175, 140, 175)]
    for i in range(n):
        x, y = 150 + (i % cols + 0.5) * 440 / cols, 130 + (i // cols) * 90
        body.append(_circle(x, y, 22, _part(i < busy)))
    names = _names(s, 1, numbers_first=True)
    if names:
        body.append(text(370, 300, names[0]))
    what = (
        f"a pool of {num(n)} round workers in a frame fed by one arrow, {num(busy)} of them "
        f"busy in blue{_labelled(names, 'pool')}"
    )
    return "".join(body), what


def grid(s: Spec, rng: random.Random) -> Drawing:
    """A grid of shards or partitions, a few lit."""
    rows, cols = rng.randint(2, 4), max(3, s.count)
    lit = sorted(rng.sample(range(rows * cols), 1 + s.accent % 3))
    w, h = 480 / cols, 210 / rows
    body = [
        _rect(80 + (i % cols) * w + 3, 60 + (i // cols) * h + 3, w - 6, h - 6, _part(i in lit), 2)
        for i in range(rows * cols)
    ]
    names = _names(s, cols)
    body += [text(80 + (i + 0.5) * w, 296, name) for i, name in enumerate(names)]
    what = (
        f"a grid of {num(rows)} rows and {num(cols)} columns of cells, {many(len(lit), 'cell')} "
        f"in blue{_labelled(names, 'column')}"
    )
    return "".join(body), what


def flow(s: Spec, rng: random.Random) -> Drawing:
    """A flowchart: a box, a decision diamond, and two branches."""
    names = _names(s, 4)
    yes = s.accent % 2
    cy = 170 + rng.randint(-10, 10)
    body = [_rect(40, cy - 30, 120, 60, _part()), _arrow(160, cy, 230, cy)]
    body.append(f'<path {_part()} d="M300 {cy - 60}L370 {cy}L300 {cy + 60}L230 {cy}Z"/>')
    for i, y in enumerate((cy - 80, cy + 80)):
        body += [_arrow(370, cy, 450, y), _rect(450, y - 28, 140, 56, _part(i == yes))]
    spots = ((100, cy + 5), (300, cy + 5), (520, cy - 75), (520, cy + 85))
    body += [text(x, y, name, size=12) for (x, y), name in zip(spots, names, strict=False)]
    what = (
        f"a flowchart in which a box leads to a decision diamond with two branches, the "
        f"{'upper' if yes == 0 else 'lower'} branch in blue{_labelled(names, 'step')}"
    )
    return "".join(body), what


def gauge(s: Spec, rng: random.Random) -> Drawing:
    """A dial with its needle at a share: the post's percentage, or one of its own."""
    share = next((magnitude(v) for v in s.values if v.endswith("%")), 20.0 + s.seed % 76)
    share = min(max(share, 0.0), 100.0)
    a = math.pi * (1 - share / 100)
    cx, cy, r = 320, 250, 170
    px, py = cx + r * math.cos(a), cy - r * math.sin(a)
    body = [_path(f"M{cx - r} {cy}A{r} {r} 0 0 1 {cx + r} {cy}", 'class="part"')]
    arc = f'class="arc accent" stroke="{BLUE}" stroke-width="8"'
    body.append(_path(f"M{cx - r} {cy}A{r} {r} 0 0 1 {_f(px)} {_f(py)}", arc))
    for t in range(0, 101, 10):
        b = math.pi * (1 - t / 100)
        c, d = math.cos(b), math.sin(b)
        body.append(
            _line(cx + r * c, cy - r * d, cx + (r - 14) * c, cy - (r - 14) * d, 'class="tick"')
        )
    nx, ny = cx + (r - 30) * math.cos(a), cy - (r - 30) * math.sin(a)
    body += [_line(cx, cy, nx, ny, _link(True)), _circle(cx, cy, 9, _part(True))]
    names = _names(s, 1, numbers_first=True)
    if names:
        body.append(text(cx, cy + 40, names[0], size=15))
    what = (
        f"a half-circle gauge with ten ticks, its blue needle at {share:g} percent of the "
        f"way round{_labelled(names, 'gauge')}"
    )
    return "".join(body), what


def tree(s: Spec, rng: random.Random) -> Drawing:
    """A tree: a root, its children, and the blue child's own children."""
    k = min(s.count, 4)
    branch = s.accent % k
    g = rng.randint(2, 3)
    w, h = 96, 38
    kids = [(40 + (i + 0.5) * 560 / k, 170) for i in range(k)]
    bx = min(max(kids[branch][0], 60 + g * 50), 580 - g * 50)
    grand = [(bx + (j - (g - 1) / 2) * 100, 275) for j in range(g)]

    def elbow(p: tuple[float, float], c: tuple[float, float]) -> str:
        mid = (p[1] + c[1]) / 2
        return _path(f"M{_f(p[0])} {_f(p[1] + h / 2)}V{_f(mid)}H{_f(c[0])}V{_f(c[1] - h / 2)}")

    body = [elbow((320, 62), c) for c in kids] + [elbow(kids[branch], c) for c in grand]
    boxes = [(320.0, 62.0), *kids, *grand]
    body += [
        _rect(x - w / 2, y - h / 2, w, h, _part(i == 1 + branch)) for i, (x, y) in enumerate(boxes)
    ]
    names = _names(s, 1 + k)
    body += [text(x, y + 5, name, size=12) for (x, y), name in zip(boxes, names, strict=False)]
    what = (
        f"a tree whose root has {num(k)} children, the {nth(branch)} child in blue with "
        f"{num(g)} children of its own{_labelled(names, 'box')}"
    )
    return "".join(body), what


def ring(s: Spec, rng: random.Random) -> Drawing:
    """Nodes joined in a ring, one in blue, a few named."""
    n = s.count + 3
    start = rng.uniform(0, 2 * math.pi / n)
    pts = [
        (
            320 + 120 * math.sin(start + 2 * math.pi * i / n),
            175 - 120 * math.cos(start + 2 * math.pi * i / n),
        )
        for i in range(n)
    ]
    accent = s.accent % n
    body = [_line(*pts[i], *pts[(i + 1) % n], _link()) for i in range(n)]
    body += [_circle(x, y, 17, _part(i == accent)) for i, (x, y) in enumerate(pts)]
    names = _names(s, 3)
    body += [
        text(x + (28 if x >= 320 else -28), y + 5, name, "start" if x >= 320 else "end", 12)
        for (x, y), name in zip(pts, names, strict=False)
    ]
    what = (
        f"{num(n)} nodes joined in a ring, the {nth(accent)} clockwise "
        f"from the top in blue{_labelled(names, 'node')}"
    )
    return "".join(body), what


def pipeline(s: Spec, rng: random.Random) -> Drawing:
    """Stages in a row joined by arrows."""
    n = s.count
    names = _names(s, n)
    gap = rng.randint(30, 46)
    w = (570 - (n - 1) * gap) / n
    h = rng.randint(70, 110)
    body = []
    for i in range(n):
        x = 35 + i * (w + gap)
        body.append(_rect(x, 170 - h / 2, w, h, _part(i == s.accent)))
        if i < n - 1:
            body.append(_arrow(x + w + 3, 170, x + w + gap - 3, 170))
        if i < len(names):
            body.append(text(x + w / 2, 170 + h / 2 + 22, names[i], size=12))
    what = (
        f"a pipeline of {num(n)} stages joined by arrows{_labelled(names, 'stage')}, "
        f"the {nth(s.accent)} stage in blue"
    )
    return "".join(body), what


def nodes(s: Spec, rng: random.Random) -> Drawing:
    """A map of sites, each joined to every other by a dashed link."""
    n = s.count
    pts = [
        (
            90 + (i + 0.5) * 460 / n + rng.uniform(-20, 20),
            110 + (i % 2) * 110 + rng.uniform(-15, 15),
        )
        for i in range(n)
    ]
    body = [
        _line(*pts[i], *pts[j], 'class="link" stroke-dasharray="6 6"')
        for i in range(n)
        for j in range(i + 1, n)
    ]
    body += [_circle(x, y, 26, _part(i == s.accent)) for i, (x, y) in enumerate(pts)]
    names = _names(s, n)
    body += [text(x, y + 48, name, size=12) for (x, y), name in zip(pts, names, strict=False)]
    links = n * (n - 1) // 2
    what = (
        f"a map of {num(n)} sites joined by {many(links, 'dashed link')}, "
        f"the {nth(s.accent)} site from the left in blue{_labelled(names, 'site')}"
    )
    return "".join(body), what


def layers(s: Spec, rng: random.Random) -> Drawing:
    """Nested frames, one inside another, like the layers of an onion."""
    n = min(s.count, 5)
    names = _names(s, n)
    body = []
    for i in range(n):
        m = i * 26
        body.append(
            _rect(60 + m * 1.6, 36 + m, 520 - m * 3.2, 270 - m * 2, _part(i == s.accent % n), 10)
        )
        if i < len(names):
            body.append(text(72 + m * 1.6, 54 + m, names[i], "start", 12))
    what = (
        f"{num(n)} nested frames, each inside the last, the {nth(s.accent % n)} "
        f"from the outside in blue{_labelled(names, 'frame')}"
    )
    return "".join(body), what


def wave(s: Spec, rng: random.Random) -> Drawing:
    """A line chart of a steady wave with one spike, marked."""
    cycles = rng.randint(2, 4)
    spike = 8 + s.accent * 5 % 30
    ys = [
        190 - 40 * math.sin(2 * math.pi * cycles * i / 47) - (120 if i == spike else 0)
        for i in range(48)
    ]
    d = "M" + "L".join(f"{_f(70 + i * 11)} {_f(y)}" for i, y in enumerate(ys))
    body = [_path("M60 44V280H600", 'class="axis"'), _path(d, _link(True))]
    sx = 70 + spike * 11
    body.append(_circle(sx, ys[spike], 9, _part(True, "marker")))
    names = _names(s, 1, numbers_first=True)
    if names:
        body.append(text(sx + 16, ys[spike] + 4, names[0], "start"))
    what = (
        f"a line chart of a wave with {num(cycles)} crests and one sharp "
        f"spike marked in blue{_labelled(names, 'spike')}"
    )
    return "".join(body), what


def funnel(s: Spec, rng: random.Random) -> Drawing:
    """A funnel of stages, each narrower than the one above."""
    n = min(s.count, 5)
    names = _names(s, n, numbers_first=True)
    h, step = 230 / n, rng.randint(70, 90) / n
    body = []
    for i in range(n):
        top, bottom, y = 260 - i * step * 2.4, 260 - (i + 1) * step * 2.4, 45 + i * h
        d = f"M{_f(320 - top)} {_f(y)}H{_f(320 + top)}"
        d += f"L{_f(320 + bottom)} {_f(y + h - 6)}H{_f(320 - bottom)}Z"
        body.append(f'<path {_part(i == s.accent % n)} d="{d}"/>')
        if i < len(names):
            body.append(text(320, y + h / 2 + 3, names[i], size=12))
    what = (
        f"a funnel of {num(n)} stages, each narrower than the one above"
        f"{_labelled(names, 'stage')}, "
        f"the {nth(s.accent % n)} from the top in blue"
    )
    return "".join(body), what


def network(s: Spec, rng: random.Random) -> Drawing:
    """Callers on the left wired to services on the right."""
    left, right = rng.randint(2, 4), s.count
    ly = [60 + (i + 0.5) * 230 / left for i in range(left)]
    ry = [60 + (i + 0.5) * 230 / right for i in range(right)]
    wires = sorted({(i, j) for i in range(left) for j in rng.sample(range(right), min(2, right))})
    body = [_line(150, ly[i], 470, ry[j], _link(j == s.accent)) for i, j in wires]
    body += [_rect(70, y - 20, 80, 40, _part()) for y in ly]
    body += [_rect(470, y - 20, 100, 40, _part(j == s.accent)) for j, y in enumerate(ry)]
    names = _names(s, right)
    body += [text(520, y + 5, name, size=12) for y, name in zip(ry, names, strict=False)]
    what = (
        f"{num(left)} boxes on the left wired by {many(len(wires), 'line')} "
        f"to {num(right)} boxes on the right, the {nth(s.accent)} on the "
        f"right in blue{_labelled(names, 'box')}"
    )
    return "".join(body), what


def sequence(s: Spec, rng: random.Random) -> Drawing:
    """A sequence diagram: lifelines and the messages between them."""
    lanes = min(max(s.count, 2), 4)
    m = rng.randint(3, 6)
    accent = s.accent % m
    xs = [80 + (i + 0.5) * 480 / lanes for i in range(lanes)]
    body = [
        _rect(x - 50, 36, 100, 30, _part())
        + _path(f"M{_f(x)} 66V320", 'class="part" stroke-dasharray="6 5"')
        for x in xs
    ]
    for i in range(m):
        a, b = rng.sample(range(lanes), 2)
        body.append(
            _arrow(
                xs[a], 100 + i * 200 / (m - 1), xs[b], 100 + i * 200 / (m - 1), _link(i == accent)
            )
        )
    names = _names(s, lanes)
    body += [text(x, 56, name, size=12) for x, name in zip(xs, names, strict=False)]
    what = (
        f"a sequence diagram of {num(lanes)} lifelines exchanging {num(m)} "
        f"messages, the {nth(accent)} message in blue{_labelled(names, 'lifeline')}"
    )
    return "".join(body), what


# kind: (drawing, the range of its count, what such a drawing suggests about a post)
KINDS: dict[str, tuple[Callable[[Spec, random.Random], Drawing], range, str]] = {
    "bars": (bars, range(3, 7), "a comparison of sizes, or a number that moved"),
    "histogram": (histogram, range(3, 6), "a spread of measurements and the slow tail of it"),
    "timeline": (
        timeline,
        range(3, 6),
        "events in order, a history or a migration told step by step",
    ),
    "stack": (stack, range(3, 6), "a system built in levels, each resting on the one below"),
    "queue": (queue, range(3, 6), "work waiting its turn and how fast it drains"),
    "pool": (pool, range(4, 11), "a fixed set of workers or connections shared by many callers"),
    "grid": (grid, range(3, 6), "data split into shards or partitions"),
    "flow": (flow, range(3, 5), "a decision or a rule that sends work one way or the other"),
    "gauge": (gauge, range(3, 5), "a budget, a limit or a share of something being watched"),
    "tree": (tree, range(2, 5), "a hierarchy of parts and what hangs under each"),
    "ring": (ring, range(3, 8), "a cycle that repeats, or keys spread around a ring"),
    "pipeline": (
        pipeline,
        range(3, 6),
        "steps that run one after another, like a build or a release",
    ),
    "nodes": (nodes, range(2, 6), "places far apart that must stay in step"),
    "layers": (layers, range(3, 6), "defences or caches wrapped one around another"),
    "wave": (wave, range(3, 6), "a signal over time and the moment it jumped"),
    "funnel": (funnel, range(3, 6), "a large set narrowed down stage by stage"),
    "network": (network, range(2, 6), "callers and the services they depend on"),
    "sequence": (sequence, range(2, 5), "messages passed back and forth in a set order"),
}
