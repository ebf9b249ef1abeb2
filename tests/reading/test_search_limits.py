"""What a search may cost: the words it looks for (issue 19)."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from blog.reading import search

HTMX_MAIN = {"HX-Request": "true", "HX-Target": "main"}
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
    assert sum(len(term.words) for term in query.terms) <= search.MAX_WORDS


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
    status = swapped.select_one('#search-status[hx-swap-oob="innerHTML"]').get_text()
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
