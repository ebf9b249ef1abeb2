"""What a search may cost: the words it looks for, the posts it ranks, the part of a body an
excerpt is cut from, and search pages kept in the page cache (issue 19)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from flask import template_rendered
from jinja2_fragments.flask import template_block_rendered

from blog import fulltext
from blog.models import utcnow
from blog.reading import search
from blog.web import pagecache
from tests.conftest import DATABASE

HTMX_MAIN = {"HX-Request": "true", "HX-Target": "main"}
HTMX_RESULTS = {"HX-Request": "true", "HX-Target": "search-results"}
HTMX_MORE = {"HX-Request": "true", "HX-Target": "result-list"}
EIGHT = ("a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8")


def soup(response) -> BeautifulSoup:
    """Parse a response body as HTML."""
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def texts(page: BeautifulSoup, selector: str) -> list[str]:
    """The whitespace-normalised text of every element matching `selector`."""
    return [" ".join(element.get_text().split()) for element in page.select(selector)]


def titles(page: BeautifulSoup) -> list[str]:
    """Titles of the results, in order."""
    return [a.get_text(strip=True) for a in page.select("#result-list .card-title a")]


def found(app, query: str, **options) -> list[str]:
    """Titles the query function returns for `query` (first page)."""
    with app.app_context():
        return [post.title for post in search.search_posts(query, **options).page.posts]


@pytest.fixture
def slow_markdown_allowed(app):
    """Long bodies render within the time Markdown is allowed, however busy the machine."""
    before = app.config.get("MARKDOWN_TIME_LIMIT")
    app.config["MARKDOWN_TIME_LIMIT"] = 60
    yield
    app.config["MARKDOWN_TIME_LIMIT"] = before


# --- Words: repeats dropped, at most eight -----------------------------------------------


@pytest.mark.parametrize(
    ("text", "kept", "left_out"),
    [
        ("the " * 50, [("the", False)], []),
        ("Kafka kafka KAFKA lag", [("Kafka", False), ("lag", True)], []),
        ('"kv cache" "KV  cache" kv', [("kv cache", False), ("kv", True)], []),
        ("kv cache kv", [("kv", False), ("cache", False)], []),
        (
            "a1 b2 c3 d4 e5 f6 g7 h8",
            [(w, w == "h8") for w in EIGHT],
            [],
        ),
        (
            "a1 b2 c3 d4 e5 f6 g7 h8 i9 j10",
            [(w, False) for w in EIGHT],
            ["i9", "j10"],
        ),
        (
            'a1 b2 c3 d4 e5 f6 "g7 h8 i9 j10" k11',
            [*[(w, False) for w in EIGHT[:6]], ("g7 h8", False)],
            ["i9 j10", "k11"],
        ),
        ('"' + "the " * 20 + '"', [(" ".join(["the"] * 8), False)], [" ".join(["the"] * 12)]),
    ],
)
def test_repeated_words_go_and_at_most_eight_are_searched(text, kept, left_out):
    """Repeats (whatever their case) are dropped silently; words past the eighth are named,
    and a phrase that crosses the limit is cut there."""
    query = search.limit_terms(search.parse_query(search.clean_query(text)[0]))
    assert [(term.text, term.prefix) for term in query.terms] == kept
    assert list(query.left_out) == left_out
    assert sum(len(term.words) for term in query.terms) <= fulltext.MAX_WORDS


def test_the_page_says_which_words_were_not_searched(client, posts):
    """Past eight words the page names the words left out, on the page and in the status
    the header's live region announces after a swap."""
    posts.create(1, title="Alpha beta gamma delta epsilon zeta eta theta")
    query = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    page = soup(client.get("/search", query_string={"q": query}))
    notice = "Searches are limited to 8 different words: “iota kappa” were not searched."
    assert texts(page, "#search-results .search-notice") == [notice]
    assert titles(page) == ["Alpha beta gamma delta epsilon zeta eta theta"]
    swapped = soup(client.get("/search", query_string={"q": query}, headers=HTMX_MAIN))
    status = swapped.select_one('#search-status[data-hx-swap-oob="innerHTML"]').get_text()
    assert status == f"1 result for “{query}”. {notice}"
    one = soup(client.get("/search", query_string={"q": query.rsplit(" ", 1)[0]}))
    assert "“iota” was not searched." in texts(one, ".search-notice")[0]
    repeats = soup(client.get("/search", query_string={"q": "alpha " * 30}))
    assert repeats.select(".search-notice") == []


def test_a_long_cut_query_says_both(client, posts):
    """A query cut at 200 characters and past eight words gets both notices, in that order."""
    posts.create(1)
    page = soup(client.get("/search", query_string={"q": " ".join(f"w{n}" for n in range(80))}))
    notices = texts(page, ".search-notice")
    assert len(notices) == 2
    assert notices[0].startswith("Searches are limited to 200 characters")
    assert notices[1].startswith("Searches are limited to 8 different words: “w8 w9")


# --- The cost of one search -----------------------------------------------------------------


def the_and_more(characters: int) -> str:
    """Prose in which "the" is every third word or so, `characters` long."""
    sentence = "The cache of the replica held the index while the planner read the table. "
    paragraphs = []
    while sum(len(p) + 2 for p in paragraphs) < characters:
        paragraphs.append(sentence * 12)
    return "\n\n".join(paragraphs)[:characters]


def test_a_repeated_common_word_over_a_200000_character_post_answers_fast(
    client, posts, slow_markdown_allowed
):
    """A word repeated to 200 characters ("the" fifty times) over a post of 200,000
    characters, as a full page and as the swap typing makes: each answers within a second
    and a half, the long post with its excerpt. Every repeat used to be a phrase of its
    own, and the engine's excerpt and score grew with their square over the whole body:
    tens of seconds. (PostgreSQL does not index "the", a stop word: it finds nothing.)"""
    posts.create(11, body=the_and_more(3_000))
    [long] = posts.create(1, title="The long one", body=the_and_more(200_000))
    for word, marked in (("the", "The"), ("cache", "cache")):
        query = " ".join([word] * (fulltext.MAX_QUERY_LENGTH // (len(word) + 1)))
        for headers in ({}, HTMX_MAIN):
            started = time.perf_counter()
            response = client.get("/search", query_string={"q": query}, headers=headers)
            elapsed = time.perf_counter() - started
            assert response.status_code == 200
            assert elapsed < 1.5, f"{word}: {elapsed:.1f} s"
        if word == "the" and DATABASE == "postgresql":
            continue
        page = soup(response)
        assert "The long one" in titles(page)
        item = page.select_one(f'#result-list li:has(a[href="/posts/{long}"])')
        assert item.select(".search-snippet mark")[0].get_text() == marked


def test_a_phrase_of_common_words_reads_only_the_candidates(app, client, posts, monkeypatch):
    """A phrase whose words are in every post is looked for among the latest posts holding
    its words only: older posts are not read, and the page says so."""
    monkeypatch.setattr(search, "RANKED_MATCHES", 4)
    posts.create(1, title="Old one", body="The stale slow path.")  # the phrase, oldest
    newer = posts.create(6, body="Slow, then stale.")  # both words, never in a row
    posts.create(1, title="New one", body="A stale slow path.")  # the phrase, newest
    with app.app_context():
        results = search.search_posts('"stale slow"')
        assert [post.title for post in results.page.posts] == ["New one"]
        assert results.more
        assert len(search.search_posts("stale slow").page.posts) == 4
    page = soup(client.get("/search", query_string={"q": '"stale slow"'}))
    assert texts(page, ".search-capped")[0].startswith("Only the 4 most recently added posts")
    monkeypatch.setattr(search, "RANKED_MATCHES", 300)
    assert sorted(found(app, '"stale slow"')) == ["New one", "Old one"]
    assert len(found(app, "stale slow")) == len(newer) + 2


@pytest.mark.parametrize("walk", [1, 2, 3, 300])
def test_postgresql_reads_the_newest_posts_then_asks_the_index(app, posts, monkeypatch, walk):
    """PostgreSQL reads the newest posts first and asks the GIN index for older ones when
    the words are rare among them: the candidates are the same whichever way they came."""
    if DATABASE != "postgresql":
        pytest.skip("the walk back is PostgreSQL's")
    monkeypatch.setattr(search, "RANKED_MATCHES", 3)
    monkeypatch.setattr(search, "WALK", walk)
    monkeypatch.setattr(search, "WALK_LIMIT", 4)
    rare = posts.create(2, body="A zeppelin.")  # oldest
    posts.create(6, body="Nothing here.")
    common = posts.create(5, body="Latency and a zeppelin.")
    posts.create(2, body="Latency only.")
    assert found(app, "zeppelin") != []
    with app.app_context():
        results = search.search_posts("zeppelin")
        assert (results.page.total, results.more) == (3, True)
        assert {p.slug for p in results.page.posts} == set(common[-3:])
        monkeypatch.setattr(search, "RANKED_MATCHES", 10)
        everything = search.search_posts("zeppelin")
        assert {p.slug for p in everything.page.posts} == set(common + rare)
        assert not everything.more
        none = search.search_posts("the of and")  # stop words only: nothing to look for
        assert (none.page.total, none.more) == (0, False)


def generic_plan(statement, values: dict) -> str:
    """PostgreSQL's generic plan of a statement, as the app's connections plan what they
    run (plan_cache_mode, blog/database.py), with sequential scans ruled out: what is left
    is the indexes the statement can use."""
    import psycopg.sql
    from sqlalchemy.dialects.postgresql import asyncpg

    from blog.extensions import db

    compiled = statement.compile(dialect=asyncpg.dialect())  # $1, $2... placeholders
    given = compiled.params | values
    arguments = [given[name] for name in compiled.positiontup]
    connection = db.session.connection()
    connection.exec_driver_sql("SET LOCAL plan_cache_mode = force_generic_plan")
    connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
    connection.exec_driver_sql(f"PREPARE search_plan AS {compiled}")
    driver = connection.connection.driver_connection
    literals = ", ".join(psycopg.sql.Literal(value).as_string(driver) for value in arguments)
    rows = connection.exec_driver_sql(f"EXPLAIN EXECUTE search_plan({literals})")
    plan = "\n".join(row[0] for row in rows)
    connection.exec_driver_sql("DEALLOCATE search_plan")
    return plan


@pytest.mark.parametrize("in_topic", [False, True])
def test_postgresql_walks_back_and_looks_up_through_the_gin_index(app, posts, in_topic):
    """Under the app's generic plans, which cannot tell a common word from a rare one, the
    walk reads the newest posts down an index of ids, and the look-up of older posts goes
    through the GIN index: no plan can read every post's vector to find the words."""
    if DATABASE != "postgresql":
        pytest.skip("PostgreSQL's plans")
    posts.create(3, body="Latency.")
    with app.app_context():
        query = search.limit_terms(search.parse_query("latency"))
        form = (
            fulltext.prefix_shape(query.terms),
            fulltext.prefix_shape(query.words),
            False,
            in_topic,
        )
        values = search._values(topic_id=1, need=5, last=2_147_483_647, walk=300)
        values |= fulltext.tsquery_values(query.terms, "term")
        values |= fulltext.tsquery_values(query.words, "word", in_a_row=False)
        values |= {"title": "'latency':*A", "summary": "'latency':*B"}
        walk = generic_plan(search._postgresql_walk(*form), values)
        index = generic_plan(search._postgresql_index(*form), values)
    recent = walk.split("CTE recent", 1)[1].split("\n  ->", 1)[0]
    backward = (
        "Index Only Scan Backward using ix_post_topics"
        if in_topic
        else "Index Scan Backward using pk_posts"
    )
    assert backward in recent
    assert not any(name in recent for name in ("ix_posts_search_vector", "ix_posts_listing"))
    hits = index.split("CTE hits", 1)[1].split("\n  ->", 1)[0]
    assert "Bitmap Index Scan on ix_posts_search_vector" in hits
    assert not any(name in hits for name in ("ix_posts_listing", "ix_posts_pick", "pk_posts"))


@pytest.mark.parametrize(
    ("listed", "shared"),
    [(100, 20), (0, 1), (0, 1000)],  # FTS5 handed the posts; each match checked; filtered
)
def test_a_search_in_a_topic_finds_the_same_whichever_way(app, posts, monkeypatch, listed, shared):
    """However SQLite narrows a search to a topic (by the topic's size), the results are the
    same: the topic's posts with the words, newest first among equals."""
    monkeypatch.setattr(search, "LISTED_TOPIC", listed)
    monkeypatch.setattr(search, "SHARED_TOPIC", shared)
    posts.topics("Databases", "Frontend")
    ui = posts.create(3, body="Latency in the browser.", topics=("Frontend", "Databases"))
    posts.create(4, body="Latency on disk.", topics=("Databases",))
    posts.create(2, body="Nothing here.", topics=("Frontend",))
    with app.app_context():
        from blog.reading import listing

        frontend = listing.topic_filter().of("frontend").topic
        assert [p.slug for p in search.search_posts("latency", topic=frontend).page.posts] == ui
        assert [p.slug for p in search.search_posts("laten", topic=frontend).page.posts] == ui
        assert search.search_posts('"in the browser"', topic=frontend).page.total == 3


def test_a_word_being_typed_that_already_fills_the_candidates_is_not_grown(app, posts, monkeypatch):
    """While typing, the last word also matches longer words; when the word as typed already
    matches more posts than are ranked, only it is looked for (FTS5 would first gather every
    post of every longer word)."""
    if DATABASE != "sqlite":
        pytest.skip("PostgreSQL's index finds longer words at no extra cost")
    monkeypatch.setattr(search, "RANKED_MATCHES", 2)
    posts.create(3, body="A flame.")
    grown = posts.create(1, body="A flamegraph.")  # the newest: found only by the prefix
    with app.app_context():
        results = search.search_posts("flame")
        assert results.more and grown[0] not in {p.slug for p in results.page.posts}
        assert [p.slug for p in search.search_posts("flameg").page.posts] == grown


def test_only_the_latest_posts_with_the_words_are_ranked(app, client, posts, monkeypatch):
    """Past the cap the most recently added are ranked, whatever matches older, and the
    page says that older posts were not looked at."""
    monkeypatch.setattr(search, "RANKED_MATCHES", 3)
    older = posts.create(1, title="Latency in the title, but old", body="Latency.")
    newer = posts.create(4, body="Latency.")
    with app.app_context():
        results = search.search_posts("latency")
        assert {p.slug for p in results.page.posts} == set(newer[-3:])
        assert results.more
    assert older[0] not in client.get("/search?q=latency").get_data(as_text=True)


# --- Excerpts: from the start of the body, cut around the first match ----------------------


def excerpt_of(body: str, query: str, cut: bool = False) -> str | None:
    """The excerpt's HTML for `query` in `body`, or None."""
    terms = search.limit_terms(search.parse_query(query)).terms
    pattern = search.marker(terms)
    assert pattern is not None
    snippet = fulltext.excerpt(body, pattern, cut)
    return None if snippet is None else str(snippet)


@pytest.mark.parametrize(
    ("body", "query", "marked"),
    [
        ("We tuned checkpointing twice.", "checkpoint", ["checkpointing"]),
        ("Latencies grew; latency fell.", "latency", ["Latencies", "latency"]),
        ("The kv cache, a cache of kv pairs.", '"kv cache"', ["kv cache"]),
        ("The kv-cache sizing.", '"kv cache"', ["kv-cache"]),
        ("Caching the cachet.", "cach", ["Caching", "cachet"]),  # the last word grows
        ("Caching the cachet.", "cache done", ["Caching"]),
        ("Flamegraphs and flame graphs.", "flamegraph", ["Flamegraphs"]),
        ("Nothing to see.", "zeppelin", []),
    ],
)
def test_excerpts_mark_the_readers_words(body, query, marked):
    """Words are marked with or without their endings, phrases as words in a row, the word
    being typed as a prefix; a body without them has no excerpt."""
    html = excerpt_of(body, query)
    if not marked:
        assert html is None
        return
    assert [m.get_text() for m in BeautifulSoup(html, "html.parser").select("mark")] == marked


def test_an_excerpt_is_a_few_words_around_the_first_match():
    """Six words of context, twenty-eight words in all, and an ellipsis where text goes on."""
    words = [f"w{n}" for n in range(200)]
    words[100] = "needle"
    html = excerpt_of(" ".join(words), "needle")
    text = BeautifulSoup(html, "html.parser").get_text()
    assert text.startswith("… w94 w95 w96 w97 w98 w99 needle w101")
    assert text.endswith("w121 …")
    assert excerpt_of("needle at the start", "needle") == "<mark>needle</mark> at the start"
    assert excerpt_of("needle at the start", "needle", cut=True).endswith(" …")


def test_an_excerpt_escapes_the_post_and_its_own_markers():
    """The post's markup and any private-use characters in it are text, never tags."""
    body = "a <b>bold</b> \ue000claim\ue001 about <script>x</script> needle"
    html = excerpt_of(body, "needle")
    page = BeautifulSoup(html, "html.parser")
    assert [m.get_text() for m in page.select("mark")] == ["needle"]
    assert page.select("b") == [] and page.select("script") == []
    assert "\ue000" not in html and "&lt;b&gt;" in html


def test_excerpts_come_from_the_start_of_the_body(client, posts, slow_markdown_allowed):
    """A match past the first SNIPPET_WINDOW characters still finds the post, which shows
    its card without an excerpt; within them, the excerpt is there."""
    filler = "Plain words without it. " * (search.SNIPPET_WINDOW // 24 + 10)
    posts.create(1, title="Deep", body=f"{filler}\n\nThe zeppelin lands.")
    posts.create(1, title="Early", body=f"The zeppelin lands.\n\n{filler}")
    page = soup(client.get("/search?q=zeppelin"))
    assert sorted(titles(page)) == ["Deep", "Early"]
    snippets = {
        li.select_one(".card-title a").get_text(strip=True): li.select_one(".search-snippet")
        for li in page.select("#result-list > li")
    }
    assert snippets["Deep"] is None
    assert snippets["Early"].get_text().endswith("…")


@pytest.mark.parametrize(
    "query", ["zeppelin", "lands", '"zeppelin lands"', "plain", "permanent", "para", "p", "em"]
)
def test_a_body_excerpt_reads_only_as_much_text_as_it_needs_and_is_the_same(query):
    """body_excerpt turns markup into text only a little past where the words first appear
    in it, and gives exactly the excerpt of the whole window's text: a match early or late,
    words split by tags (a phrase across <em>), words found only in tags or entities, a
    window that goes on."""
    filler = "<p>Plain words without it, said <em>plainly</em>.</p>\n" * 120
    heading = '<h2 id="x">Permanent<a class="headerlink" href="#x">&para;</a></h2>\n'
    bodies = [
        f"<p>The zeppelin lands.</p>\n{filler}",
        f"{filler}{heading}<p>The <em>zeppelin</em> lands.</p>\n{filler}",
        f"{filler}<p>The zep<em>pelin</em> lands, <em>zeppelin</em> lands.</p>",
        f'<p class="zeppelin lands">{filler}</p>{heading * 3}',
        (filler * 5)[: fulltext.SNIPPET_WINDOW + 1],
    ]
    pattern = fulltext.marker(search.limit_terms(search.parse_query(query)).terms)
    assert pattern is not None
    for body in bodies:
        window = body[: fulltext.SNIPPET_WINDOW]
        whole = fulltext.rendered_text(window)
        expected = fulltext.excerpt(whole, pattern, len(body) > fulltext.SNIPPET_WINDOW)
        assert fulltext.body_excerpt(body, pattern) == expected, (query, body[:80])


# --- Kept in the page cache ---------------------------------------------------------------


def renders(app):
    """A list that fills with the name of every template the app renders, whole or a block
    of it, and the function that stops it."""
    rendered: list[str] = []

    def record(_sender, template, **_extra):
        rendered.append(template.name)

    def record_block(_sender, template_name, block_name, **_extra):
        rendered.append(f"{template_name}#{block_name}")

    template_rendered.connect(record, app)
    template_block_rendered.connect(record_block, app)

    def stop() -> None:
        template_rendered.disconnect(record, app)
        template_block_rendered.disconnect(record_block, app)

    return rendered, stop


SEARCHES = [
    ("/search?q=latency", {}),
    ("/search?q=latency&page=2", {}),
    ("/search?q=latency&topic=databases", {}),
    ("/search?q=latency&topic=frontend", {}),
    ("/search?q=latency", HTMX_MAIN),
    ("/search?q=latency&topic=frontend", HTMX_RESULTS),
    ("/search?q=latency&page=2", HTMX_MORE),
    ("/search?q=" + "latency+" * 30, {}),  # cut at 200 characters
    ("/search?q=lat", HTMX_MAIN),  # typing
    ("/search?q=latency+a1+b2+c3+d4+e5+f6+g7+h8", {}),  # past eight words
    ("/search?q=", {}),
]


def test_search_pages_are_kept_and_match_a_fresh_render(app, client, posts):
    """Every search state and swap target is rendered once per data version; the cached page
    is byte for byte what a fresh render sends."""
    posts.topics("Databases", "Frontend")
    posts.create(14, body="Latency.", topics=("Databases",))
    posts.create(2, body="Latency.", topics=("Frontend",))
    kept = {}
    rendered, stop = renders(app)
    try:
        for path, headers in SEARCHES:
            kept[path, tuple(headers.items())] = client.get(path, headers=headers)
            again = client.get(path, headers=headers)
            assert again.get_data() == kept[path, tuple(headers.items())].get_data(), path
    finally:
        stop()
    assert len(rendered) == len(SEARCHES)
    for (path, headers), response in kept.items():
        pagecache.clear()
        fresh = client.get(path, headers=dict(headers))
        assert response.status_code == fresh.status_code == 200, path
        assert response.get_data() == fresh.get_data(), path
        assert response.headers["ETag"] == fresh.headers["ETag"], path
    cut = soup(kept["/search?q=" + "latency+" * 30, ()])
    assert texts(cut, ".search-notice")[0].startswith("Searches are limited to 200 characters")
    frontend = soup(kept["/search?q=latency&topic=frontend", tuple(HTMX_RESULTS.items())])
    assert frontend.select_one("#search-status").get_text() == "2 results for “latency”"
    assert "<html" not in str(frontend)


def test_a_kept_search_page_follows_every_write(app, client, posts):
    """A new post shows up on a kept search page at once."""
    posts.create(2, body="Latency.")
    first = client.get("/search?q=latency").get_data(as_text=True)
    assert "Showing 2 of 2 results" in first
    posts.create(1, body="Latency again.")
    assert "Showing 3 of 3 results" in client.get("/search?q=latency").get_data(as_text=True)


def test_the_search_key_is_only_what_the_view_reads(app, client, posts):
    """Tracking parameters and unknown swap targets share a cached page; the query, the
    topic, the page and the known targets each have their own."""
    posts.create(14, body="Latency.")
    pagecache.clear()
    rendered, stop = renders(app)
    try:
        for path, headers in [
            ("/search?q=latency", {}),
            ("/search?q=latency&utm_source=mail", {}),
            ("/search?utm_campaign=x&q=latency&q=other", {}),
            ("/search?q=latency", {"HX-Request": "true", "HX-Target": "elsewhere"}),
            ("/search?q=latency", {"HX-Target": "main"}),  # no HX-Request: a page load
        ]:
            client.get(path, headers=headers)
        assert len(rendered) == 1
        client.get("/search?q=latency&page=2")
        client.get("/search?q=latency", headers=HTMX_RESULTS)
        client.get("/search?q=latenc")
        assert len(rendered) == 4
    finally:
        stop()
    assert client.get("/search?q=latency&page=&page=2").status_code == 400


def test_a_scheduled_post_reaches_kept_search_pages_when_its_time_comes(app, client, posts):
    """Search pages keep to the same data version as listings, scheduled posts included."""
    import sqlalchemy as sa

    from blog.extensions import db
    from blog.models import Post, SiteState

    posts.create(1, body="Latency.")
    [later] = posts.create(
        1, title="Later", body="Latency.", published_at=utcnow() + timedelta(hours=2)
    )
    assert "Later" not in client.get("/search?q=latency").get_data(as_text=True)
    due = utcnow() - timedelta(seconds=1)
    with app.app_context(), db.engine.begin() as connection:
        connection.execute(
            sa.update(Post.__table__).where(Post.__table__.c.slug == later).values(published_at=due)
        )
        connection.execute(sa.update(SiteState.__table__).values(next_publish_at=due))
    assert "Later" in client.get("/search?q=latency").get_data(as_text=True)
