"""Generated blueprint drawings: what the post's words choose, how it is drawn, the alt text,
the theme, and their URLs."""

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

from blog.authoring import store
from blog.extensions import db
from blog.media import illustrations as ill
from blog.media.blueprint import BOTTOM, LABEL_SIZE, LEFT, RIGHT, STYLE, TOP, width
from blog.media.drawings import CHARTS, KINDS, Spec
from blog.media.pictures import picture
from blog.media.vocabulary import VOCABULARY
from blog.models import Post
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
# Titles without a number anywhere: they get no chart.
WORDS_ONLY = [
    "How the queue drains at night",
    "Soft deletes caused more bugs than they prevented",
    "Partitioning the events table by month",
    "Code review guidelines we actually follow",
    "Notes on caching",
    "Why",
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
BANNED_ELEMENTS = {"script", "image", "foreignObject", "a", "use", "iframe", "object"}


def parse(svg: str) -> ET.Element:
    """The SVG document, parsed as strict XML."""
    return ET.fromstring(svg)


def texts(svg: str) -> list[ET.Element]:
    """Every label drawn."""
    return list(parse(svg).iter(f"{SVG}text"))


def labels(svg: str) -> list[str]:
    """The words of every label drawn."""
    return [e.text or "" for e in texts(svg)]


def sentences(alt: str) -> int:
    """How many sentences alt text has (a period followed by a space and a capital)."""
    return len(re.findall(r"\.(?:\s+[A-Z]|$)", alt))


def label_box(element: ET.Element) -> tuple[float, float, float, float]:
    """The box a label takes: left, top, right, bottom (monospace, at most 0.62em a glyph)."""
    x, y = float(element.get("x", 0)), float(element.get("y", 0))
    w = width(element.text or "")
    anchor = element.get("text-anchor", "start")
    left = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
    return left, y - 0.75 * LABEL_SIZE, left + w, y + 0.22 * LABEL_SIZE


def points(element: ET.Element) -> list[tuple[float, float]]:
    """The corners and ends an element reaches (paths: their absolute M, L, H, V, A points)."""
    tag = element.tag.removeprefix(SVG)
    get = lambda name: float(element.get(name, 0))  # noqa: E731
    if tag == "rect":
        x, y, w, h = get("x"), get("y"), get("width"), get("height")
        return [(x, y), (x + w, y + h)]
    if tag in ("circle", "ellipse"):
        rx = get("r") or get("rx")
        ry = get("r") or get("ry")
        return [(get("cx") - rx, get("cy") - ry), (get("cx") + rx, get("cy") + ry)]
    if tag == "path":
        out, x, y = [], 0.0, 0.0
        for command, args in re.findall(r"([MLHVAZ])([^MLHVAZ]*)", element.get("d", "")):
            numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", args)]
            if command in "ML":
                for i in range(0, len(numbers), 2):
                    x, y = numbers[i], numbers[i + 1]
                    out.append((x, y))
            elif command == "H":
                x = numbers[-1]
                out.append((x, y))
            elif command == "V":
                y = numbers[-1]
                out.append((x, y))
            elif command == "A":
                x, y = numbers[5], numbers[6]
                out.append((x, y))
        return out
    return []


def drawing_of(kind: str, count: int, labels_: tuple[str, ...] = (), values=()) -> ill.Illustration:
    """A drawing of one kind and count, with what labels it is given."""
    spec = Spec(kind, count, count - 1, labels_, values, 7)
    return ill.illustration("a-post", spec=spec)


ALL_KINDS = [(kind, count) for kind, (_, span, _, _) in KINDS.items() for count in span]


def test_at_least_twenty_four_compositions_each_reachable_from_words():
    """24 kinds or more; every schematic is asked for by some word of its vocabulary, and every
    chart by numbers; slugs alone give a drawing too."""
    assert len(KINDS) >= 24 and set(VOCABULARY) == set(KINDS) - CHARTS
    for kind, entry in VOCABULARY.items():
        stem = next(s for s in entry.strong or entry.asks if len(s) > 3)
        assert ill.illustration("some-post", f"Notes on the {stem}").kind == kind, stem
    assert ill.illustration("x", "From 800 ms to 120 ms").kind in CHARTS
    assert len({ill.illustration(f"post-{i}").kind for i in range(300)}) > 5


@pytest.mark.parametrize(("kind", "count"), ALL_KINDS, ids=[f"{k}-{c}" for k, c in ALL_KINDS])
def test_every_kind_draws_at_every_count_inside_the_band(kind, count):
    """Each kind at each count: strict XML, every object and label inside the middle band
    that a 3:1 crop keeps (nothing clipped on a phone's featured card), labels apart."""
    words = ("deleted_at column", "archive table", "events table", "nightly job", "view")
    drawing = drawing_of(kind, count, words, ("800 ms", "120 ms"))
    root = parse(drawing.svg)
    motif = next(g for g in root.iter(f"{SVG}g") if "motif" in (g.get("class") or ""))
    for element in motif.iter():
        for x, y in points(element):
            assert LEFT - 1 <= x <= RIGHT + 1 and TOP - 1 <= y <= BOTTOM + 1, (element.tag, x, y)
    boxes = [label_box(t) for t in texts(drawing.svg)]
    for left, top, right, bottom in boxes:
        assert left >= LEFT - 1 and right <= RIGHT + 1 and top >= TOP and bottom <= BOTTOM
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert apart, (a, b)
    assert drawing.alt.startswith("Fieldnotes illustration: a blueprint drawing of ")
    assert sentences(drawing.alt) <= 2, drawing.alt


@pytest.mark.parametrize("title", TITLES)
def test_same_post_same_drawing(title):
    """Same slug and words: the same SVG and alt, cached or freshly drawn."""
    first = ill.illustration("a-post", title, "A summary.")
    fresh = ill._drawn.__wrapped__(ill.read_post("a-post", title, "A summary."), "Fieldnotes")
    assert first == fresh == ill.illustration("a-post", title, "A summary.")


def test_numbers_the_post_compares_are_charted_with_its_words():
    """A change is drawn to scale with the values as written, under what they measure."""
    latency = ill.illustration("latency", "p99 went from 800 ms to 120 ms")
    assert latency.kind == "shift" and labels(latency.svg) == ["p99", "800 ms", "120 ms"]
    widths = [float(r.get("width")) for r in parse(latency.svg).iter(f"{SVG}rect")][-2:]
    assert widths[0] > widths[1] and "“800 ms” and “120 ms”" in latency.alt
    image = ill.illustration("img", "Cutting our container image from 1.2 GB to 140 MB")
    assert image.kind == "bars" and "container image" in labels(image.svg)
    assert "falling from left to right" in image.alt  # 1.2 GB is the larger
    share = ill.illustration("s", "Agreement rose to 91 percent")
    assert share.kind == "gauge" and "91 percent" in labels(share.svg)
    nodes = ill.illustration("n", "We removed 3 of 8 nodes", "A third of our nodes went.")
    assert nodes.kind == "fraction"


@pytest.mark.parametrize("title", WORDS_ONLY)
def test_a_post_without_numbers_gets_no_chart_and_no_number(title):
    """No chart, and no digit anywhere in what is drawn, for a post that gives no number."""
    for slug in ("a", "b", "c", "d"):
        drawing = ill.illustration(slug, title, "What we did and why it worked for us.")
        assert drawing.kind not in CHARTS
        assert not any(ch.isdigit() for ch in "".join(labels(drawing.svg)))


def test_schematics_name_the_posts_things_with_its_phrases():
    """The objects are the post's subject, labelled with whole noun phrases from it."""
    soft = ill.illustration(
        "soft",
        "Soft deletes caused more bugs than they prevented",
        "Every table had a deleted_at column. We replaced it with an archive table.",
    )
    assert soft.kind == "database"
    assert {"deleted_at column", "archive table"} <= set(labels(soft.svg))
    queue = ill.illustration("q", "Autoscaling workers on queue depth instead of CPU")
    assert queue.kind == "queue" and "queue depth" in labels(queue.svg)
    regions = ill.illustration("regions", "Failover across three regions")
    assert regions.kind == "nodes" and "map of three sites" in regions.alt
    assert len(list(parse(regions.svg).iter(f"{SVG}circle"))) == 3


@pytest.mark.parametrize("title", [*TITLES, *HOSTILE.values(), ""])
def test_alt_says_what_is_drawn_in_one_or_two_sentences(title):
    """The objects, their arrangement, labels and figures; no caption talk, no guessing."""
    alt = ill.illustration("a-post", title, "Summary of the post.").alt
    assert alt.startswith("Fieldnotes illustration: a blueprint drawing of ")
    assert alt.endswith(".") and sentences(alt) <= 2 and len(alt.split()) <= 90, alt
    assert not re.search(r"suggest|caption|corner", alt, re.IGNORECASE)


def test_alt_names_every_label_drawn():
    """Every label the drawing shows is in its alt text."""
    for i in range(120):
        drawing = ill.illustration(f"post-{i}", TITLES[i % len(TITLES)], "Summary of the post.")
        for words in labels(drawing.svg):
            assert f"“{words}”" in drawing.alt, (words, drawing.alt)


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


def test_labels_are_legible_where_shown_and_left_out_where_too_small():
    """22 units in a 640-unit drawing: 11 CSS px once it is 320 px wide, and the stylesheet
    hides them below that (the picks row's pictures are about 260 px)."""
    assert LABEL_SIZE * 320 / 640 >= 11
    assert "@media (max-width:319.9px){.t{display:none}}" in STYLE
    drawing = ill.illustration("x", "Autoscaling workers on queue depth")
    assert all(t.get("class") == "t" for t in texts(drawing.svg))


def luminance(colour: str) -> float:
    """The relative luminance of a #rrggbb colour (WCAG)."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    """The contrast ratio of two colours."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def theme(css: str) -> dict[str, dict[str, str]]:
    """Each class's colours in a block of rules: {"t": {"fill": "#2b2f36"}, ...}."""
    out: dict[str, dict[str, str]] = {}
    for cls, rules in re.findall(r"\.([a-z]+)\{([^}]*)\}", css):
        out.setdefault(cls, {}).update(re.findall(r"(fill|stroke):(#[0-9a-f]{6})", rules))
    return out


def test_the_drawing_follows_the_theme_and_keeps_its_contrast():
    """Light rules, then a dark block for prefers-color-scheme (which, for an <img>, follows
    the page's color-scheme, so the site's toggle too); labels 4.5:1 and strokes 3:1 on
    the paper, in both."""
    light = theme(STYLE.split("@media")[0])
    dark = theme(STYLE.split("@media (prefers-color-scheme:dark){")[1].split("}@media")[0])
    for colours in (light, dark):
        paper = colours["p"]["fill"]
        assert contrast(colours["t"]["fill"], paper) >= 4.5
        for cls in ("o", "f", "l", "la", "r", "b", "a"):
            assert contrast(colours[cls]["stroke"], paper) >= 3, cls
        assert contrast(colours["t"]["fill"], colours["a"]["fill"]) >= 4.5  # labels on tint
        assert contrast(colours["t"]["fill"], colours["f"]["fill"]) >= 4.5  # and on grey
    drawing = ill.illustration("x", "Replacing a nightly batch export with logical replication")
    used = {c for e in parse(drawing.svg).iter() for c in (e.get("class") or "").split()}
    assert used - {"motif", f"motif-{drawing.kind}"} <= set(light) | {"d"}


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
    for element in root.iter():
        assert element.tag.removeprefix(SVG) not in BANNED_ELEMENTS
        assert not any(a.lower().startswith("on") or "href" in a for a in element.attrib)
    assert len(drawing.svg.encode()) < 8192 and len(drawing.alt.split()) <= 90


def test_a_spec_overrides_what_the_words_say():
    """The hook for a chosen drawing: a Spec is drawn as given, bounded to what it can show."""
    spec = Spec("queue", 99, 7, ("inbox",), ("5 s",), 42)
    drawing = ill.illustration("any", "Three regions", spec=spec)
    assert drawing.kind == "queue" and "inbox" in labels(drawing.svg)
    huge = ill.illustration("any", spec=Spec("stack", 3, -1, ("<b>" * 999,) * 99, (), 1))
    assert parse(huge.svg) is not None and "<b>" not in huge.svg
    with pytest.raises(ValueError):
        ill.illustration("any", spec=dataclasses.replace(spec, kind="teapot"))


def test_inline_drawing_has_no_stylesheet():
    """The copy a page shows inline leaves its stylesheet out (the page's colours it)."""
    drawing = ill.illustration("x", "Notes on caching")
    assert "<style>" in drawing.svg and "<style>" not in drawing.inline
    assert parse(drawing.inline).tag == f"{SVG}svg"


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
    assert all(svg.startswith(b"<svg") for _, _, svg in shown)


def first_pages_of_the_demo(folder: Path) -> Path:
    """`folder` holding the demo posts its first three listing pages can show: the 40 newest
    (three pages of 12 cards, and some to spare), the featured post and the picks. Loaded,
    they give those pages exactly as the whole demo does, without rendering the rest."""
    posts = sorted(demo.read_demo(), key=lambda post: post.entry.published_at, reverse=True)
    for post in posts[:40] + [p for p in posts if p.entry.featured or p.entry.editors_pick]:
        # Cards draw from the title and the excerpt, which is the summary where there is
        # one: with a summary, the body has no say in the drawing.
        assert post.entry.summary.strip(), post.path
        shutil.copy(post.path, folder)
    shutil.copy(demo.DEMO_FOLDER / demo.TOPICS_FILE, folder)
    return folder


# The drawings are made from each post's words alone, and the listing's order is checked on
# both stores in tests/reading/ (loading the demo too, in tests/transfer/test_demo.py): which
# store holds the text cannot change what is drawn, so this costly load runs on SQLite only.
@pytest.mark.one_store
def test_the_demo_first_three_pages_have_no_two_drawings_alike(
    app, client, runner, tmp_path, monkeypatch
):
    """The demo as loaded: no page of the first three repeats a drawing, an alt text or a
    composition among its cards."""
    monkeypatch.setattr(demo, "DEMO_FOLDER", first_pages_of_the_demo(tmp_path))
    # Rendering the bodies was nearly all of this test's time, and no drawing reads them
    # (each post has a summary, see above): each is stored with the render of a short text.
    render_body = store.render_body
    monkeypatch.setattr(store, "render_body", lambda _markdown: render_body("Body."))
    assert runner.invoke(args=["demo", "load"]).exit_code == 0
    seen = []
    for n in (1, 2, 3):
        shown = page_drawings(client, f"/?page={n}")
        assert shown, n  # the demo is rewritten often: only the drawings it shows count
        distinct = {(src.split("?")[0], svg) for src, _, svg in shown}
        assert len({svg for _, svg in distinct}) == len(distinct), n
        assert len({alt for _, alt, _ in shown}) == len({src for src, _, _ in shown}), n
        cards = [svg for _, _, svg in shown][-12:]
        kinds = [re.search(rb"motif-([a-z]+)", svg)[1] for svg in cards]
        assert len(set(kinds)) == len(kinds), (n, kinds)
        seen += distinct
    assert len({svg for _, svg in seen}) == len(set(seen))


def test_versioned_url_is_immutable_with_a_strong_etag(app, client, posts):
    """The page names the SVG's hash; that URL is kept a year and answers 304 to its ETag,
    also in the compressed form's suffixed ETag; the SVG may use its own stylesheet only."""
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
    policy = response.headers["Content-Security-Policy"]
    assert "style-src 'unsafe-inline'" in policy and "default-src 'none'" in policy
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


# Drawings from slugs alone, the titles above and the hostile ones.
DRAWN = [ill.illustration(f"post-{i}") for i in range(60)] + [
    ill.illustration("titled", title) for title in TITLES + list(HOSTILE.values())
]


@pytest.mark.parametrize("drawing", DRAWN, ids=lambda d: d.kind)
def test_every_drawing_is_inert_and_small(drawing):
    """Fixed geometry; no script, link, external reference or event handler; its one
    stylesheet is the fixed one; under 6 KB (a card's picture must not outweigh its text)."""
    root = parse(drawing.svg)
    assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 640 360"
    assert (root.get("width"), root.get("height")) == ("640", "360")
    [style] = root.iter(f"{SVG}style")
    assert style.text == STYLE
    for element in root.iter():
        assert element.tag.removeprefix(SVG) not in BANNED_ELEMENTS
        for name, value in element.attrib.items():
            local = name.rsplit("}", 1)[-1].lower()
            assert not local.startswith("on") and "href" not in local and local != "style"
            assert "url(" not in value and "javascript" not in value.lower()
    assert len(drawing.svg.encode()) < 6144
