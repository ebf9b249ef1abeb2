"""The compositions: one small function per kind of drawing, each returning SVG and what it shows.

Every function takes the drawing's `Spec` and a random source seeded from it, and returns the
drawing's SVG elements and a phrase saying what they show (objects, their arrangement, labels
and figures), so the alt text is written from the very values that were drawn. Charts draw only
the values they are given; schematics draw objects and label them with the spec's labels.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from blog.media.blueprint import (
    BLUE,
    BOTTOM,
    INK,
    LEFT,
    PAPER,
    RIGHT,
    TINT,
    TOP,
    arrow,
    brace,
    circle,
    cross,
    cylinder,
    document,
    dots,
    key,
    label,
    line,
    path,
    rect,
    server,
    table,
    width,
    window,
)
from blog.media.blueprint import f as _f

__all__ = [
    "BLUE",
    "CHARTS",
    "INK",
    "KINDS",
    "PAPER",
    "PARTS",
    "TINT",
    "Spec",
]  # colours for previews

_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()  # noqa: SIM905
_NTH = "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()  # noqa: SIM905

TOP_LINE = TOP + 20  # the baseline of a label along the band's top
BOTTOM_LINE = BOTTOM - 6  # the baseline of a label along the band's bottom


@dataclass(frozen=True)
class Spec:
    """What one drawing shows: its kind, how many parts, which part is blue, its labels and
    values.

    `values` are numbers as the post wrote them ("800 ms", "forty percent"), `magnitudes` their
    sizes when the post's reading knows them (else they are read from `values`); `heading` is
    what they measure ("container image"); `factor` a change the post gives without numbers
    ("tripled", "in half"); `labels` are phrases of the post, one per part the kind names.
    """

    kind: str
    count: int
    accent: int
    labels: tuple[str, ...]
    values: tuple[str, ...]
    seed: int
    heading: str = ""
    magnitudes: tuple[float, ...] = ()
    factor: str = ""


def num(n: int) -> str:
    """A count in words (to twelve), else in digits."""
    return _WORDS[n] if 0 <= n < len(_WORDS) else str(n)


def nth(i: int) -> str:
    """A zero-based position as an ordinal word."""
    return _NTH[i] if 0 <= i < len(_NTH) else f"{i + 1}th"


def quoted(words: list[str] | tuple[str, ...]) -> str:
    """Labels as a list in prose: “a”, “b” and “c”."""
    items = [f"“{w}”" for w in words]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def many(n: int, noun: str, plural: str = "") -> str:
    """A count and its noun, plural when it is not one: "one link", "three links"."""
    return f"{num(n)} {noun}" if n == 1 else f"{num(n)} {plural or noun + 's'}"


_SCALE = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "kb": 1e3, "k": 1e3, "mb": 1e6, "gb": 1e9}
_SCALE |= {"tb": 1e12, "minute": 60, "minutes": 60, "hour": 3600, "hours": 3600}


def magnitude(value: str) -> float:
    """The size a written value stands for, in one unit per dimension ("1.2 GB" > "140 MB")."""
    digits, _, unit = value.partition(" ")
    try:
        return float(digits.rstrip("%x×").replace(",", "")) * _SCALE.get(unit.lower(), 1.0)
    except ValueError:
        return 0.0


def dimension(value: str) -> str:
    """What a written value measures: time, bytes, a share, or plain count."""
    unit = value.partition(" ")[2].lower() or value[-1:]
    if unit in ("ns", "µs", "ms", "s") or unit.startswith(("second", "minute", "hour")):
        return "time"
    return "bytes" if unit in ("kb", "mb", "gb", "tb") else "%" if unit == "%" else "plain"


def sizes(s: Spec) -> list[float]:
    """The sizes of the spec's values: as the reading gave them, else read from the values,
    only those in the first value's dimension (bars of seconds and gigabytes would lie)."""
    if s.magnitudes:
        return list(s.magnitudes[: len(s.values)])
    if not s.values:
        return []
    first = dimension(s.values[0])
    return [magnitude(v) for v in s.values if dimension(v) == first]


class Sheet:
    """A drawing being made: its elements, and the labels it could fit, for the alt text."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.said: list[str] = []

    def add(self, *elements: str) -> None:
        """Draw these elements, in order."""
        self.parts.extend(elements)

    def text(
        self, x: float, y: float, words: str, room: float, anchor: str = "middle", said: bool = True
    ) -> bool:
        """Write a label where it fits in `room` units, else nothing: a label is never cut.
        `said`: name it at the end of the description (a chart says its values itself)."""
        if not words or width(words) > room:
            return False
        self.parts.append(label(x, y, words, anchor))
        if said and words not in self.said:
            self.said.append(words)
        return True

    def heading(self, words: str) -> str:
        """A chart's heading along the top, and the words that say it ("" when none fits)."""
        if self.text(LEFT, TOP + 21, words, RIGHT - LEFT, "start", said=False):
            return f", under the heading “{words}”"
        return ""

    def labelled(self) -> str:
        """ ", labelled “a” and “b”" for the labels written, or nothing."""
        return f", labelled {quoted(self.said)}" if self.said else ""

    def done(self, what: str) -> Drawing:
        """The SVG elements and the description, the labels named at its end."""
        return "".join(self.parts), what + self.labelled()


Drawing = tuple[str, str]


def _slots(s: Spec, n: int) -> list[str]:
    """The spec's first n labels, padded with empty ones."""
    return [*s.labels[:n], *[""] * max(0, n - len(s.labels))]


TL, BL = TOP + 21, BOTTOM - 7  # the baselines of the top and bottom rows of labels
MID = (TOP + BOTTOM) / 2


# Charts: they draw the spec's values, never values of their own.


def bars(s: Spec, rng: random.Random) -> Drawing:
    """Upright bars of the post's numbers on one scale, each given its value (and its name,
    where the post names it); with no values, outlined bars of one height under their names:
    no height is made up."""
    heights = sizes(s)
    valued = len(heights) >= 2
    n = len(heights) if valued else s.count
    names = _slots(s, n)
    sheet = Sheet()
    headed = sheet.heading(s.heading)
    base = BOTTOM - 36 if any(names) else BOTTOM - 8
    top = TOP + (58 if s.heading else 34)
    slot = (RIGHT - LEFT) / n
    w = min(slot * 0.55, 110)
    sheet.add(line(LEFT, base, RIGHT, base))
    biggest = max(heights) if valued else 1.0
    marks = []
    for i in range(n):
        x = LEFT + i * slot + (slot - w) / 2
        h = max((base - top) * (heights[i] / biggest if valued and biggest else 1.0), 3.0)
        sheet.add(rect(x, base - h, w, h, ("a" if i == n - 1 else "f") if valued else "o d", 1))
        if valued and sheet.text(x + w / 2, base - h - 9, s.values[i], slot - 6, said=False):
            marks.append(s.values[i])
        sheet.text(x + w / 2, BL, names[i], slot - 10)
    if valued:
        trend = "falling" if heights[-1] < heights[0] else "rising"
        what = (
            f"{num(n)} upright bars drawn to one scale, {trend} from left to right, the last in "
            f"blue, their values {quoted(marks)} written above them"
        )
    else:
        what = f"{num(n)} dashed bars of equal height, no values given"
    return sheet.done(what + headed)


def shift(s: Spec, rng: random.Random) -> Drawing:
    """A change or a pair of one measure: two bars on one scale from one edge, the second in
    blue; a change the post gives only as a factor ("tripled") is drawn to that factor and
    marked with it, no numbers made up."""
    values = list(s.values[:2])
    scale = sizes(s)[:2]
    factor = s.factor
    if len(scale) < 2 and factor:
        growth = {"doubled": 2.0, "tripled": 3.0, "quadrupled": 4.0}.get(factor, 0.5)
        scale, values = [1.0, growth], ["", factor]
    if len(scale) < 2:
        scale, values = [1.0, 1.0], ["", ""]
    sheet = Sheet()
    headed = sheet.heading(s.heading)
    x0 = LEFT + 4
    room = RIGHT - x0
    unit = min((room - 14 - width(v)) / m for v, m in zip(values, scale, strict=True) if m)
    ys = (TOP + 44, TOP + 128)
    ends = []
    for i, (value, size) in enumerate(zip(values, scale, strict=True)):
        length = max(size * unit, 4.0)
        sheet.add(rect(x0, ys[i], length, 44, "a" if i else "f", 1))
        sheet.text(x0 + length + 12, ys[i] + 30, value, room - length - 12, "start", said=False)
        ends.append(x0 + length)
    sheet.add(line(x0, ys[0] - 10, x0, ys[1] + 54))
    if s.count == 2:  # a change: an arrow from the before to the after
        sheet.add(
            arrow(
                ends[0], ys[0] + 50, ends[1] + (4 if ends[1] > ends[0] else -4), ys[1] - 6, "la d"
            )
        )
    shorter = "shorter" if scale[1] < scale[0] else "longer" if scale[1] > scale[0] else "as long"
    what = (
        "two horizontal bars drawn to one scale from a shared left edge, the upper grey, the lower "
        f"blue and {shorter}"
    )
    what += (
        ", a dashed arrow running from the end of one to the end of the other"
        if s.count == 2
        else ""
    )
    marked = [v for v in values if v]
    what += f", marked {quoted(marked)}" if marked else ""
    return sheet.done(what + headed)


def _parts_of(share: float) -> tuple[int, int]:
    """A share as so many of so many: 1 of 5, 1 of 3, 4 of 5, 1 of 50."""
    for total in (2, 3, 4, 5, 10, 20, 50, 100):
        lit = share * total
        if abs(lit - round(lit)) < 1e-6 and round(lit) >= 1:
            return round(lit), total
    return max(1, round(share * 20)), 20


def fraction(s: Spec, rng: random.Random) -> Drawing:
    """Shares drawn as parts: a bar cut into so many pieces with so many in blue ("a third",
    "one in five"), or a field of small squares for a share of fifty or more."""
    shares = [m / 100 for m in sizes(s) if 0 < m <= 100][:2]
    values = [v for v in s.values][: len(shares)]
    if not shares:
        shares, values = [(s.accent + 1) / s.count], [""]
    sheet = Sheet()
    headed = sheet.heading(s.heading)
    y: float = TOP + 40
    band = (BOTTOM - y - 8) / len(shares)
    said = []
    for share, value in zip(shares, values, strict=True):
        lit, total = _parts_of(share)
        per_row = min(total, 25)
        rows = math.ceil(total / per_row)
        label_right = width(value) + 16 < (RIGHT - LEFT) * 0.4 and total <= 10
        across = (RIGHT - LEFT) * (0.6 if label_right else 1.0)
        cell = min(across / per_row, (band - (0 if label_right else 34)) / rows)
        side = cell - (3 if total > 10 else 0)
        for k in range(total):
            cx = LEFT + (k % per_row) * cell
            cy = y + (k // per_row) * cell
            sheet.add(
                rect(
                    cx, cy, side, side if total > 10 else min(side, 44), "b" if k < lit else "o", 1
                )
            )
        height = rows * cell if total > 10 else min(side, 44)
        if label_right:
            sheet.text(
                LEFT + per_row * cell + 16,
                y + height / 2 + 8,
                value,
                RIGHT - LEFT - per_row * cell - 16,
                "start",
                said=False,
            )
        else:
            sheet.text(LEFT, y + height + 26, value, RIGHT - LEFT, "start", said=False)
        said.append(f"{num(lit)} of {num(total)} {'squares' if total > 10 else 'parts'} in blue")
        y += band
    what = " above ".join(f"a {'field' if 'squares' in r else 'bar'} with {r}" for r in said)
    marked = [v for v in values if v]
    what += f", marked {quoted(marked)}" if marked else ""
    return sheet.done(what + headed)


def gauge(s: Spec, rng: random.Random) -> Drawing:
    """A dial with its needle at the post's share; without one, a dial with no needle."""
    share = next((m for m in sizes(s) if 0 <= m <= 100), None)
    cx, cy, r = 320, BOTTOM - 34, 128
    sheet = Sheet()
    headed = sheet.heading(s.heading or (s.labels[0] if s.labels else ""))
    sheet.add(path(f"M{cx - r} {cy}A{r} {r} 0 0 1 {cx + r} {cy}", "l"))
    for t in range(0, 101, 10):
        b = math.pi * (1 - t / 100)
        c, d = math.cos(b), math.sin(b)
        sheet.add(line(cx + r * c, cy - r * d, cx + (r - 14) * c, cy - (r - 14) * d))
    value = ""
    if share is not None:
        a = math.pi * (1 - share / 100)
        px, py = cx + r * math.cos(a), cy - r * math.sin(a)
        sheet.add(path(f"M{cx - r} {cy}A{r} {r} 0 0 1 {_f(px)} {_f(py)}", "la"))
        sheet.add(line(cx, cy, cx + (r - 24) * math.cos(a), cy - (r - 24) * math.sin(a), "la"))
        value = s.values[0] if s.values else ""
        shown = sheet.text(cx + r + 16, cy, value, RIGHT - cx - r - 16, "start", said=False)
    sheet.add(circle(cx, cy, 8, "b"))
    if share is not None:
        what = (
            "a half-circle dial with ten ticks, its blue needle and arc at "
            f"{share:g} percent of the way round"
        )
        what += f", marked “{value}”" if value and shown else ""
    else:
        what = "a half-circle dial with ten ticks and no needle"
    return sheet.done(what + headed)


# Schematics: engineering objects, labelled with the post's phrases.


def database(s: Spec, rng: random.Random) -> Drawing:
    """A database beside its table of rows: some rows struck out and moved to a second table
    when the post names one, else a blue scan running down every row."""
    store, main, side = _slots(s, 3)
    rows = s.count
    sheet = Sheet()
    y, h = TOP + 34, 132
    sheet.add(
        cylinder(LEFT, y, 110, h, "o", 2), arrow(LEFT + 118, y + h / 2, LEFT + 156, y + h / 2)
    )
    tx = LEFT + 164
    if side:
        tw = 250
        marked = frozenset(i for i in range(rows) if (i * 5 + s.seed) % 3 == 0) or frozenset({1})
        sheet.add(table(tx, y, tw, h, rows, 3, struck=marked))
        sx = tx + tw + 36
        sheet.add(arrow(tx + tw + 6, y + h / 2, sx - 6, y + h / 2, "la d"))
        sheet.add(
            table(
                sx,
                y + 26,
                RIGHT - sx,
                80,
                len(marked),
                2,
                lit=frozenset(range(len(marked))),
                cls="a",
            )
        )
        sheet.text(RIGHT, BL, side, RIGHT - tx - tw / 2 - 20, "end")
        what = (
            f"a database cylinder with an arrow to a table of {num(rows)} rows, "
            f"{many(len(marked), 'row')} struck through in red and carried by a dashed blue arrow "
            "into a smaller blue table on the right"
        )
    else:
        tw = RIGHT - tx - 40
        sheet.add(table(tx, y, tw, h, rows, 4, lit=frozenset(range(rows))))
        sheet.add(arrow(RIGHT - 18, y + 10, RIGHT - 18, y + h, "la"))
        what = (
            f"a database cylinder with an arrow to a table of {num(rows)} rows, every row in blue "
            "and a blue arrow running down beside them all"
        )
    sheet.text(LEFT, BL, store, tx + tw / 2 - LEFT - 20, "start")
    sheet.text(tx + tw / 2, TL, main, 2 * (tx + tw / 2 - LEFT))
    return sheet.done(what)


def partitions(s: Spec, rng: random.Random) -> Drawing:
    """One table split into partitions in a row, the newest in blue, the oldest detached."""
    whole, part = _slots(s, 2)
    n = s.count
    gap = 14
    w = (RIGHT - LEFT - (n - 1) * gap) / n
    sheet = Sheet()
    sheet.text(320, TL, whole, RIGHT - LEFT)
    sheet.add(brace(LEFT, RIGHT, TOP + 38, up=False))
    for i in range(n):
        x = LEFT + i * (w + gap)
        y = TOP + 50 + (18 if i == 0 else 0)
        sheet.add(table(x, y, w, 116, 4, 2, cls="a" if i == n - 1 else ("o d" if i == 0 else "o")))
    sheet.text(RIGHT, BL, part, 2 * w + gap, "end")
    what = (
        f"a bracket over {num(n)} tables in a row, the partitions of one table: the rightmost, "
        "the newest, in blue, the leftmost dashed and dropped below the others, detached"
    )
    return sheet.done(what)


def replication(s: Spec, rng: random.Random) -> Drawing:
    """A primary database streaming changes, record by record, into a second database."""
    source, target, stream = _slots(s, 3)
    n = s.count + 3
    sheet = Sheet()
    y, h = TOP + 32, 136
    sheet.add(cylinder(LEFT, y, 120, h, "o", 2), cylinder(RIGHT - 120, y, 120, h, "a", 2))
    x1, x2 = LEFT + 132, RIGHT - 132
    sheet.add(arrow(x1, y + h / 2, x2, y + h / 2, "la"))
    sheet.add(dots(x1 + 22, y + h / 2, n, (x2 - x1 - 56) / max(n - 1, 1), 7, "a"))
    sheet.text(LEFT, BL, source, 300 - 20, "start")
    sheet.text(320, TL, stream, RIGHT - LEFT)
    sheet.text(RIGHT, BL, target, 300 - 20, "end")
    what = (
        "two database cylinders, the right one blue, joined by a blue arrow carrying a stream of "
        f"{num(n)} small records from left to right"
    )
    return sheet.done(what)


def snapshot(s: Spec, rng: random.Random) -> Drawing:
    """A store, a dashed copy taken from it, and a job run against the copy, timed."""
    source, copy, job = _slots(s, 3)
    sheet = Sheet()
    y, h = TOP + 34, 132
    sheet.add(
        cylinder(LEFT, y, 110, h, "o", 2),
        arrow(LEFT + 120, y + h / 2, LEFT + 184, y + h / 2, "l d"),
        cylinder(LEFT + 194, y, 110, h, "o d", 2),
        arrow(LEFT + 314, y + h / 2, LEFT + 370, y + h / 2, "la"),
        rect(LEFT + 380, y + 16, RIGHT - LEFT - 380, h - 32, "a", 5),
    )
    cx, cy = LEFT + 380 + (RIGHT - LEFT - 380) / 2, y + h / 2
    sheet.add(circle(cx, cy, 30, "o"), line(cx, cy, cx, cy - 20), line(cx, cy, cx + 14, cy + 7))
    sheet.text(LEFT, BL, source, 330, "start")
    sheet.text(LEFT + 249, TL, copy, 2 * (LEFT + 249 - LEFT))
    sheet.text(RIGHT, TL, job, RIGHT - LEFT - 249 - 249 + 120 + 30, "end")
    what = (
        "a database cylinder copied along a dashed arrow into a dashed second cylinder, and from "
        "the copy a blue arrow into a blue box holding a clock"
    )
    return sheet.done(what)


def queue(s: Spec, rng: random.Random) -> Drawing:
    """Messages waiting in a queue, taken from its head by a column of workers."""
    waiting, workers = _slots(s, 2)
    cells, w = 8, 34
    k = 3 + s.seed % 4
    x0, cy = LEFT + 44, MID
    sheet = Sheet()
    sheet.add(arrow(LEFT, cy, x0 - 6, cy))
    for i in range(cells):
        sheet.add(rect(x0 + i * w, cy - 26, w, 52, "f" if i >= cells - k else "o", 1))
    end = x0 + cells * w
    sheet.add(brace(end - k * w, end, cy + 40, up=True))
    n = s.count
    ys = [TOP + 42 + i * 116 / max(n - 1, 1) for i in range(n)]
    r = min(19.0, 116 / max(n - 1, 1) / 2 - 2)
    wx = RIGHT - 22
    for i, y in enumerate(ys):
        sheet.add(arrow(end + 8, cy, wx - r - 9, y, "la" if i == s.accent else "l"))
        sheet.add(circle(wx, y, r, "a" if i == s.accent else "o"))
    sheet.text(x0, TL, waiting, RIGHT - x0 - 50, "start")
    sheet.text(RIGHT, BL, workers, RIGHT - x0, "end")
    what = (
        f"a queue of {num(cells)} cells entered from the left, the {num(k)} at its head filled "
        "grey "
        f"and bracketed, fanning out by arrows to {num(n)} round workers on the right, one in blue"
    )
    return sheet.done(what)


def batch(s: Spec, rng: random.Random) -> Drawing:
    """Requests on a line gathered by brackets into batches, each sent whole into a server."""
    requests, box = _slots(s, 2)
    groups = s.count
    per = [2 + (s.seed >> (3 * i)) % 3 for i in range(groups)]
    sheet = Sheet()
    x, cy = LEFT + 14, MID
    for g, size in enumerate(per):
        sheet.add(dots(x, cy, size, 22, 8, "a" if g == groups - 1 else "o"))
        sheet.add(brace(x - 12, x + (size - 1) * 22 + 12, cy + 22, up=True))
        x += (size - 1) * 22 + 44
    sheet.add(arrow(x - 18, cy, RIGHT - 166, cy, "la"))
    sheet.add(
        rect(RIGHT - 156, TOP + 36, 156, 128, "a", 6),
        server(RIGHT - 138, TOP + 58, 120, 84, "o", 3),
    )
    sheet.text(LEFT, TL, requests, RIGHT - 166 - LEFT, "start")
    sheet.text(RIGHT, BL, box, RIGHT - LEFT, "end")
    sizes_ = ", ".join(num(p) for p in per[:-1]) + f" and {num(per[-1])}"
    what = (
        f"small circles on a line gathered by brackets into {num(groups)} batches of {sizes_}, "
        "the last batch in blue, and a blue arrow on into a server in a blue frame"
    )
    return sheet.done(what)


def pool(s: Spec, rng: random.Random) -> Drawing:
    """Many callers squeezed through a small pool of connections into one database."""
    callers_, pool_, store = _slots(s, 3)
    n = s.count
    sheet = Sheet()
    fx, fw = LEFT + 170, 170
    for i in range(6):
        caller = TOP + 36 + i * 25
        sheet.add(rect(LEFT, caller - 9, 44, 18, "o", 2), line(LEFT + 48, caller, fx - 4, MID))
    sheet.add(rect(fx, TOP + 34, fw, 132, "o", 8))
    for i in range(n):
        y = TOP + 50 + i * 100 / max(n - 1, 1)
        sheet.add(line(fx + 16, y, fx + fw - 16, y, "la" if i <= s.accent else "l d"))
    sheet.add(
        arrow(fx + fw + 8, MID, RIGHT - 132, MID), cylinder(RIGHT - 122, TOP + 34, 122, 132, "o", 2)
    )
    sheet.text(fx + fw / 2, TL, pool_, 2 * (fx + fw / 2 - LEFT))
    sheet.text(LEFT, BL, callers_, fx + fw - LEFT, "start")
    sheet.text(RIGHT, BL, store, RIGHT - fx - fw - 20, "end")
    what = (
        f"six small callers on the left whose lines converge on a frame of {num(n)} connections, "
        f"{num(s.accent + 1)} of them blue and in use, and an arrow from the frame to a database "
        "cylinder"
    )
    return sheet.done(what)


def layers(s: Spec, rng: random.Random) -> Drawing:
    """A request passing through cache layers toward a store, turned back at the first hit."""
    n = min(s.count, 4)
    store, *names = _slots(s, n + 1)
    sheet = Sheet()
    w, x0, store_x = 72, LEFT + 66, RIGHT - 116
    gap = (store_x - 40 - x0 - n * w) / max(n - 1, 1) if n > 1 else 0
    hit = s.accent % n
    ya, yb = TOP + 64, TOP + 136
    sheet.add(arrow(LEFT, ya, x0 - 6, ya))
    xs = [x0 + i * (w + gap) for i in range(n)]
    for i, x in enumerate(xs):
        sheet.add(rect(x, TOP + 34, w, 132, "a" if i == hit else "o", 6))
        if i < n - 1:
            sheet.add(arrow(x + w + 4, ya, x + w + gap - 4, ya, "l d" if i >= hit else "l"))
        room = min(2 * (w + gap) - 14 if n > 1 else 400, 2 * (x + w / 2 - LEFT))
        sheet.text(x + w / 2, TL if i % 2 == 0 else BL, names[i], room)
    sheet.add(arrow(xs[hit] - 4, yb, LEFT + 4, yb, "la"))
    sheet.add(arrow(xs[-1] + w + 4, ya, store_x - 8, ya, "l d"))
    sheet.add(cylinder(store_x, TOP + 34, 116, 132, "o", 2))
    # the store's label goes in the row the last layer's label leaves free
    row = BL if (n - 1) % 2 == 0 else TL
    sheet.text(RIGHT, row, store, RIGHT - xs[-1] - w / 2 - 24 if n > 1 else 240, "end")
    what = (
        f"a request arrow entering {many(n, 'tall layer')} in a row in front of a database "
        f"cylinder, the {nth(hit)} layer in blue sending a blue arrow back out to the left, the "
        "way "
        "on to the database dashed"
    )
    return sheet.done(what)


def stack(s: Spec, rng: random.Random) -> Drawing:
    """Layers stacked one on another, the widest at the bottom, each named inside."""
    n = s.count
    names = _slots(s, n)
    gap = 6
    h = (BOTTOM - TOP - 8 - (n - 1) * gap) / n
    sheet = Sheet()
    for i in range(n):
        w = (RIGHT - LEFT) - (n - 1 - i) * 56
        y = TOP + 4 + i * (h + gap)
        sheet.add(rect(320 - w / 2, y, w, h, "a" if i == s.accent else "o", 4))
        sheet.text(320, y + h / 2 + 8, names[i], w - 20)
    what = (
        f"a stack of {num(n)} layers narrowing toward the top, the {nth(s.accent)} from the top in "
        "blue"
    )
    return sheet.done(what)


def cluster(s: Spec, rng: random.Random) -> Drawing:
    """A cluster's nodes in two rows, each with what it reserves and what it uses, some nodes
    dashed: taken away."""
    whole, part = _slots(s, 2)
    n = s.count
    cols = math.ceil(n / 2)
    gap = 14
    w, h = (RIGHT - LEFT - 20 - (cols - 1) * gap) / cols, 58
    gone = {n - 1 - i for i in range(max(1, n // 3))}
    sheet = Sheet()
    sheet.text(LEFT, TL, whole, RIGHT - LEFT, "start")
    sheet.add(rect(LEFT, TOP + 32, RIGHT - LEFT, 146, "o d", 10))
    for i in range(n):
        x = LEFT + 10 + (i % cols) * (w + gap)
        y = TOP + 42 + (i // cols) * (h + 12)
        if i in gone:
            sheet.add(rect(x, y, w, h, "o d", 4), cross(x + w / 2, y + h / 2, 10))
            continue
        used = 0.2 + ((s.seed >> (2 * i)) % 4) / 10
        sheet.add(rect(x, y, w, h, "o", 4))
        sheet.add(
            rect(x + 8, y + 12, w - 16, 12, "o", 1),
            rect(x + 8, y + 12, (w - 16) * (used + 0.3), 12, "a", 1),
        )
        sheet.add(
            rect(x + 8, y + 34, w - 16, 12, "o", 1),
            rect(x + 8, y + 34, (w - 16) * used, 12, "b", 1),
        )
    sheet.text(RIGHT, BL, part, RIGHT - LEFT, "end")
    what = (
        f"a dashed frame holding {num(n)} nodes in two rows, each with a pale bar of what it "
        f"reserves above a shorter blue bar of what it uses, {many(len(gone), 'node')} at the end "
        "dashed and crossed out"
    )
    return sheet.done(what)


def growth(s: Spec, rng: random.Random) -> Drawing:
    """A level climbing step by step toward a dashed limit, then dropping back after a fix."""
    thing, limit = _slots(s, 2)
    steps = s.count + 3
    x0, x1 = LEFT, RIGHT - 120
    base, cap = BOTTOM - 38, TOP + 40
    step = (x1 - x0) / steps
    d = f"M{x0} {base - 16}"
    for i in range(steps):
        y = base - 16 - (i + 1) * (base - cap - 28) / steps
        d += f"H{_f(x0 + (i + 1) * step)}V{_f(y)}"
    d += f"V{base - 16}H{RIGHT}"
    sheet = Sheet()
    sheet.add(line(x0, base, RIGHT, base), path(f"M{x0} {cap}H{RIGHT}", "r d"), path(d, "la"))
    sheet.text(RIGHT, TL - 2, limit, RIGHT - LEFT, "end")
    sheet.text(LEFT, BL, thing, RIGHT - LEFT, "start")
    what = (
        f"a blue line climbing in {num(steps)} steps from a baseline toward a dashed red limit "
        "near the top, then dropping straight back down"
    )
    return sheet.done(what)


def nodes(s: Spec, rng: random.Random) -> Drawing:
    """A map of sites, each joined to every other by a dashed link."""
    n = s.count
    names = _slots(s, n)
    spacing = (RIGHT - LEFT - 80) / n
    pts = [(LEFT + 40 + (i + 0.5) * spacing, TOP + 66 + (i % 2) * 68) for i in range(n)]
    sheet = Sheet()
    sheet.add(*(line(*pts[i], *pts[j], "l d") for i in range(n) for j in range(i + 1, n)))
    sheet.add(*(circle(x, y, 26, "a" if i == s.accent else "o") for i, (x, y) in enumerate(pts)))
    for i, (x, _) in enumerate(pts):
        room = min(2 * spacing - 16 if n > 2 else 400, 2 * min(x - LEFT, RIGHT - x))
        sheet.text(x, TL - 2 if i % 2 == 0 else BL, names[i], room)
    links = n * (n - 1) // 2
    what = (
        f"a map of {num(n)} sites joined by {many(links, 'dashed link')}, the {nth(s.accent)} site "
        "from the left in blue"
    )
    return sheet.done(what)


def timeline(s: Spec, rng: random.Random) -> Drawing:
    """Events along a time axis, the span between two of them in blue."""
    n = s.count
    names = _slots(s, n)
    y = MID
    gap = (RIGHT - LEFT - 80) / (n - 1)
    xs = [LEFT + 30 + i * gap for i in range(n)]
    a = s.accent % (n - 1)
    sheet = Sheet()
    sheet.add(arrow(LEFT, y, RIGHT, y), rect(xs[a], y - 13, xs[a + 1] - xs[a], 26, "a", 2))
    sheet.add(*(circle(x, y, 9, "b" if i in (a, a + 1) else "o") for i, x in enumerate(xs)))
    for i, x in enumerate(xs):
        up = i % 2 == 0
        sheet.add(line(x, y + (-16 if up else 16), x, y + (-52 if up else 52)))
        _row_label(sheet, xs, i, names[i], gap)
    what = (
        f"a time axis with {num(n)} events, the span between the {nth(a)} and the {nth(a + 1)} "
        "shaded blue"
    )
    return sheet.done(what)


def _row_label(sheet: Sheet, xs: list[float], i: int, words: str, gap: float) -> None:
    """A part's label in the top row (even parts) or the bottom row (odd ones). Each label
    keeps to its share of the row, up to halfway to its neighbours in the same row; the
    first starts at the left edge, the last ends at the right, the others are centred."""
    n = len(xs)
    row = TL if i % 2 == 0 else BL
    before = xs[i - 2] if i >= 2 else None
    after = xs[i + 2] if i + 2 < n else None
    low = (before + xs[i]) / 2 + 6 if before is not None else LEFT
    high = (after + xs[i]) / 2 - 6 if after is not None else RIGHT
    if i == 0:
        sheet.text(LEFT, row, words, high - LEFT, "start")
    elif i == n - 1:
        sheet.text(RIGHT, row, words, RIGHT - low, "end")
    else:
        sheet.text(xs[i], row, words, 2 * min(xs[i] - low, high - xs[i]))


def pipeline(s: Spec, rng: random.Random) -> Drawing:
    """Stages in a row joined by arrows, a token moving through them."""
    n = s.count
    names = _slots(s, n)
    gap = 34
    w = (RIGHT - LEFT - (n - 1) * gap) / n
    y, h = TOP + 48, 104
    sheet = Sheet()
    xs = [LEFT + i * (w + gap) + w / 2 for i in range(n)]
    inside = all(width(name) <= w - 16 for name in names)
    for i in range(n):
        x = LEFT + i * (w + gap)
        sheet.add(rect(x, y, w, h, "a" if i == s.accent else "o", 6))
        if i < n - 1:
            sheet.add(arrow(x + w + 4, y + h / 2, x + w + gap - 4, y + h / 2))
        if inside:
            sheet.text(x + w / 2, y + h / 2 + 8, names[i], w - 16)
        else:
            _row_label(sheet, xs, i, names[i], gap)
    sheet.add(circle(xs[s.accent], y + h - 18, 7, "b"))
    what = (
        f"{num(n)} stages in a row joined by arrows, the {nth(s.accent)} in blue with a token in it"
    )
    return sheet.done(what)


def chain(s: Spec, rng: random.Random) -> Drawing:
    """A request passing hop to hop, the time it has left a shrinking bar under each hop."""
    hop, budget = _slots(s, 2)
    n = s.count
    gap = 30
    w = (RIGHT - LEFT - (n - 1) * gap) / n
    sheet = Sheet()
    sheet.text(LEFT, TL, hop, RIGHT - LEFT, "start")
    for i in range(n):
        x = LEFT + i * (w + gap)
        sheet.add(server(x, TOP + 34, w, 60, "a" if i == n - 1 else "o", 2))
        if i < n - 1:
            sheet.add(arrow(x + w + 4, TOP + 64, x + w + gap - 4, TOP + 64))
        sheet.add(rect(x, TOP + 112, RIGHT - x, 18, "b" if i == n - 1 else "f", 1))
        sheet.add(line(x, TOP + 98, x, TOP + 136, "l d"))
    sheet.text(LEFT, BL, budget, RIGHT - LEFT, "start")
    what = (
        f"{num(n)} servers in a row joined by arrows, under each a bar from where it stands to the "
        "same right edge, so each bar is shorter than the one before, the last in blue"
    )
    return sheet.done(what)


def network(s: Spec, rng: random.Random) -> Drawing:
    """Callers on the left wired to one service, which calls two stores on the right."""
    callers_, centre = _slots(s, 2)
    n = s.count
    sheet = Sheet()
    cx, cy = 300, MID
    ys = [TOP + 40 + i * 122 / max(n - 1, 1) for i in range(n)]
    for y in ys:
        sheet.add(rect(LEFT, y - 11, 88, 22, "o", 3), line(LEFT + 92, y, cx - 76, cy))
    sheet.add(rect(cx - 72, cy - 34, 144, 68, "a", 8))
    for y in (TOP + 36, TOP + 104):
        sheet.add(
            arrow(cx + 76, cy, RIGHT - 100, y + 30, "l d"), cylinder(RIGHT - 92, y, 92, 60, "o", 1)
        )
    sheet.text(LEFT, TL, callers_, cx - LEFT + 100, "start")
    sheet.text(cx, BL, centre, 2 * (cx - LEFT) - 10)
    what = (
        f"{num(n)} boxes on the left wired to one blue box in the middle, which has dashed "
        "arrows to two database cylinders on the right"
    )
    return sheet.done(what)


def sequence(s: Spec, rng: random.Random) -> Drawing:
    """Lifelines and the messages between them; one message sent twice, the repeat refused."""
    lanes = s.count
    names = _slots(s, lanes)
    xs = [LEFT + 70 + i * (RIGHT - LEFT - 140) / (lanes - 1) for i in range(lanes)]
    sheet = Sheet()
    for i, x in enumerate(xs):
        sheet.add(rect(x - 46, TOP + 32, 92, 22, "f", 3), line(x, TOP + 54, x, BOTTOM - 4, "l d"))
        room = (RIGHT - LEFT) / lanes - 12
        anchor, lx = (
            ("start", LEFT) if i == 0 else ("end", RIGHT) if i == lanes - 1 else ("middle", x)
        )
        sheet.text(lx, TL, names[i], room if lanes > 2 else (RIGHT - LEFT) / 2 - 12, anchor)
    messages, repeat = 4, 2
    for i in range(messages):
        a, b = (0, 1) if i % 2 == 0 else (1, 0)
        if lanes == 3 and i == 3:
            a, b = 1, 2
        y = TOP + 80 + i * 32
        sheet.add(arrow(xs[a], y, xs[b] - (8 if b > a else -8), y, "la" if i == repeat else "l"))
        if i == repeat:
            sheet.add(cross(xs[b] - (26 if b > a else -26), y - 12))
    what = (
        f"a sequence diagram of {num(lanes)} lifelines exchanging {num(messages)} messages, the "
        f"{nth(repeat)}, a repeat of the first, in blue and crossed out in red"
    )
    return sheet.done(what)


def tree(s: Spec, rng: random.Random) -> Drawing:
    """A tree: a root, its children, and the blue child's own children."""
    k = s.count
    root, leaf = _slots(s, 2)
    branch = s.accent % k
    g, w, h = 3, 92, 28
    kids = [(LEFT + (i + 0.5) * (RIGHT - LEFT) / k, TOP + 100) for i in range(k)]
    bx = min(max(kids[branch][0], LEFT + w / 2 + 100), RIGHT - w / 2 - 100)
    grand = [(bx + (j - 1) * 100, TOP + 158) for j in range(g)]
    top = (320.0, TOP + 46)

    def elbow(p: tuple[float, float], c: tuple[float, float]) -> str:
        mid = (p[1] + c[1]) / 2
        return path(f"M{_f(p[0])} {_f(p[1] + h / 2)}V{_f(mid)}H{_f(c[0])}V{_f(c[1] - h / 2)}")

    sheet = Sheet()
    sheet.add(*(elbow(top, c) for c in kids), *(elbow(kids[branch], c) for c in grand))
    sheet.add(
        *(
            rect(x - w / 2, y - h / 2, w, h, "a" if i == branch else "o", 4)
            for i, (x, y) in enumerate(kids)
        )
    )
    sheet.add(
        *(rect(x - w / 2, y - h / 2, w, h, "o", 4) for x, y in grand),
        rect(top[0] - 60, top[1] - h / 2, 120, h, "f", 4),
    )
    sheet.text(top[0] + 76, top[1] + 8, root, RIGHT - top[0] - 76, "start")
    sheet.text(RIGHT, BL, leaf, RIGHT - LEFT, "end")
    what = (
        f"a tree whose grey root has {num(k)} children, the {nth(branch)} in blue with {num(g)} "
        "children of its own"
    )
    return sheet.done(what)


def commits(s: Spec, rng: random.Random) -> Drawing:
    """A line of commits and a search halving it, bracket under bracket, to one commit."""
    span, steps_ = _slots(s, 2)
    n = 24
    gap = (RIGHT - LEFT - 12) / (n - 1)
    culprit = 7 + s.seed % 10
    y = TOP + 44
    sheet = Sheet()
    sheet.add(
        line(LEFT + 6, y, RIGHT - 6, y), *(circle(LEFT + 6 + i * gap, y, 6, "o") for i in range(n))
    )
    lo, hi, depth = 0, n - 1, 0
    while hi - lo > 1 and depth < s.count:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if culprit <= mid else (mid, hi)
        depth += 1
        sheet.add(
            brace(
                LEFT + 6 + lo * gap - 6,
                LEFT + 6 + hi * gap + 6,
                y + 14 + depth * 22,
                up=True,
                cls="la",
            )
        )
    sheet.add(circle(LEFT + 6 + culprit * gap, y, 9, "a"), cross(LEFT + 6 + culprit * gap, y, 6))
    sheet.text(LEFT, BL, span, 280, "start")
    sheet.text(RIGHT, BL, steps_, 280, "end")
    what = (
        f"a line of {num(n)} commits with {num(depth)} blue brackets beneath it, each about half "
        "as wide as the one above, closing on one commit crossed in red"
    )
    return sheet.done(what)


def funnel(s: Spec, rng: random.Random) -> Drawing:
    """Many items narrowed left to right into a short ranked list."""
    wide, narrow = _slots(s, 2)
    n = s.count
    sheet = Sheet()
    sheet.add(
        *(circle(LEFT + 10 + (i % 3) * 32, TOP + 46 + (i // 3) * 36, 8, "o") for i in range(12))
    )
    fx = LEFT + 112
    sheet.add(path(f"M{fx} {TOP + 32}L{fx + 190} {MID - 24}V{MID + 24}L{fx} {TOP + 168}Z", "o"))
    sheet.add(arrow(fx + 198, MID, fx + 246, MID))
    lx = fx + 256
    for i in range(n):
        sheet.add(rect(lx, TOP + 52 + i * 26, RIGHT - lx - i * 30, 18, "a" if i == 0 else "f", 2))
    sheet.text(LEFT, BL, wide, fx + 190 - LEFT, "start")
    sheet.text(RIGHT, TL, narrow, RIGHT - fx - 100, "end")
    what = (
        "twelve small circles on the left entering a funnel that narrows to the right, and out of "
        f"it a ranked list of {num(n)} bars, each shorter than the one above, the first in blue"
    )
    return sheet.done(what)


def model(s: Spec, rng: random.Random) -> Drawing:
    """Inputs feeding two models side by side, a straight line and a tree of splits; their
    answers meet at one output."""
    first, second = _slots(s, 2)
    sheet = Sheet()
    mx, mw = LEFT + 170, 190
    tops = (TOP + 32, TOP + 108)
    for i in range(4):
        y = TOP + 46 + i * 34
        sheet.add(rect(LEFT, y - 11, 64, 22, "f", 2))
        sheet.add(*(line(LEFT + 68, y, mx - 4, t + 30) for t in tops))
    sheet.add(
        rect(mx, tops[0], mw, 60, "a", 6),
        line(mx + 20, tops[0] + 50, mx + mw - 20, tops[0] + 10, "la"),
    )
    sheet.add(rect(mx, tops[1], mw, 60, "o", 6))
    tx, ty = mx + mw / 2, tops[1] + 10
    for dx in (-40, 40):
        sheet.add(line(tx, ty, tx + dx, ty + 18))
        sheet.add(*(line(tx + dx, ty + 18, tx + dx + ex, ty + 40) for ex in (-16, 16)))
    ox = RIGHT - 30
    sheet.add(
        arrow(mx + mw + 6, tops[0] + 30, ox - 32, MID - 8, "la"),
        arrow(mx + mw + 6, tops[1] + 30, ox - 32, MID + 8, "l d"),
    )
    sheet.add(circle(ox, MID, 26, "o"))
    sheet.text(RIGHT, TL, first, RIGHT - mx, "end")
    sheet.text(RIGHT, BL, second, RIGHT - mx, "end")
    what = (
        "four grey inputs wired into two models one above the other, a blue box holding a "
        "straight line and a box holding a small tree of splits, their arrows meeting at one "
        "circle on the right"
    )
    return sheet.done(what)


def histogram(s: Spec, rng: random.Random) -> Drawing:
    """Two distributions over one axis, the second shifted to the right and drawn in blue."""
    before, after = _slots(s, 2)
    base = BOTTOM - 36
    moved = 90 + 10 * (s.seed % 5)

    def bell(c: float, spread: float, height: float) -> str:
        xs = range(LEFT, RIGHT + 1, 12)
        return "M" + "L".join(
            f"{x} {_f(base - height * math.exp(-(((x - c) / spread) ** 2)))}" for x in xs
        )

    c = LEFT + 190
    sheet = Sheet()
    sheet.add(
        line(LEFT, base, RIGHT, base),
        path(bell(c, 66, 124), "l"),
        path(bell(c + moved, 86, 96), "la"),
    )
    sheet.add(arrow(c, base + 16, c + moved, base + 16, "la"))
    sheet.text(LEFT, TL, before, c - LEFT + 60, "start")
    sheet.text(RIGHT, TL + 30, after, RIGHT - c - 80, "end")
    what = (
        "two bell-shaped curves over one baseline, the second in blue, lower, wider and shifted "
        "to the right, a blue arrow under the axis showing the shift"
    )
    return sheet.done(what)


def wave(s: Spec, rng: random.Random) -> Drawing:
    """A metric over time crossing a dashed threshold, each crossing marked."""
    metric, alert = _slots(s, 2)
    cycles = s.count
    limit, base = TOP + 62, BOTTOM - 36
    pts = [
        (
            LEFT + i * 10,
            MID - 10 - 46 * math.sin(2 * math.pi * cycles * i / 59) - 12 * math.sin(i * 1.7),
        )
        for i in range(60)
    ]
    sheet = Sheet()
    sheet.add(line(LEFT, base, RIGHT, base), path(f"M{LEFT} {limit}H{RIGHT}", "r d"))
    sheet.add(path("M" + "L".join(f"{_f(x)} {_f(y)}" for x, y in pts), "la"))
    marks = 0
    for (x1, y1), (x2, y2) in itertools.pairwise(pts):
        if y1 > limit >= y2:
            sheet.add(circle((x1 + x2) / 2, limit, 6, "b"))
            marks += 1
    sheet.text(LEFT, BL, metric, RIGHT - LEFT, "start")
    sheet.text(RIGHT, TL - 2, alert, RIGHT - LEFT, "end")
    what = (
        f"a jagged blue line over time crossing a dashed red threshold {many(marks, 'time')}, "
        "each crossing marked with a dot"
    )
    return sheet.done(what)


def bucket(s: Spec, rng: random.Random) -> Drawing:
    """A token bucket: tokens drip in, requests take one each, the rest are turned away."""
    box, requests = _slots(s, 2)
    n = s.count
    bx, by = 300, TOP + 66
    sheet = Sheet()
    sheet.add(path(f"M{bx - 70} {by}L{bx - 52} {by + 108}H{bx + 52}L{bx + 70} {by}", "o"))
    sheet.add(*(circle(bx - 36 + (i % 4) * 24, by + 92 - (i // 4) * 22, 9, "a") for i in range(n)))
    sheet.add(circle(bx, by - 30, 8, "a"), arrow(bx, by - 18, bx, by - 2, "la"))
    sheet.add(*(circle(LEFT + 10 + (i % 2) * 26, TOP + 64 + i * 26, 8, "o") for i in range(4)))
    sheet.add(arrow(LEFT + 56, MID, bx - 78, MID))
    sheet.add(
        arrow(bx + 78, MID - 10, RIGHT - 80, TOP + 72, "la"),
        server(RIGHT - 72, TOP + 42, 72, 56, "o", 2),
    )
    sheet.add(arrow(bx + 72, MID + 30, RIGHT - 110, TOP + 154, "l d"), cross(RIGHT - 96, TOP + 156))
    sheet.text(bx, TL, box, 2 * (bx - LEFT) - 20)
    sheet.text(LEFT, BL, requests, bx + 40 - LEFT, "start")
    what = (
        f"a bucket holding {num(n)} blue tokens with one more dripping in from above; requests "
        "from the left pass through it, a blue arrow on to a server and a dashed one to a red "
        "cross"
    )
    return sheet.done(what)


def page(s: Spec, rng: random.Random) -> Drawing:
    """A browser window of blocks, one of them moved from where it was first laid out."""
    name, part = _slots(s, 2)
    x, y, w, h = LEFT + 130, TOP + 32, 340, 136
    blocks = [
        (x + 14, y + 30, w - 28, 22),
        (x + 14, y + 60, 140, 66),
        (x + 166, y + 60, w - 180, 28),
        (x + 166, y + 98, w - 180, 28),
    ]
    moved = s.accent % 4
    sheet = Sheet()
    sheet.add(window(x, y, w, h))
    for i, (bx, by, bw, bh) in enumerate(blocks):
        if i == moved:
            sheet.add(rect(bx, by, bw, bh, "o d", 2), rect(bx + 10, by + 12, bw, bh, "a", 2))
        else:
            sheet.add(rect(bx, by, bw, bh, "f", 2))
    sheet.text(x, TL, name, RIGHT - x, "start")
    sheet.text(x + w, BL, part, x + w - LEFT, "end")
    what = (
        f"a browser window of four grey blocks, the {nth(moved)} drawn twice: dashed where it was "
        "first laid out and in blue where it moved to"
    )
    return sheet.done(what)


def files(s: Spec, rng: random.Random) -> Drawing:
    """Many small files on the left, and one file on the right they are made into."""
    many_, one = _slots(s, 2)
    n = s.count
    sheet = Sheet()
    ox, oy = RIGHT - 130, TOP + 34
    for i in range(n):
        x = LEFT + (i % 3) * 58
        y = TOP + 36 + (i // 3) * 70
        sheet.add(document(x, y, 44, 58, "o", 2), line(x + 48, y + 29, ox - 56, MID, "l d"))
    sheet.add(arrow(ox - 50, MID, ox - 10, MID, "la"), document(ox, oy, 130, 132, "a", 5))
    sheet.text(LEFT, BL, many_, ox - 40 - LEFT, "start")
    sheet.text(RIGHT, TL, one, RIGHT - LEFT - 200, "end")
    what = (
        f"{many(n, 'small file')} on the left, their dashed lines meeting in a blue arrow to one "
        "large blue file on the right"
    )
    return sheet.done(what)


def keys(s: Spec, rng: random.Random) -> Drawing:
    """An old key and a new one, both valid for a while, servers moving from one to the other."""
    secret, servers_ = _slots(s, 2)
    n = s.count
    ya, yb = TOP + 52, TOP + 132
    old_end, new_start, new_end = LEFT + 370, LEFT + 250, RIGHT - 96
    sheet = Sheet()
    sheet.add(key(LEFT + 20, ya, 64, "f"), key(LEFT + 20, yb, 64, "a"))
    sheet.add(rect(LEFT + 110, ya - 13, old_end - LEFT - 110, 26, "f", 2))
    sheet.add(rect(new_start, yb - 13, new_end - new_start, 26, "a", 2))
    sheet.add(
        line(new_start, ya - 24, new_start, yb + 24, "l d"),
        line(old_end, ya - 24, old_end, yb + 24, "l d"),
    )
    sx = RIGHT - 58
    ys = [TOP + 36 + i * 128 / max(n - 1, 1) for i in range(n)]
    for i, y in enumerate(ys):
        sheet.add(server(sx, y - 15, 58, 30, "o", 1))
        if i == 0:
            sheet.add(arrow(sx - 6, y, old_end + 6, ya, "l d"))
        else:
            sheet.add(arrow(sx - 6, y, new_end + 6, yb, "la"))
    sheet.text(LEFT, BL, secret, new_start - LEFT + 100, "start")
    sheet.text(RIGHT, TL, servers_, RIGHT - old_end + 60, "end")
    what = (
        "two keys, the upper grey and the lower blue, each followed by a bar of when it is valid, "
        f"the bars overlapping between two dashed lines; of {num(n)} servers on the right, the "
        "first still points to the grey key and the rest to the blue one"
    )
    return sheet.done(what)


def checkpoint(s: Spec, rng: random.Random) -> Drawing:
    """A long job on one machine, cut short; it resumes on another from its last checkpoint."""
    job, cut = _slots(s, 2)
    marks = s.count
    x0, x1 = LEFT, RIGHT
    stop = x0 + (x1 - x0) * 0.6
    step = (stop - x0 - 24) / marks
    ya, yb = TOP + 44, TOP + 130
    sheet = Sheet()
    sheet.add(rect(x0, ya, stop - x0, 32, "f", 2))
    sheet.add(*(rect(x0 + (i + 1) * step - 4, ya - 6, 8, 44, "b", 1) for i in range(marks)))
    sheet.add(
        path(
            f"M{_f(stop)} {ya - 12}L{_f(stop + 10)} {ya + 8}"
            f"L{_f(stop - 6)} {ya + 22}L{_f(stop + 6)} {ya + 46}",
            "r",
        )
    )
    last = x0 + marks * step
    sheet.add(arrow(last, ya + 40, last, yb - 6, "la d"), rect(last, yb, x1 - last, 32, "a", 2))
    sheet.text(LEFT, TL, job, stop - LEFT, "start")
    sheet.text(RIGHT, TL, cut, RIGHT - stop - 24, "end")
    what = (
        f"a long grey job bar with {num(marks)} blue checkpoint marks, cut short by a red zigzag; "
        "from the last mark a dashed arrow drops to a blue bar that carries on to the end"
    )
    return sheet.done(what)


def mirror(s: Spec, rng: random.Random) -> Drawing:
    """One stream of traffic copied to two twins: the live one answers, the dashed one is only
    compared with it."""
    live, shadow = _slots(s, 2)
    sheet = Sheet()
    sx, sw = LEFT + 220, 160
    ya, yb = TOP + 34, TOP + 112
    sheet.add(arrow(LEFT, MID, LEFT + 100, MID, "la"), circle(LEFT + 110, MID, 8, "b"))
    sheet.add(
        arrow(LEFT + 118, MID - 4, sx - 6, ya + 27, "la"),
        arrow(LEFT + 118, MID + 4, sx - 6, yb + 27, "l d"),
    )
    sheet.add(server(sx, ya, sw, 54, "a", 2), server(sx, yb, sw, 54, "o d", 2))
    sheet.add(arrow(sx + sw + 6, ya + 27, RIGHT, ya + 27, "la"))
    cx = RIGHT - 60
    sheet.add(path(f"M{sx + sw + 6} {yb + 27}H{cx}V{ya + 40}", "l d"), circle(cx, ya + 27, 10, "o"))
    sheet.text(LEFT, TL, live, sx + sw - LEFT, "start")
    sheet.text(LEFT, BL, shadow, RIGHT - LEFT, "start")
    what = (
        "one blue arrow splitting at a dot into a solid line to a blue server and a dashed line to "
        "a dashed twin below it; the blue server's answer goes on, the twin's only meets it at a "
        "circle where the two are compared"
    )
    return sheet.done(what)


def grid(s: Spec, rng: random.Random) -> Drawing:
    """A table of rows and columns, some cells graded in blue."""
    whole, fields = _slots(s, 2)
    rows, cols = 4, s.count + 1
    w, h = (RIGHT - LEFT) / cols, 140 / (rows + 1)
    x0, y0 = LEFT, TOP + 32
    sheet = Sheet()
    sheet.add(rect(x0, y0, cols * w, (rows + 1) * h, "o", 2), rect(x0, y0, cols * w, h, "f", 2))
    lit = 0
    for r in range(1, rows + 1):
        sheet.add(line(x0, y0 + r * h, x0 + cols * w, y0 + r * h))
        for c in range(1, cols):
            if (r * 3 + c * 5 + s.seed) % 4 == 0:
                sheet.add(rect(x0 + c * w + 8, y0 + r * h + 6, w - 16, h - 12, "b", 1))
                lit += 1
    sheet.add(*(line(x0 + c * w, y0, x0 + c * w, y0 + (rows + 1) * h) for c in range(1, cols)))
    sheet.text(LEFT, TL, whole, RIGHT - LEFT, "start")
    sheet.text(LEFT, BL, fields, RIGHT - LEFT, "start")
    what = (
        f"a table of {num(rows)} rows under a grey header, in {num(cols)} columns, "
        f"{many(lit, 'cell')} filled in blue"
    )
    return sheet.done(what)


def ring(s: Spec, rng: random.Random) -> Drawing:
    """A cycle: stations on a circle joined by arrows going round, one in blue."""
    n = s.count + 2
    cycle, station = _slots(s, 2)
    cx, cy, r = 320, MID, 70
    turn = 2 * math.pi * (s.seed % 6) / 6 / n  # where the stations start: the slug's hash
    angles = [turn + 2 * math.pi * i / n for i in range(n)]
    pts = [(cx + r * math.sin(a), cy - r * math.cos(a)) for a in angles]
    sheet = Sheet()
    for i in range(n):
        (x1, y1), (x2, y2) = pts[i], pts[(i + 1) % n]
        a = math.atan2(y2 - y1, x2 - x1)
        sheet.add(
            arrow(
                x1 + 22 * math.cos(a),
                y1 + 22 * math.sin(a),
                x2 - 22 * math.cos(a),
                y2 - 22 * math.sin(a),
            )
        )
    accent = s.accent % n
    sheet.add(*(circle(x, y, 15, "a" if i == accent else "o") for i, (x, y) in enumerate(pts)))
    sheet.text(LEFT, TL, cycle, cx - 20 - LEFT, "start")
    sheet.text(RIGHT, BL, station, RIGHT - cx - 20, "end")
    what = (
        f"{num(n)} stations on a circle joined by arrows going round clockwise, the {nth(accent)} "
        "from the top in blue"
    )
    return sheet.done(what)


def flow(s: Spec, rng: random.Random) -> Drawing:
    """A flowchart: a box, a decision diamond, and two branches."""
    start, decision, yes, no = _slots(s, 4)
    pick = s.accent % 2
    cy = MID
    dx = LEFT + 150
    sheet = Sheet()
    sheet.add(rect(LEFT, cy - 28, 100, 56, "o", 4), arrow(LEFT + 104, cy, dx - 4, cy))
    sheet.add(path(f"M{dx + 60} {cy - 62}L{dx + 120} {cy}L{dx + 60} {cy + 62}L{dx} {cy}Z", "o"))
    bx = RIGHT - 200
    for i, y in enumerate((cy - 48, cy + 48)):
        sheet.add(
            arrow(dx + 124, cy, bx - 6, y), rect(bx, y - 24, 200, 48, "a" if i == pick else "o", 4)
        )
    sheet.text(bx + 100, cy - 40, yes, 184)
    sheet.text(bx + 100, cy + 56, no, 184)
    sheet.text(LEFT, TL, start, bx - LEFT - 20, "start")
    sheet.text(LEFT, BL, decision, bx - LEFT + 100, "start")
    what = (
        "a flowchart in which a box leads to a decision diamond with two branches, the "
        f"{'upper' if pick == 0 else 'lower'} branch in blue"
    )
    return sheet.done(what)


def waterfall(s: Spec, rng: random.Random) -> Drawing:
    """Resources loading as staggered bars, and the moment the page first paints moved earlier
    by the post's figure."""
    n = s.count
    value, *names = _slots(s, n + 1)
    late, early = RIGHT - 40, RIGHT - 170
    sheet = Sheet()
    h = min(34, (BOTTOM - TOP - 70) / n - 6)
    for i in range(n):
        y = TOP + 8 + i * (h + 6)
        start = LEFT + i * 34
        length = max(width(names[i]) + 24, 140 + (s.seed >> (2 * i)) % 4 * 24)
        length = min(length, early - 12 - start)
        sheet.add(rect(start, y, length, h, "a" if i == n - 1 else "f", 2))
        sheet.text(start + 10, y + h / 2 + 8, names[i], length - 16, "start")
    bottom = TOP + 8 + n * (h + 6)
    sheet.add(
        line(late, TOP + 4, late, bottom + 26, "l d"),
        line(early, TOP + 4, early, bottom + 26, "la"),
    )
    sheet.add(arrow(late, bottom + 14, early + 4, bottom + 14, "la"))
    shown = sheet.text(RIGHT, BL, value, RIGHT - LEFT, "end", said=False)
    what = (
        f"{num(n)} staggered bars of resources loading, a dashed line where the page used to "
        "paint first and a blue line further left where it paints now, a blue arrow between "
        "them"
    )
    what += f" marked “{value}”" if shown else ""
    return sheet.done(what)


def breaker(s: Spec, rng: random.Random) -> Drawing:
    """Calls from a service through a circuit breaker, open, to a failing dependency: the
    calls stop at the breaker instead of piling up behind it."""
    caller, switch, callee = _slots(s, 3)
    sheet = Sheet()
    y = MID
    sheet.add(server(LEFT, y - 40, 120, 80, "o", 2))
    sheet.add(arrow(LEFT + 128, y, LEFT + 206, y))
    bx = LEFT + 216
    sheet.add(circle(bx, y, 7, "b"), circle(bx + 84, y, 7, "b"))
    sheet.add(line(bx + 6, y - 3, bx + 74, y - 40, "la"))  # the switch, open
    sheet.add(rect(bx - 24, y - 66, 132, 100, "o d", 8))
    sheet.add(path(f"M{bx + 92} {y}H{RIGHT - 132}", "l d"), cross(bx + 140, y, 10))
    sheet.add(cylinder(RIGHT - 120, y - 66, 120, 132, "f", 2))
    sheet.add(*(circle(LEFT + 150 + i * 18, y + 40, 6, "a") for i in range(3)))
    sheet.text(LEFT, BL, caller, bx - 30 - LEFT, "start")
    sheet.text(bx + 42, TL, switch, 2 * (bx + 42 - LEFT) - 20)
    sheet.text(RIGHT, BL, callee, RIGHT - bx - 60, "end")
    what = (
        "a server on the left calling through an open switch in a dashed box, the line beyond "
        "it dashed and crossed in red before a grey database on the right, three blue calls "
        "held back at the switch"
    )
    return sheet.done(what)


def report(s: Spec, rng: random.Random) -> Drawing:
    """A written document of fixed sections: a summary, a timeline strip, action items ticked
    off; an older, longer draft behind it."""
    name, section, item = _slots(s, 3)
    x, y, w, h = LEFT + 150, TOP + 26, 250, 168
    sheet = Sheet()
    sheet.add(rect(x - 40, y - 14, w, h, "o d", 3))  # the long draft behind
    sheet.add(document(x, y, w, h, "o", 0))
    sheet.add(rect(x + 16, y + 52, w - 32, 16, "f", 2))
    sheet.add(
        line(x + 16, y + 92, x + w - 16, y + 92),
        *(circle(x + 30 + i * 48, y + 92, 5, "b") for i in range(5)),
    )
    for i in range(s.count):
        yy = y + 116 + i * 16
        sheet.add(
            rect(x + 16, yy - 6, 10, 10, "a" if i < s.count - 1 else "o", 1),
            line(x + 36, yy, x + w - 40, yy),
        )
    sheet.text(x + w + 14, TL + 20, name, RIGHT - x - w - 14, "start")
    sheet.text(x + w + 14, MID + 20, section, RIGHT - x - w - 14, "start")
    sheet.text(x + w + 14, BL, item, RIGHT - x - w - 14, "start")
    what = (
        "a document in front of a longer dashed draft: a grey summary bar, a timeline strip of "
        f"five blue dots and {many(s.count, 'action item')} with ticked boxes"
    )
    return sheet.done(what)


def move(s: Spec, rng: random.Random) -> Drawing:
    """Data moved from one store to another along a solid arrow, and later back along a
    dashed one."""
    first, second, what_ = _slots(s, 3)
    sheet = Sheet()
    y, h = TOP + 34, 132
    sheet.add(cylinder(LEFT, y, 120, h, "o", 2), cylinder(RIGHT - 120, y, 120, h, "a", 2))
    x1, x2 = LEFT + 132, RIGHT - 132
    sheet.add(arrow(x1, y + 40, x2, y + 40, "la"), arrow(x2, y + 96, x1, y + 96, "l d"))
    sheet.add(*(rect(x1 + 40 + i * 40, y + 28, 24, 24, "a", 2) for i in range(s.count)))
    sheet.text(LEFT, BL, first, 300 - 20, "start")
    sheet.text(RIGHT, BL, second, 300 - 20, "end")
    sheet.text(320, TL, what_, RIGHT - LEFT)
    what = (
        f"two database cylinders, the right one blue, a solid blue arrow carrying "
        f"{many(s.count, 'block')} from left to right and a dashed arrow coming back below it"
    )
    return sheet.done(what)


def terminal(s: Spec, rng: random.Random) -> Drawing:
    """Loose scripts gathered into one command-line tool: a terminal window with a command and
    its subcommands."""
    loose, tool = _slots(s, 2)
    n = s.count
    sheet = Sheet()
    for i in range(n):
        x = LEFT + (i % 2) * 64
        y = TOP + 34 + (i // 2) * 48
        sheet.add(document(x, y, 48, 40, "o d", 1))
    sheet.add(arrow(LEFT + 130, MID, LEFT + 186, MID, "la"))
    x, y, w, h = LEFT + 196, TOP + 30, RIGHT - LEFT - 196, 140
    sheet.add(rect(x, y, w, h, "o", 5), rect(x, y, w, 22, "f", 5))
    sheet.add(path(f"M{x + 16} {y + 44}L{x + 26} {y + 52}L{x + 16} {y + 60}", "la"))
    sheet.add(line(x + 36, y + 52, x + 150, y + 52, "la"))
    for i in range(3):
        sheet.add(line(x + 36, y + 80 + i * 20, x + 110 + 30 * i, y + 80 + i * 20))
    sheet.text(LEFT, BL, loose, x + 100 - LEFT, "start")
    sheet.text(RIGHT, TL, tool, RIGHT - LEFT - 150, "end")
    what = (
        f"{many(n, 'dashed script')} on the left and a blue arrow into a terminal window with a "
        "prompt, a command and three lines of subcommands"
    )
    return sheet.done(what)


def amplify(s: Spec, rng: random.Random) -> Drawing:
    """Retries multiplying layer by layer: one call becomes three, then nine, then
    twenty-seven at the bottom of the stack."""
    top_, bottom_ = _slots(s, 2)
    layers_ = s.count
    sheet = Sheet()
    rows = [TOP + 30 + i * (150 / (layers_ - 1)) for i in range(layers_)]
    prev = [320.0]
    for depth, y in enumerate(rows):
        k = 3**depth
        xs = [LEFT + 20 + (i + 0.5) * (RIGHT - LEFT - 40) / k for i in range(k)]
        if depth:
            for i, x in enumerate(xs):
                sheet.add(
                    line(
                        prev[i // 3],
                        rows[depth - 1] + 6,
                        x,
                        y - 6,
                        "la" if depth == layers_ - 1 else "l",
                    )
                )
        r = max(2.5, 9 - 2 * depth)
        sheet.add(*(circle(x, y, r, "b" if depth == layers_ - 1 else "o") for x in xs))
        prev = xs
    sheet.text(LEFT, TL - 4, top_, 230, "start")
    sheet.text(RIGHT, TL - 4, bottom_, 230, "end")
    counts = ", ".join(num(3**d) for d in range(layers_))
    what = (
        f"a tree of calls {num(layers_)} layers deep, each call fanning out into three: "
        f"{counts} from top to bottom, the last layer in blue"
    )
    return sheet.done(what)


def fanout(s: Spec, rng: random.Random) -> Drawing:
    """One source file made into several targets, each named."""
    source, *targets = _slots(s, s.count + 1)
    n = s.count
    sheet = Sheet()
    sheet.add(document(LEFT, TOP + 46, 110, 108, "a", 4))
    ys = [TOP + 26 + i * 148 / max(n - 1, 1) for i in range(n)]
    for y, target in zip(ys, targets, strict=True):
        sheet.add(arrow(LEFT + 118, MID, RIGHT - 250, y, "la"))
        sheet.add(rect(RIGHT - 240, y - 16, 36, 32, "o", 3))
        sheet.text(RIGHT - 194, y + 8, target, RIGHT - (RIGHT - 194), "start")
    sheet.text(LEFT, BL, source, RIGHT - 260 - LEFT, "start")
    what = (
        f"one blue file on the left with blue arrows out to {many(n, 'box', 'boxes')} on the right"
    )
    return sheet.done(what)


def fold(s: Spec, rng: random.Random) -> Drawing:
    """A long page running below the screen's edge: what is above the fold loaded at once in
    blue, what is below it dashed, deferred."""
    above, below = _slots(s, 2)
    x, w = LEFT + 190, 210
    edge = TOP + 120
    sheet = Sheet()
    sheet.add(window(x, TOP + 4, w, 196, "o"))
    sheet.add(path(f"M{LEFT + 150} {edge}H{x + w + 40}", "r d"))
    ys = [TOP + 30, TOP + 66, TOP + 132, TOP + 166]
    for y in ys:
        sheet.add(rect(x + 14, y, w - 28, 26, "a" if y < edge else "o d", 2))
    sheet.text(LEFT, TL, above, x - LEFT - 12, "start")
    sheet.text(RIGHT, BL, below, RIGHT - x - w - 12 + w, "end")
    what = (
        "a long page window crossed by a dashed red line where the screen ends, the two blocks "
        "above it in blue and the two below it dashed"
    )
    return sheet.done(what)


# kind: (drawing, the range of its count, its label slots with the characters each has room
# for, what it is). Kinds in PARTS draw one part per label after their first `PARTS[kind]`.
KINDS: dict[
    str, tuple[Callable[[Spec, random.Random], Drawing], range, tuple[tuple[str, int], ...], str]
] = {
    "bars": (
        bars,
        range(2, 7),
        (("bar", 20),) * 6,
        "upright bars of the post's numbers on one scale",
    ),
    "shift": (shift, range(1, 3), (), "before and after: two bars of one measure on one scale"),
    "fraction": (fraction, range(2, 11), (), "a share as parts, so many of so many in blue"),
    "gauge": (gauge, range(1, 5), (("heading", 40),), "a dial with its needle at the post's share"),
    "database": (
        database,
        range(4, 8),
        (("database", 19), ("table", 30), ("second table", 20)),
        "a database and its table of rows: some moved to a second table, or all scanned",
    ),
    "partitions": (
        partitions,
        range(3, 7),
        (("table", 40), ("partition", 16)),
        "a table split into partitions, the newest in blue",
    ),
    "replication": (
        replication,
        range(3, 7),
        (("source", 20), ("copy", 20), ("stream", 40)),
        "one database streaming records into another",
    ),
    "snapshot": (
        snapshot,
        range(1, 2),
        (("source", 24), ("copy", 30), ("job", 17)),
        "a store, a copy taken from it, a timed job run against the copy",
    ),
    "queue": (
        queue,
        range(2, 6),
        (("queue", 30), ("workers", 30)),
        "a queue of messages taken by workers",
    ),
    "batch": (
        batch,
        range(3, 5),
        (("requests", 26), ("server", 30)),
        "requests gathered into batches for one server",
    ),
    "pool": (
        pool,
        range(3, 11),
        (("callers", 24), ("pool", 30), ("database", 17)),
        "many callers through a small pool into one database",
    ),
    "layers": (
        layers,
        range(1, 6),
        (("database", 17), ("layer", 20), ("layer", 20), ("layer", 20)),
        "a request through cache layers toward a database",
    ),
    "stack": (stack, range(3, 6), (("layer", 28),) * 5, "layers stacked one on another"),
    "cluster": (
        cluster,
        range(4, 9),
        (("cluster", 40), ("nodes", 30)),
        "a cluster's nodes, what each reserves and uses, some taken away",
    ),
    "growth": (
        growth,
        range(3, 8),
        (("what grows", 40), ("limit", 40)),
        "a level climbing toward a limit, then falling back",
    ),
    "nodes": (nodes, range(2, 6), (("site", 18),) * 5, "a map of sites joined by links"),
    "timeline": (
        timeline,
        range(3, 6),
        (("event", 19),) * 5,
        "events along a time axis, one span in blue",
    ),
    "pipeline": (pipeline, range(3, 6), (("stage", 19),) * 5, "stages in a row joined by arrows"),
    "chain": (
        chain,
        range(3, 6),
        (("hops", 40), ("budget", 40)),
        "a request hop to hop, the time it has left shrinking",
    ),
    "network": (
        network,
        range(2, 7),
        (("callers", 27), ("service", 30)),
        "callers wired to one service and what it calls",
    ),
    "sequence": (
        sequence,
        range(2, 5),
        (("lifeline", 14),) * 3,
        "messages between lifelines, a repeat refused",
    ),
    "tree": (
        tree,
        range(2, 5),
        (("root", 16), ("leaf", 30)),
        "a hierarchy: a root, its children and theirs",
    ),
    "commits": (
        commits,
        range(3, 6),
        (("commits", 20), ("steps", 20)),
        "a line of commits halved, bracket by bracket, to one",
    ),
    "funnel": (
        funnel,
        range(3, 6),
        (("items", 22), ("ranked list", 27)),
        "many items narrowed into a short ranked list",
    ),
    "model": (
        model,
        range(1, 2),
        (("first model", 30), ("second model", 30)),
        "inputs feeding two models whose answers meet",
    ),
    "histogram": (
        histogram,
        range(1, 6),
        (("before", 18), ("after", 23)),
        "two distributions, the second shifted",
    ),
    "wave": (
        wave,
        range(3, 6),
        (("metric", 40), ("threshold", 40)),
        "a metric over time crossing a threshold",
    ),
    "bucket": (
        bucket,
        range(3, 9),
        (("bucket", 38), ("requests", 23)),
        "a token bucket letting some requests through",
    ),
    "page": (page, range(1, 2), (("page", 30), ("part", 30)), "a browser window, one block moved"),
    "files": (files, range(3, 7), (("files", 30), ("file", 28)), "many small files made into one"),
    "keys": (
        keys,
        range(2, 5),
        (("secret", 30), ("servers", 22)),
        "an old key and a new one, servers switching",
    ),
    "checkpoint": (
        checkpoint,
        range(2, 6),
        (("job", 26), ("interruption", 15)),
        "a job cut short, resumed from its last checkpoint",
    ),
    "mirror": (
        mirror,
        range(1, 2),
        (("live", 27), ("shadow", 40)),
        "traffic copied to a live server and its shadow",
    ),
    "grid": (
        grid,
        range(3, 6),
        (("table", 40), ("fields", 40)),
        "a table of rows and columns, some cells in blue",
    ),
    "ring": (
        ring,
        range(3, 8),
        (("cycle", 20), ("station", 20)),
        "stations on a cycle, one in blue",
    ),
    "flow": (
        flow,
        range(3, 5),
        (("start", 27), ("decision", 40), ("yes", 13), ("no", 13)),
        "a decision sending work one way or the other",
    ),
    "waterfall": (
        waterfall,
        range(3, 5),
        (("gain", 40),) + (("resource", 21),) * 4,
        "resources loading, the first paint moved earlier",
    ),
    "breaker": (
        breaker,
        range(1, 2),
        (("caller", 14), ("breaker", 40), ("dependency", 30)),
        "calls stopped at an open circuit breaker before a failing dependency",
    ),
    "report": (
        report,
        range(2, 5),
        (("document", 14), ("section", 14), ("item", 14)),
        "a document of fixed sections in front of a longer draft",
    ),
    "move": (
        move,
        range(2, 6),
        (("from", 20), ("to", 20), ("what moves", 40)),
        "data moved from one store to another and back",
    ),
    "terminal": (
        terminal,
        range(2, 7),
        (("scripts", 30), ("tool", 30)),
        "loose scripts gathered into one command-line tool",
    ),
    "amplify": (
        amplify,
        range(3, 5),
        (("top", 16), ("bottom", 16)),
        "retries multiplying layer by layer",
    ),
    "fold": (
        fold,
        range(1, 2),
        (("loaded", 12), ("deferred", 30)),
        "a long page, what is above the screen's edge loaded at once, the rest deferred",
    ),
    "fanout": (
        fanout,
        range(2, 4),
        (("source", 30),) + (("target", 14),) * 3,
        "one source file made into several targets",
    ),
}
CHARTS = frozenset({"bars", "shift", "fraction", "gauge"})
PARTS = {
    "pipeline": 0,
    "timeline": 0,
    "stack": 0,
    "nodes": 0,
    "sequence": 0,
    "layers": 1,
    "waterfall": 1,
}
