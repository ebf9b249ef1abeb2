"""Author pages: the profile, their posts paged like the listing, feeds, bylines, JSON-LD."""

from __future__ import annotations

import json
from datetime import timedelta

import feedparser
import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup
from lxml import etree

from blog.authoring import store
from blog.extensions import db
from blog.media.images import store_image
from blog.models import Author, Image, Post, utcnow
from blog.reading.authors import link_label, own_link
from blog.web import pagecache
from tests.conftest import count_queries
from tests.media.test_images import picture_bytes
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


# The tests marked one_store in this module run on SQLite only: they check the links and
# JSON-LD the templates write for authors already read. Which posts and authors a page lists,
# and in what order, run on both stores.
@pytest.mark.one_store
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


@pytest.mark.one_store
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


@pytest.mark.one_store
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
    assert [author["url"] for post in data["hasPart"] for author in post["author"]] == [
        f"{SITE}{GRACE}"
    ] * 3
    assert page.select_one('link[rel="canonical"]')["href"] == f"{SITE}{GRACE}"
    page_2 = soup(client.get("/authors/ada-example?page=2"))
    assert structured(page_2)["url"] == f"{SITE}/authors/ada-example?page=2"


@pytest.mark.one_store
def test_topic_page_json_ld_is_a_collection_page(client, writers):
    """A topic page describes itself as a CollectionPage of the blog, with its posts."""
    data = structured(soup(client.get("/topics/frontend")))
    assert data["@type"] == "CollectionPage"
    assert data["url"] == f"{SITE}/topics/frontend"
    assert data["about"] == {"@type": "Thing", "name": "Frontend"}
    assert data["isPartOf"]["@type"] == "Blog" and data["isPartOf"]["url"] == f"{SITE}/"
    assert [post["headline"] for post in data["hasPart"]][:1] == ["Post number 8"]


@pytest.mark.one_store
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


# Co-authors ---------------------------------------------------------------------------------


def credit(app, slug: str, *names: str) -> None:
    """Credit the post to these authors, in order, as the store does."""
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        post.set_authors(store.credited(names))
        db.session.commit()


def bylines(element) -> list[tuple[str, str]]:
    """The (name, href) of each author link in an element, in order."""
    return [(a.get_text(), a["href"]) for a in element.select(".card-author, .post-author")]


@pytest.fixture
def team(app, writers):
    """The writers' posts, with Grace credited after Ada on Ada's two newest (posts 1 and 2)
    and first on post 8, before Ada and Bo."""
    credit(app, "post-number-1", "Ada Example", "Grace Writer")
    credit(app, "post-number-2", "Ada Example", "Grace Writer")
    credit(app, "post-number-8", "Grace Writer", "Ada Example", "Bo Reviewer")
    return writers


def test_cards_and_post_pages_name_every_author_in_order(client, team):
    """ "A and B", "A, B and C": each name a link to their page, in the credited order."""
    home = soup(client.get("/"))
    [first] = [card for card in home.select("#post-list .card") if "number 1" in card.text]
    assert bylines(first) == [("Ada Example", "/authors/ada-example"), ("Grace Writer", GRACE)]
    assert " ".join(first.select_one(".card-meta").get_text().split()).startswith(
        "Ada Example and Grace Writer · "
    )
    post = soup(client.get("/posts/post-number-8"))
    meta = post.select_one(".post-meta")
    assert bylines(meta) == [
        ("Grace Writer", GRACE),
        ("Ada Example", "/authors/ada-example"),
        ("Bo Reviewer", "/authors/bo-reviewer"),
    ]
    assert {tuple(a["rel"]) for a in meta.select("a.post-author")} == {("author",)}
    assert " ".join(meta.get_text().split()).startswith(
        "By Grace Writer, Ada Example and Bo Reviewer · "
    )
    one = soup(client.get("/posts/post-number-3")).select_one(".post-meta")
    assert bylines(one) == [("Ada Example", "/authors/ada-example")]


def test_author_pages_list_the_posts_they_co_wrote(client, team):
    """An author's page, its counter and its pages hold what they wrote first and what
    they co-wrote, newest first; someone only ever credited second has a page too."""
    assert card_titles(soup(client.get(GRACE))) == [
        "Post number 1",
        "Post number 2",
        "Post number 8",
    ]
    page_2 = soup(client.get(f"{GRACE}?page=2"))
    assert card_titles(page_2) == ["Post number 9", "Post number 10"]
    assert counter(page_2) == "Showing 4–5 of 5 posts"
    assert soup(client.get(GRACE)).select_one("#all-posts-label").get_text().endswith(" · 5")
    ada = [card_titles(soup(client.get(f"/authors/ada-example?page={n}"))) for n in (1, 2, 3)]
    assert ada == [
        ["Post number 1", "Post number 2", "Post number 3"],
        ["Post number 4", "Post number 5", "Post number 6"],
        ["Post number 7", "Post number 8"],
    ]
    bo = soup(client.get("/authors/bo-reviewer"))
    assert card_titles(bo) == ["Post number 8"] and counter(bo) == "Showing 1 of 1 post"
    assert client.get(f"{GRACE}?page=3").status_code == 404
    more = soup(client.get(f"{GRACE}?page=2", headers=HTMX_MORE))
    assert [a.get_text() for a in more.select(".card-title a")] == [
        "Post number 9",
        "Post number 10",
    ]


ATOM = "{http://www.w3.org/2005/Atom}"
DC = "{http://purl.org/dc/elements/1.1/}"


@pytest.mark.parametrize("kind", ["atom", "rss"])
def test_author_feeds_hold_co_written_posts_and_name_every_author(client, team, kind):
    """A co-author's feed holds the posts they co-wrote; each entry names every author, in
    order (Atom's authors, RSS's Dublin Core creators)."""
    body = client.get(f"{GRACE}/feed.{kind}").get_data()
    feed = feedparser.parse(body)
    assert not feed.bozo, feed.bozo_exception
    assert [entry.title for entry in feed.entries] == [
        "Post number 1",
        "Post number 2",
        "Post number 8",
        "Post number 9",
        "Post number 10",
    ]
    root = etree.fromstring(body)
    if kind == "atom":
        [eighth] = [e for e in root.iter(f"{ATOM}entry") if "8" in e.findtext(f"{ATOM}title")]
        names = [author.findtext(f"{ATOM}name") for author in eighth.iter(f"{ATOM}author")]
    else:
        [eighth] = [item for item in root.iter("item") if "8" in item.findtext("title")]
        names = [creator.text for creator in eighth.iter(f"{DC}creator")]
    assert names == ["Grace Writer", "Ada Example", "Bo Reviewer"]
    bo = feedparser.parse(client.get(f"/authors/bo-reviewer/feed.{kind}").get_data())
    assert [entry.title for entry in bo.entries] == ["Post number 8"]


def test_json_ld_lists_every_author(client, team):
    """The post's BlogPosting and the listing's postings credit every author, in order."""
    data = structured(soup(client.get("/posts/post-number-8")))
    assert data["author"] == [
        {"@type": "Person", "name": name, "url": f"{SITE}/authors/{slug}"}
        for name, slug in [
            ("Grace Writer", "grace-writer"),
            ("Ada Example", "ada-example"),
            ("Bo Reviewer", "bo-reviewer"),
        ]
    ]
    listed = structured(soup(client.get(GRACE)))["hasPart"]
    assert [[person["name"] for person in post["author"]] for post in listed] == [
        ["Ada Example", "Grace Writer"],
        ["Ada Example", "Grace Writer"],
        ["Grace Writer", "Ada Example", "Bo Reviewer"],
    ]


def test_post_page_tells_about_each_author_with_a_bio(app, client, team):
    """One "About the author" block per author with a bio, in the byline's order."""
    profile(app, "Bo Reviewer", bio="Reads everything twice.")
    about = soup(client.get("/posts/post-number-8")).select("article .about-author")
    assert [block.select_one(".about-author-name a").get_text() for block in about] == [
        "Grace Writer",
        "Bo Reviewer",
    ]
    labels = [block["aria-labelledby"] for block in about]
    assert len(set(labels)) == 2
    page = soup(client.get("/posts/post-number-8"))
    assert [page.select_one(f"#{label}").name for label in labels] == ["h2", "h2"]


def test_sitemap_lists_authors_credited_only_as_co_authors(client, team):
    """Bo wrote nothing first; his page is in the sitemap all the same."""
    sitemap = client.get("/sitemap.xml").get_data(as_text=True)
    assert f"{SITE}/authors/bo-reviewer</loc>" in sitemap


def test_search_results_name_every_author(client, team):
    """Search results are cards: they name every author too."""
    cards = [
        card
        for number in (1, 2, 3, 4)  # ten results, three a page
        for card in soup(client.get(f"/search?q=number&page={number}")).select(".card")
    ]
    [eighth] = [card for card in cards if "Post number 8" in card.text]
    assert [name for name, _ in bylines(eighth)] == ["Grace Writer", "Ada Example", "Bo Reviewer"]


def test_names_with_commas_and_and_are_one_author_each(app, client, writers):
    """A name may hold commas and "and": it stays one link, one page, one Person."""
    credit(app, "post-number-8", "Smith, Jones and Co", "Ada Example")
    card = soup(client.get("/authors/smith-jones-and-co"))
    assert card_titles(card) == ["Post number 8"]
    meta = soup(client.get("/posts/post-number-8")).select_one(".post-meta")
    assert bylines(meta) == [
        ("Smith, Jones and Co", "/authors/smith-jones-and-co"),
        ("Ada Example", "/authors/ada-example"),
    ]
    data = structured(soup(client.get("/posts/post-number-8")))
    assert [person["name"] for person in data["author"]] == ["Smith, Jones and Co", "Ada Example"]


def test_fifty_authors_cost_the_listing_no_statement_more(app, client, writers):
    """Every author of a page's cards comes in the cards' own statement: a post with fifty
    authors shows fifty links for the listing's usual count of statements."""
    app.config["PAGE_CACHE"] = False
    try:
        urls = ("/", "/authors/ada-example", "/authors/author-49", "/topics/databases")
        before = {}
        for url in urls[:2] + urls[3:]:
            with count_queries(app) as statements:
                assert client.get(url).status_code == 200
            before[url] = len(statements)
        names = ["Ada Example"] + [f"Author {n}" for n in range(1, 50)]
        credit(app, "post-number-1", *names)
        for url in urls:
            with count_queries(app) as statements:
                page = soup(client.get(url))
            assert len(statements) == before.get(url, before["/authors/ada-example"]), url
            [card] = [
                c for c in page.select(".card") if "Post number 1" in c.select_one("h3, h2").text
            ]
            assert [name for name, _ in bylines(card)] == names, url
    finally:
        app.config["PAGE_CACHE"] = True
    text = " ".join(card.select_one(".card-meta").get_text().split())
    assert (
        text.startswith("Ada Example, Author 1, Author 2, ") and "Author 48 and Author 49 ·" in text
    )
