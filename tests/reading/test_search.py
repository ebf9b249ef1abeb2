"""Full-text search: the index the triggers keep, the query function, and the /search page."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import flask_migrate
import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from bs4 import BeautifulSoup
from markupsafe import Markup

from blog import create_app, fulltext
from blog.authoring import store
from blog.extensions import db
from blog.models import DRAFT, PUBLISHED, Post, Topic, utcnow
from blog.reading import search
from tests.conftest import DATABASE, count_queries, postgres_database
from tests.reading.test_views import shown_text, spoken_name

HTMX_MAIN = {"HX-Request": "true", "HX-Target": "main"}
HTMX_RESULTS = {"HX-Request": "true", "HX-Target": "search-results"}
HTMX_MORE = {"HX-Request": "true", "HX-Target": "result-list"}

SQLITE_TRIGGERS = {
    "post_search_post_insert",
    "post_search_post_update",
    "post_search_post_delete",
    "post_search_link_insert",
    "post_search_link_update",
    "post_search_link_delete",
    "post_search_topic_rename",
    "post_search_topic_delete",
}
POSTGRESQL_TRIGGERS = {"post_search_post", "post_search_link", "post_search_topic"}


def soup(response) -> BeautifulSoup:
    """Parse a response body as HTML."""
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def text_of(page: BeautifulSoup, selector: str) -> str:
    """The whitespace-normalised text of the first element matching `selector`."""
    element = page.select_one(selector)
    assert element is not None, f"nothing matches {selector}"
    return " ".join(element.get_text().split())


def result_titles(page: BeautifulSoup) -> list[str]:
    """Titles of the results, in order."""
    return [a.get_text(strip=True) for a in page.select("#result-list .card-title a")]


def titles_for(client, query: str, **params: str) -> list[str]:
    """Titles of the first page of results for `query`."""
    response = client.get("/search", query_string={"q": query, **params})
    assert response.status_code == 200
    return result_titles(soup(response))


def found(app, query: str) -> list[str]:
    """Titles the query function returns for `query` (first page)."""
    with app.app_context():
        return [post.title for post in search.search_posts(query).page.posts]


# --- Reading the reader's text ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kv cache", [("kv", False), ("cache", True)]),
        ('"kv cache" sizing', [("kv cache", False), ("sizing", True)]),
        ('sizing "kv cache"', [("sizing", False), ("kv cache", False)]),
        ('sizing "kv cach', [("sizing", False), ("kv cach", True)]),
        ("max_connections C++", [("max_connections", False)]),
        ('max_connections "C++"', [("max_connections", False), ("C++", False)]),
        ("kv c", [("kv", False)]),
        ('"kv c', [("kv", False)]),
        ("k", [("k", False)]),
        ("kv 🔥 ***", [("kv", True)]),
        ('"" " " -- ( ) *', []),
        ("NOT near OR", [("NOT", False), ("near", False), ("OR", True)]),
    ],
)
def test_parse_query_makes_literal_terms(text, expected):
    """Quotes make phrases, the last open term grows as a prefix, symbols-only pieces drop."""
    assert [(t.text, t.prefix) for t in search.parse_query(text)] == expected


def test_fts5_query_quotes_every_term():
    """No operator, column filter or bracket in the reader's text survives into MATCH syntax."""
    terms = search.parse_query('title:x NEAR(a b) "kv cache" we"ird')
    assert fulltext.fts5_match(terms) == (
        '"title:x" AND "NEAR(a" AND "b)" AND "kv cache" AND "we" AND "ird" *'
    )


@pytest.mark.parametrize(
    ("raw", "expected", "cut"),
    [
        ("  kv   cache \t", "kv cache", False),
        ("a\x00b\x1bc\u200bd", "a b c d", False),
        ("x" * 200, "x" * 200, False),
        ("x" * 201, "x" * 200, True),
        ("kv " * 100, ("kv " * 67).strip(), True),
    ],
)
def test_clean_query_drops_control_characters_and_cuts_at_200(raw, expected, cut):
    """Control characters become spaces, spaces collapse, and only 200 characters are kept."""
    assert search.clean_query(raw) == (expected, cut)


def test_highlighted_escapes_text_and_balances_marks():
    """Markers become <mark> tags only after escaping; stray markers never unbalance them."""
    o, c = fulltext.MARK_OPEN, fulltext.MARK_CLOSE
    assert fulltext.highlighted(f"a {o}<b>{c} & {o}x") == Markup(
        "a <mark>&lt;b&gt;</mark> &amp; <mark>x</mark>"
    )
    assert fulltext.highlighted(f"{c}{c}y{o}{o}z{c}") == Markup("y<mark>z</mark>")


# --- The index follows every write ---------------------------------------------------------


def test_search_objects_exist_after_every_migration(app):
    """All search triggers exist once every head is applied (a table rebuild would drop them)."""
    with app.app_context(), db.engine.connect() as connection:
        if DATABASE == "sqlite":
            rows = connection.execute(
                sa.text("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            )
            assert {name for (name,) in rows} >= SQLITE_TRIGGERS
        else:
            rows = connection.execute(sa.text("SELECT tgname FROM pg_trigger"))
            assert {name for (name,) in rows} >= POSTGRESQL_TRIGGERS
            index = connection.execute(
                sa.text("SELECT indexdef FROM pg_indexes WHERE indexname = :name"),
                {"name": "ix_posts_search_vector"},
            ).scalar_one()
            assert "USING gin (search_vector)" in index


def test_model_comparison_ignores_only_the_search_index(app):
    """include_object hides exactly the unmapped search objects from autogenerate."""
    with app.app_context(), db.engine.connect() as connection:
        everything = compare_metadata(MigrationContext.configure(connection), db.metadata)
        filtered = compare_metadata(
            MigrationContext.configure(connection, opts={"include_object": search.include_object}),
            db.metadata,
        )
    hidden = [diff for diff in everything if diff not in filtered]
    assert hidden, "the search index should show up in an unfiltered comparison"
    assert all("search" in repr(diff) for diff in hidden)
    assert not any("post_search" in repr(d) or "search_vector" in repr(d) for d in filtered)


def test_new_posts_are_found_by_title_summary_body_and_topic(app, posts):
    """Every indexed field finds the post as soon as it is saved."""
    posts.topics("Databases", "Observability")
    posts.create(1, title="Sizing the KV cache", body="Plain words.", topics=("Databases",))
    posts.create(1, title="Other", summary="Notes on tracing spans.", topics=("Databases",))
    posts.create(1, title="Third", body="We shard the replication log.", topics=("Databases",))
    posts.create(1, title="Fourth", body="Nothing in common.", topics=("Observability",))
    assert found(app, "kv cache") == ["Sizing the KV cache"]
    assert found(app, "tracing") == ["Other"]
    assert found(app, "replication") == ["Third"]
    assert found(app, "observability") == ["Fourth"]
    assert found(app, "zeppelin") == []


def test_edits_renames_links_and_deletes_keep_the_index_current(app, posts):
    """Triggers update the index on body edits, topic renames, topic changes and deletes."""
    posts.topics("Databases", "Frontend")
    [slug] = posts.create(
        1, title="Queue notes", body="The old pager story.", topics=("Databases",)
    )
    with app.app_context():
        post = db.session.scalars(sa.select(Post).where(Post.slug == slug)).one()
        store.set_body(post, "A story about backpressure.")
        db.session.commit()
    assert found(app, "pager") == []
    assert found(app, "backpressure") == ["Queue notes"]

    with app.app_context():
        topic = db.session.scalars(sa.select(Topic).where(Topic.slug == "databases")).one()
        topic.name = "Storage engines"
        db.session.commit()
    assert found(app, "storage engines") == ["Queue notes"]
    assert found(app, "databases") == []

    with app.app_context():
        post = db.session.scalars(sa.select(Post).where(Post.slug == slug)).one()
        post.set_topics(
            [db.session.scalars(sa.select(Topic).where(Topic.slug == "frontend")).one()]
        )
        db.session.commit()
    assert found(app, "frontend") == ["Queue notes"]
    assert found(app, "storage") == []

    with app.app_context():
        db.session.delete(db.session.scalars(sa.select(Post).where(Post.slug == slug)).one())
        db.session.commit()
        if DATABASE == "sqlite":
            left = db.session.scalar(sa.text("SELECT count(*) FROM post_search"))
            assert left == 0
    assert found(app, "backpressure") == []


def test_only_live_posts_are_found(app, posts):
    """Drafts never match; a scheduled post matches once its time has come."""
    posts.create(1, title="Draft on vacuum", body="vacuum", published_at=None)
    [later] = posts.create(
        1, title="Scheduled vacuum", body="vacuum", published_at=utcnow() + timedelta(hours=3)
    )
    posts.create(1, title="Live vacuum", body="vacuum")
    assert found(app, "vacuum") == ["Live vacuum"]
    with app.app_context():
        post = db.session.scalars(sa.select(Post).where(Post.slug == later)).one()
        post.published_at = utcnow() - timedelta(minutes=1)
        db.session.commit()
    assert found(app, "vacuum") == ["Scheduled vacuum", "Live vacuum"]


def test_unpublishing_takes_a_post_out_of_search_and_publishing_brings_it_back(app, posts):
    """A post that goes back to draft stops matching; published again, it matches again."""
    [slug] = posts.create(1, title="Leader election", body="Raft terms.")
    with app.app_context():
        post = db.session.scalars(sa.select(Post).where(Post.slug == slug)).one()
        post.status = DRAFT
        db.session.commit()
    assert found(app, "raft") == []
    with app.app_context():
        post = db.session.scalars(sa.select(Post).where(Post.slug == slug)).one()
        post.status = PUBLISHED
        db.session.commit()
    assert found(app, "raft") == ["Leader election"]


# --- What a search finds -------------------------------------------------------------------


def test_stemming_finds_other_forms_of_a_word(app, posts):
    """ "checkpointing" finds "checkpoint" and the other way round."""
    posts.create(1, title="Checkpoint tuning", body="How often we checkpoint.")
    posts.create(1, title="Slow starts", body="Checkpointing made restarts slow.")
    assert sorted(found(app, "checkpointing")) == ["Checkpoint tuning", "Slow starts"]
    assert sorted(found(app, '"checkpoint"')) == ["Checkpoint tuning", "Slow starts"]


def test_quotes_search_a_phrase_and_words_match_anywhere(app, posts):
    """Quoted words must be adjacent; unquoted words may be anywhere in the post."""
    posts.create(1, title="Adjacent", body="The kv cache grows with context.")
    posts.create(1, title="Apart", body="A cache miss in the kv store.")
    assert found(app, '"kv cache"') == ["Adjacent"]
    assert sorted(found(app, "kv cache")) == ["Adjacent", "Apart"]


@pytest.mark.parametrize(
    "typed", ["kv", "kv c", "kv ca", "kv cac", "kv cach", "kv cache", '"kv c', "checkp"]
)
def test_the_last_word_matches_while_it_is_being_typed(app, posts, typed):
    """Search as you type: the unfinished last word matches words that start with it.

    A single letter of a new word is left out until the next keystroke, so the results do
    not blink away in between.
    """
    posts.create(1, title="Sizing the KV cache", body="Checkpointing the kv cache to disk.")
    posts.create(1, title="Unrelated", body="Kernel tuning notes.")
    assert found(app, typed) == ["Sizing the KV cache"]


def test_title_matches_rank_first_and_ties_go_to_the_newest(app, posts):
    """Relevance orders results (title over body); equal relevance puts newer posts first."""
    now = utcnow().replace(microsecond=0)
    posts.create(1, title="Notes alpha", body="Vacuum once.", published_at=now - timedelta(days=1))
    posts.create(1, title="Vacuum in depth", body="Words.", published_at=now - timedelta(days=30))
    posts.create(
        1, title="Replication beta", body="Same text.", published_at=now - timedelta(days=9)
    )
    posts.create(
        1, title="Replication gamma", body="Same text.", published_at=now - timedelta(days=2)
    )
    assert found(app, "vacuum") == ["Vacuum in depth", "Notes alpha"]
    assert found(app, "replication") == ["Replication gamma", "Replication beta"]


def test_a_broad_query_ranks_the_latest_matches_and_says_there_are_more(
    app, client, posts, monkeypatch
):
    """Past the ranking cap, the most recently added matches are ranked, and the page says
    that older posts were not looked at."""
    monkeypatch.setattr(search, "RANKED_MATCHES", 5)
    slugs = posts.create(8, body="Latency everywhere.")
    posts.create(2, body="Nothing to see.")
    with app.app_context():
        results = search.search_posts("latency")
        assert (results.page.total, results.more) == (5, True)
        assert sorted(post.slug for post in results.page.posts) == sorted(slugs[3:])
        narrow = search.search_posts('"latency everywhere" nothing')
        assert (narrow.page.total, narrow.more) == (0, False)
        exact = search.search_posts('"summary of post 2"')
        assert (exact.page.total, exact.more) == (1, False)
    page = soup(client.get("/search?q=latency"))
    assert text_of(page, "#result-counter") == "Showing 5 of 5 results"
    capped = text_of(page, ".search-capped")
    assert capped.startswith("Only the 5 most recently added posts with these words")
    assert page.select_one("#result-more .read-more") is None
    assert client.get("/search?q=latency&page=2").status_code == 404
    status = soup(client.get("/search?q=latency", headers=HTMX_MAIN)).select_one("#search-status")
    assert status.get_text().startswith("5 results for “latency”. Only the 5 most recently")


@pytest.mark.parametrize(
    "query",
    [
        '"',
        '"""',
        "'",
        "kv AND",
        "NOT",
        "OR OR OR",
        "NEAR(kv cache, 2)",
        "title:kv",
        "kv*",
        "*",
        "^kv",
        "kv:*",
        "kv & | ! <-> cache",
        "(kv",
        "kv)",
        "'; DROP TABLE posts; --",
        "\\",
        "%_%",
        "{kv}",
        "a\x00b",
        "🔥🔥",
        "<script>alert(1)</script>",
        "\ue000kv\ue001",
        "-kv",
        "kv -cache",
    ],
)
def test_any_characters_are_searched_literally_never_an_error(app, client, posts, query):
    """Operators, quotes, SQL and emoji are text to look for: 200 and the posts still there."""
    posts.create(1, title="KV cache", body="The kv cache and NOT much else.")
    response = client.get("/search", query_string={"q": query})
    assert response.status_code == 200
    assert soup(response).select_one("#search-results") is not None
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == 1


@pytest.mark.parametrize("query", ["-kv", "kv)", "(kv", "{kv}", "kv*", "kv:", "^kv", "kv;"])
def test_punctuation_around_a_word_still_finds_it(client, posts, query):
    """Symbols around a word are not operators: the word itself is searched."""
    posts.create(1, title="KV cache", body="The kv cache.")
    posts.create(1, title="Other", body="Nothing here.")
    assert titles_for(client, query) == ["KV cache"]


def test_snippet_highlights_matches_and_escapes_the_post_text(client, posts):
    """The excerpt marks the matched words and shows a post's markup as text."""
    posts.create(
        1,
        title="Escaping",
        body="We saw <script>alert(1)</script> and <b>bold</b> near the kv cache eviction path.",
    )
    response = client.get("/search", query_string={"q": "eviction"})
    page = soup(response)
    snippet = page.select_one("#result-list .search-snippet")
    assert [m.get_text() for m in snippet.select("mark")] == ["eviction"]
    assert snippet.select("script") == [] and snippet.select("b") == []
    assert page.select("main script") == []
    html = response.get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html
    assert "\ue000" not in html and "\ue001" not in html


def test_no_snippet_when_the_body_did_not_match(client, posts):
    """A title or summary match shows the card alone (its summary is already on the card)."""
    posts.create(1, title="Alpha", summary="About flamegraphs.", body="Body words.")
    posts.create(1, title="Flamegraphs explained", summary="A summary.", body="Body words.")
    posts.create(1, title="Gamma", summary="A summary.", body="Reading flamegraphs.")
    page = soup(client.get("/search", query_string={"q": "flamegraphs"}))
    items = {
        li.select_one(".card-title a").get_text(): li.select_one(".search-snippet")
        for li in page.select("#result-list > li")
    }
    assert items["Flamegraphs explained"] is None and items["Alpha"] is None
    assert [m.get_text() for m in items["Gamma"].select("mark")] == ["flamegraphs"]


# --- The page --------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_empty_search_shows_a_hint(client, posts, query):
    """No text: a hint, status 200, no results list."""
    posts.create(2)
    response = client.get("/search", query_string={"q": query})
    assert response.status_code == 200
    page = soup(response)
    assert "Type a word" in text_of(page, ".search-hint")
    assert page.select_one("#result-list") is None
    assert text_of(page, "h1") == "Search"
    assert client.get("/search").status_code == 200


def test_symbols_only_search_says_there_is_nothing_to_search(client, posts):
    """A query without letters or digits explains itself instead of listing nothing."""
    posts.create(1)
    page = soup(client.get("/search", query_string={"q": "🔥 ***"}))
    assert "no letters or digits" in text_of(page, "#search-results .empty")


def test_long_queries_are_cut_to_200_characters_with_a_message(client, posts):
    """Over 200 characters: the first 200 are searched and the page says so."""
    posts.create(1, title="KV cache", body="kv cache")
    query = "kv " + "x" * 400
    response = client.get("/search", query_string={"q": query})
    assert response.status_code == 200
    page = soup(response)
    assert "first 200" in text_of(page, ".search-notice")
    assert len(page.select_one("#site-search-q")["value"]) == 200
    exact = soup(client.get("/search", query_string={"q": "kv " + "x" * 197}))
    assert exact.select_one(".search-notice") is None


def test_a_query_string_over_the_site_limit_is_refused_cleanly(client):
    """Beyond the site's query-string limit the site's 400 page answers, never a 500."""
    response = client.get("/search", query_string={"q": "x" * 5000})
    assert response.status_code == 400
    assert soup(response).select_one(".site-header .brand") is not None


@pytest.mark.parametrize(
    ("number", "counter", "first", "count", "next_page"),
    [
        (1, "Showing 1–12 of 37 results", 1, 12, 2),
        (2, "Showing 13–24 of 37 results", 13, 12, 3),
        (4, "Showing 37–37 of 37 results", 37, 1, None),
    ],
)
def test_results_are_paged_like_the_listing(
    client, posts, number, counter, first, count, next_page
):
    """12 a page, the listing's counter wording, and a read more link to the next page."""
    posts.create(37, body="Disk latency.")
    posts.create(5, body="Nothing relevant.")
    url = "/search?q=latency" + (f"&page={number}" if number > 1 else "")
    page = soup(client.get(url))
    assert text_of(page, "#result-counter") == counter
    links = [a["href"] for a in page.select("#result-list .card-title a")]
    assert len(links) == count
    more = page.select_one("#result-more .read-more")
    if next_page is None:
        assert more is None
    else:
        assert more["href"] == more["data-hx-get"] == f"/search?q=latency&page={next_page}"
        assert more["data-hx-target"] == "#result-list" and more["data-hx-swap"] == "beforeend"
        assert shown_text(more) == "read more"
        assert spoken_name(more) == "read more results"


def test_pages_hold_each_result_once_in_rank_order(client, posts):
    """Walking the pages visits every match exactly once, newest first among equals."""
    slugs = posts.create(30, body="Same words about paging.")
    seen = []
    for number in (1, 2, 3):
        page = soup(client.get(f"/search?q=paging&page={number}"))
        seen += [
            a["href"].removeprefix("/posts/") for a in page.select("#result-list .card-title a")
        ]
    assert seen == slugs


def test_a_short_result_list_has_the_short_counter(client, posts):
    """Up to 12 results: "Showing 3 of 3 results", and no read more."""
    posts.create(3, body="Tracing spans.")
    page = soup(client.get("/search?q=tracing"))
    assert text_of(page, "#result-counter") == "Showing 3 of 3 results"
    assert page.select_one("#result-more .read-more") is None
    one = soup(client.get("/search", query_string={"q": '"summary of post 1"'}))
    assert text_of(one, "#result-counter") == "Showing 1 of 1 result"


def test_no_results_say_so(client, posts):
    """Nothing matching: a clear message, still status 200."""
    posts.create(2)
    response = client.get("/search?q=zeppelin")
    assert response.status_code == 200
    assert "No posts match “zeppelin”" in text_of(soup(response), "#search-results .empty")


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("q=latency&page=abc", 400),
        ("q=latency&page=0", 400),
        ("q=latency&page=-1", 400),
        ("q=latency&page=1.5", 400),
        ("q=latency&page=%EF%BC%92", 400),
        ("q=latency&page=3", 404),
        ("q=latency&page=999999999", 404),
        ("q=zeppelin&page=2", 404),
        ("q=latency&topic=no-such-topic", 404),
    ],
)
def test_bad_pages_and_topics(client, posts, query, status):
    """Nonsense pages are 400, pages past the end and unknown topics 404, in the site layout."""
    posts.create(13, body="Disk latency.")
    response = client.get(f"/search?{query}")
    assert response.status_code == status
    assert soup(response).select_one(".site-header .brand") is not None


def test_search_can_be_narrowed_to_a_topic(client, posts):
    """`topic=` keeps only that topic's matches; the topic form carries the query along."""
    posts.topics("Databases", "Frontend")
    posts.create(3, body="Latency.", topics=("Databases",))
    ui = posts.create(2, body="Latency.", topics=("Frontend", "Databases"))
    posts.create(4, body="Other.", topics=("Frontend",))
    frontend = soup(client.get("/search?q=latency&topic=frontend"))
    assert [a["href"] for a in frontend.select("#result-list .card-title a")] == [
        f"/posts/{slug}" for slug in ui
    ]
    assert len(titles_for(client, "latency", topic="databases")) == 5
    assert len(titles_for(client, "latency", topic="")) == 5
    page = soup(client.get("/search?q=latency&topic=frontend"))
    form = page.select_one("form#search-filter")
    assert form["action"] == "/search" and form["method"] == "get"
    assert form.select_one('input[type="hidden"][name="q"]')["value"] == "latency"
    selected = form.select_one("select#search-topic option[selected]")
    assert selected["value"] == "frontend"
    assert [o["value"] for o in form.select("option")] == ["", "databases", "frontend"]
    assert page.select_one('label[for="search-topic"]') is not None
    empty = soup(client.get("/search?q=zeppelin&topic=frontend"))
    assert empty.select_one("#search-results .empty a")["href"] == "/search?q=zeppelin"
    more = soup(client.get("/search?q=latency&topic=databases"))
    assert text_of(more, "#result-counter") == "Showing 5 of 5 results"


def test_read_more_keeps_the_topic(client, posts):
    """The next page's address carries the query and the topic."""
    posts.topics("Databases")
    posts.create(14, body="Latency.", topics=("Databases",))
    more = soup(client.get("/search?q=latency&topic=databases")).select_one(".read-more")
    assert parse_qs(urlsplit(more["href"]).query) == {
        "q": ["latency"],
        "topic": ["databases"],
        "page": ["2"],
    }


def test_search_page_title_heading_and_box_show_the_query(client, posts):
    """The tab title, heading and header box all carry the query; the page is not indexed."""
    posts.create(1, body="Latency.")
    page = soup(client.get("/search?q=latency"))
    assert page.title.get_text() == "“latency” · Search · Fieldnotes"
    assert text_of(page, "h1") == "Results for “latency”"
    assert page.select_one("#site-search-q")["value"] == "latency"
    assert page.select_one('meta[name="robots"]')["content"] == "noindex"
    assert [h.name for h in page.select("#result-list .card-title")] == ["h2"]


# --- The header box and the htmx fragments ---------------------------------------------------


@pytest.mark.parametrize(
    ("path", "history"), [("/", "data-hx-push-url"), ("/search?q=x", "data-hx-replace-url")]
)
def test_header_search_box_is_on_every_page(client, posts, path, history):
    """A labelled GET form to /search; typing swaps <main>, debounced, the old request dropped."""
    posts.create(1)
    page = soup(client.get(path))
    form = page.select_one(".site-header form#site-search")
    assert form["role"] == "search" and form["action"] == "/search" and form["method"] == "get"
    assert form["data-hx-target"] == "#main" and form[history] == "true"
    field = form.select_one("input#site-search-q")
    assert field["type"] == "search" and field["name"] == "q"
    assert form.select_one('label[for="site-search-q"]').get_text(strip=True) == "Search posts"
    assert field["data-hx-get"] == "/search"
    assert field["data-hx-trigger"] == "input changed delay:250ms, search"
    assert field["data-hx-sync"].endswith(":replace")
    assert form.select_one('button[type="submit"]') is not None
    status = form.select_one("#search-status")
    assert status["role"] == "status" and status["aria-live"] == "polite"
    script = page.select_one('script[src^="/static/js/search.js"]')
    assert script is not None and not script.get_text().strip()


def test_search_page_has_no_inline_script_or_style(client, posts):
    """The page obeys the CSP: scripts only from files, no style attributes, no hx-on."""
    posts.create(14, body="Latency.")
    page = soup(client.get("/search?q=latency"))
    assert all(
        tag.get("src") for tag in page.select("script") if tag.get("type") != "application/ld+json"
    )
    assert page.select("[style]") == [] and page.select("style") == []
    assert not any(
        attr.startswith(("hx-on", "data-hx-on"))
        for tag in page.find_all(True)
        for attr in tag.attrs
    )


def test_typing_swaps_the_main_fragment(client, posts):
    """An htmx request aimed at <main> gets the search page's content, title and status only."""
    posts.create(13, body="Latency.")
    response = client.get("/search?q=latency", headers=HTMX_MAIN)
    body = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "<html" not in body and "site-header" not in body
    page = soup(response)
    assert page.title.get_text() == "“latency” · Search · Fieldnotes"
    status = page.select_one('#search-status[data-hx-swap-oob="innerHTML"]')
    assert status.get_text() == "13 results for “latency”"
    assert text_of(page, "h1") == "Results for “latency”"
    assert text_of(page, "#result-counter") == "Showing 1–12 of 13 results"
    assert "HX-Request" in response.headers["Vary"] and "HX-Target" in response.headers["Vary"]
    empty = soup(client.get("/search?q=", headers=HTMX_MAIN))
    assert empty.select_one(".search-hint") is not None
    assert empty.select_one("#search-status").get_text() == ""


def test_topic_change_swaps_only_the_results(client, posts):
    """Changing the topic replaces the results region and leaves the form alone."""
    posts.topics("Databases", "Frontend")
    posts.create(2, body="Latency.", topics=("Frontend",))
    posts.create(3, body="Latency.", topics=("Databases",))
    response = client.get("/search?q=latency&topic=frontend", headers=HTMX_RESULTS)
    body = response.get_data(as_text=True)
    assert "<html" not in body and "search-filter" not in body and "<h1" not in body
    page = soup(response)
    assert page.select_one("div#search-results") is not None
    assert text_of(page, "#result-counter") == "Showing 2 of 2 results"
    assert page.select_one("#search-status").get_text() == "2 results for “latency”"


def test_read_more_answers_with_the_next_results_only(client, posts):
    """An htmx read more gets the next results, the counter's new end and the next control."""
    posts.create(30, body="Latency.")
    response = client.get("/search?q=latency&page=2", headers=HTMX_MORE)
    body = response.get_data(as_text=True)
    assert "<html" not in body and "search-results" not in body
    page = soup(response)
    assert len(page.find_all("li", recursive=False)) == 12
    assert page.select_one('#result-shown-last[data-hx-swap-oob="true"]').get_text() == "24"
    more = page.select_one('#result-more[data-hx-swap-oob="true"] .read-more')
    assert more["data-hx-get"] == "/search?q=latency&page=3"
    assert shown_text(more) == "read more" and spoken_name(more) == "read more results"
    last = soup(client.get("/search?q=latency&page=3", headers=HTMX_MORE))
    assert last.select_one('#result-more[data-hx-swap-oob="true"]').select(".read-more") == []


@pytest.mark.parametrize(
    "headers",
    [{}, {"HX-Request": "true", "HX-History-Restore-Request": "true", "HX-Target": "main"}],
)
def test_plain_and_history_restore_requests_get_the_whole_page(client, posts, headers):
    """Without htmx, or when htmx restores history, the whole page comes back."""
    posts.create(13, body="Latency.")
    page = soup(client.get("/search?q=latency&page=2", headers=headers))
    assert page.select_one("html") is not None and page.select_one(".site-header") is not None
    assert text_of(page, "#result-counter") == "Showing 13–13 of 13 results"


def test_search_runs_a_fixed_number_of_statements(app, client, posts):
    """However many posts match, a search page costs the same few statements."""
    posts.topics("Databases")

    def statements_per_page() -> list[int]:
        counts = []
        for url, headers in (
            ("/search?q=latency", {}),
            ("/search?q=latency&topic=databases", {}),
            ("/search?q=latency&page=2", HTMX_MORE),
        ):
            with count_queries(app) as statements:
                assert client.get(url, headers=headers).status_code == 200
            counts.append(len(statements))
        return counts

    posts.create(13, body="Latency.", topics=("Databases",))
    few = statements_per_page()
    posts.create(60, body="Latency.", topics=("Databases",))
    assert statements_per_page() == few
    assert max(few) <= 9, few


# --- The migration both ways -----------------------------------------------------------------


@pytest.fixture
def fresh_database_url(tmp_path) -> Iterator[str]:
    """An empty database of the run's kind, for migrating up and down."""
    if DATABASE == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
        return
    with postgres_database("fieldnotes_search") as url:
        yield url


def test_downgrade_removes_the_index_and_upgrade_indexes_existing_posts(fresh_database_url):
    """Downgrading drops every search object; upgrading again indexes the posts already there."""
    app = create_app(
        {"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": fresh_database_url}
    )
    with app.app_context():
        flask_migrate.upgrade(revision="heads")
        topic = store.topic_named("Databases")
        store.new_post(
            title="Write amplification",
            body="Compaction rewrites data.",
            author=store.author_named("Ada Example"),
            topics=[topic],
            published_at=utcnow() - timedelta(hours=1),
        )
        db.session.commit()
        assert [p.title for p in search.search_posts("compaction").page.posts] == [
            "Write amplification"
        ]
        db.session.remove()
        flask_migrate.downgrade(revision="0002_editors")  # the revision before search
        inspector = sa.inspect(db.engine)
        assert not any("search" in name for name in inspector.get_table_names())
        assert "search_vector" not in {c["name"] for c in inspector.get_columns("posts")}
        with db.engine.connect() as connection:
            if DATABASE == "sqlite":
                query = "SELECT name FROM sqlite_master WHERE type = 'trigger'"
            else:
                query = "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"
            assert not any("search" in n for (n,) in connection.execute(sa.text(query)))
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == 1
        db.session.remove()
        flask_migrate.upgrade(revision="heads")
        assert [p.title for p in search.search_posts("databases").page.posts] == [
            "Write amplification"
        ]
        db.session.remove()
        db.engine.dispose()


def test_snippets_quote_the_rendered_text_not_the_markdown(client, posts):
    """Code spans, emphasis, links and headings read as a reader sees them, matches marked."""
    posts.create(
        1,
        title="Joins",
        body="## Reading *orders*\n\nWe join the `orders` table to "
        "[the **ledger**](https://example.com/x) and count 5 &lt; 6 rows.",
    )
    snippet = soup(client.get("/search", query_string={"q": "orders ledger"})).select_one(
        ".search-snippet"
    )
    text = " ".join(snippet.get_text().split())
    assert "`" not in text and "*" not in text and "](" not in text and "##" not in text
    assert "¶" not in text
    assert "We join the orders table to the ledger and count 5 < 6 rows." in text
    assert {m.get_text() for m in snippet.select("mark")} == {"orders", "ledger"}
