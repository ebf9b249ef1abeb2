"""Search-engine metadata: canonical URLs, previews, JSON-LD, sitemap and robots.txt."""

from __future__ import annotations

import json
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from xml.etree import ElementTree as ET

import pytest
from bs4 import BeautifulSoup

from blog import create_app
from blog.models import utcnow
from blog.reading.seo import json_ld
from tests.markup.test_xss import ENTRIES

SITE = "http://127.0.0.1:5000"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
PAYLOADS = [pytest.param(payload, id=f"line{number}") for number, _, payload in ENTRIES]


def soup(response) -> BeautifulSoup:
    """Parse a response body as HTML."""
    assert response.status_code == 200
    return BeautifulSoup(response.get_data(as_text=True), "lxml")


def meta(page: BeautifulSoup, key: str) -> str | None:
    """The content of a <meta property=...> or <meta name=...> tag."""
    tag = page.find("meta", attrs={"property": key}) or page.find("meta", attrs={"name": key})
    return tag["content"] if tag else None


def canonical(page: BeautifulSoup) -> str:
    """The page's canonical URL."""
    return page.select_one('link[rel="canonical"]')["href"]


def structured(page: BeautifulSoup) -> list[dict]:
    """Every JSON-LD block of the page, parsed."""
    return [json.loads(s.string) for s in page.select('script[type="application/ld+json"]')]


@contextmanager
def settings(app, **values):
    """Change settings for the duration of a block."""
    saved = {key: app.config[key] for key in values}
    app.config.update(values)
    try:
        yield
    finally:
        app.config.update(saved)


# The tests marked one_store in this module run on SQLite only: they check the addresses and
# tags the templates write around text the store hands back as written (tests/test_fuzz.py
# checks that on both stores), or the settings read at start. Dates, the posts a page lists and
# their order run on both stores.
@pytest.mark.one_store
def test_post_page_unfurls_with_title_summary_and_picture(client, posts):
    """OpenGraph and Twitter tags give the title, summary and picture with its alt text."""
    posts.topics("Databases", "Frontend")
    [slug] = posts.create(
        1, title="Vacuum & friends", summary="Why bloat happens.", topics=("Frontend", "Databases")
    )
    page = soup(client.get(f"/posts/{slug}"))
    url = f"{SITE}/posts/{slug}"
    art = page.select_one(".post-art")
    assert canonical(page) == url
    assert meta(page, "og:type") == "article"
    assert meta(page, "og:url") == url
    assert meta(page, "og:title") == meta(page, "twitter:title") == "Vacuum & friends"
    assert meta(page, "og:description") == meta(page, "twitter:description")
    assert meta(page, "og:description") == "Why bloat happens."
    preview = art["src"].replace(".svg?", ".png?")  # tests/reading/test_previews.py
    assert meta(page, "og:image") == meta(page, "twitter:image") == SITE + preview
    assert meta(page, "og:image:alt") == meta(page, "twitter:image:alt") == art["alt"]
    assert meta(page, "og:image:width") == "1200"
    assert meta(page, "twitter:card") == "summary_large_image"
    assert meta(page, "article:section") == "Frontend"
    tags = [tag["content"] for tag in page.find_all("meta", attrs={"property": "article:tag"})]
    assert tags == ["Frontend", "Databases"]


def test_post_page_describes_a_blog_posting(client, posts):
    """JSON-LD on a post: headline, dates, author, picture and address."""
    published = datetime(2025, 3, 4, 8, 0)
    [slug] = posts.create(
        1,
        title="Queues",
        summary="Short.",
        published_at=published,
        updated_at=published + timedelta(days=5),
    )
    page = soup(client.get(f"/posts/{slug}"))
    [data] = structured(page)
    assert data["@type"] == "BlogPosting"
    assert data["headline"] == "Queues"
    assert data["description"] == "Short."
    assert data["url"] == data["mainEntityOfPage"] == f"{SITE}/posts/{slug}"
    assert data["datePublished"] == published.replace(tzinfo=UTC).isoformat()
    modified = (published + timedelta(days=5)).replace(tzinfo=UTC).isoformat()
    assert data["dateModified"] == modified
    assert data["author"] == [
        {"@type": "Person", "name": "Ada Example", "url": f"{SITE}/authors/ada-example"}
    ]
    assert data["image"]["url"] == meta(page, "og:image")
    assert data["image"]["caption"] == meta(page, "og:image:alt")


def test_home_page_describes_the_blog(client, posts):
    """The home page carries Blog JSON-LD listing the posts it shows."""
    posts.create(3)
    page = soup(client.get("/"))
    [data] = structured(page)
    assert data["@type"] == "Blog"
    assert data["name"] == "Fieldnotes" and data["url"] == f"{SITE}/"
    assert [post["headline"] for post in data["blogPost"]] == [
        "Post number 1",
        "Post number 2",
        "Post number 3",
    ]
    assert meta(page, "og:type") == "website"
    assert meta(page, "og:image").startswith(f"{SITE}/")
    assert meta(page, "og:image:alt")


@pytest.mark.one_store
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("/", "/"),
        ("/?page=1", "/"),
        ("/?page=2", "/?page=2"),
        ("/?utm_source=mail", "/"),
        ("/topics/frontend", "/topics/frontend"),
        ("/topics/frontend?page=1", "/topics/frontend"),
        ("/topics/frontend?page=2&utm_source=mail", "/topics/frontend?page=2"),
    ],
)
def test_listing_canonical_urls(client, posts, url, expected):
    """Page 1 is canonical at the bare URL; later pages are canonical to themselves."""
    posts.topics("Frontend")
    posts.create(13, topics=("Frontend",))
    page = soup(client.get(url))
    assert canonical(page) == SITE + expected
    assert meta(page, "og:url") == SITE + expected


@pytest.mark.one_store
def test_feeds_are_discoverable(client, posts):
    """Every page links the blog's feeds; a topic page also links the topic's."""
    posts.topics("Frontend")
    [slug] = posts.create(1, topics=("Frontend",))

    def feeds(url: str) -> list[tuple[str, str]]:
        links = soup(client.get(url)).select('link[rel="alternate"]')
        return [(link["type"], link["href"]) for link in links]

    blog = [
        ("application/atom+xml", f"{SITE}/feed.atom"),
        ("application/rss+xml", f"{SITE}/feed.rss"),
    ]
    assert feeds("/") == blog
    assert feeds(f"/posts/{slug}") == blog
    assert feeds("/topics/frontend") == [
        *blog,
        ("application/atom+xml", f"{SITE}/topics/frontend/feed.atom"),
        ("application/rss+xml", f"{SITE}/topics/frontend/feed.rss"),
    ]
    for _, href in feeds("/topics/frontend"):
        assert client.get(href.removeprefix(SITE)).status_code == 200


@pytest.mark.one_store
@pytest.mark.parametrize("url", ["/", "/topics/frontend", "POST", "/sitemap.xml", "/robots.txt"])
def test_absolute_urls_never_come_from_the_host_header(client, posts, url):
    """A forged Host header reaches no canonical link, preview, feed link or sitemap."""
    posts.topics("Frontend")
    [slug] = posts.create(1, topics=("Frontend",))
    url = f"/posts/{slug}" if url == "POST" else url
    response = client.get(url, headers={"Host": "evil.example"})
    assert response.status_code == 200
    body = response.get_data(as_text=True)
    assert "evil.example" not in body
    assert SITE in body


@pytest.mark.one_store
def test_site_url_setting_drives_absolute_urls(app, client, posts):
    """Changing SITE_URL moves every absolute URL, path prefix included."""
    [slug] = posts.create(1)
    with settings(app, SITE_URL="https://blog.example.org/notes/"):
        page = soup(client.get(f"/posts/{slug}"))
        robots = client.get("/robots.txt").get_data(as_text=True)
    assert canonical(page) == f"https://blog.example.org/notes/posts/{slug}"
    assert "Sitemap: https://blog.example.org/notes/sitemap.xml" in robots
    assert "Disallow: /notes/editor" in robots


@pytest.mark.one_store
@pytest.mark.parametrize("value", ["", "blog.example.org", "ftp://blog.example.org", "https://"])
def test_a_bad_site_url_refuses_to_start(database_url, value):
    """SITE_URL must be an http(s) address with a host."""
    config = {"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url, "SITE_URL": value}
    with pytest.raises(RuntimeError, match="SITE_URL"):
        create_app(config)


def test_sitemap_lists_home_topics_authors_and_live_posts(client, posts):
    """Home page, every topic and author with live posts and every live post, each with
    lastmod."""
    posts.topics("Databases", "Frontend", "Empty")
    published = datetime(2025, 3, 4, 8, 0)
    [old] = posts.create(1, topics=("Databases",), published_at=published)
    [new] = posts.create(
        1,
        topics=("Frontend", "Databases"),
        published_at=published + timedelta(days=1),
        updated_at=published + timedelta(days=3),
    )
    posts.create(1, title="A draft", published_at=None, author="Drafty Writer")
    posts.create(1, title="Later", published_at=utcnow() + timedelta(days=2), author="Later Lu")
    response = client.get("/sitemap.xml")
    assert response.mimetype == "application/xml"
    root = ET.fromstring(response.get_data())
    entries = {
        url.findtext(f"{SITEMAP}loc"): url.findtext(f"{SITEMAP}lastmod")
        for url in root.findall(f"{SITEMAP}url")
    }

    def stamp(days: int) -> str:
        return (published + timedelta(days=days)).replace(tzinfo=UTC).isoformat()

    assert entries == {
        f"{SITE}/": stamp(3),
        f"{SITE}/topics/databases": stamp(3),
        f"{SITE}/topics/frontend": stamp(3),
        f"{SITE}/authors/ada-example": stamp(3),
        f"{SITE}/posts/{new}": stamp(3),
        f"{SITE}/posts/{old}": stamp(0),
    }


def test_robots_points_at_the_sitemap(client):
    """robots.txt names the sitemap's absolute URL and keeps crawlers off authoring pages,
    draft links and account links."""
    response = client.get("/robots.txt")
    assert response.mimetype == "text/plain"
    lines = response.get_data(as_text=True).splitlines()
    assert lines[0] == "User-agent: *"
    assert "Disallow: /editor" in lines and "Disallow: /login" in lines
    assert "Disallow: /drafts/" in lines and "Disallow: /account/" in lines
    assert f"Sitemap: {SITE}/sitemap.xml" in lines


@pytest.mark.parametrize("payload", PAYLOADS)
def test_json_ld_keeps_every_payload_inside_the_script(payload):
    """No title can close the script element, open a comment, or change the data."""
    data = {"@type": "BlogPosting", "headline": payload, "author": {"name": payload}}
    encoded = str(json_ld(data))
    assert "<" not in encoded and ">" not in encoded and "&" not in encoded
    document = f'<head><script type="application/ld+json">{encoded}</script></head><p>after</p>'
    page = BeautifulSoup(document, "lxml")
    [script] = page.find_all("script")
    assert json.loads(script.string) == data
    assert page.find("p").get_text() == "after"


@pytest.mark.parametrize(
    "text", ["Plain", "Ünïcödé · 漢字 🚀", "lone \ud800 surrogate", "\x00\x1f"]
)
def test_json_ld_is_compact_json_of_the_data_whatever_the_text(text):
    """The fast encoder and the standard one agree; text the fast one refuses still works."""
    data = {"@type": "BlogPosting", "headline": text, "keywords": [text, 3, None, True]}
    encoded = str(json_ld(data))
    assert json.loads(encoded) == data
    standard = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    assert encoded == standard.replace("&", "\\u0026").replace("'", "\\u0027")


@pytest.mark.one_store
def test_hostile_title_stays_inside_the_post_pages_json_ld(client, posts):
    """End to end: a title built to escape the script element is only data."""
    title = '</script><script>alert(1)</script><!-- "quoted" & more'
    [slug] = posts.create(1, title=title, summary="<b>bold</b> claim")
    page = soup(client.get(f"/posts/{slug}"))
    scripts = page.find_all("script")
    assert all(s.get("src") or s.get("type") == "application/ld+json" for s in scripts)
    [data] = structured(page)
    assert data["headline"] == title and data["description"] == "<b>bold</b> claim"
    assert meta(page, "og:title") == title


@pytest.mark.one_store
def test_post_urls_match_url_for(app):
    """The many-posts URL builder gives exactly what url_for gives, quoting included."""
    from blog.reading.seo import external_url, post_urls

    with app.test_request_context("/"):
        post_url = post_urls()
        for slug in ("plain-slug", "with space", "ünïcode", "a/b?c#d", "0-slug-0"):
            assert post_url(slug) == external_url("public.post", slug=slug)
