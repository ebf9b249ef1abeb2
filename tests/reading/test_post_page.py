"""The post page: what it shows, what it refuses to show, and who may see it."""

from __future__ import annotations

from datetime import timedelta

from bs4 import BeautifulSoup

from blog.models import utcnow


def test_post_page_shows_the_post(client, posts):
    """Title, topics linked to their listing, author, dates, picture and body."""
    posts.topics("Databases", "Frontend")
    published = utcnow().replace(year=2025, month=3, day=4, hour=8, microsecond=0)
    [slug] = posts.create(
        1,
        title="Vacuum & friends",
        topics=("Frontend", "Databases"),
        body="Intro.\n\n## Why\n\nBecause **bloat**.",
        published_at=published,
        updated_at=published.replace(day=9),
    )
    response = client.get(f"/posts/{slug}")
    assert response.status_code == 200
    page = BeautifulSoup(response.get_data(as_text=True), "lxml")
    assert page.select_one("h1.post-title").get_text() == "Vacuum & friends"
    assert [(a.get_text(), a["href"]) for a in page.select(".post-topics a")] == [
        ("Frontend", "/topics/frontend"),
        ("Databases", "/topics/databases"),
    ]
    meta = " ".join(page.select_one(".post-meta").get_text().split())
    assert "By Ada Example" in meta and "Published Mar 4, 2025" in meta
    assert "Updated Mar 9, 2025" in meta
    assert page.select_one(".post-art")["alt"]
    prose = page.select_one(".prose")
    assert prose.has_attr("data-hx-disable")
    assert prose.select_one("strong").get_text() == "bloat"
    assert page.title.get_text() == "Vacuum & friends · Fieldnotes"


def test_post_body_is_sanitized(client, posts):
    """Raw script, event handlers and javascript: links never reach the page."""
    body = (
        "<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n"
        '[click](javascript:alert(3)) and <a href="javascript:alert(4)">x</a>'
    )
    [slug] = posts.create(1, body=body)
    page = BeautifulSoup(client.get(f"/posts/{slug}").get_data(as_text=True), "lxml")
    prose = page.select_one(".prose")
    assert prose.select("script") == [] and prose.select("img[onerror]") == []
    assert all(not a.get("href", "").lower().startswith("javascript") for a in prose.select("a"))
    assert all(not attr.startswith("on") for tag in prose.find_all(True) for attr in tag.attrs)


def test_post_title_is_escaped(client, posts):
    """A title is text: markup in it is shown, not run."""
    [slug] = posts.create(1, title="<script>alert(1)</script> title")
    body = client.get(f"/posts/{slug}").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt; title" in body


def test_pages_carry_a_strict_content_security_policy(client, posts):
    """No inline script may run on a page that shows user content."""
    [slug] = posts.create(1)
    policy = client.get(f"/posts/{slug}").headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "object-src 'none'" in policy and "frame-ancestors 'none'" in policy


def test_long_posts_show_a_table_of_contents(client, posts):
    """Posts with three or more sections list them, linked to their headings."""
    body = "Intro.\n\n## Setup\n\nx\n\n## Results\n\ny\n\n## What next\n\nz"
    [long_slug] = posts.create(1, body=body)
    [short_slug] = posts.create(1, body="Intro.\n\n## Only\n\nx")
    page = BeautifulSoup(client.get(f"/posts/{long_slug}").get_data(as_text=True), "lxml")
    links = page.select("nav.toc a")
    assert [a.get_text() for a in links] == ["Setup", "Results", "What next"]
    for link in links:
        assert page.select_one(".prose").find(id=link["href"][1:]) is not None
    short = BeautifulSoup(client.get(f"/posts/{short_slug}").get_data(as_text=True), "lxml")
    assert short.select_one("nav.toc") is None


def test_control_characters_in_a_post_address_are_404(client, posts):
    """A slug with a NUL or other control character is simply not found, on either database."""
    posts.create(1)
    for url in ("/posts/%00", "/posts/a%00b", "/posts/%1b%5b"):
        assert client.get(url).status_code == 404


def _page(client, slug: str) -> BeautifulSoup:
    return BeautifulSoup(client.get(f"/posts/{slug}").get_data(as_text=True), "lxml")


def test_related_posts_share_a_topic_newest_first_and_only_live_ones(client, posts):
    """Up to three live posts filed under one of the post's topics, newest first; never the
    post itself, a post of another topic, a draft or a post still scheduled."""
    posts.topics("Databases", "Frontend", "Security")
    now = utcnow().replace(microsecond=0)
    [post] = posts.create(1, topics=("Databases", "Frontend"), title="The post")
    shared = posts.create(4, topics=("Frontend",))  # an hour older each: the first is newest
    posts.create(2, topics=("Security",))
    posts.create(1, topics=("Frontend",), title="A draft", published_at=None)
    posts.create(1, topics=("Databases",), title="Later", published_at=now + timedelta(days=2))
    related = _page(client, post).select(".related .card-title a")
    assert [a["href"] for a in related] == [f"/posts/{slug}" for slug in shared[:3]]


def test_newer_and_older_posts_follow_the_listing_order(client, posts):
    """Each post links to the live posts just newer and just older; the ends link one way."""
    newest, middle, oldest = posts.create(3, topics=("Databases",))
    posts.create(1, title="Hidden", published_at=utcnow() + timedelta(days=1))

    def links(slug):
        page = _page(client, slug)
        return [
            (li["class"][0], li.select_one("a")["href"])
            for li in page.select(".post-neighbours li")
        ]

    assert links(middle) == [("newer-post", f"/posts/{newest}"), ("older-post", f"/posts/{oldest}")]
    assert links(newest) == [("older-post", f"/posts/{middle}")]
    assert links(oldest) == [("newer-post", f"/posts/{middle}")]


def test_posts_published_at_the_same_moment_still_link_both_ways(client, posts):
    """Equal publish times are ordered by id, as the listing orders them: no post is skipped."""
    at = utcnow().replace(microsecond=0) - timedelta(days=3)
    first, second, third = (posts.create(1, published_at=at)[0] for _ in range(3))
    newer = _page(client, second).select_one(".newer-post a")["href"]
    older = _page(client, second).select_one(".older-post a")["href"]
    assert (newer, older) == (f"/posts/{third}", f"/posts/{first}")
