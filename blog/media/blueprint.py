"""The drawing kit: SVG primitives and the engineering objects drawings are built from.

Everything is drawn in a 640 × 360 sheet whose middle band (`TOP` to `BOTTOM`) holds every
object and label: a card that crops the picture to a wide strip (the featured card on a phone
shows a 3:1 band) keeps the whole drawing. Colours are classes, defined once in the document's
stylesheet (`STYLE`), so the drawing follows the reader's light or dark theme.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 640, 360
LEFT, RIGHT = 24, 616  # the band's sides
TOP, BOTTOM = 80, 280  # the band a 3:1 crop keeps (73 to 287), with a margin
LABEL_SIZE = 22  # 11 CSS px at the narrowest card (320 px); smaller pictures hide labels
CHAR = 0.62 * LABEL_SIZE  # the advance of one monospace character, with a margin

INK = "#2b2f36"
BLUE = "#1f5fbf"
TINT = "#d6e2f5"
PAPER = "#f7f6f2"
GREY = "#c4c8cf"
RED = "#a3261b"

# The colours by class, light then dark (the site's own pairs, see static/css/site.css); and
# labels left out where the picture is too small for them to be read.
STYLE = (
    f".p{{fill:{PAPER}}}.g{{stroke:{BLUE};fill:none}}"
    f".o{{fill:{PAPER};stroke:{INK}}}.f{{fill:{GREY};stroke:{INK}}}"
    f".a{{fill:{TINT};stroke:{BLUE}}}.b{{fill:{BLUE};stroke:{BLUE}}}"
    f".l{{fill:none;stroke:{INK}}}.la{{fill:none;stroke:{BLUE}}}.r{{fill:none;stroke:{RED}}}"
    f".t{{fill:{INK};stroke:none}}.d{{stroke-dasharray:7 6}}"
    "@media (prefers-color-scheme:dark){"
    ".p{fill:#1c1f24}.g{stroke:#8ab4ff}.o{fill:#1c1f24;stroke:#e4e2dc}"
    ".f{fill:#4a505b;stroke:#e4e2dc}.a{fill:#24395c;stroke:#8ab4ff}"
    ".b{fill:#8ab4ff;stroke:#8ab4ff}.l{stroke:#e4e2dc}.la{stroke:#8ab4ff}"
    ".r{stroke:#ff9c8f}.t{fill:#e4e2dc}}"
    "@media (max-width:319.9px){.t{display:none}}"
)


def f(x: float) -> str:
    """A coordinate, short: one decimal at most."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def width(words: str, size: int = LABEL_SIZE) -> float:
    """How wide a label is drawn, at most (monospace)."""
    return len(words) * 0.62 * size


def label(x: float, y: float, words: str, anchor: str = "middle") -> str:
    """A label, its baseline at y (escaped)."""
    return f'<text class="t" x="{f(x)}" y="{f(y)}" text-anchor="{anchor}">{escape(words)}</text>'


def rect(x: float, y: float, w: float, h: float, cls: str = "o", rx: float = 3) -> str:
    """A rectangle."""
    return (
        f'<rect class="{cls}" x="{f(x)}" y="{f(y)}" width="{f(w)}" height="{f(h)}" rx="{f(rx)}"/>'
    )


def circle(cx: float, cy: float, r: float, cls: str = "o") -> str:
    """A circle."""
    return f'<circle class="{cls}" cx="{f(cx)}" cy="{f(cy)}" r="{f(r)}"/>'


def path(d: str, cls: str = "l") -> str:
    """A path."""
    return f'<path class="{cls}" d="{d}"/>'


def line(x1: float, y1: float, x2: float, y2: float, cls: str = "l") -> str:
    """A straight line."""
    return path(f"M{f(x1)} {f(y1)}L{f(x2)} {f(y2)}", cls)


def arrow(x1: float, y1: float, x2: float, y2: float, cls: str = "l") -> str:
    """A straight arrow from (x1, y1), its head at (x2, y2)."""
    a = math.atan2(y2 - y1, x2 - x1)
    h1 = (x2 - 10 * math.cos(a - 0.45), y2 - 10 * math.sin(a - 0.45))
    h2 = (x2 - 10 * math.cos(a + 0.45), y2 - 10 * math.sin(a + 0.45))
    tip = f"{f(x2)} {f(y2)}"
    d = f"M{f(x1)} {f(y1)}L{tip}M{f(h1[0])} {f(h1[1])}L{tip}L{f(h2[0])} {f(h2[1])}"
    return path(d, cls)


def cross(cx: float, cy: float, r: float = 9) -> str:
    """A red cross: something refused, dropped or removed."""
    return path(
        f"M{f(cx - r)} {f(cy - r)}L{f(cx + r)} {f(cy + r)}"
        f"M{f(cx + r)} {f(cy - r)}L{f(cx - r)} {f(cy + r)}",
        "r",
    )


def cylinder(x: float, y: float, w: float, h: float, cls: str = "o", bands: int = 1) -> str:
    """A database: a cylinder with its top ellipse and bands round its body."""
    rx, ry = w / 2, min(14.0, h / 6)
    body = (
        f"M{f(x)} {f(y + ry)}V{f(y + h - ry)}A{f(rx)} {f(ry)} 0 0 0 {f(x + w)} {f(y + h - ry)}"
        f"V{f(y + ry)}"
    )
    out = [
        path(body, cls),
        f'<ellipse class="{cls}" cx="{f(x + rx)}" cy="{f(y + ry)}" rx="{f(rx)}" ry="{f(ry)}"/>',
    ]
    for i in range(1, bands + 1):
        by = y + ry + i * (h - 2 * ry) / (bands + 1)
        out.append(path(f"M{f(x)} {f(by)}A{f(rx)} {f(ry)} 0 0 0 {f(x + w)} {f(by)}", "l"))
    return "".join(out)


def table(
    x: float,
    y: float,
    w: float,
    h: float,
    rows: int,
    cols: int,
    lit: frozenset[int] = frozenset(),
    cls: str = "o",
    struck: frozenset[int] = frozenset(),
) -> str:
    """A table of rows: a header row, `rows` rows under it, `lit` rows in blue, `struck`
    rows struck through."""
    rh = h / (rows + 1)
    out = [rect(x, y, w, h, cls, 2), rect(x, y, w, rh, "f", 2)]
    for i in range(rows):
        ry = y + (i + 1) * rh
        if i in lit:
            out.append(rect(x, ry, w, rh, "a", 0))
        out.append(line(x, ry, x + w, ry))
        if i in struck:
            out.append(line(x + 8, ry + rh / 2, x + w - 8, ry + rh / 2, "r"))
    for c in range(1, cols):
        cx = x + c * w / cols
        out.append(line(cx, y, cx, y + h))
    return "".join(out)


def server(x: float, y: float, w: float, h: float, cls: str = "o", units: int = 3) -> str:
    """A server: a box of rack units, each with a light."""
    out = [rect(x, y, w, h, cls)]
    uh = h / units
    for i in range(units):
        if i:
            out.append(line(x, y + i * uh, x + w, y + i * uh))
        out.append(circle(x + w - 12, y + (i + 0.5) * uh, 3.5, "b"))
        out.append(line(x + 10, y + (i + 0.5) * uh, x + min(w * 0.45, 60), y + (i + 0.5) * uh))
    return "".join(out)


def document(x: float, y: float, w: float, h: float, cls: str = "o", lines: int = 3) -> str:
    """A file: a page with a folded corner and lines of text."""
    c = min(w, h) * 0.28
    out = [
        path(f"M{f(x)} {f(y)}H{f(x + w - c)}L{f(x + w)} {f(y + c)}V{f(y + h)}H{f(x)}Z", cls),
        path(f"M{f(x + w - c)} {f(y)}V{f(y + c)}H{f(x + w)}", "l"),
    ]
    for i in range(lines):
        ly = y + c + 8 + i * (h - c - 12) / max(lines, 1)
        out.append(line(x + 8, ly, x + w * (0.8 if i % 2 else 0.6), ly))
    return "".join(out)


def window(x: float, y: float, w: float, h: float, cls: str = "o") -> str:
    """A browser window: its frame and title bar with three dots."""
    out = [rect(x, y, w, h, cls, 5), line(x, y + 20, x + w, y + 20)]
    out += [circle(x + 12 + i * 12, y + 10, 3.5, "l") for i in range(3)]
    return "".join(out)


def key(x: float, y: float, size: float, cls: str = "o") -> str:
    """A key lying on its side: its bow at (x, y), its teeth to the right."""
    r = size * 0.32
    shaft = x + r + size * 1.1
    out = [
        circle(x, y, r, cls),
        circle(x - r * 0.3, y, r * 0.3, "l"),
        path(
            f"M{f(x + r)} {f(y)}H{f(shaft)}V{f(y + r * 0.8)}"
            f"M{f(shaft - size * 0.3)} {f(y)}V{f(y + r * 0.6)}",
            "l" if cls != "a" else "la",
        ),
    ]
    return "".join(out)


def dots(x: float, y: float, n: int, gap: float, r: float = 5, cls: str = "o") -> str:
    """A row of n small circles: requests, messages or tokens."""
    return "".join(circle(x + i * gap, y, r, cls) for i in range(n))


def brace(x1: float, x2: float, y: float, up: bool = True, cls: str = "l") -> str:
    """A square bracket along a span, its ends pointing up (or down): a measured interval."""
    e = 8 if up else -8
    return path(f"M{f(x1)} {f(y - e)}V{f(y)}H{f(x2)}V{f(y - e)}", cls)
