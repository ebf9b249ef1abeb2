"""Atom and RSS feeds, read back with a real feed parser."""

from __future__ import annotations

import html
import io
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import feedparser
import PIL.Image
import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup
from lxml import etree

from blog.extensions import db
from blog.media import images
from blog.models import Author, Post, PostTopic, Topic, utcnow
from blog.reading.feeds import FEED_SIZE, build_feed
from blog.reading.seo import xml_safe
from blog.web import pagecache
from tests.markup.test_pipeline import ENGINEERING_BODY
from tests.markup.test_xss import ENTRIES
from tests.transfer.test_files import empty_database

SITE = "http://127.0.0.1:5000"
ATOM = "{http://www.w3.org/2005/Atom}"


def parse(response) -> feedparser.FeedParserDict:
    """Parse a feed response, failing on anything a reader would choke on."""
    assert response.status_code == 200
    document = feedparser.parse(response.get_data())
    assert not document.bozo, document.get("bozo_exception")
    return document


def aware(value: datetime) -> datetime:
    """A stored naive UTC time as an aware one."""
    return value.replace(tzinfo=UTC)


def parsed_time(struct) -> datetime:
    """feedparser's UTC time tuple as an aware datetime."""
    return datetime(*struct[:6], tzinfo=UTC)


def entry_id_of(app, slug: str) -> str:
    """The URN a post's entry should carry: its permanent id."""
    with app.app_context():
        uid = db.session.scalar(sa.select(Post.uid).where(Post.slug == slug))
        return f"urn:uuid:{uid}"


@pytest.mark.parametrize("kind", ["atom", "rss"])
def test_blog_feed_holds_the_newest_published_posts(client, posts, kind):
    """The 20 newest live posts, newest first; drafts and scheduled posts stay out."""
    posts.create(25)
    posts.create(1, title="A draft", published_at=None)
    posts.create(1, title="Later", published_at=utcnow() + timedelta(days=2))
    response = client.get(f"/feed.{kind}")
    assert response.mimetype == f"application/{kind}+xml"
    document = parse(response)
    titles = [entry.title for entry in document.entries]
    assert titles == [f"Post number {n}" for n in range(1, FEED_SIZE + 1)]
    assert document.feed.title == "Fieldnotes"
    assert document.feed.link == f"{SITE}/"


def test_atom_entry_carries_everything_a_reader_shows(app, client, posts):
    """Title, absolute link, stable id, summary, full content, author, topics and dates."""
    posts.topics("Databases", "Frontend")
    published = datetime(2025, 3, 4, 8, 0)
    updated = datetime(2025, 3, 9, 10, 30)
    [slug] = posts.create(
        1,
        title="Vacuum & friends",
        topics=("Frontend", "Databases"),
        summary="Why bloat happens.",
        body="See [the other post](/posts/other) and [part one](#s-part-one).\n\n"
        "## Part one\n\nBecause **bloat**.",
        published_at=published,
        updated_at=updated,
    )
    document = parse(client.get("/feed.atom"))
    [entry] = document.entries
    assert entry.title == "Vacuum & friends"
    assert entry.link == f"{SITE}/posts/{slug}"
    assert entry.id == entry_id_of(app, slug)
    assert entry.summary == "Why bloat happens."
    assert entry.author == "Ada Example"
    assert [tag.term for tag in entry.tags] == ["Frontend", "Databases"]
    assert parsed_time(entry.published_parsed) == aware(published)
    assert parsed_time(entry.updated_parsed) == aware(updated)
    assert parsed_time(document.feed.updated_parsed) == aware(updated)
    content = BeautifulSoup(entry.content[0].value, "html.parser")
    assert content.select_one("strong").get_text() == "bloat"
    hrefs = [a["href"] for a in content.select("a")]
    assert f"{SITE}/posts/other" in hrefs
    assert f"{SITE}/posts/{slug}#s-part-one" in hrefs
    assert all(href.startswith(SITE) for href in hrefs)
    links = {link.rel: link.href for link in document.feed.links}
    assert links == {"alternate": f"{SITE}/", "self": f"{SITE}/feed.atom"}


def test_rss_item_carries_everything_a_reader_shows(app, client, posts):
    """RSS items have link, guid, description, full content, creator, categories and date."""
    published = datetime(2025, 3, 4, 8, 0)
    [slug] = posts.create(1, title="Queues", summary="Short & sweet.", published_at=published)
    document = parse(client.get("/feed.rss"))
    [entry] = document.entries
    assert entry.title == "Queues"
    assert entry.link == f"{SITE}/posts/{slug}"
    assert entry.id == entry_id_of(app, slug)
    assert BeautifulSoup(entry.summary, "html.parser").get_text() == "Short & sweet."
    assert entry.author == "Ada Example"
    assert [tag.term for tag in entry.tags] == ["Databases"]
    assert parsed_time(entry.published_parsed) == aware(published)
    assert "Some text." in entry.content[0].value


def test_entry_updated_falls_back_to_the_publish_date(client, posts):
    """A post never revised reports its publish date as its last update."""
    published = datetime(2025, 5, 6, 7, 8)
    posts.create(1, published_at=published)
    [entry] = parse(client.get("/feed.atom")).entries
    assert parsed_time(entry.updated_parsed) == aware(published)


@pytest.mark.parametrize("kind", ["atom", "rss"])
def test_topic_feed_holds_only_that_topic(client, posts, kind):
    """A topic's feed lists its posts only, under the topic's name and links."""
    posts.topics("Databases", "Frontend")
    posts.create(2, topics=("Frontend",))
    posts.create(3, topics=("Databases",))
    document = parse(client.get(f"/topics/frontend/feed.{kind}"))
    assert [entry.title for entry in document.entries] == ["Post number 1", "Post number 2"]
    assert document.feed.title == "Frontend · Fieldnotes"
    assert document.feed.link == f"{SITE}/topics/frontend"


def test_topic_feed_of_an_unknown_topic_is_404(client, posts):
    """No topic, no feed; a topic without live posts is not public yet, as on its page."""
    posts.topics("Databases", "Empty", "Drafted")
    posts.create(1)
    posts.create(1, topics=("Drafted",), published_at=None)
    assert client.get("/topics/nope/feed.atom").status_code == 404
    assert client.get("/feed.json").status_code == 404
    for slug in ("empty", "drafted"):
        for path in (f"/topics/{slug}/feed.atom", f"/topics/{slug}"):
            response = client.get(path)
            assert response.status_code == 404
            assert b"Drafted<" not in response.get_data()


def test_feed_links_ignore_the_host_header(client, posts):
    """Links come from SITE_URL even when the request names another host."""
    posts.create(2)
    response = client.get("/feed.atom", headers={"Host": "evil.example"})
    assert b"evil.example" not in response.get_data()
    document = parse(response)
    assert all(entry.link.startswith(f"{SITE}/") for entry in document.entries)


def _payload_posts(payloads: list[str]) -> list[Post]:
    """Unsaved posts whose title, summary, author and topic are all the payload."""
    made = []
    for number, payload in enumerate(payloads, 1):
        payload = stored(payload)
        post = Post(
            id=number,
            uid=uuid.UUID(int=number),
            slug=f"payload-{number}",
            title=payload,
            excerpt=payload,
            body_html="<p>Plain body.</p>",
            author=Author(name=payload, slug="author"),
            published_at=datetime(2025, 1, 1),
            created_at=datetime(2025, 1, 1),
        )
        post.topic_links = [PostTopic(topic=Topic(name=payload, slug=f"t{number}"), position=0)]
        made.append(post)
    return made


def stored(payload: str) -> str:
    """A payload as the store keeps text: stripped, and without characters XML forbids."""
    return xml_safe(payload).strip()


PAYLOADS = [payload for _, _, payload in ENTRIES]
CHUNKS = [PAYLOADS[start : start + FEED_SIZE] for start in range(0, len(PAYLOADS), FEED_SIZE)]


# The tests marked one_store in this module run on SQLite only: they check what the feed
# templates make of text (built from posts in memory, or already stored), which the store hands
# back as written (tests/test_fuzz.py checks that on both stores). Which posts a feed holds, in
# what order, and their ids run on both stores.
@pytest.mark.one_store
@pytest.mark.parametrize("chunk", CHUNKS, ids=[f"from{i * FEED_SIZE}" for i in range(len(CHUNKS))])
def test_corpus_payloads_stay_text_in_atom(app, chunk):
    """Every XSS payload in a title, summary, author or topic reads back as the same text."""
    with app.test_request_context():
        body = build_feed(_payload_posts(chunk), "atom")
    tree = etree.fromstring(body)
    assert tree.findall(".//script") == [] and tree.findall(f".//{ATOM}script") == []
    document = feedparser.parse(body)
    assert not document.bozo
    for payload, entry in zip(chunk, document.entries, strict=True):
        text = stored(payload)
        assert entry.title_detail.type == "text/plain"
        assert entry.title == text
        assert entry.summary == text
        assert entry.author == text
        assert entry.tags[0].term == text


@pytest.mark.one_store
@pytest.mark.parametrize("chunk", CHUNKS, ids=[f"from{i * FEED_SIZE}" for i in range(len(CHUNKS))])
def test_corpus_payloads_stay_text_in_rss(app, chunk):
    """RSS titles are XML text; descriptions, read as HTML, show the payload as text."""
    with app.test_request_context():
        body = build_feed(_payload_posts(chunk), "rss")
    tree = etree.fromstring(body)
    items = tree.findall("./channel/item")
    assert tree.findall(".//script") == []
    for payload, item in zip(chunk, items, strict=True):
        text = stored(payload)
        assert item.findtext("title").strip() == text
        description = item.findtext("description")
        assert "<" not in description  # read as HTML, it holds no tag at all
        assert html.unescape(description) == text


def test_feed_content_is_the_sanitized_body(client, posts):
    """A hostile body reaches the feed only as the store's sanitized HTML."""
    body = "<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n[x](javascript:alert(3))"
    posts.create(1, body=body)
    document = feedparser.parse(client.get("/feed.atom").get_data())
    tree = etree.fromstring(client.get("/feed.atom").get_data())
    raw = tree.find(f"{ATOM}entry/{ATOM}content").text
    content = BeautifulSoup(raw, "html.parser")
    assert content.select("script") == [] and content.select("img[onerror]") == []
    assert all(not a.get("href", "").startswith("javascript") for a in content.select("a"))
    # Raw HTML goes through the allow-list: a script goes with what it holds, an image stays.
    assert "alert(" not in document.entries[0].content[0].value
    assert content.select("img")


@pytest.mark.one_store
def test_characters_xml_forbids_never_break_a_feed(app):
    """Text the store may still hold but XML cannot carry is dropped, not a broken feed."""
    [post] = _payload_posts(["placeholder"])
    post.title = "Odd\ufffe title\x0b here"
    with app.test_request_context():
        body = build_feed([post], "atom")
    document = feedparser.parse(body)
    assert not document.bozo
    assert document.entries[0].title == "Odd title here"


# --- Permanent ids, pictures, headings, the Atom grammar --------------------------------------

ATOM_SCHEMA = Path(__file__).parents[1] / "data" / "atom.rng"


def png(colour: tuple[int, int, int] = (30, 90, 160)) -> bytes:
    """A small real PNG."""
    out = io.BytesIO()
    PIL.Image.new("RGB", (48, 32), colour).save(out, "PNG")
    return out.getvalue()


def give_image(app, slug: str, data: bytes, alt: str) -> None:
    """Store an uploaded image and make it the post's picture."""
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        post.image = images.store_image(data)
        post.image_alt = alt
        db.session.commit()


def entry_ids(client, path: str = "/feed.atom") -> dict[str, str]:
    """Each entry's id, by its link."""
    return {entry.link: entry.id for entry in parse(client.get(path)).entries}


@pytest.mark.parametrize("kind", ["atom", "rss"])
def test_entry_ids_are_the_posts_permanent_ids(app, client, posts, kind):
    """An entry's id is `urn:uuid:` and the post's uid: neither a rename nor an edit moves it."""
    [slug] = posts.create(1)
    before = entry_id_of(app, slug)
    assert before.startswith("urn:uuid:") and uuid.UUID(before.removeprefix("urn:uuid:"))
    assert entry_ids(client, f"/feed.{kind}") == {f"{SITE}/posts/{slug}": before}
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        post.slug, post.title = "a-new-address", "A new title"
        db.session.commit()
    assert entry_ids(client, f"/feed.{kind}") == {f"{SITE}/posts/a-new-address": before}


def test_entry_ids_survive_export_then_import_into_an_empty_database(app, client, posts, tmp_path):
    """Exported and imported into an empty database, posts get new database ids and keep
    their entry ids, so readers see no post twice."""
    posts.create(3)
    before = entry_ids(client)
    with app.app_context():
        old = set(db.session.scalars(sa.select(Post.id)))
    runner = app.test_cli_runner()
    assert runner.invoke(args=["posts", "export", str(tmp_path)]).exit_code == 0
    empty_database(app)
    pagecache.clear()
    result = runner.invoke(args=["posts", "import", str(tmp_path)])
    assert result.output == "created 3, updated 0, unchanged 0\n", result.output
    with app.app_context():
        assert not old & set(db.session.scalars(sa.select(Post.id)))
    assert entry_ids(client) == before


@pytest.mark.parametrize("kind", ["atom", "rss"])
def test_entries_open_with_the_cover_image_and_enclose_it(app, client, posts, kind):
    """Each entry's content starts with the post's picture (absolute URL, alt text) and
    encloses it with its media type and the byte length its address serves: the uploaded
    image, or else the generated illustration."""
    uploaded, drawn = posts.create(2)
    data = png()
    give_image(app, uploaded, data, "A blue square & a “quote”")
    body = client.get(f"/feed.{kind}").get_data()
    document = feedparser.parse(body)
    assert not document.bozo
    entries = {entry.link: entry for entry in document.entries}
    expected = {
        uploaded: ("image/png", "A blue square & a “quote”", "/images/"),
        drawn: (
            "image/svg+xml",
            "Fieldnotes illustration: a blueprint drawing",
            f"/illustrations/{drawn}.svg",
        ),
    }
    for slug, (media_type, alt, path) in expected.items():
        entry = entries[f"{SITE}/posts/{slug}"]
        content = BeautifulSoup(entry.content[0].value, "html.parser")
        first = content.find(True)
        img = first if first.name == "img" else first.find("img")
        assert first is content.select("p, img")[0] and img is content.select("img")[0]
        assert img["src"].startswith(f"{SITE}{path}")
        assert img["alt"].startswith(alt)
        [enclosure] = entry.enclosures
        assert enclosure.href == img["src"]
        assert enclosure.type == media_type
        served = client.get(img["src"].removeprefix(SITE))
        assert served.status_code == 200 and served.mimetype == media_type
        assert int(enclosure.length) == len(served.get_data()) > 0
    assert entries[f"{SITE}/posts/{uploaded}"].enclosures[0].length == str(len(data))


@pytest.mark.one_store
@pytest.mark.parametrize("kind", ["atom", "rss"])
def test_feed_code_blocks_keep_their_label_and_no_page_controls(client, posts, kind):
    """A code block reaches a feed with its language label and its code, never with the
    page's copy button (added in the browser) or any script."""
    posts.create(1, body="Run it:\n\n```sh\nmake run\n```\n\n| | n |\n|---|--:|\n| a | 1 |")
    [entry] = parse(client.get(f"/feed.{kind}")).entries
    content = BeautifulSoup(entry.content[0].value, "html.parser")
    assert content.select_one(".code-language").get_text() == "Shell"
    assert content.select_one("pre code").get_text() == "make run\n"
    assert content.select("button, script, .code-copy") == []
    assert [cell.get("class") for cell in content.select("tbody td")] == [None, ["align-right"]]


@pytest.mark.one_store
@pytest.mark.parametrize("kind", ["atom", "rss"])
def test_feed_content_has_no_heading_permalinks(client, posts, kind):
    """The ¶ links the Markdown pipeline puts in headings stay on the site: the headings,
    their ids, the text after them and in-page links are all kept."""
    posts.create(
        1,
        body="Intro, see [the part](#s-part-one).\n\n## Part one\n\nText.\n\n"
        "### A *sub* part\n\nMore.\n\n## Part two\n\nEnd.",
    )
    [entry] = parse(client.get(f"/feed.{kind}")).entries
    value = entry.content[0].value
    assert "¶" not in value and "&para;" not in value and "headerlink" not in value
    content = BeautifulSoup(value, "html.parser")
    headings = [(h.name, h.get("id"), h.get_text()) for h in content.select("h2, h3")]
    assert headings == [
        ("h2", "s-part-one", "Part one"),
        ("h3", "s-a-sub-part", "A sub part"),
        ("h2", "s-part-two", "Part two"),
    ]
    assert content.select_one("h3 em").get_text() == "sub"
    assert [a["href"] for a in content.select("a")] == [f"{entry.link}#s-part-one"]


def _feed_posts(app, posts) -> None:
    """Posts with uploaded images, summaries, several topics, a revision and a draft."""
    posts.topics("Databases", "Frontend", "Ops & <Release>")
    made = posts.create(3, topics=("Databases", "Frontend", "Ops & <Release>"))
    posts.create(2, topics=("Frontend",), summary="", updated_at=utcnow())
    posts.create(1, topics=("Databases",), published_at=None)
    give_image(app, made[0], png(), "A blue square")
    give_image(app, made[1], png((200, 40, 40)), "")


def _atom_rules(tree: etree._Element) -> None:
    """The RFC's rules a grammar cannot say: an author for every entry (its own or the
    feed's), one alternate link per type and language, distinct entry ids."""
    feed_authors = tree.findall(f"{ATOM}author")
    ids = []
    for element in [tree, *tree.findall(f"{ATOM}entry")]:
        alternates = [
            (link.get("type"), link.get("hreflang"))
            for link in element.findall(f"{ATOM}link")
            if link.get("rel", "alternate") == "alternate"
        ]
        assert len(alternates) == len(set(alternates)), alternates
        if element is not tree:
            assert element.findall(f"{ATOM}author") or feed_authors
            ids.append(element.findtext(f"{ATOM}id"))
    assert len(ids) == len(set(ids))


@pytest.mark.one_store
@pytest.mark.parametrize(
    "path", ["/feed.atom", "/topics/frontend/feed.atom", "/authors/ada-example/feed.atom"]
)
def test_atom_feeds_follow_the_rfc_4287_grammar(app, client, posts, path):
    """The site's feed, a topic's and an author's are valid Atom, images, summaries and
    topics included."""
    _feed_posts(app, posts)
    schema = etree.RelaxNG(etree.parse(ATOM_SCHEMA))
    tree = etree.fromstring(client.get(path).get_data())
    assert schema.validate(tree), schema.error_log
    _atom_rules(tree)
    entries = tree.findall(f"{ATOM}entry")
    assert len(entries) == 5
    assert all(entry.find(f"{ATOM}link[@rel='enclosure']") is not None for entry in entries)
    assert any(len(entry.findall(f"{ATOM}category")) == 3 for entry in entries)


@pytest.mark.one_store
def test_the_atom_grammar_refuses_what_the_rfc_forbids(app, client, posts):
    """The grammar is no rubber stamp: each break of the RFC's rules fails it."""
    _feed_posts(app, posts)
    schema = etree.RelaxNG(etree.parse(ATOM_SCHEMA))
    body = client.get("/feed.atom").get_data()
    breaks = [
        (f"{ATOM}entry/{ATOM}id", lambda e: setattr(e, "text", "no scheme here")),
        (f"{ATOM}entry/{ATOM}updated", lambda e: setattr(e, "text", "2025-01-01T00:00:00")),
        (f"{ATOM}entry/{ATOM}link", lambda e: e.set("length", "large")),
        (f"{ATOM}entry/{ATOM}link", lambda e: e.set("type", "png")),
        (f"{ATOM}entry/{ATOM}link", lambda e: e.set("colour", "blue")),
        (f"{ATOM}entry/{ATOM}content", lambda e: e.set("type", "xhtml")),
        (f"{ATOM}entry", lambda e: e.remove(e.find(f"{ATOM}title"))),
        (f"{ATOM}entry", lambda e: e.append(etree.Element(f"{ATOM}title"))),
        (f"{ATOM}entry", lambda e: e.append(etree.Element(f"{ATOM}picture"))),
        (".", lambda e: e.append(etree.Element(f"{ATOM}subtitle"))),  # after the entries
    ]
    for path, change in breaks:
        tree = etree.fromstring(body)
        change(tree.find(path))
        assert not schema.validate(tree), path
    tree = etree.fromstring(body)
    tree.find(f"{ATOM}entry").append(etree.Element("{urn:example:elsewhere}note"))
    tree.find(f"{ATOM}entry/{ATOM}link").set("{urn:example:elsewhere}hint", "x")
    assert schema.validate(tree), schema.error_log  # markup from elsewhere is allowed


@pytest.mark.one_store
@pytest.mark.parametrize(
    "path", ["/feed.rss", "/topics/frontend/feed.rss", "/authors/ada-example/feed.rss"]
)
def test_rss_feeds_are_well_formed_with_one_enclosure_an_item(app, client, posts, path):
    """RSS items parse as strict XML and each carries one enclosure with url, length and
    type, and a guid that is the post's permanent id (not a link)."""
    _feed_posts(app, posts)
    tree = etree.fromstring(client.get(path).get_data())
    assert tree.tag == "rss" and tree.get("version") == "2.0"
    items = tree.findall("./channel/item")
    assert len(items) == 5
    for item in items:
        [enclosure] = item.findall("enclosure")
        assert enclosure.get("url").startswith(f"{SITE}/")
        assert enclosure.get("type") in {"image/png", "image/svg+xml"}
        assert int(enclosure.get("length")) > 0
        guid = item.find("guid")
        assert guid.get("isPermaLink") == "false" and guid.text.startswith("urn:uuid:")
        assert "¶" not in item.findtext("{http://purl.org/rss/1.0/modules/content/}encoded")


@pytest.mark.one_store
@pytest.mark.parametrize("kind", ["atom", "rss"])
def test_engineering_elements_reach_feeds_without_scripts(client, posts, kind):
    """Formulas as MathML, diagrams as inline SVG, callouts, figures, code titles, marked
    and diff lines, tasks, keys, abbreviations and marked text all reach a feed reader as
    HTML that needs no script and no style sheet to carry its meaning."""
    posts.create(1, body=ENGINEERING_BODY)
    tree = etree.fromstring(client.get(f"/feed.{kind}").get_data())
    if kind == "atom":
        raw = tree.find(f"{ATOM}entry/{ATOM}content").text
    else:
        raw = tree.find("channel/item/{http://purl.org/rss/1.0/modules/content/}encoded").text
    content = BeautifulSoup(raw, "html.parser")
    formulas = content.find_all("math")
    assert [math["display"] for math in formulas] == ["inline", "block"]
    assert formulas[0].find("annotation").text == "E = mc^2"
    svg = content.find("figure", class_="diagram").find("svg")
    assert svg["role"] == "img" and svg["aria-label"] == "Request path"
    assert [text.text for text in svg.find_all("text")] == ["client", "api", "store"]
    assert [
        callout.get_text(" ", strip=True).split()[0] for callout in content.select(".callout-title")
    ] == ["Warning", "Faster", "Why"]
    figure = content.find("figure", class_="figure-wide")
    assert figure.img["src"] == f"{SITE}/images/chart.png"
    assert figure.figcaption.text == "Latency over a week."
    assert content.find(class_="code-file").text == "app.py"
    assert content.find("ins").text == "+new" and content.find("del").text == "-old"
    assert [box["aria-label"] for box in content.select(".task-box")] == ["Not done", "Done"]
    assert content.find("abbr")["title"] == "Hypertext Markup Language"
    assert content.find("kbd") and content.find("mark", class_=False).text == "this"
    assert content.find("script") is None and content.find(style=True) is None
    assert "$5 and $10" in content.get_text()
