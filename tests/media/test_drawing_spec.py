"""The `illustration:` spec: its parser (strict, with messages) and the drawing it chooses."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from blog.extensions import db
from blog.media import illustrations as ill
from blog.media.drawing_spec import MAX_CHARS, SpecError, Written, applied, canonical, parse
from blog.media.drawings import KINDS
from blog.media.pictures import drawing_for
from blog.models import Post


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("kind: bars", "kind: bars"),
        ("  KIND :  Queue  ", "kind: queue"),
        (
            "kind: bars; values: 800ms, 120 ms; labels: before, after",
            "kind: bars; values: 800 ms, 120 ms; labels: before, after",
        ),
        (
            "labels: a, b;kind: stack;count: 4;accent: 2",
            "kind: stack; count: 4; accent: 2; labels: a, b",
        ),
        ("kind: gauge; values: 40 %", "kind: gauge; values: 40%"),
        ("kind: bars; values: 3 x, 12.5 GB, 0", "kind: bars; values: 3x, 12.5 GB, 0"),
        ("kind: bars\nvalues: 1, 2", "kind: bars; values: 1, 2"),
        ("kind: bars;;", "kind: bars"),
        ("kind: funnel; labels: a: b, ünïcode", "kind: funnel; labels: a: b, ünïcode"),
        ("", ""),
        ("   ", ""),
    ],
)
def test_a_spec_is_stored_in_one_spelling(text, stored):
    """Names and kinds in any case, spaces anywhere, fields in any order: one stored text,
    which reads back as itself."""
    assert canonical(text) == stored
    assert canonical(stored) == stored


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x" * 200_000, "The drawing's spec is 200,000 characters; the limit is 300."),
        ("kind: bars; " + "labels: a; " * 30, "The drawing's spec is 342 characters"),
        ("kind: pie", "There is no drawing of kind “pie”; the kinds are bars, shift, fraction"),
        ("kind: bars; kind: queue", "`kind` is given twice"),
        ("kind: bars; Values: 1; values: 2", "`values` is given twice"),
        ("values: 1, 2", "Name the kind of drawing, like `kind: bars`"),
        ("kind: bars; colour: red", "Unknown field “colour”; the fields are kind, count"),
        ("kind bars", "“kind bars” is not a `name: value` field."),
        ("kind:", "`kind` has no value."),
        (
            "kind: bars; values: 1, 2, 3, 4, 5, 6",
            "`values` lists 6 items; a drawing shows at most 5.",
        ),
        (
            "kind: bars; labels: a, b, c, d, e, f, g",
            "`labels` lists 7 items; a drawing shows at most 6",
        ),
        ("kind: bars; values: 1,, 2", "`values` has an empty item"),
        ("kind: bars; values: -5", "`values`: “-5” is negative"),
        ("kind: bars; values: -0.5 ms", "`values`: “-0.5 ms” is negative"),
        ("kind: bars; values: NaN", "`values`: “NaN” is not a number this field takes"),
        ("kind: bars; values: inf", "`values`: “inf” is not a number this field takes"),
        ("kind: bars; values: 1e309", "`values`: “1e309” is not a number this field takes"),
        ("kind: bars; values: 1234567", "`values`: “1234567” is not a number this field takes"),
        ("kind: bars; values: 1.23456", "`values`: “1.23456” is not a number this field takes"),
        ("kind: bars; values: fast", "`values`: “fast” does not start with a number"),
        ("kind: bars; values: 5 lightyears", "`values`: the unit of “5 lightyears” must be"),
        ("kind: bars; values: 5 m/s", "`values`: the unit of “5 m/s” must be"),
        ("kind: bars; count: 7", "`count` must be a whole number from 2 to 6, not “7”."),
        ("kind: bars; count: 99999999999999999999", "`count` must be a whole number from 2 to 6"),
        ("kind: pool; count: -4", "`count` must be a whole number from 3 to 10, not “-4”."),
        ("kind: bars; count: 4.0", "`count` must be a whole number from 2 to 6"),
        ("kind: bars; count: ４", "`count` must be a whole number"),
        ("kind: bars; count: 4; accent: 5", "`accent` must be a whole number from 1 to 4"),
        ("kind: bars; accent: 0", "`accent` must be a whole number from 1 to 6"),
        ("kind: bars; labels: throughputs!!", "`labels`: “throughputs!!” is longer than 12"),
        ("kind: bars; labels: a\x07b", "`labels` may hold only printable characters."),
    ],
)
def test_a_broken_spec_says_what_is_wrong(text, message):
    """Each rule has its message, naming the field and the value; nothing is half-read."""
    with pytest.raises(SpecError) as raised:
        parse(text)
    assert str(raised.value).startswith(message), str(raised.value)


def test_every_kind_can_be_named_with_every_count_it_draws():
    """Every kind, each at each count of its range, with its accent at the last part."""
    for kind, (_, span, _, _) in KINDS.items():
        for count in span:
            text = f"kind: {kind}; count: {count}; accent: {count}"
            assert parse(text) == Written(kind, count, count)
            spec = applied(text, "a-post", "Title", "")
            assert spec is not None and spec.kind == kind


def test_the_spec_chooses_the_drawing_and_the_words_fill_in_the_rest(app):
    """What the spec names is drawn and said in the alt text; what it leaves out comes from
    the post's words, as they would draw that kind: its phrases as the parts' labels."""
    title = "Failover across three regions"
    summary = "The primary database moved to a replica while the load balancer kept serving."
    with app.app_context():
        plain = drawing_for("failover", title)
        chosen = drawing_for("failover", title, written="kind: bars; values: 800 ms, 120 ms")
        named = drawing_for("failover", title, written="kind: pipeline; labels: build, test, ship")
        worded = drawing_for("failover", title, summary, written="kind: stack; count: 3")
        blue = drawing_for("failover", title, written="kind: pipeline; count: 5; accent: 4")
        pool = drawing_for("failover", title, summary, written="kind: pool")
    assert plain.kind == "nodes"
    assert chosen.kind == "bars" and chosen.version != plain.version
    assert "“800 ms” and “120 ms”" in chosen.alt and chosen.alt.startswith("Fieldnotes ")
    assert "“build”, “test” and “ship”" in named.alt
    assert "a stack of three layers" in worded.alt and "“primary database”" in worded.alt
    assert "the fourth in blue" in blue.alt
    assert "“primary database”" in pool.alt


def test_a_stored_spec_that_no_longer_parses_falls_back_to_the_words(app):
    """Readers never get an error for a stored text the rules now refuse: the words decide."""
    assert applied("kind: teapot", "slug", "Title", "") is None
    with app.app_context():
        broken = drawing_for("s", "How the queue drains", written="kind: teapot")
        assert broken == drawing_for("s", "How the queue drains")


def test_the_parser_is_fast_on_hostile_text():
    """The longest text is refused before it is split; the longest allowed one parses at once."""
    started = time.perf_counter()
    for text in ("; " * 100_000, ":" * 200_000, "kind: bars; values: " + "9" * 200_000):
        with pytest.raises(SpecError):
            parse(text)
    longest = "kind: bars; labels: " + ", ".join(["abcdefghijkl"] * 6)
    longest += "; values: " + ", ".join(["999999.999 ms"] * 5)
    assert len(longest) <= MAX_CHARS and parse(longest) is not None
    assert time.perf_counter() - started < 0.1


def test_cards_posts_and_previews_show_the_chosen_drawing(
    app, client, posts, tmp_path, monkeypatch
):
    """The listing card, the post page, the SVG and the PNG preview all draw the stored spec."""
    monkeypatch.setattr(app, "instance_path", str(tmp_path))
    [slug] = posts.create(1, title="Failover across three regions")
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        post.illustration = "kind: funnel; labels: seen, read, shared"
        db.session.commit()
    expected = drawing_for_app(app, slug)
    assert expected.kind == "funnel"
    for url in ("/", f"/posts/{slug}"):
        html = client.get(url).get_data(as_text=True)
        assert f"/illustrations/{slug}.svg?v={expected.version}" in html, url
        assert f"/illustrations/{slug}.png?v={expected.version}" in html, url
    assert client.get(f"/illustrations/{slug}.svg").get_data(as_text=True) == expected.svg
    assert client.get(f"/illustrations/{slug}.png?v={expected.version}").status_code == 200


def drawing_for_app(app, slug: str) -> ill.Illustration:
    """The drawing of the stored post, as pages draw it."""
    with app.test_request_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        return drawing_for(post.slug, post.title, post.excerpt, post.illustration)
