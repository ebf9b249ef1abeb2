"""Tests for blog/illustrations.py: generated blueprint SVGs and their alt text."""

import importlib.util
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "blog" / "reading" / "illustrations.py"
_spec = importlib.util.spec_from_file_location("_fieldnotes_illustrations", _PATH)
ill = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = ill
_spec.loader.exec_module(ill)

SVG = "{http://www.w3.org/2000/svg}"
_CARDINALS = "zero one two three four five six seven eight nine ten eleven twelve"
_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth"
NUMBERS = {w: i for i, w in enumerate(_CARDINALS.split())}
ORDINALS = {w: i for i, w in enumerate(_ORDINALS.split())}
SLUGS = [f"post-{i}" for i in range(190)] + [
    "hello-world",
    "why-we-moved-to-postgres",
    "a",
    "",
    "über-caching",
    "k8s-at-scale",
    "rust-vs-go",
    "post-mortem-2024-03-01",
    "the-long-tail",
    "x" * 200,
]


def figure(seed: str) -> ET.Element:
    """Return the motif group of the parsed SVG for a seed."""
    root = ET.fromstring(ill.illustration(seed).svg)
    return next(g for g in root.iter(f"{SVG}g") if "motif" in g.get("class", "").split())


def motif(seed: str) -> str:
    """Return the motif name of a seed's drawing."""
    return figure(seed).get("class").split()[1].removeprefix("motif-")


def tagged(fig: ET.Element, cls: str) -> list[ET.Element]:
    """Return elements in document order whose class list contains cls."""
    return [e for e in fig.iter() if cls in e.get("class", "").split()]


def counts(alt: str) -> list[int]:
    """Return the number words in alt text, in order."""
    return [NUMBERS[w] for w in re.findall(r"\b[a-z]+\b", alt) if w in NUMBERS]


def ordinal(alt: str) -> int:
    """Return the zero-based index of the first ordinal word in alt text."""
    return next(ORDINALS[w] for w in re.findall(r"\b[a-z]+\b", alt) if w in ORDINALS)


def accent_index(fig: ET.Element, cls: str = "part") -> int:
    """Return the index of the single accented element among those tagged cls."""
    marked = [i for i, e in enumerate(tagged(fig, cls)) if "accent" in e.get("class").split()]
    assert len(marked) == 1
    return marked[0]


def num(e: ET.Element, name: str) -> float:
    """Return a numeric attribute."""
    return float(e.get(name))


def check_pipeline(fig: ET.Element, alt: str) -> None:
    """Boxes, arrows and highlighted box match the alt text."""
    (n,) = counts(alt)
    assert len(tagged(fig, "part")) == n and len(tagged(fig, "link")) == n - 1
    assert accent_index(fig) == ordinal(alt)


def check_stack(fig: ET.Element, alt: str) -> None:
    """Layer count, taper and highlighted layer match the alt text."""
    (n,) = counts(alt)
    widths = [num(e, "width") for e in tagged(fig, "part")]
    assert len(widths) == n and accent_index(fig) == ordinal(alt)
    if "narrowing toward the top" in alt:
        assert widths == sorted(set(widths))
    else:
        assert len(set(widths)) == 1


def check_graph(fig: ET.Element, alt: str) -> None:
    """Node and edge counts match, and the blue node has strictly the most edges."""
    n, e = counts(alt)
    nodes, edges = tagged(fig, "part"), tagged(fig, "link")
    assert len(nodes) == n and len(edges) == e
    centres = [(c.get("cx"), c.get("cy")) for c in nodes]
    degree = [0] * n
    for line in edges:
        for end in ("1", "2"):
            degree[centres.index((line.get("x" + end), line.get("y" + end)))] += 1
    hub = accent_index(fig)
    assert all(d < degree[hub] for i, d in enumerate(degree) if i != hub)


def check_bars(fig: ET.Element, alt: str) -> None:
    """Bar count, trend and tallest-in-blue match the alt text."""
    (n,) = counts(alt)
    heights = [num(e, "height") for e in tagged(fig, "part")]
    assert len(heights) == n and accent_index(fig) == heights.index(max(heights))
    if "rising" in alt:
        assert heights == sorted(heights)
    elif "falling" in alt:
        assert heights == sorted(heights, reverse=True)
    else:
        assert accent_index(fig) == ordinal(alt)


def check_tree(fig: ET.Element, alt: str) -> None:
    """Root, children, grandchildren and the blue child match the alt text."""
    k, g = counts(alt)
    assert len(tagged(fig, "part")) == 1 + k + g and len(tagged(fig, "link")) == k + g
    assert accent_index(fig) == 1 + ordinal(alt)


def check_sequence(fig: ET.Element, alt: str) -> None:
    """Lifeline and message counts and the blue message match the alt text."""
    lanes, m = counts(alt)
    assert len(tagged(fig, "part")) == lanes and len(tagged(fig, "link")) == m
    assert accent_index(fig, "link") == ordinal(alt)


def check_ring(fig: ET.Element, alt: str) -> None:
    """Ring size matches, and the hub or the top node is the blue one."""
    n = counts(alt)[0]
    nodes = tagged(fig, "part")
    assert len(nodes) == n and len(tagged(fig, "link")) == n
    if "central hub" in alt:
        assert len(tagged(fig, "spoke")) == n
        assert [e.get("class") for e in tagged(fig, "accent")] == ["hub accent"]
    else:
        assert accent_index(fig) == min(range(n), key=lambda i: num(nodes[i], "cy"))


def check_queue(fig: ET.Element, alt: str) -> None:
    """Cell count matches, and exactly the stated leftmost cells are blue."""
    n, *rest = counts(alt)
    k = rest[0] if rest else 1
    cells = tagged(fig, "part")
    xs = [num(e, "x") for e in cells]
    assert len(cells) == n and xs == sorted(xs) and len(tagged(fig, "link")) == 2
    assert ["accent" in e.get("class") for e in cells] == [True] * k + [False] * (n - k)


CHECKS = {
    "pipeline": check_pipeline,
    "stack": check_stack,
    "graph": check_graph,
    "bars": check_bars,
    "tree": check_tree,
    "sequence": check_sequence,
    "ring": check_ring,
    "queue": check_queue,
}


@pytest.mark.parametrize("seed", SLUGS[:20])
def test_same_seed_same_output(seed: str) -> None:
    """The same seed gives identical output, cached or freshly computed."""
    assert ill.illustration(seed) == ill.illustration.__wrapped__(seed)
    assert ill.illustration(seed) is ill.illustration(seed)


def test_variety_across_slugs() -> None:
    """Two hundred slugs cover at least six motifs and give mostly distinct SVGs."""
    assert len({motif(s) for s in SLUGS}) >= 6
    assert len({ill.illustration(s).svg for s in SLUGS}) >= 190


def test_every_motif_is_checked() -> None:
    """Each motif the module can draw has a checker here."""
    assert set(ill.MOTIFS) == set(CHECKS)


@pytest.mark.parametrize("seed", SLUGS)
def test_svg_root(seed: str) -> None:
    """The SVG parses and its root is an svg element with the fixed geometry."""
    svg = ill.illustration(seed).svg
    root = ET.fromstring(svg)
    assert svg.startswith("<svg") and root.tag == f"{SVG}svg"
    assert root.get("viewBox") == "0 0 640 360"
    assert (root.get("width"), root.get("height")) == ("640", "360")


@pytest.mark.parametrize("seed", SLUGS)
def test_no_forbidden_content(seed: str) -> None:
    """No scripts, styles, external references or event handlers appear."""
    root = ET.fromstring(ill.illustration(seed).svg)
    banned = {"script", "style", "image", "foreignObject", "a", "use", "iframe", "object"}
    for el in root.iter():
        assert el.tag.removeprefix(SVG) not in banned
        for name, value in el.attrib.items():
            local = name.rsplit("}", 1)[-1].lower()
            assert not local.startswith("on") and "href" not in local and local != "style"
            assert "url(" not in value and "javascript" not in value.lower()


@pytest.mark.parametrize("seed", SLUGS)
def test_alt_is_one_sentence(seed: str) -> None:
    """Alt text is one short sentence (40 to 125 characters): it is read out for every card."""
    alt = ill.illustration(seed).alt
    assert 40 <= len(alt) <= 125
    assert alt[0].isupper() and alt.endswith(".") and alt.count(".") == 1
    assert "image of" not in alt.lower() and not re.search(r"\d", alt)


@pytest.mark.parametrize("seed", SLUGS)
def test_alt_matches_drawing(seed: str) -> None:
    """The counts and highlight named in the alt text are what is drawn."""
    CHECKS[motif(seed)](figure(seed), ill.illustration(seed).alt)


@pytest.mark.parametrize("seed", SLUGS)
def test_svg_is_small(seed: str) -> None:
    """Each SVG stays under 4 KB."""
    assert len(ill.illustration(seed).svg.encode()) < 4096
