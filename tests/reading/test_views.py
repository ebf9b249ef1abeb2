"""The public listing: counters, pages, topic filter, fragments and bad input."""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest
from bs4 import BeautifulSoup

from blog.models import utcnow
from blog.web import pagecache
from tests.conftest import count_queries


def soup(response) -> BeautifulSoup:
    """Parse a response body as HTML."""
    return BeautifulSoup(response.get_data(as_text=True), "lxml")


def card_titles(page: BeautifulSoup, list_id: str = "post-list") -> list[str]:
    """Titles of the cards in a list, in order."""
    return [a.get_text(strip=True) for a in page.select(f"#{list_id} .card-title a")]


def counter(page: BeautifulSoup) -> str:
    """The counter's text, whitespace normalised."""
    return " ".join(page.select_one("#counter").get_text().split())


def shown_text(element) -> str:
    """An element's text as the eye sees it: without its visually hidden words."""
    shown = copy.copy(element)
    for hidden in shown.select(".visually-hidden"):
        hidden.decompose()
    return " ".join(shown.get_text().split())


def spoken_name(link) -> str:
    """A link's accessible name when it has no ARIA label: all its text, hidden words too."""
    assert not link.has_attr("aria-label") and not link.has_attr("aria-labelledby")
    return " ".join(link.get_text().split())


HTMX_TOPIC = {"HX-Request": "true", "HX-Target": "all-posts"}
HTMX_MORE = {"HX-Request": "true", "HX-Target": "post-list"}


def test_short_listing_shows_everything(client, posts):
    """Nine posts fit on one page: the counter says so and there is no read more."""
    posts.create(9)
    page = soup(client.get("/"))
    assert counter(page) == "Showing 9 of 9 posts"
    assert len(card_titles(page)) == 9
    assert page.select_one(".read-more") is None


@pytest.mark.parametrize(
    ("url", "newer"),
    [
        ("/", None),
        ("/?page=2", "/#all-posts"),
        ("/?page=6", "/?page=5#all-posts"),
        ("/topics/databases?page=2", "/topics/databases#all-posts"),
    ],
)
def test_a_page_opened_directly_links_to_the_newer_posts_above_the_list(client, posts, url, newer):
    """A reload or a shared link at ?page=N shows that page's cards and a way back to the
    newer ones, above the list; page 1 and read-more fragments have none."""
    posts.topics("Databases")
    posts.create(80, topics=("Databases",))
    page = soup(client.get(url))
    link = page.select_one("#all-posts .newer a")
    if newer is None:
        assert link is None
    else:
        assert link["href"] == newer and link.find_next("ol")["id"] == "post-list"
    if url != "/":
        assert soup(client.get(url, headers=HTMX_MORE)).select_one(".newer") is None


@pytest.mark.parametrize(
    ("number", "counter_text", "first", "cards", "next_page"),
    [
        (1, "Showing 1–12 of 99 posts", 1, 12, 2),
        (6, "Showing 61–72 of 99 posts", 61, 12, 7),
        (9, "Showing 97–99 of 99 posts", 97, 3, None),
    ],
)
def test_pages_of_a_long_listing(client, posts, number, counter_text, first, cards, next_page):
    """Opening a page directly shows its cards, newest first, with the exact counter."""
    posts.create(99)
    url = "/" if number == 1 else f"/?page={number}"
    page = soup(client.get(url))
    assert counter(page) == counter_text
    titles = card_titles(page)
    assert titles == [f"Post number {n}" for n in range(first, first + cards)]
    more = page.select_one(".read-more")
    if next_page is None:
        assert more is None
    else:
        assert more["href"] == f"/?page={next_page}#all-posts"  # no JavaScript: to the list
        assert more["data-hx-get"] == f"/?page={next_page}"
        assert shown_text(more) == "read more"


def test_all_posts_heading_counts_published_posts(client, posts):
    """The section heading counts every post a reader can see."""
    posts.create(14)
    posts.create(2, published_at=None)  # drafts
    heading = soup(client.get("/")).select_one("#all-posts-label").get_text(" ", strip=True)
    assert heading == "01 All posts · 14", (
        "no featured post, no picks: the list is the first section"
    )


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("page=abc", 400),
        ("page=0", 400),
        ("page=-1", 400),
        ("page=1e9", 400),
        ("page=1.5", 400),
        ("page=", 400),
        ("page=%EF%BC%92", 400),  # a full-width digit two
        ("page=99999999999999999999", 400),
        ("page=3", 404),
        ("page=999999999", 404),
        ("x=" + "a" * 10_000, 400),
    ],
)
def test_bad_page_numbers(client, posts, query, status):
    """Nonsense or out-of-range pages answer 400/404 in the site's layout, never 500."""
    posts.create(13)
    response = client.get(f"/?{query}")
    assert response.status_code == status
    assert soup(response).select_one(".site-header .brand") is not None


def test_unknown_topic_and_post_are_404(client, posts):
    """Unknown topics and posts get the 404 page."""
    posts.create(1)
    for url in ("/topics/nope", "/posts/nope", "/no/such/page"):
        response = client.get(url)
        assert response.status_code == 404
        assert "Nothing here" in response.get_data(as_text=True)


def test_topic_listing_filters_and_pages(client, posts):
    """A topic page lists only that topic's posts, paged like the home page."""
    posts.topics("Databases", "Frontend")
    db_posts = posts.create(13, topics=("Databases",))
    posts.create(5, topics=("Frontend", "Databases"))
    page = soup(client.get("/topics/frontend"))
    assert counter(page) == "Showing 5 of 5 posts"
    assert len(card_titles(page)) == 5
    page = soup(client.get("/topics/databases"))
    assert counter(page) == "Showing 1–12 of 18 posts"
    assert page.select_one(".read-more")["href"] == "/topics/databases?page=2#all-posts"
    assert spoken_name(page.select_one(".read-more")) == "read more posts about Databases"
    page = soup(client.get("/topics/databases?page=2"))
    assert counter(page) == "Showing 13–18 of 18 posts"
    assert len(db_posts) == 13


def test_topic_filter_lists_topics_with_posts_in_order(client, posts):
    """The filter offers All topics, then each topic with posts in filter order, with counts."""
    posts.topics("Reliability", "Databases", "Empty")
    posts.create(2, topics=("Databases",))
    posts.create(3, topics=("Reliability", "Databases"))
    page = soup(client.get("/topics/reliability"))
    links = page.select(".topic-filter a")
    assert [" ".join(a.get_text().split()) for a in links] == [
        "All topics 5",
        "Reliability 3",
        "Databases 5",
    ]
    assert [a["href"] for a in links] == [
        "/#all-posts",
        "/topics/reliability#all-posts",
        "/topics/databases#all-posts",
    ]
    assert [a["data-hx-get"] for a in links] == ["/", "/topics/reliability", "/topics/databases"]
    current = page.select('.topic-filter a[aria-current="page"]')
    assert [a["href"] for a in current] == ["/topics/reliability#all-posts"]
    assert page.select_one("#filter-label").get_text(strip=True) == "Filter by topic"


def test_cards_show_topic_title_summary_author_date_and_link(client, posts):
    """A card carries everything a reader scans for."""
    posts.topics("Databases", "Frontend")
    published = utcnow().replace(year=2025, month=11, day=12, hour=9, microsecond=0)
    [slug] = posts.create(
        1, topics=("Frontend", "Databases"), title="Paging & <friends>", published_at=published
    )
    card = soup(client.get("/")).select_one("#post-list .card")
    assert card.select_one(".card-topic").get_text(strip=True) == "Frontend"
    assert card.select_one(".card-title a").get_text() == "Paging & <friends>"
    assert card.select_one(".card-title a")["href"] == f"/posts/{slug}"
    assert card.select_one(".card-summary").get_text() == "Summary of post 1."
    assert card.select_one(".card-author").get_text() == "Ada Example"
    assert card.select_one("time").get_text() == "Nov 12, 2025"
    assert card.select_one("time")["datetime"] == f"{published:%Y-%m-%dT%H:%M:%S}Z"
    # The title's link is the card's one link to the post (it stretches over the card).
    assert [a["href"] for a in card.select("a") if a["href"].startswith("/posts/")] == [
        f"/posts/{slug}"
    ]
    assert card.select_one(".card-read").name == "span"
    assert card.select_one(".card-read").get_text() == "read →"
    meta = card.select_one(".card-meta").get_text()
    assert meta.startswith("Ada Example · Nov 12, 2025 · ")
    assert meta.endswith("\u00a0min\u00a0read"), "no-break spaces keep '5 min read' on one line"
    image = card.select_one("img")
    assert image["src"].startswith(f"/illustrations/{slug}.svg?v=")
    assert len(image["alt"]) > 20 and image["width"] == "640" and image["height"] == "360"


def test_featured_is_newest_featured_and_shows_updated_date(client, posts):
    """Featured shows the newest featured post, marked Updated when revised."""
    now = utcnow().replace(microsecond=0)
    posts.create(1, title="Old featured", featured=True, published_at=now - timedelta(days=9))
    posts.create(
        1,
        title="New featured",
        featured=True,
        published_at=now - timedelta(days=5),
        updated_at=now - timedelta(days=2),
    )
    posts.create(3)
    section = soup(client.get("/")).select_one(".featured")
    assert section.select_one(".card-title").get_text(strip=True) == "New featured"
    assert section.select_one(".card-meta").get_text(" ", strip=True).count("Updated") == 1


def test_picks_show_four_newest_on_home_only(client, posts):
    """Editor's picks: the four newest picks on the home page, none on topic pages."""
    picks = posts.create(6, editors_pick=True)
    page = soup(client.get("/"))
    titles = [a.get_text(strip=True) for a in page.select("#picks .card-title a")]
    assert titles == [f"Post number {n}" for n in range(1, 5)]
    assert " ".join(page.select_one("#picks-label").get_text().split()) == "01 Editor's picks · 04"
    assert len(picks) == 6
    topic_page = soup(client.get("/topics/databases"))
    assert topic_page.select_one("#picks").has_attr("hidden")
    assert topic_page.select("#picks .card") == []


def test_one_post_can_be_featured_a_pick_and_on_the_page_at_once(client, posts):
    """A post in several places shows in each; older picks off the page show too, and the
    grid lists each post once."""
    posts.create(1, title="Everywhere", featured=True, editors_pick=True)
    posts.create(13)
    posts.create(1, title="Old pick", editors_pick=True)
    posts.create(1, title="Older pick", editors_pick=True)
    page = soup(client.get("/"))
    titles = lambda selector: [a.get_text(strip=True) for a in page.select(selector)]  # noqa: E731
    assert titles(".featured .card-title") == ["Everywhere"]
    assert titles("#picks .card-title a") == ["Everywhere", "Old pick", "Older pick"]
    grid = titles("#post-list .card-title a")
    assert grid == ["Everywhere", *[f"Post number {n}" for n in range(2, 13)]]
    second = soup(client.get("/?page=2"))
    assert second.select_one("#featured").has_attr("hidden"), "deep pages go straight to the list"
    assert "Everywhere" not in [a.get_text(strip=True) for a in second.select("#post-list a")]


def test_drafts_and_scheduled_posts_stay_hidden(client, posts):
    """Drafts and posts scheduled for the future appear nowhere until their time."""
    posts.create(2)
    [draft] = posts.create(1, title="A draft", published_at=None)
    [later] = posts.create(1, title="Later", published_at=utcnow() + timedelta(hours=2))
    page = soup(client.get("/"))
    assert counter(page) == "Showing 2 of 2 posts"
    assert "A draft" not in str(page) and "Later" not in str(page)
    assert client.get(f"/posts/{draft}").status_code == 404
    assert client.get(f"/posts/{later}").status_code == 404


def test_topic_swap_answers_with_the_all_posts_fragment(client, posts):
    """An htmx topic swap gets only the All posts section (and the picks toggle), no layout."""
    posts.topics("Databases", "Frontend")
    posts.create(3, topics=("Frontend",), editors_pick=True)
    posts.create(14, topics=("Databases",))
    response = client.get("/topics/databases", headers=HTMX_TOPIC)
    body = response.get_data(as_text=True)
    assert "<html" not in body and "site-header" not in body
    page = soup(response)
    assert page.select_one("section#all-posts") is not None
    assert counter(page) == "Showing 1–12 of 14 posts"
    picks = page.select_one("#picks")
    assert picks["data-hx-swap-oob"] == "true" and picks.has_attr("hidden")
    home = soup(client.get("/", headers=HTMX_TOPIC))
    assert len(home.select('#picks[data-hx-swap-oob="true"] .card')) == 3
    assert "HX-Request" in response.headers["Vary"]


def test_read_more_answers_with_the_next_cards_only(client, posts):
    """An htmx read-more gets the next cards, the counter's new end and the next control."""
    posts.create(30)
    response = client.get("/?page=2", headers=HTMX_MORE)
    body = response.get_data(as_text=True)
    assert "<html" not in body and 'id="all-posts"' not in body
    page = soup(response)
    assert [li.select_one(".card-title a").get_text() for li in page.find_all("li")] == [
        f"Post number {n}" for n in range(13, 25)
    ]
    assert page.select_one('#shown-last[data-hx-swap-oob="true"]').get_text() == "24"
    more = page.select_one('#more[data-hx-swap-oob="true"] .read-more')
    assert more["data-hx-get"] == "/?page=3"
    last = soup(client.get("/?page=3", headers=HTMX_MORE))
    assert last.select_one('#more[data-hx-swap-oob="true"]').select(".read-more") == []
    assert response.headers["Vary"].count("HX-Request") == 1


# The tests marked one_store in this module run on SQLite only: they check what the templates
# write around posts already listed (the read-more button's name and swap, the whole page or a
# fragment, settings shown, summaries cut). Which posts a page lists, their order, counts and
# page numbers run on both stores.
@pytest.mark.one_store
@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("/", "read more posts"),
        ("/?page=2", "read more posts"),
        ("/topics/databases", "read more posts about Databases"),
        ("/topics/databases?page=2", "read more posts about Databases"),
    ],
)
@pytest.mark.parametrize("htmx", [False, True], ids=["page", "read-more-fragment"])
def test_read_more_says_which_posts_it_loads(client, posts, url, name, htmx):
    """Its name tells a screen reader which posts come next, after the words on the button,
    which stay "read more"; the copy each read-more swap sends says the same."""
    posts.topics("Databases", "Frontend")
    posts.create(30, topics=("Databases", "Frontend"))
    page = soup(client.get(url, headers=HTMX_MORE if htmx else {}))
    more = page.select_one("#more .read-more")
    assert shown_text(more) == "read more"
    assert spoken_name(more) == name


@pytest.mark.one_store
def test_read_more_takes_its_swap_from_the_list_footer(client, posts):
    """The footer says where read more swaps, so the copy each swap sends stays short."""
    posts.create(30)
    footer = soup(client.get("/")).select_one(".list-footer")
    assert footer["data-hx-target"] == "#post-list" and footer["data-hx-swap"] == "beforeend"
    assert footer["data-hx-push-url"] == "true"
    fragment = soup(client.get("/?page=2", headers=HTMX_MORE))
    for more in (footer.select_one("#more .read-more"), fragment.select_one("#more .read-more")):
        assert not {"data-hx-target", "data-hx-swap", "data-hx-push-url"} & set(more.attrs)


@pytest.mark.one_store
@pytest.mark.parametrize(
    "headers",
    [{}, {"HX-Request": "true", "HX-History-Restore-Request": "true"}, {"HX-Request": "true"}],
)
def test_full_page_for_plain_and_history_restore_requests(client, posts, headers):
    """Plain requests, history restores and untargeted htmx requests get the whole page."""
    posts.create(13)
    response = client.get("/?page=2", headers=headers)
    page = soup(response)
    assert page.select_one("html") is not None
    assert counter(page) == "Showing 13–13 of 13 posts"
    assert "HX-Request" in response.headers["Vary"]


@pytest.mark.one_store
def test_header_and_hero_come_from_settings(app, client, posts):
    """Brand, login, call to action and hero text are the configured ones."""
    posts.create(1)
    settings = {
        "SITE_NAME": "Blueprints",
        "SITE_HERO": "Hello there",
        "SITE_CTA_LABEL": "Hire",
        "SITE_CTA_URL": "/jobs",
    }
    saved = {key: app.config[key] for key in settings}
    app.config.update(settings)
    try:
        page = soup(client.get("/"))
    finally:
        app.config.update(saved)
    assert page.select_one(".brand").get_text(strip=True) == "Blueprints"
    assert page.select_one(".site-nav .login").get_text() == "Login"
    cta = page.select_one(".site-nav .cta")
    assert (cta.get_text(), cta["href"]) == ("Hire", "/jobs")
    assert page.select_one(".hero h1").get_text() == "Hello there"
    assert page.select_one(".hero-description").get_text()


@pytest.mark.parametrize("count", [12, 100])
def test_listing_query_count_is_fixed(app, client, posts, count):
    """A listing renders with the same few statements for any page; a cached page costs one."""
    posts.topics("Databases", "Frontend")
    posts.create(count, topics=("Databases", "Frontend"), editors_pick=True, featured=True)
    last = -(-count // 12)
    cold, warm = {}, {}
    for url in ("/", f"/?page={last}", "/topics/frontend", f"/authors/ada-example?page={last}"):
        pagecache.clear()
        with count_queries(app) as statements:
            assert client.get(url).status_code == 200
        cold[url] = len(statements)
        with count_queries(app) as statements:
            assert client.get(url).status_code == 200
        warm[url] = len(statements)
    # A miss reads the state row in the page cache and again in the view.
    assert max(cold.values()) <= 5, cold
    assert cold["/"] == cold[f"/?page={last}"]
    assert set(warm.values()) == {1}, warm
    pagecache.clear()
    with count_queries(app) as statements:
        client.get("/?page=2" if count > 12 else "/", headers=HTMX_MORE)
    assert len(statements) <= 4
    app.config["PAGE_CACHE"] = False
    try:
        for url in ("/", f"/?page={last}", "/topics/frontend", "/authors/ada-example"):
            with count_queries(app) as statements:
                assert client.get(url).status_code == 200
            assert len(statements) <= 4, [str(s)[:60] for s in statements]
    finally:
        app.config["PAGE_CACHE"] = True


def test_card_summary_shows_the_summary_as_written_up_to_the_limit():
    """A summary that fits is shown whole, every sentence of it; a longer one is cut at a
    whole word with "…"."""
    from blog.web.templating import CARD_SUMMARY_LENGTH, card_summary

    whole = "For years every table had a deleted_at column. Dropping it removed a class of bugs."
    assert card_summary(whole) == whole
    assert card_summary("word " * 55 + "end.") == "word " * 55 + "end."  # 279 characters
    long = "word " * 60
    cut = card_summary(long)
    assert len(cut) <= CARD_SUMMARY_LENGTH and cut.endswith("word…")
    assert card_summary("x" * 400).endswith("…") and len(card_summary("x" * 400)) <= 280
    sentences = "We moved the queue to Postgres. Latency fell by half! " * 6
    cut = card_summary(sentences)
    assert cut.endswith("…") and not cut.endswith(" …") and len(cut) <= CARD_SUMMARY_LENGTH


def test_cards_show_the_publish_date_and_updated_as_a_second_note(client, posts):
    """The list is ordered by publish date, so that is the date a card shows first."""
    now = utcnow().replace(microsecond=0)
    published, updated = now - timedelta(days=30), now - timedelta(days=2)
    posts.create(1, title="Revised", published_at=published, updated_at=updated)
    card = soup(client.get("/")).select_one("#post-list .card")
    first, note = card.select("time")
    assert first["datetime"] == f"{published:%Y-%m-%dT%H:%M:%S}Z"
    assert card.select_one(".card-updated").get_text(" ", strip=True).startswith("Updated")
    assert note["datetime"] == f"{updated:%Y-%m-%dT%H:%M:%S}Z"


@pytest.mark.one_store
def test_the_list_heading_and_description_sit_above_the_topic_filter(
    app, client, posts, monkeypatch
):
    """SITE_LIST_HEADING and SITE_LIST_DESCRIPTION, escaped, before the filter."""
    posts.create(2)
    monkeypatch.setitem(app.config, "SITE_LIST_HEADING", "Field <notes>.")
    monkeypatch.setitem(app.config, "SITE_LIST_DESCRIPTION", "What we learned & measured.")
    monkeypatch.setitem(app.config, "PAGE_CACHE", False)
    section = soup(client.get("/")).select_one("#all-posts")
    intro = section.select_one(".list-intro")
    assert intro.select_one(".list-heading").get_text() == "Field <notes>."
    assert intro.select_one(".list-description").get_text() == "What we learned & measured."
    assert intro.find_next("nav")["class"] == ["topic-filter"]


@pytest.mark.one_store
def test_featured_card_shows_the_whole_summary_and_picks_none(client, posts):
    """The featured card has room for the whole summary; picks show none (they are small)."""
    summary = "A long summary that goes on. " * 11
    posts.create(14, summary=summary, editors_pick=True)
    posts.create(1, summary=summary, featured=True)
    page = soup(client.get("/"))
    featured = page.select_one(".card-featured .card-summary").get_text()
    assert featured.startswith("A long summary") and len(featured) > 200
    assert page.select(".card-pick") and not page.select(".card-pick .card-summary")
    grid = [p.get_text() for p in page.select("#post-list .card-summary")]
    assert grid and all(len(text) <= 280 and text.endswith("…") for text in grid)


@pytest.mark.one_store
def test_the_tagline_sits_beside_the_brand_and_the_footer_links_the_feeds(
    app, client, posts, monkeypatch
):
    """SITE_TAGLINE beside the brand; the footer links the feeds, the sitemap, the topic's
    own feed on a topic page, and SITE_ABOUT_URL when set."""
    posts.topics("Databases")
    posts.create(2, topics=("Databases",))
    monkeypatch.setitem(app.config, "PAGE_CACHE", False)
    monkeypatch.setitem(app.config, "SITE_TAGLINE", "notes & <dives>")
    monkeypatch.setitem(app.config, "SITE_ABOUT_URL", "https://example.com/about")
    home = soup(client.get("/"))
    assert home.select_one(".brand + .brand-tagline").get_text() == "notes & <dives>"
    links = {a.get_text(): a["href"] for a in home.select(".site-footer .footer-links a")}
    assert links == {
        "Atom feed": "/feed.atom",
        "RSS feed": "/feed.rss",
        "Sitemap": "/sitemap.xml",
        "About": "https://example.com/about",
    }
    topic = soup(client.get("/topics/databases"))
    first = topic.select_one(".site-footer .footer-links a")
    assert (first.get_text(), first["href"]) == ("Databases feed", "/topics/databases/feed.atom")
    monkeypatch.setitem(app.config, "SITE_TAGLINE", "")
    monkeypatch.setitem(app.config, "SITE_ABOUT_URL", "")
    bare = soup(client.get("/"))
    assert bare.select_one(".brand-tagline") is None
    assert "About" not in [a.get_text() for a in bare.select(".footer-links a")]
