"""Atom and RSS feeds, read back with a real feed parser."""

from __future__ import annotations

import html
from datetime import UTC, datetime, timedelta

import feedparser
import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup
from lxml import etree

from blog.extensions import db
from blog.models import Author, Post, PostTopic, Topic, utcnow
from blog.reading.feeds import FEED_SIZE, build_feed
from blog.reading.seo import xml_safe
from tests.markup.test_xss import ENTRIES

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
    """The tag URI a post's entry should carry: site host, creation day, post id."""
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        return f"tag:127.0.0.1,{post.created_at:%Y-%m-%d}:posts/{post.id}"


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
    assert "alert(1)" in document.entries[0].content[0].value  # shown as text, not dropped


def test_characters_xml_forbids_never_break_a_feed(app):
    """Text the store may still hold but XML cannot carry is dropped, not a broken feed."""
    [post] = _payload_posts(["placeholder"])
    post.title = "Odd\ufffe title\x0b here"
    with app.test_request_context():
        body = build_feed([post], "atom")
    document = feedparser.parse(body)
    assert not document.bozo
    assert document.entries[0].title == "Odd title here"
