"""Author pages: the profile, their posts paged like the listing, feeds, bylines, JSON-LD."""

from __future__ import annotations

import json
from datetime import timedelta

import feedparser
import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup

from blog.authoring.images import store_image
from blog.extensions import db
from blog.models import Author, Image, utcnow
from blog.reading.authors import link_label, own_link
from blog.web import pagecache
from tests.authoring.test_images import picture_bytes
from tests.conftest import count_queries
from tests.reading.test_views import (
    HTMX_MORE,
    HTMX_TOPIC,
    card_titles,
    counter,
    shown_text,
    spoken_name,
)

SITE = "http://127.0.0.1:5000"
GRACE = "/authors/grace-writer"


def soup(response, status: int = 200) -> BeautifulSoup:
    """Parse a response body as HTML, after checking its status."""
    assert response.status_code == status, response.status_code
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def profile(app, name: str, **fields) -> None:
    """Set an author's bio, url or avatar (`avatar` as image bytes)."""
    with app.app_context():
        author = db.session.scalar(sa.select(Author).where(Author.name == name))
        data = fields.pop("avatar", None)
        if data is not None:
            author.avatar = store_image(data)
        for key, value in fields.items():
            setattr(author, key, value)
        db.session.commit()


def structured(page: BeautifulSoup) -> dict:
    """The page's one JSON-LD block, parsed."""
    [script] = page.select('script[type="application/ld+json"]')
    return json.loads(script.string)


PER_PAGE = 3  # pages of three: the listing's paging, with few posts to make


@pytest.fixture
def writers(app, posts, monkeypatch):
    """Ada has 7 posts; Grace has 3, a bio, a link and an avatar, plus a draft and a
    scheduled post nobody may see yet. Pages hold three cards."""
    monkeypatch.setitem(app.config, "POSTS_PER_PAGE", PER_PAGE)
    posts.topics("Databases", "Frontend")
    posts.create(7, topics=("Databases",))
    posts.create(3, author="Grace Writer", topics=("Frontend",))
    posts.create(1, author="Grace Writer", title="A draft", published_at=None)
    posts.create(
        1, author="Grace Writer", title="Not yet", published_at=utcnow() + timedelta(days=2)
    )
    profile(
        app,
        "Grace Writer",
        bio="Writes about browsers.\nAnd about CSS.",
        url="https://grace.example/about/",
        avatar=picture_bytes("PNG", (600, 600)),
    )
    return posts


def test_author_page_shows_who_they_are_and_only_their_live_posts(client, writers):
    """Name, bio, avatar named in its alt text, their own link (rel="me"), and their live
    posts with the listing's counter; no featured post, picks or topic filter."""
    page = soup(client.get(GRACE))
    assert page.select_one("main h1").get_text() == "Grace Writer"
    assert page.select_one(".author-bio").get_text() == "Writes about browsers.\nAnd about CSS."
    avatar = page.select_one(".author-intro img.author-avatar")
    assert avatar["alt"] == "Avatar of Grace Writer"
    assert avatar["src"].startswith("/images/") and "480w" in avatar["srcset"]
    link = page.select_one(".author-intro .author-link a")
    assert link["href"] == "https://grace.example/about/"
    assert link["rel"] == ["me", "noopener"] and link.get_text() == "grace.example/about"
    assert card_titles(page) == ["Post number 8", "Post number 9", "Post number 10"]
    assert counter(page) == "Showing 3 of 3 posts"
    assert page.select_one("#all-posts-label").get_text() == "Posts by Grace Writer · 3"
    assert page.select_one(".read-more") is None
    assert not page.select(".featured, #picks, .topic-filter, .hero-title")
    assert page.title.get_text() == "Grace Writer · Fieldnotes"
    assert page.select_one('meta[name="description"]')["content"].startswith("Writes about")


def test_author_without_a_profile_shows_their_name_only(client, writers):
    """No bio, link or avatar: none of their places is left empty on the page."""
    page = soup(client.get("/authors/ada-example"))
    assert page.select_one("main h1").get_text() == "Ada Example"
    assert not page.select(".author-bio, .author-link, .author-avatar")


def test_author_pages_page_like_the_listing(client, writers):
    """Pages with the listing's counter, read more and link to the newer posts."""
    for url, count, first, shown, next_page in [
        ("/authors/ada-example", 3, 1, "Showing 1–3 of 7 posts", 2),
        ("/authors/ada-example?page=2", 3, 4, "Showing 4–6 of 7 posts", 3),
        ("/authors/ada-example?page=3", 1, 7, "Showing 7–7 of 7 posts", None),
    ]:
        page = soup(client.get(url))
        titles = card_titles(page)
        assert len(titles) == count and titles[0] == f"Post number {first}"
        assert counter(page) == shown
        more = page.select_one("#more .read-more")
        if next_page is None:
            assert more is None
        else:
            assert more["href"] == f"/authors/ada-example?page={next_page}#all-posts"
            assert more["data-hx-get"] == f"/authors/ada-example?page={next_page}"
            assert shown_text(more) == "read more"
            assert spoken_name(more) == "read more posts by Ada Example"
        newer = page.select_one(".newer a")
        assert (newer is None) == (first == 1)


def test_read_more_on_an_author_page_answers_with_the_next_cards_only(client, writers):
    """The htmx swap of read more: the cards, the counter's new end and the next control,
    out of band, as on the listing; the last page has no control left."""
    response = client.get("/authors/ada-example?page=2", headers=HTMX_MORE)
    body = response.get_data(as_text=True)
    assert "<html" not in body and 'id="all-posts"' not in body and "author-intro" not in body
    page = BeautifulSoup(body, "html.parser")
    assert page.title.get_text() == "Ada Example · Fieldnotes · page 2"
    assert [a.get_text() for a in page.select(".card-title a")] == [
        f"Post number {n}" for n in range(4, 7)
    ]
    assert page.select_one('#shown-last[data-hx-swap-oob="true"]').get_text() == "6"
    more = page.select_one('#more[data-hx-swap-oob="true"] .read-more')
    assert more["data-hx-get"] == "/authors/ada-example?page=3"
    assert spoken_name(more) == "read more posts by Ada Example"
    last = soup(client.get("/authors/ada-example?page=3", headers=HTMX_MORE))
    assert last.select_one('#more[data-hx-swap-oob="true"]').select(".read-more") == []
    assert "HX-Request" in response.headers["Vary"]


def test_an_all_posts_swap_on_an_author_page_sends_their_list_without_picks(client, writers):
    """The listing's other swap answers the same way here, with no picks to toggle."""
    page = soup(client.get(GRACE, headers=HTMX_TOPIC))
    assert page.select_one("section#all-posts") is not None
    assert page.select_one("#picks") is None and page.select_one("html") is None
    assert card_titles(page) == ["Post number 8", "Post number 9", "Post number 10"]


def test_author_page_is_whole_for_history_restores_and_untargeted_swaps(client, writers):
    """Like the listing: only a swap aimed at the list gets a fragment."""
    for headers in (
        {"HX-Request": "true"},
        {"HX-Request": "true", "HX-History-Restore-Request": "true"},
        {"HX-Request": "true", "HX-Target": "elsewhere"},
    ):
        page = soup(client.get("/authors/ada-example?page=2", headers=headers))
        assert page.select_one("html") is not None and page.select_one(".author-intro")


BAD_PAGES = [
    ("page=abc", 400),
    ("page=0", 400),
    ("page=-1", 400),
    ("page=1.5", 400),
    ("page=", 400),
    ("page=%EF%BC%92", 400),  # a full-width digit two
    ("page=99999999999999999999", 400),
    ("page=4", 404),
    ("page=999999999", 404),
]


def test_bad_author_page_numbers(client, writers):
    """Nonsense pages are 400, pages past the end 404, in the site's layout, never 500,
    for the page and for a read-more swap."""
    for query, status in BAD_PAGES:
        for headers in ({}, HTMX_MORE):
            response = client.get(f"/authors/ada-example?{query}", headers=headers)
            assert response.status_code == status, (query, headers)
            assert soup(response, status).select_one(".site-header .brand") is not None


HOSTILE_PATHS = [
    "/authors/nobody",
    "/authors/Grace-Writer",
    "/authors/grace-writer%00",
    "/authors/%00",
    "/authors/" + "g" * 200_000,
    "/authors/grace-writer%2F..%2Fada-example",
    "/authors/%F0%9F%98%80",
    "/authors/;select 1",
    "/authors/unpublished-person",
]


def test_unknown_or_unpublished_authors_are_404_without_a_name(app, client, writers):
    """An unknown author, or one with no live post (only a draft and a scheduled post),
    is the plain 404 page: their name appears nowhere. Their feeds are 404 too."""
    writers.create(1, author="Unpublished Person", published_at=None)
    writers.create(1, author="Unpublished Person", published_at=utcnow() + timedelta(hours=1))
    for path in HOSTILE_PATHS:
        for url in (path, f"{path}/feed.atom", f"{path}/feed.rss", f"{path}?page=2"):
            response = client.get(url, headers=HTMX_MORE if url.endswith("=2") else {})
            assert response.status_code == 404, url[:80]
            body = response.get_data(as_text=True)
            assert "Unpublished Person" not in body and "Grace Writer" not in body


UNSAFE_LINKS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "&#106;avascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "//evil.example/path",
    "/relative/path",
    "http://",
    "https:///no-host",
    "ftp://files.example/",
    "https://exa\x00mple.com/",
    "mailto:grace@example.com",
    "",
    "   ",
]


def test_only_absolute_http_links_are_shown(app, client, writers):
    """An author's own link is shown only when it is an http(s) address with a host."""
    for url in UNSAFE_LINKS:
        with app.app_context():
            assert own_link(Author(name="x", slug="x", url=url)) is None, url
    profile(app, "Grace Writer", url=UNSAFE_LINKS[0])
    page = soup(client.get(GRACE))
    assert page.select_one(".author-link") is None
    assert "sameAs" not in structured(page)["mainEntity"]
    assert "alert" not in str(page.select_one("main"))


def test_safe_links_are_kept_as_written_and_shortened_on_screen():
    """http and https links are kept whole; only the shown text is shortened."""
    long = "https://example.com/" + "a" * 200
    assert own_link(Author(name="x", slug="x", url=" HTTPS://Example.com/x ")) == (
        "HTTPS://Example.com/x"
    )
    assert own_link(Author(name="x", slug="x", url=long)) == long
    assert link_label(long).endswith("…") and len(link_label(long)) == 60
    assert link_label("http://example.com/") == "example.com"


def test_hostile_profile_text_stays_text(app, client, writers):
    """A bio or name with markup is shown as text, on the page and in its JSON-LD."""
    hostile = '<script>alert(1)</script><img src=x onerror=alert(2)>"'
    profile(app, "Grace Writer", bio=hostile + "\n" + "word " * 40_000)
    for url in (GRACE, "/posts/post-number-8"):
        response = client.get(url)
        page = soup(response)
        assert page.select_one(".author-bio").get_text().startswith(hostile)
        assert "<script>alert(1)" not in response.get_data(as_text=True)
        assert all(s.get("src") or s.get("type") for s in page.select("script"))


def test_avatar_of_a_deleted_image_is_cleared(app, client, writers):
    """Deleting the avatar's image leaves the author without one, never a broken page."""
    with app.app_context():
        db.session.execute(sa.delete(Image))
        db.session.commit()
    page = soup(client.get(GRACE))
    assert page.select_one(".author-avatar") is None


def test_bylines_link_to_the_author_page(client, writers):
    """Cards and the post page name the author with a link to their page."""
    home = soup(client.get("/"))
    assert {a["href"] for a in home.select("#post-list .card-author")} == {"/authors/ada-example"}
    post = soup(client.get("/posts/post-number-8"))
    byline = post.select_one(".post-meta a.post-author")
    assert byline["href"] == GRACE and byline["rel"] == ["author"]
    assert byline.get_text() == "Grace Writer"


def test_post_page_tells_about_the_author_when_they_have_a_bio(client, writers):
    """A short block after the post: avatar, name linking to their page, bio and link;
    left out for an author without a bio."""
    page = soup(client.get("/posts/post-number-8"))
    about = page.select_one("article .about-author")
    assert about.select_one("h2").get_text() == "About the author"
    assert about.select_one(".about-author-name a")["href"] == GRACE
    assert about.select_one(".author-bio").get_text().startswith("Writes about browsers.")
    assert about.select_one("img")["alt"] == "Avatar of Grace Writer"
    link = about.select_one(".author-link a")
    assert link["href"] == "https://grace.example/about/" and "me" not in link["rel"]
    assert soup(client.get("/posts/post-number-1")).select_one(".about-author") is None


def test_author_page_json_ld_is_a_profile_page(client, writers):
    """A ProfilePage whose main entity is the author as a Person, with their page, bio,
    avatar and link, and the posts the page shows, each crediting them with their page."""
    page = soup(client.get(GRACE))
    data = structured(page)
    assert data["@type"] == "ProfilePage" and data["url"] == f"{SITE}{GRACE}"
    person = data["mainEntity"]
    assert person["@type"] == "Person" and person["name"] == "Grace Writer"
    assert person["url"] == f"{SITE}{GRACE}"
    assert person["description"].startswith("Writes about browsers.")
    assert person["image"].startswith(f"{SITE}/images/")
    assert person["sameAs"] == ["https://grace.example/about/"]
    assert [post["headline"] for post in data["hasPart"]] == [
        "Post number 8",
        "Post number 9",
        "Post number 10",
    ]
    assert {post["author"]["url"] for post in data["hasPart"]} == {f"{SITE}{GRACE}"}
    assert page.select_one('link[rel="canonical"]')["href"] == f"{SITE}{GRACE}"
    page_2 = soup(client.get("/authors/ada-example?page=2"))
    assert structured(page_2)["url"] == f"{SITE}/authors/ada-example?page=2"


def test_topic_page_json_ld_is_a_collection_page(client, writers):
    """A topic page describes itself as a CollectionPage of the blog, with its posts."""
    data = structured(soup(client.get("/topics/frontend")))
    assert data["@type"] == "CollectionPage"
    assert data["url"] == f"{SITE}/topics/frontend"
    assert data["about"] == {"@type": "Thing", "name": "Frontend"}
    assert data["isPartOf"]["@type"] == "Blog" and data["isPartOf"]["url"] == f"{SITE}/"
    assert [post["headline"] for post in data["hasPart"]][:1] == ["Post number 8"]


def test_author_page_links_its_feeds(client, writers):
    """The head names the blog's feeds and the author's; the footer links the author's."""
    page = soup(client.get(GRACE))
    feeds = [(link["type"], link["href"]) for link in page.select('link[rel="alternate"]')]
    assert feeds[-2:] == [
        ("application/atom+xml", f"{SITE}{GRACE}/feed.atom"),
        ("application/rss+xml", f"{SITE}{GRACE}/feed.rss"),
    ]
    footer = page.select_one(".site-footer")
    assert footer.select_one(f'a[href="{GRACE}/feed.atom"]') is not None


@pytest.mark.parametrize("kind", ["atom", "rss"])
def test_author_feed_holds_only_their_live_posts(client, writers, kind):
    """The author's feed: their live posts, newest first, named for them and linking back
    to their page."""
    response = client.get(f"{GRACE}/feed.{kind}")
    assert response.status_code == 200
    assert response.mimetype == f"application/{kind}+xml"
    feed = feedparser.parse(response.get_data())
    assert not feed.bozo, feed.bozo_exception
    assert feed.feed.title == "Grace Writer · Fieldnotes"
    assert feed.feed.link == f"{SITE}{GRACE}"
    assert [entry.title for entry in feed.entries] == [
        "Post number 8",
        "Post number 9",
        "Post number 10",
    ]
    assert {entry.author for entry in feed.entries} == {"Grace Writer"}


def test_footer_lists_the_topics_with_live_posts(client, writers):
    """Every reader page's footer links the topics that have live posts, in filter order;
    a topic whose only post is a draft is left out."""
    writers.topics("Hidden")
    writers.create(1, topics=("Hidden",), published_at=None)
    for url in ("/", "/topics/frontend", GRACE, "/posts/post-number-8", "/search?q=post"):
        footer = soup(client.get(url)).select_one(".site-footer .footer-topics")
        assert [a.get_text() for a in footer.select("a")] == ["Databases", "Frontend"], url
        assert footer.select_one("a")["href"] == "/topics/databases"


def test_author_and_post_pages_cost_no_statement_for_the_footer(app, client, writers):
    """The author page renders in the listing's few statements, a kept one costs one; the
    post page reads the footer's topics in the statement that reads the site's state."""
    for url in (GRACE, "/authors/ada-example?page=3"):
        pagecache.clear()
        with count_queries(app) as statements:
            assert client.get(url).status_code == 200
        assert len(statements) <= 5, statements  # with the page cache's own state read
        tracked = url + ("&" if "?" in url else "?") + "utm_source=x"
        with count_queries(app) as statements:
            assert client.get(tracked).status_code == 200
        assert len(statements) == 1
    pagecache.clear()
    with count_queries(app) as statements:
        assert client.get("/posts/post-number-8").status_code == 200
    # The page cache's state read, the topic filter with the state, the post with its
    # author and avatar, its topics, related posts, and the newer and older posts.
    assert len(statements) == 7, statements
