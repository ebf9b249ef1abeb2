"""The editor's post list: pages, title search, filters, sorts, page or fragment, refusals."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog.authoring import store
from blog.extensions import db
from blog.models import Post, utcnow
from tests.authoring import test_auth
from tests.authoring.test_auth import editor_client
from tests.conftest import PostFactory, count_queries

__all__ = ["editor_client"]


class SharedBodyFactory(PostFactory):
    """The shared factory, its posts sharing one body rendered once per call (the list shows
    no body): the same titles, slugs, dates, topics and author, at a fraction of the Markdown
    work for the lists of 60 to 120 posts this module builds."""

    BODY = "Body of a listed post.\n\n## Part one\n\nSome text."

    def body(self, n: int) -> str:
        return self.BODY

    def create(self, count: int = 1, **kwargs) -> list[str]:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(store, "render_body", rendered_once(store.render_body))
            return super().create(count, **kwargs)


def rendered_once(render: Callable[[str], object]) -> Callable[[str], object]:
    """`render`, remembering what it made of each text (a render depends only on it)."""
    made: dict[str, object] = {}

    def remembered(text: str) -> object:
        if text not in made:
            made[text] = render(text)
        return made[text]

    return remembered


@pytest.fixture
def posts(app: Flask) -> PostFactory:
    """The post factory, one body render a call."""
    return SharedBodyFactory(app)


HX_TABLE = {"HX-Request": "true", "HX-Target": "post-table"}
HX_RESTORE = HX_TABLE | {"HX-History-Restore-Request": "true"}


_parsed: list[tuple[object, object]] = []  # (response, its parse), the last few asked about


def page(response):
    """The response parsed as HTML, once: the helpers below each read the same page."""
    for seen, soup in _parsed:
        if seen is response:
            return soup
    soup = test_auth.page(response)
    _parsed[:] = [(response, soup), *_parsed[:3]]
    return soup


def titles(response) -> list[str]:
    """The titles the table lists, top to bottom."""
    return [a.text for a in page(response).select("#post-table tbody th a.edit-link")]


def counter(response) -> str:
    """The counter under the table."""
    found = page(response).select_one("#post-counter")
    return found.get_text(strip=True) if found else ""


def link(response, element_id: str) -> str | None:
    """Where a link of the list goes (None when the page has no such link)."""
    found = page(response).select_one(f"#{element_id}")
    return found["href"] if found is not None else None


def params(url: str) -> dict[str, list[str]]:
    """The query parameters of a URL."""
    return parse_qs(urlsplit(url).query)


def credit(app: Flask, slugs: list[str], name: str) -> str:
    """Credit posts to the author of this name; returns the author's slug."""
    with app.app_context():
        author = store.author_named(name)
        db.session.flush()
        db.session.execute(sa.update(Post).where(Post.slug.in_(slugs)).values(author_id=author.id))
        db.session.commit()
        return author.slug


def set_dates(app: Flask, slug: str, **dates: datetime | None) -> None:
    """Give a stored post other dates (modified_at, published_at) without a save."""
    with app.app_context():
        db.session.execute(sa.update(Post).where(Post.slug == slug).values(**dates))
        db.session.commit()


# Pages --------------------------------------------------------------------------------------


def test_120_posts_make_three_pages_of_50_with_counts_and_links(editor_client, posts):
    """50 a page, a counter, previous and next links that keep the list's other choices."""
    posts.create(120)
    first = editor_client.get("/editor/")
    assert first.status_code == 200
    assert len(titles(first)) == 50
    assert counter(first) == "Showing 1–50 of 120 posts"
    assert link(first, "page-previous") is None
    assert link(first, "page-next") == "/editor/?page=2"
    assert "Page 1 of 3" in page(first).select_one(".pager").text

    second = editor_client.get("/editor/?page=2")
    assert counter(second) == "Showing 51–100 of 120 posts"
    assert link(second, "page-previous") == "/editor/"
    assert link(second, "page-next") == "/editor/?page=3"
    assert page(second).select_one("#page-next")["rel"] == ["next"]

    third = editor_client.get("/editor/?page=3")
    assert len(titles(third)) == 20
    assert counter(third) == "Showing 101–120 of 120 posts"
    assert link(third, "page-next") is None
    assert link(third, "page-previous") == "/editor/?page=2"

    listed = titles(first) + titles(second) + titles(third)
    assert sorted(listed) == sorted(f"Post number {n}" for n in range(1, 121))

    past = editor_client.get("/editor/?page=4")
    assert past.status_code == 404
    assert "past the end" in past.get_data(as_text=True)


def test_one_page_has_no_pager(editor_client, posts):
    """A list that fits one page counts its posts and offers no other page."""
    posts.create(1)
    response = editor_client.get("/editor/")
    assert counter(response) == "Showing 1 of 1 post"
    assert page(response).select_one(".pager") is None
    posts.create(2)
    assert counter(editor_client.get("/editor/")) == "Showing 1–3 of 3 posts"


def test_pages_count_within_the_filters(app, editor_client, posts):
    """A filtered list is paged on its own total, and its links keep every filter."""
    posts.create(60, topics=("Operations",))
    posts.create(5, topics=("Databases",))
    url = "/editor/?status=published&q=number&topic=operations&sort=published"
    first = editor_client.get(url)
    assert counter(first) == "Showing 1–50 of 60 posts"
    assert params(link(first, "page-next")) == {
        "status": ["published"],
        "q": ["number"],
        "topic": ["operations"],
        "sort": ["published"],
        "page": ["2"],
    }
    second = editor_client.get(link(first, "page-next"))
    assert counter(second) == "Showing 51–60 of 60 posts"
    assert editor_client.get(url + "&page=3").status_code == 404
    # An empty result has one page, and nothing after it.
    assert editor_client.get("/editor/?q=nothing+has+this").status_code == 200
    assert editor_client.get("/editor/?q=nothing+has+this&page=2").status_code == 404


def test_a_page_that_is_not_a_positive_whole_number_is_a_400(editor_client):
    """Page numbers are plain digits from 1 up; anything else is refused plainly."""
    for raw in ["0", "-1", "abc", "1.5", "", "+2", " 2", "1e3", "２", "0x10", "9999999999"]:
        response = editor_client.get("/editor/", query_string={"page": raw})
        assert response.status_code == 400, raw
        text = page(response).get_text(" ")
        assert "whole number" in text or "start at 1" in text, raw


def test_a_huge_page_number_is_a_404_not_a_slow_scan(editor_client, posts):
    """Nine digits pass the parser and are past the end: 404, before any page is read."""
    posts.create(2)
    assert editor_client.get("/editor/?page=999999999").status_code == 404


# Search -------------------------------------------------------------------------------------


def test_search_finds_a_piece_of_the_title_whatever_its_case(editor_client, posts):
    """?q= keeps the posts whose title holds the text, capitals or not, and those holding
    its words anywhere else (the summary here)."""
    posts.create(1, title="Tuning Postgres autovacuum")
    posts.create(1, title="postgres at scale")
    posts.create(1, title="Redis notes", summary="About Postgres too")
    posts.create(1, title="Kafka notes")
    assert sorted(titles(editor_client.get("/editor/?q=POSTGRES"))) == [
        "Redis notes",
        "Tuning Postgres autovacuum",
        "postgres at scale",
    ]
    assert titles(editor_client.get("/editor/?q=gres+at")) == ["postgres at scale"]
    # Spaces around the text are not meant.
    assert titles(editor_client.get("/editor/?q=%20%20redis%20")) == ["Redis notes"]


LISTED_TITLES = (
    "100% uptime",
    "1000 uptime",
    "snake_case names",
    "snakeXcase names",
    "x/y testing",
    "back\\slash",
    'It\'s "quoted"',
)
WILDCARD_SEARCHES = [
    ("%", ["100% uptime"]),
    ("100%", ["1000 uptime", "100% uptime"]),  # the word 100, and more digits as typed
    ("_", ["snake_case names"]),
    ("e_c", ["snake_case names"]),
    ("%%", []),
    ("x/y", ["x/y testing"]),
    ("\\", ["back\\slash"]),
    ("it's", ['It\'s "quoted"']),
    ('"quoted"', ['It\'s "quoted"']),
    ("'; drop table posts; --", []),
]


def test_wildcards_and_quotes_in_a_search_are_literal(editor_client, posts):
    """% and _ mean themselves (no pattern), and so do quotes, slashes and backslashes; the
    words among them are searched."""
    for title in LISTED_TITLES:
        posts.create(1, title=title, slug=f"post-{posts.made + 1}")
    for typed, found in WILDCARD_SEARCHES:
        response = editor_client.get("/editor/", query_string={"q": typed})
        assert response.status_code == 200, typed
        assert sorted(titles(response)) == sorted(found), typed
        assert page(response).select_one("#post-search")["value"] == typed
        if not found:
            assert "in the title" in page(response).select_one("#post-table .empty").text


def test_a_search_that_finds_nothing_says_so(editor_client, posts):
    """An empty result names what was asked for and links back to every post."""
    posts.create(2, topics=("Operations",))
    response = editor_client.get("/editor/?status=draft&q=kernel&topic=operations")
    assert response.status_code == 200
    empty = page(response).select_one("#post-table .empty")
    assert empty.get_text(" ", strip=True).startswith(
        "No drafts with “kernel” in the title, summary or body in Operations."
    )
    assert empty.select_one("a")["href"] == "/editor/"


def test_a_long_search_is_cut_as_the_readers_search_cuts_it(editor_client, posts):
    """A search is cut to 200 characters, as on the site, and says so."""
    long_title = "x" * 300
    posts.create(1, title=long_title, slug="long-title")
    response = editor_client.get("/editor/", query_string={"q": "x" * 1000})
    assert response.status_code == 200
    assert titles(response) == [long_title]
    assert page(response).select_one("#post-search")["value"] == "x" * 200
    notice = page(response).select_one(".search-notice").text
    assert notice == "Searches are limited to 200 characters: only the first 200 were used."


def test_a_200000_character_search_is_refused_at_once(editor_client, posts):
    """The site's query-string limit turns it away before the list is read."""
    posts.create(3)
    started = time.perf_counter()
    response = editor_client.get("/editor/", query_string={"q": "%_" * 100_000})
    assert response.status_code == 400
    assert time.perf_counter() - started < 2


def test_control_characters_in_a_search_are_dropped(editor_client, posts):
    """A NUL (which PostgreSQL refuses) or another control character never reaches SQL."""
    posts.create(1, title="Tracing requests")
    response = editor_client.get("/editor/", query_string={"q": "Trac\x00ing\x07"})
    assert response.status_code == 200
    assert titles(response) == ["Tracing requests"]


# Filters and sorts ----------------------------------------------------------------------------


@pytest.fixture
def mixed(app: Flask, posts: PostFactory) -> dict[str, str]:
    """Posts in two topics, by two authors, in every state; returns the authors' slugs."""
    now = utcnow()
    posts.create(1, title="Ops live by Ada", topics=("Operations",))
    posts.create(1, title="Db live by Ada", topics=("Databases",))
    bo = {"author": "Bo Writer"}
    posts.create(1, title="Both live by Bo", topics=("Databases", "Operations"), **bo)
    posts.create(1, title="Ops draft by Bo", topics=("Operations",), published_at=None, **bo)
    posts.create(1, title="Db draft by Bo", topics=("Databases",), published_at=None, **bo)
    posts.create(
        1,
        title="Ops scheduled by Bo",
        topics=("Operations",),
        published_at=now + timedelta(days=3),
        **bo,
    )
    return {"ada": "ada-example", "bo": "bo-writer"}


FILTERS = [
    (
        "topic=operations",
        {"Ops live by Ada", "Both live by Bo", "Ops draft by Bo", "Ops scheduled by Bo"},
    ),
    ("topic=databases", {"Db live by Ada", "Both live by Bo", "Db draft by Bo"}),
    (
        "author=bo-writer",
        {"Both live by Bo", "Ops draft by Bo", "Db draft by Bo", "Ops scheduled by Bo"},
    ),
    ("author=ada-example", {"Ops live by Ada", "Db live by Ada"}),
    ("status=draft", {"Ops draft by Bo", "Db draft by Bo"}),
    ("status=scheduled", {"Ops scheduled by Bo"}),
    ("status=published&topic=operations", {"Ops live by Ada", "Both live by Bo"}),
    ("status=draft&topic=operations&author=bo-writer", {"Ops draft by Bo"}),
    ("topic=operations&author=bo-writer&q=LIVE", {"Both live by Bo"}),
    ("topic=databases&author=ada-example&status=scheduled", set()),
    ("topic=&author=&status=&sort=&q=", None),  # empty controls: every post
]


def test_filters_alone_and_together(editor_client, mixed):
    """Status, topic (any of a post's topics), author and search narrow the list together."""
    for query, expected in FILTERS:
        response = editor_client.get(f"/editor/?{query}")
        assert response.status_code == 200, query
        if expected is None:
            assert len(titles(response)) == 6, query
        else:
            assert set(titles(response)) == expected, query


def test_an_authors_list_holds_what_they_co_wrote_and_names_every_author(app, editor_client, mixed):
    """Narrowed to an author, the list holds the posts they co-wrote too (as many as their
    page in /editor/authors counts); each row names every author, in order."""
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.title == "Db live by Ada"))
        post.set_authors([post.author, store.author_named("Bo Writer")])
        db.session.commit()
    response = editor_client.get("/editor/?author=bo-writer")
    assert set(titles(response)) == {
        "Both live by Bo",
        "Ops draft by Bo",
        "Db draft by Bo",
        "Ops scheduled by Bo",
        "Db live by Ada",
    }
    rows = page(response).select("#post-table tbody tr")
    bylines = {
        row.select_one(".edit-link").get_text(): [cell.get_text() for cell in row.select("td")]
        for row in rows
    }
    assert "Ada Example and Bo Writer" in bylines["Db live by Ada"]
    assert "Bo Writer" in bylines["Ops draft by Bo"]


def test_status_tabs_count_within_the_other_filters(editor_client, mixed):
    """The tabs say how many posts of each status the search, topic and author leave."""
    response = editor_client.get("/editor/?topic=operations&author=bo-writer&status=draft")
    soup = page(response)
    counts = {a["id"]: a.select_one(".count").text for a in soup.select(".state-filter a")}
    assert counts == {
        "filter-all": "3",
        "filter-draft": "1",
        "filter-review": "0",
        "filter-scheduled": "1",
        "filter-published": "1",
    }
    assert counter(response) == "Showing 1 of 1 post"


def test_sorts_by_last_change_or_publish_date_newest_first(app, editor_client, posts):
    """Default: last change; ?sort=published: publish date, never-published drafts last."""
    now = utcnow().replace(microsecond=0)
    posts.create(1, title="Old post, edited today", slug="a")
    posts.create(1, title="New post, untouched", slug="b")
    posts.create(1, title="A draft", slug="c", published_at=None)
    set_dates(app, "a", published_at=now - timedelta(days=30), modified_at=now)
    set_dates(app, "b", published_at=now - timedelta(days=1), modified_at=now - timedelta(days=1))
    set_dates(app, "c", modified_at=now - timedelta(hours=1))
    by_change = ["Old post, edited today", "A draft", "New post, untouched"]
    by_date = ["New post, untouched", "Old post, edited today", "A draft"]
    assert titles(editor_client.get("/editor/")) == by_change
    assert titles(editor_client.get("/editor/?sort=changed")) == by_change
    published = editor_client.get("/editor/?sort=published")
    assert titles(published) == by_date
    sorted_column = page(published).select_one('thead th[aria-sort="descending"]')
    assert sorted_column.text.startswith("Publish date")


def test_equal_dates_keep_a_stable_order_across_pages(app, editor_client, posts):
    """Posts changed at the same moment are ordered by id, so no post shows on two pages."""
    posts.create(70)
    moment = utcnow().replace(microsecond=0)
    with app.app_context():
        db.session.execute(sa.update(Post).values(modified_at=moment))
        db.session.commit()
    shown = titles(editor_client.get("/editor/")) + titles(editor_client.get("/editor/?page=2"))
    assert len(shown) == len(set(shown)) == 70


# Page or fragment -------------------------------------------------------------------------------


def test_the_same_url_is_the_page_or_just_the_table(editor_client, mixed):
    """Without htmx the whole page; aimed at the table, only the table (and the status
    line it updates), with the short URL for the address bar."""
    url = "/editor/?status=&q=live&topic=&author=bo-writer&sort=changed"
    full = editor_client.get(url)
    soup = page(full)
    assert soup.select_one("h1").text == "Posts"
    assert soup.select_one("form#post-filter") is not None
    assert titles(full) == ["Both live by Bo"]
    assert "HX-Push-Url" not in full.headers

    fragment = editor_client.get(url, headers=HX_TABLE)
    soup = page(fragment)
    assert soup.select_one("h1") is None and soup.select_one("form") is None
    assert soup.select_one("section")["id"] == "post-table"
    assert titles(fragment) == ["Both live by Bo"]
    status = soup.select_one("#post-list-status")
    assert status["data-hx-swap-oob"] == "innerHTML"
    assert status.text == "Showing 1 of 1 post"
    assert fragment.headers["HX-Push-Url"] == "/editor/?q=live&author=bo-writer"
    assert "HX-Request" in fragment.headers["Vary"]
    assert "no-store" in fragment.headers["Cache-Control"]

    # Restoring history, or aiming elsewhere, gets the whole page.
    for headers in (HX_RESTORE, {"HX-Request": "true", "HX-Target": "main"}):
        assert page(editor_client.get(url, headers=headers)).select_one("h1") is not None


def test_controls_keep_their_state_from_the_url(editor_client, mixed):
    """The form shows what the URL asks for, and every link keeps it."""
    response = editor_client.get(
        "/editor/?status=draft&q=by+Bo&topic=operations&author=bo-writer&sort=published"
    )
    soup = page(response)
    assert soup.select_one("#post-search")["value"] == "by Bo"
    assert soup.select_one("#post-topic option[selected]")["value"] == "operations"
    assert soup.select_one("#post-author option[selected]")["value"] == "bo-writer"
    assert soup.select_one("#post-sort option[selected]")["value"] == "published"
    assert soup.select_one("#filter-draft")["aria-current"] == "page"
    # The status in force travels with the form, from inside the swapped table.
    hidden = soup.select_one('#post-table input[name="status"]')
    assert (hidden["value"], hidden["form"]) == ("draft", "post-filter")
    # The tabs keep the search, topic, author and sort, and go back to the first page.
    assert params(soup.select_one("#filter-published")["href"]) == {
        "status": ["published"],
        "q": ["by Bo"],
        "topic": ["operations"],
        "author": ["bo-writer"],
        "sort": ["published"],
    }
    assert soup.select_one("#filter-all")["data-hx-get"] == soup.select_one("#filter-all")["href"]
    # Without a status there is no hidden field, so the form asks for every status.
    assert page(editor_client.get("/editor/")).select_one('input[name="status"]') is None


def test_search_text_is_shown_escaped(editor_client, posts):
    """What an editor types comes back as text, never as markup."""
    posts.create(1)
    typed = '"><script>alert(1)</script>'
    response = editor_client.get("/editor/", query_string={"q": typed})
    html = response.get_data(as_text=True)
    assert "<script>alert(1)" not in html
    assert page(response).select_one("#post-search")["value"] == typed


# Refusals -------------------------------------------------------------------------------------


UNKNOWN_CHOICES = [
    ("status=secret", "draft, scheduled or published"),
    ("status=Draft", "draft, scheduled or published"),
    ("sort=title", "last change or publish date"),
    ("sort=oldest", "last change or publish date"),
    ("topic=no-such-topic", "There is no topic"),
    ("topic=Operations", "There is no topic"),
    ("author=nobody", "There is no author"),
    ("author=%00", "There is no author"),
]


def test_unknown_choices_are_a_400_that_says_why(editor_client, mixed):
    """A status, sort, topic or author the list does not have is refused, page or alert."""
    for query, message in UNKNOWN_CHOICES:
        response = editor_client.get(f"/editor/?{query}")
        assert response.status_code == 400, query
        assert message in response.get_data(as_text=True), query
        alert = editor_client.get(f"/editor/?{query}", headers=HX_TABLE)
        assert alert.status_code == 400, query
        assert alert.headers["HX-Retarget"] == "#editor-alert", query
        assert message in alert.get_data(as_text=True), query


def test_a_page_past_the_end_from_htmx_is_an_alert(editor_client, posts):
    """The table stays as it was and the alert says why."""
    posts.create(2)
    response = editor_client.get("/editor/?page=2", headers=HX_TABLE)
    assert response.status_code == 404
    assert response.headers["HX-Retarget"] == "#editor-alert"
    assert "past the end" in response.get_data(as_text=True)


def test_logged_out_the_list_asks_for_a_login(client: FlaskClient):
    """Its filters travel in the login's next address."""
    response = client.get("/editor/?q=x&page=2")
    assert response.status_code == 302
    assert params(response.headers["Location"])["next"] == ["/editor/?q=x&page=2"]


# Cost -----------------------------------------------------------------------------------------


def test_a_page_of_the_list_costs_the_same_few_statements(app, editor_client, posts):
    """However many posts, topics and authors, a page costs the same statements: authors
    and topics come with the page's query, never one post at a time."""

    def statements(url: str, headers: dict[str, str] | None = None) -> list[str]:
        with count_queries(app) as seen:
            assert editor_client.get(url, headers=headers or {}).status_code == 200
        return seen

    posts.create(2)
    searched = "/editor/?q=number&sort=published"
    few = {url: len(statements(url)) for url in ("/editor/", searched)}
    # A search reads its index (SQLite: once per table, for the published posts and the
    # others; PostgreSQL: the newest posts, and the index for rare words), then the start of
    # the listed bodies for the excerpts.
    assert few["/editor/"] < few[searched] <= few["/editor/"] + 3

    for index in range(6):
        posts.create(20, topics=(f"Topic {index}", "Shared"), author=f"Author {index}")
    many = statements("/editor/")
    assert len(many) == few["/editor/"] <= 5, many
    assert len(statements("/editor/?page=3&sort=published")) == few["/editor/"]
    assert len(statements(searched)) <= few[searched]
    assert len(statements("/editor/?q=number&topic=shared&author=author-3")) <= 8
    fragment = "/editor/?page=2&q=number&topic=shared&status=published"
    assert len(statements(fragment, HX_TABLE)) <= 8
