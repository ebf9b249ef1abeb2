"""Generated blueprint drawings: what the post's words choose, the alt text, and their URLs."""

from __future__ import annotations

import dataclasses
import re
import shutil
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup

from blog.extensions import db
from blog.models import Post
from blog.reading import illustrations as ill
from blog.reading.drawings import KINDS, Spec
from blog.reading.pictures import picture
from blog.transfer import demo

SVG = "{http://www.w3.org/2000/svg}"
YEAR = "public, max-age=31536000, immutable"

TITLES = [
    "p99 fell from 800 ms to 120 ms",
    "Failover across three regions",
    "How the queue drains at night",
    "Cutting our container image from 1.2 GB to 140 MB",
    "Keeping 99.9% of requests under the error budget",
    "Partitioning a two-billion-row events table by month",
    "A",
    "Why",
    "Notes",
    "Eleven services, twelve teams and one deploy pipeline that ties them together",
    "Store UTC, render local: our rules for dates and time zones",
    "The alert that fired 400 times a week",
]
HOSTILE = {
    "long": "latency " * 25_000,  # 200,000 characters
    "markup": '<script>alert("x")</script><img src=x onerror=alert(1)> & "quotes" </svg>',
    "rtl": "שיפור זמני תגובה של המטמון ב-40% ‏عربي‎ نص",
    "emoji": "🚀🔥 deploy 🎉 with 3 💥 and \u200d\u202e reversed",
    "digits": "1234567890" * 20,
    "repeated": "cache " * 1000,
    "controls": "tab\tnul\x00bell\x07 escape\x1b end",
}


def parse(svg: str) -> ET.Element:
    """The SVG document, parsed as strict XML."""
    return ET.fromstring(svg)


def labels(svg: str) -> list[str]:
    """The text of every label drawn."""
    return [e.text or "" for e in parse(svg).iter(f"{SVG}text")]


def words(alt: str) -> int:
    """How many words alt text has."""
    return len(alt.split())


def test_at_least_sixteen_kinds_are_drawn_and_reachable():
    """Each kind is reached from the words of a post, and from slugs alone."""
    assert len(KINDS) >= 16 and set(ill.KEYWORDS) == set(KINDS)
    for kind, stems in ill.KEYWORDS.items():
        long_stem = next(stem for stem in stems if len(stem) > 3)
        drawing = ill.illustration("some-post", f"Notes on {long_stem}")
        assert drawing.kind == kind, long_stem
        root = parse(drawing.svg)
        assert any(f"motif-{kind}" in (g.get("class") or "") for g in root.iter(f"{SVG}g"))
    assert len({ill.illustration(f"post-{i}").kind for i in range(300)}) == len(KINDS)


@pytest.mark.parametrize("title", TITLES)
def test_same_post_same_drawing(title):
    """Same slug and words: the same SVG and alt, cached or freshly drawn."""
    first = ill.illustration("a-post", title, "A summary.")
    fresh = ill._drawn.__wrapped__(ill.read_post("a-post", title, "A summary."), "Fieldnotes")
    assert first == fresh == ill.illustration("a-post", title, "A summary.")


def test_the_words_choose_the_drawing():
    """Numbers become bar labels, a counted noun sets the parts, a noun chooses the kind."""
    bars = ill.illustration("latency", "p99 fell from 800 ms to 120 ms")
    assert bars.kind == "bars" and labels(bars.svg)[:2] == ["800 ms", "120 ms"]
    heights = [float(r.get("height")) for r in parse(bars.svg).iter(f"{SVG}rect")][-2:]
    assert heights[0] > heights[1] and "falling" in bars.alt
    regions = ill.illustration("regions", "Failover across three regions")
    assert regions.kind == "nodes" and "map of three sites" in regions.alt
    assert len([c for c in parse(regions.svg).iter(f"{SVG}circle")]) == 3
    assert ill.illustration("q", "How the queue drains at night").kind == "queue"
    units = ill.illustration("img", "Cutting our image from 1.2 GB to 140 MB")
    assert "falling" in units.alt  # 1.2 GB is the larger


@pytest.mark.parametrize(
    ("title", "numbers"),
    [
        ("p99 fell from 800 ms to 120 ms", ["800 ms", "120 ms"]),
        ("Keeping 99.9% of requests under the error budget", ["99.9%"]),
        ("The alert that fired 400 times a week", ["400 times"]),
        ("Vacuum, bloat, and the table that grew to 40 GB", ["40 GB"]),
        ("Serving 3 queues from 12 workers in 2024", ["3", "12", "2024"]),
    ],
)
def test_numbers_in_the_title_are_drawn_and_said(title, numbers):
    """Every number of the title is a label in the SVG and is named in the alt text."""
    drawing = ill.illustration("numbers", title)
    drawn = " ".join(labels(drawing.svg))
    for number in numbers:
        assert number in drawn and f"“{number}”" in drawing.alt


@pytest.mark.parametrize("title", TITLES + list(HOSTILE.values()) + [""])
def test_alt_is_full_sentences_of_37_to_88_words(title):
    """Alt text says what is drawn, its labels and what it suggests, in 37 to 88 words."""
    alt = ill.illustration("a-post", title, "Summary of the post.").alt
    assert 37 <= words(alt) <= 88, (words(alt), alt)
    assert alt.endswith(".") and "It suggests a post about" in alt
    assert alt.startswith("Fieldnotes illustration: a blueprint drawing")


def test_alt_starts_with_the_site_name(app, posts, monkeypatch):
    """The prefix is the configured SITE_NAME, on the page and in the SVG."""
    monkeypatch.setitem(app.config, "SITE_NAME", "Acme Engineering")
    (slug,) = posts.create(1)
    with app.test_request_context():
        post = db.session.scalars(sa.select(Post).where(Post.slug == slug)).one()
        shown = picture(post)
    assert shown.alt.startswith("Acme Engineering illustration: ")
    assert ill.illustration("x", site="Acme").alt.startswith("Acme illustration: ")


@pytest.mark.parametrize("title", TITLES[:6])
def test_svg_is_well_formed_with_a_title_matching_the_alt(title):
    """Strict XML, a viewBox, and a <title> and aria-label equal to the alt text."""
    drawing = ill.illustration("a-post", title)
    root = parse(drawing.svg)
    assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 640 360"
    assert root.find(f"{SVG}title").text == drawing.alt == root.get("aria-label")


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_titles_give_valid_escaped_svg(name):
    """Huge, markup, right-to-left, emoji, digits-only and repeated titles: valid, small SVG,
    nothing active in it, and bounded alt text, quickly."""
    start = time.perf_counter()
    drawing = ill.illustration("hostile", HOSTILE[name], HOSTILE[name])
    assert time.perf_counter() - start < 0.5
    root = parse(drawing.svg)
    assert root.find(f"{SVG}title").text == drawing.alt
    assert "<script" not in drawing.svg and "onerror" not in drawing.svg
    banned = {"script", "style", "image", "foreignObject", "a", "use", "iframe", "object"}
    for element in root.iter():
        assert element.tag.removeprefix(SVG) not in banned
        assert not any(a.lower().startswith("on") or "href" in a for a in element.attrib)
    assert len(drawing.svg.encode()) < 8192 and 37 <= words(drawing.alt) <= 88


def test_a_spec_overrides_what_the_words_say():
    """The hook for a chosen drawing: a Spec is drawn as given, bounded to what it can show."""
    spec = Spec("queue", 99, 7, ("inbox",), ("5 s",), 42)
    drawing = ill.illustration("any", "Three regions", spec=spec)
    assert drawing.kind == "queue" and "inbox" in labels(drawing.svg)
    huge = ill.illustration("any", spec=Spec("stack", 3, -1, ("<b>" * 999,) * 99, (), 1))
    assert len(labels(huge.svg)[0]) <= 12 and 37 <= words(huge.alt) <= 88
    assert "&lt;b&gt;" in huge.svg and "<b>" not in huge.svg
    with pytest.raises(ValueError):
        ill.illustration("any", spec=dataclasses.replace(spec, kind="teapot"))


def page_drawings(client, url: str) -> list[tuple[str, str, bytes]]:
    """The (src, alt, SVG bytes) of every illustration a listing page shows."""
    page = BeautifulSoup(client.get(url).get_data(as_text=True), "lxml")
    images = page.select('img[src^="/illustrations/"]')
    return [(i["src"], i["alt"], client.get(i["src"]).get_data()) for i in images]


def test_no_two_drawings_alike_on_a_page_of_seventeen(app, client, posts):
    """12 cards, the featured post and 4 picks: 17 different SVGs and 17 different alts,
    even for titles that differ by one number or not at all."""
    flags = [{}] * 6 + [{"featured": True}] + [{"editors_pick": True}] * 4
    posts.create(6)  # "Post number n", the newest
    for n, flag in enumerate(flags):  # flagged ones older than the first page of cards
        posts.create(1, title="Weekly notes", slug=f"weekly-notes-{n}", **flag)
    shown = page_drawings(client, "/")
    assert len({src for src, _, _ in shown}) == 17
    assert len({svg for _, _, svg in shown}) == 17
    assert len({alt for _, alt, _ in shown}) >= 12
    assert all(svg.startswith(b"<svg") for _, _, svg in shown)


def first_pages_of_the_demo(folder: Path) -> Path:
    """`folder` holding the demo posts its first three listing pages can show: the 40 newest
    (three pages of 12 cards, and some to spare), the featured post and the picks. Loaded,
    they give those pages exactly as the whole demo does, without rendering the rest."""
    posts = sorted(demo.read_demo(), key=lambda post: post.entry.published_at, reverse=True)
    for post in posts[:40] + [p for p in posts if p.entry.featured or p.entry.editors_pick]:
        shutil.copy(post.path, folder)
    shutil.copy(demo.DEMO_FOLDER / demo.TOPICS_FILE, folder)
    return folder


def test_the_demo_first_three_pages_have_no_two_drawings_alike(
    app, client, runner, tmp_path, monkeypatch
):
    """The demo as loaded: no page of the first three repeats a drawing or an alt text."""
    monkeypatch.setattr(demo, "DEMO_FOLDER", first_pages_of_the_demo(tmp_path))
    assert runner.invoke(args=["demo", "load"]).exit_code == 0
    seen = []
    for n in (1, 2, 3):
        shown = page_drawings(client, f"/?page={n}")
        assert shown, n  # the demo is rewritten often: only the drawings it shows count
        distinct = {(src.split("?")[0], svg) for src, _, svg in shown}
        assert len({svg for _, svg in distinct}) == len(distinct), n
        assert len({alt for _, alt, _ in shown}) == len({src for src, _, _ in shown}), n
        seen += distinct
    assert len({svg for _, svg in seen}) == len(set(seen))


def test_versioned_url_is_immutable_with_a_strong_etag(app, client, posts):
    """The page names the SVG's hash; that URL is kept a year and answers 304 to its ETag,
    also in the compressed form's suffixed ETag."""
    (slug,) = posts.create(1, title="p99 fell from 800 ms to 120 ms")
    src = page_drawings(client, "/")[0][0]
    version = ill.illustration(
        slug, "p99 fell from 800 ms to 120 ms", "Summary of post 1.", "Fieldnotes"
    ).version
    assert src == f"/illustrations/{slug}.svg?v={version}"
    response = client.get(src)
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert response.headers["Cache-Control"] == YEAR
    assert response.headers["ETag"] == f'"{version}"'
    again = client.get(src, headers={"If-None-Match": f'"{version}"'})
    assert again.status_code == 304 and again.get_data() == b""
    assert again.headers["Cache-Control"] == YEAR
    squeezed = client.get(src, headers={"Accept-Encoding": "br"})
    assert squeezed.headers.get("Content-Encoding") == "br"
    etag = squeezed.headers["ETag"]
    assert client.get(src, headers={"If-None-Match": etag}).status_code == 304
    assert client.get(src, headers={"If-None-Match": '"other"'}).status_code == 200


def test_an_old_hash_is_sent_to_the_current_drawing(app, client, posts):
    """After the title changes, the old URL redirects to the new one and is never immutable;
    the bare URL serves the current drawing with a short cache."""
    (slug,) = posts.create(1, title="Failover across three regions")
    old = page_drawings(client, "/")[0][0]
    with app.app_context():
        post = db.session.scalars(sa.select(Post).where(Post.slug == slug)).one()
        post.title = "Failover across five regions"
        db.session.commit()
    new, alt, svg = page_drawings(client, "/")[0]
    assert new != old and "five sites" in alt
    moved = client.get(old)
    assert moved.status_code == 302 and moved.headers["Location"].endswith(new)
    assert "immutable" not in moved.headers["Cache-Control"]
    assert client.get(new).get_data() == svg
    bare = client.get(f"/illustrations/{slug}.svg")
    assert bare.status_code == 200 and bare.get_data() == svg
    assert "immutable" not in bare.headers["Cache-Control"] and bare.headers["ETag"]


def test_unknown_slugs_get_the_slug_drawing_and_odd_ones_404(client):
    """A slug no live post has is drawn from its hash alone; a malformed one is 404."""
    response = client.get("/illustrations/no-such-post.svg")
    assert response.status_code == 200
    assert response.get_data(as_text=True) == ill.illustration("no-such-post").svg
    assert client.get("/illustrations/UPPER.svg").status_code == 404
    assert re.fullmatch(r"[0-9a-f]{16}", ill.illustration("x").version)


# Drawings from slugs alone (every kind, many parameters), the titles above and the hostile ones.
DRAWN = [ill.illustration(f"post-{i}") for i in range(190)] + [
    ill.illustration("titled", title) for title in TITLES + list(HOSTILE.values())
]
BANNED_ELEMENTS = {"script", "style", "image", "foreignObject", "a", "use", "iframe", "object"}


@pytest.mark.parametrize("drawing", DRAWN, ids=lambda d: d.kind)
def test_every_drawing_is_inert_and_small(drawing):
    """Fixed geometry; no script, style, link, external reference or event handler; under
    4 KB (a card's picture must not outweigh its text)."""
    root = parse(drawing.svg)
    assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 640 360"
    assert (root.get("width"), root.get("height")) == ("640", "360")
    for element in root.iter():
        assert element.tag.removeprefix(SVG) not in BANNED_ELEMENTS
        for name, value in element.attrib.items():
            local = name.rsplit("}", 1)[-1].lower()
            assert not local.startswith("on") and "href" not in local and local != "style"
            assert "url(" not in value and "javascript" not in value.lower()
    assert len(drawing.svg.encode()) < 4096
