"""Ids in URLs: one converter decides, and every other spelling is the site's 404 page."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa
from werkzeug.routing import IntegerConverter

from blog.models import Post
from blog.web.converters import MAX_ROW_ID, RowIdConverter, whole_numbers_up_to
from tests.authoring.test_auth import csrf_token, editor_client, page
from tests.authoring.test_editor import create

__all__ = ["editor_client"]

# Every route that takes an id, with the methods it answers.
# Every route with an id in its path; {0} stands for each id (a revision's too).
ID_ROUTES = [
    ("GET", "/editor/posts/{0}"),
    ("POST", "/editor/posts/{0}"),
    ("GET", "/editor/posts/{0}/delete"),
    ("POST", "/editor/posts/{0}/delete"),
    ("GET", "/editor/posts/{0}/revisions"),
    ("POST", "/editor/posts/{0}/revisions/{0}/restore"),
    ("GET", "/editor/posts/{0}/autosave"),
    ("POST", "/editor/posts/{0}/autosave"),
    ("GET", "/editor/posts/{0}/preview"),
    ("POST", "/editor/trash/{0}/restore"),
    *(
        (method, f"/editor/{kind}/{{0}}{action}")
        for kind in ("topics", "authors")
        for method, action in [
            ("GET", ""),
            ("POST", "/rename"),
            ("GET", "/merge"),
            ("POST", "/merge"),
            ("POST", "/delete"),
        ]
    ),
    ("POST", "/editor/topics/{0}/describe"),
    ("POST", "/editor/authors/{0}/profile"),
    ("POST", "/editor/posts/{0}/send-back"),
    ("POST", "/editor/posts/{0}/presence"),
    ("GET", "/editor/posts/{0}/old-addresses"),
    ("POST", "/editor/posts/{0}/old-addresses/{0}/remove"),
    ("GET", "/editor/posts/{0}/links"),
    ("POST", "/editor/posts/{0}/links/new"),
    ("POST", "/editor/posts/{0}/links/{0}/revoke"),
    *(
        ("POST", f"/editor/accounts/{{0}}/{action}")
        for action in ("role", "disable", "enable", "reset")
    ),
    ("POST", "/editor/accounts/invites/{0}/revoke"),
]


def rule_of(route: str) -> str:
    """The route as its URL rule spells it: the post's id first, then a revision's, a
    draft link's or an old address's; a topic's, author's, account's or invitation's id."""
    if route.startswith(("/editor/topics/", "/editor/authors/")):
        return route.replace("{0}", "<id:row_id>")
    if route.startswith("/editor/accounts/invites/"):
        return route.replace("{0}", "<id:link_id>")
    if route.startswith("/editor/accounts/"):
        return route.replace("{0}", "<id:editor_id>")
    second = "<id:link_id>" if "/links/" in route else "<id:revision_id>"
    if "/old-addresses/" in route:
        second = "<id:address_id>"
    return route.replace("{0}", "<id:post_id>", 1).replace("{0}", second)


BAD_IDS = [
    "9223372036854775808",  # past SQLite's 64-bit integers (OverflowError in the driver)
    "9223372036854775807",  # SQLite's largest, past PostgreSQL's INTEGER
    "2147483648",  # one past PostgreSQL's INTEGER
    "99999999999",
    "1" + "0" * 40,
    "0",
    "-1",
    "007",
    "01",
    "+1",
    "1.0",
    "1e3",
    "0x1",
    "abc",
    "%201",  # a space, then a digit
    "%D9%A3",  # ARABIC-INDIC DIGIT THREE: a digit to str.isdigit, not an id
]


# The error page's first heading, read with a pattern: 455 pages need no parser.
FIRST_H1 = re.compile(r"<h1\b[^>]*>(.*?)</h1>", re.DOTALL)
TAG = re.compile(r"<[^>]+>")


def not_found_problem(client, method: str, url: str, data: dict[str, str]) -> str | None:
    """Why the answer to one request is not the site's 404 page, or None when it is."""
    try:
        response = client.open(url, method=method, data=data)
    except Exception as error:  # an error the app let through: say which request raised it
        error.add_note(f"on {method} {url}")
        raise
    if response.status_code != 404:
        return f"{method} {url}: {response.status_code}, not 404"
    heading = FIRST_H1.search(response.get_data(as_text=True))
    text = TAG.sub("", heading[1]).strip() if heading else None
    if text != "Nothing here":
        return f"{method} {url}: heading {text!r}, not 'Nothing here'"
    return None


@pytest.mark.parametrize(("method", "route"), ID_ROUTES)
def test_ids_the_column_cannot_hold_are_404(editor_client, method, route):
    """Logged in, with a valid CSRF token, so only the address can refuse the request: every
    bad id on the route is the 404 page."""
    token = csrf_token(editor_client, "/editor/posts/new")
    data = {"csrf_token": token, "confirm": "y"}
    problems = [
        problem
        for raw in BAD_IDS
        if (problem := not_found_problem(editor_client, method, route.format(raw), data))
    ]
    assert not problems, "\n".join(problems)


def test_the_largest_id_reaches_the_view(editor_client):
    """MAX_ROW_ID is a well-formed id: on every route, the view looks it up and finds no
    post (404)."""
    token = csrf_token(editor_client, "/editor/posts/new")
    problems = [
        problem
        for method, route in ID_ROUTES
        if (
            problem := not_found_problem(
                editor_client, method, route.format(MAX_ROW_ID), {"csrf_token": token}
            )
        )
    ]
    assert not problems, "\n".join(problems)


def arabic_indic(number: int) -> str:
    """The number in ARABIC-INDIC digits, URL-encoded: digits to int(), not to the blog."""
    return "".join(f"%D9%{0xA0 + int(digit):02X}" for digit in str(number))


SPELLINGS = {
    "zero": lambda n: f"0{n}",
    "zeros": lambda n: f"00{n}",
    "plus": lambda n: f"+{n}",
    "decimal": lambda n: f"{n}.0",
    "arabic-indic": arabic_indic,
}


# One store: another spelling of a stored id is refused by the converter, before any lookup
# (were it let through, both stores would find the same post). Ids the column cannot hold,
# and stored ids found, run on both stores.
@pytest.mark.one_store
@pytest.mark.parametrize(("method", "route"), ID_ROUTES)
def test_other_spellings_of_a_stored_id_are_404(editor_client, method, route):
    """A post's id has one address: other spellings of the same number find nothing (and
    the post is still there after all of them)."""
    post_id = create(editor_client)
    assert editor_client.get(f"/editor/posts/{post_id}").status_code == 200
    token = csrf_token(editor_client, "/editor/posts/new")
    problems = [
        f"{name}: {problem}"
        for name, spelling in SPELLINGS.items()
        if (
            problem := not_found_problem(
                editor_client, method, route.format(spelling(post_id)), {"csrf_token": token}
            )
        )
    ]
    assert not problems, "\n".join(problems)
    assert editor_client.get(f"/editor/posts/{post_id}").status_code == 200


def test_a_stored_post_is_found_by_its_id(editor_client):
    """The converter hands the view the number, and url_for writes it back the same way."""
    post_id = create(editor_client)
    response = editor_client.get(f"/editor/posts/{post_id}")
    assert response.status_code == 200
    assert page(response).select_one(f'a[href="/editor/posts/{post_id}/delete"]') is not None
    assert editor_client.get(f"/editor/posts/{post_id}/delete").status_code == 200


@pytest.mark.parametrize("limit", [1, 9, 10, 19, 20, 99, 100, 101, 230, 1000, 4079])
def test_the_pattern_matches_exactly_one_to_the_limit(limit):
    """Every number from 0 to three times the limit: matched exactly when 1 <= n <= limit."""
    pattern = re.compile(whole_numbers_up_to(limit))
    for number in range(3 * limit + 2):
        assert bool(pattern.fullmatch(str(number))) == (1 <= number <= limit), number
    assert not pattern.fullmatch(f"0{limit}")


def test_the_pattern_around_the_id_bound():
    """The numbers next to MAX_ROW_ID and to each power of ten below it."""
    pattern = re.compile(RowIdConverter.regex)
    edges = [MAX_ROW_ID] + [10**power for power in range(10)]
    for number in {edge + step for edge in edges for step in (-1, 0, 1)}:
        assert bool(pattern.fullmatch(str(number))) == (1 <= number <= MAX_ROW_ID), number


def test_the_bound_is_the_id_columns_range():
    """The bound holds for INTEGER columns; a BIGINT id would need a wider converter."""
    assert MAX_ROW_ID == 2**31 - 1
    assert type(Post.__table__.c.id.type) is sa.Integer


def test_every_id_route_uses_the_converter(app):
    """No route takes werkzeug's unbounded int, and the routes tested here are all of them."""
    with_ids = set()
    for rule in app.url_map.iter_rules():
        converters = rule._converters.values()
        assert not any(isinstance(c, IntegerConverter) for c in converters), rule.rule
        if any(isinstance(c, RowIdConverter) for c in converters):
            with_ids |= {(method, rule.rule) for method in rule.methods - {"HEAD", "OPTIONS"}}
    tested = {(method, rule_of(route)) for method, route in ID_ROUTES}
    assert with_ids == tested
