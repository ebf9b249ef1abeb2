"""Hostile and malformed input on every route: never a 5xx, never a traceback, never lost text.

Property-based tests (hypothesis, derandomized so CI runs the same examples every time) send
random paths, query strings, form fields and headers to every public and authoring route;
parametrized tests then put each entry of tests/data/naughty_strings.txt into every field of
the editor form and check what is stored and shown: all of them in this process (form, store,
Markdown, file format, search query), and a sample of about thirty over HTTP as well.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlencode

import lxml.html
import pytest
import sqlalchemy as sa
import werkzeug.urls  # noqa: F401 (registers the "werkzeug.url_quote" codec error handler)
from bs4 import BeautifulSoup
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from slugify import slugify

from blog import create_app
from blog.authoring import store
from blog.authoring.forms import SLUG_PATTERN, PostForm, author_names, topic_names
from blog.config import Config
from blog.extensions import db
from blog.models import Post, utcnow
from blog.reading import search
from blog.transfer.files import entry_of
from blog.transfer.frontmatter import read_post, write_post
from tests.authoring.test_auth import cheap_decoy, csrf_token, log_in_as, make_editor
from tests.reading.test_xss_pages import fingerprint

__all__ = ["cheap_decoy"]

NAUGHTY_FILE = Path(__file__).parent / "data" / "naughty_strings.txt"


# The naughty list ------------------------------------------------------------------------------


def _unescaped(text: str) -> str:
    """Python backslash escapes decoded, other characters kept (non-ASCII included)."""
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape")


def read_naughty(path: Path = NAUGHTY_FILE) -> list[str]:
    """The entries of the naughty-strings file, markers expanded (format in its header)."""
    return [entry for entries in read_naughty_sections(path).values() for entry in entries]


def read_naughty_sections(path: Path = NAUGHTY_FILE) -> dict[str, list[str]]:
    """The file's entries under the `# --- Section` line each follows, in file order."""
    sections: dict[str, list[str]] = {}
    entries = sections.setdefault("", [])
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if line.startswith("# ---"):
            entries = sections.setdefault(line.strip("#- "), [])
            continue
        if not line or line.startswith("#"):
            continue
        if line.startswith("@@"):
            entries.append(line[1:])
        elif line == "@empty":
            entries.append("")
        elif line.startswith("@escaped "):
            entries.append(_unescaped(line.removeprefix("@escaped ")))
        elif line.startswith("@repeat "):
            _, count, text = line.split(" ", 2)
            entries.append(_unescaped(text) * int(count))
        elif line.startswith("@"):
            raise ValueError(f"{path.name}:{number}: unknown marker {line.split()[0]}")
        else:
            entries.append(line)
    return sections


NAUGHTY = read_naughty()
NAUGHTY_SECTIONS = {name: entries for name, entries in read_naughty_sections().items() if entries}
# Short entries for the property tests (long ones are covered by the parametrized tests).
NAUGHTY_SHORT = [entry for entry in NAUGHTY if len(entry) <= 300]


def test_the_naughty_list_has_515_distinct_entries():
    """The data file holds exactly 515 entries, none twice, covering the hard cases."""
    assert len(NAUGHTY) == 515
    assert len(set(NAUGHTY)) == 515
    assert "" in NAUGHTY
    assert any("\x00" in entry for entry in NAUGHTY)
    assert any(re.search("[\ud800-\udfff]", entry) for entry in NAUGHTY)
    assert any(len(entry) > 200_000 for entry in NAUGHTY)
    assert any("\u202e" in entry for entry in NAUGHTY)


def wire(value: str) -> bytes:
    """The bytes a client sends for `value` (lone surrogates become invalid UTF-8)."""
    return value.encode("utf-8", "surrogatepass")


def as_received(value: str) -> str:
    """What the server decodes from a form field carrying `value` (bad bytes stay %-quoted)."""
    return wire(value).decode("utf-8", "werkzeug.url_quote")


def form_body(fields: dict[str, str | list[str]]) -> bytes:
    """A urlencoded form body, exactly as a browser would post these values (a list: one
    value per ticked box)."""
    wired = {
        name: [wire(one) for one in value] if isinstance(value, list) else wire(value)
        for name, value in fields.items()
    }
    return urlencode(wired, doseq=True).encode("ascii")


def confirming(fields: dict[str, str]) -> dict[str, str | list[str]]:
    """The editor's form with its topics and author ticked to be created, as the server
    reads them (an editor who means a new name ticks its box)."""
    topics = topic_names(store.clean_text(as_received(fields.get("topics", ""))).strip())
    author = store.clean_text(as_received(fields.get("author", ""))).strip()
    keys = [f"topic:{store.topic_slug(name)}" for name in topics]
    if author:
        keys.append(f"author:{store.author_slug(author)}")
    return fields | {"confirm_new": keys}


def post_form(client: FlaskClient, url: str, fields: dict[str, str], **kwargs):
    """POST a urlencoded form whose values may hold any character."""
    return client.post(
        url,
        data=form_body(fields),
        content_type="application/x-www-form-urlencoded",
        **kwargs,
    )


def query(params: dict[str, str]) -> str:
    """A query string for values that may hold any character."""
    return urlencode({name: wire(value) for name, value in params.items()})


# What every answer must be ---------------------------------------------------------------------

TRACE_MARKERS = ("Traceback (most recent call last)", 'File "/', "sqlalchemy.exc", "jinja2.")


def stored_fields(post: Post) -> dict[str, object]:
    """What a post holds of the fields a form or a file sets, as stored."""
    return {
        "slug": post.slug,
        "title": post.title,
        "summary": post.summary,
        "body": post.body_markdown,
        "author": post.author.name,
        "topics": [topic.name for topic in post.topics],
    }


def assert_clear_answer(response, what: str) -> None:
    """No 5xx, no traceback or internals, and a refusal that explains itself."""
    status = response.status_code
    assert status < 500, f"{what}: {status}"
    if status < 400 and response.mimetype.startswith("image/"):
        return  # a picture (a link preview, the logo): no text to read
    text = response.get_data(as_text=True)
    for marker in TRACE_MARKERS:
        assert marker not in text, f"{what}: {marker!r} in the answer"
    if status < 400 or response.request.method == "HEAD":
        return
    if response.headers.get("HX-Retarget"):
        # (Pages and alerts are read with lxml's HTML parser, the one BeautifulSoup's "lxml"
        # drives, without building its objects; both found the same text on every 4xx page.)
        alert = lxml.html.document_fromstring(f"<div>{text}</div>").text_content()
        assert alert.strip(), f"{what}: empty alert"
        return
    if response.mimetype == "application/json":  # the editor's scripts show its `error`
        assert str(response.get_json().get("error", "")).strip(), f"{what}: {status} unexplained"
        return
    assert response.mimetype == "text/html", f"{what}: {status} as {response.mimetype}"
    explained = lxml.html.document_fromstring(text).xpath(EXPLAINED)
    assert explained and explained[0].text_content().strip(), f"{what}: {status} unexplained"


def _has_class(name: str) -> str:
    """An XPath test for an element of this CSS class."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


# The first of `.error-page h1, .form-problems, .field-errors, .conflict h2`, in page order.
EXPLAINED = (
    f"(//*[{_has_class('error-page')}]//h1 | //*[{_has_class('form-problems')}]"
    f" | //*[{_has_class('field-errors')}] | //*[{_has_class('conflict')}]//h2)[1]"
)


# Every route, and how to fill in its variable parts --------------------------------------------

# endpoint -> (path template with {} for each variable part, methods to try)
PUBLIC_ROUTES = {
    "public.home": ("/", ("GET", "HEAD")),
    "public.topic": ("/topics/{}", ("GET", "HEAD")),
    "public.post": ("/posts/{}", ("GET", "HEAD")),
    "edit_links.edit_link": ("/posts/{}/edit-link", ("GET",)),
    "public.author": ("/authors/{}", ("GET", "HEAD")),
    "pictures.illustration_svg": ("/illustrations/{}.svg", ("GET",)),
    "previews.illustration_png": ("/illustrations/{}.png", ("GET",)),
    "previews.logo_png": ("/logo.png", ("GET",)),
    "feeds.author_feed": ("/authors/{}/feed.{}", ("GET",)),
    "feeds.blog_feed": ("/feed.{}", ("GET",)),
    "feeds.topic_feed": ("/topics/{}/feed.{}", ("GET",)),
    "seo.sitemap": ("/sitemap.xml", ("GET",)),
    "seo.robots": ("/robots.txt", ("GET",)),
    "search.search_page": ("/search", ("GET",)),
    "images.serve": ("/images/{}", ("GET",)),
    "static": ("/static/{}", ("GET",)),
    "auth.login": ("/login", ("GET", "POST")),
    "auth.logout": ("/logout", ("POST",)),
    "account.welcome": ("/account/invite/{}", ("GET", "POST")),
    "account.reset": ("/account/reset/{}", ("GET", "POST")),
    "draft_links.shared_draft": ("/drafts/{}", ("GET",)),
}
AUTHORING_ROUTES = {
    "editor.index": ("/editor/", ("GET",)),
    "editor.new": ("/editor/posts/new", ("GET",)),
    "editor.create": ("/editor/posts/new", ("POST",)),
    "editor.edit": ("/editor/posts/{}", ("GET",)),
    "editor.update": ("/editor/posts/{}", ("POST",)),
    "editor.delete": ("/editor/posts/{}/delete", ("GET", "POST")),
    "editor.preview": ("/editor/preview", ("POST",)),
    "editor.slug_hint": ("/editor/slug", ("GET",)),
    "editor.revisions": ("/editor/posts/{0}/revisions", ("GET",)),
    "editor.restore": ("/editor/posts/{0}/revisions/{0}/restore", ("POST",)),
    "editor.autosave_offer": ("/editor/posts/{0}/autosave", ("GET",)),
    "editor.autosave": ("/editor/posts/{0}/autosave", ("POST",)),
    "editor.trash": ("/editor/trash", ("GET",)),
    "editor.restore_post": ("/editor/trash/{0}/restore", ("POST",)),
    "editor.empty_trash": ("/editor/trash/empty", ("GET", "POST")),
    "editor.topics": ("/editor/topics", ("GET",)),
    "editor.topic": ("/editor/topics/{}", ("GET",)),
    "editor.rename_topic": ("/editor/topics/{}/rename", ("POST",)),
    "editor.describe_topic": ("/editor/topics/{}/describe", ("POST",)),
    "editor.merge_topic": ("/editor/topics/{}/merge", ("GET", "POST")),
    "editor.delete_topic": ("/editor/topics/{}/delete", ("POST",)),
    "editor.authors": ("/editor/authors", ("GET",)),
    "editor.author": ("/editor/authors/{}", ("GET",)),
    "editor.rename_author": ("/editor/authors/{}/rename", ("POST",)),
    "editor.merge_author": ("/editor/authors/{}/merge", ("GET", "POST")),
    "editor.delete_author": ("/editor/authors/{}/delete", ("POST",)),
    "editor.author_profile": ("/editor/authors/{}/profile", ("POST",)),
    "drafts.post_preview": ("/editor/posts/{}/preview", ("GET",)),
    "editor.drawing_preview": ("/editor/drawing", ("POST",)),
    "body_images.upload": ("/editor/images", ("POST",)),
    "body_images.fetch": ("/editor/images/fetch", ("POST",)),
    "editor.send_back": ("/editor/posts/{0}/send-back", ("POST",)),
    "editor.old_addresses": ("/editor/posts/{0}/old-addresses", ("GET",)),
    "editor.remove_old_address": ("/editor/posts/{0}/old-addresses/{0}/remove", ("POST",)),
    "editor.draft_links": ("/editor/posts/{0}/links", ("GET",)),
    "editor.make_draft_link": ("/editor/posts/{0}/links/new", ("POST",)),
    "editor.revoke_draft_link": ("/editor/posts/{0}/links/{0}/revoke", ("POST",)),
    "editor.accounts": ("/editor/accounts", ("GET",)),
    "editor.invite": ("/editor/accounts/invite", ("POST",)),
    "editor.revoke_invite": ("/editor/accounts/invites/{0}/revoke", ("POST",)),
    "editor.set_role": ("/editor/accounts/{0}/role", ("POST",)),
    "editor.disable_account": ("/editor/accounts/{0}/disable", ("POST",)),
    "editor.enable_account": ("/editor/accounts/{0}/enable", ("POST",)),
    "editor.reset_link": ("/editor/accounts/{0}/reset", ("POST",)),
    "editor.autosave_new": ("/editor/posts/new/autosave", ("POST",)),
    "editor.presence": ("/editor/posts/{0}/presence", ("POST",)),
    "typed_preview.page": ("/editor/posts/preview", ("POST",)),
}


def test_the_fuzz_covers_every_route(app):
    """A route added later cannot escape the fuzz: each one is listed here."""
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    assert endpoints == set(PUBLIC_ROUTES) | set(AUTHORING_ROUTES)


TRAVERSAL = [
    "..",
    "../",
    "../../etc/passwd",
    "..%2f..%2fetc%2fpasswd",
    "%2e%2e/%2e%2e/etc/passwd",
    "%2e%2e%2f",
    "..\\..\\blog\\config.py",
    "..%5c..%5cblog%5cconfig.py",
    "/etc/passwd",
    "%00",
    "css/site.css%00.png",
    "....//....//",
    "%252e%252e%252f",
    "..;/",
]
PAGE_VALUES = [
    "-1",
    "0",
    "1",
    "1.5",
    "abc",
    "",
    "9223372036854775807",
    "99999999999999999999",
    "1e3",
    "0x10",
    " 2",
    "٣",
    "²",
]
QUERY_NAMES = ["page", "q", "topic", "status", "slug", "title", "post", "next", "v", "kind"]

segment = st.one_of(
    st.sampled_from(NAUGHTY_SHORT).map(lambda s: quote(wire(s), safe="")),
    st.text(max_size=30).map(lambda s: quote(wire(s), safe="")),
    st.sampled_from(TRAVERSAL),
    st.sampled_from(["", "a", "databases", "atom", "rss", "css/site.css", "0" * 64 + ".png"]),
)
query_value = st.one_of(
    st.sampled_from(PAGE_VALUES), st.sampled_from(NAUGHTY_SHORT), st.text(max_size=30)
)
query_params = st.dictionaries(st.sampled_from(QUERY_NAMES), query_value, max_size=3)
htmx_headers = st.sampled_from(
    [
        {},
        {"HX-Request": "true"},
        {"HX-Request": "true", "HX-Target": "all-posts"},
        {"HX-Request": "true", "HX-Target": "post-list"},
        {"HX-Request": "true", "HX-Target": "main"},
        {"HX-Request": "true", "HX-History-Restore-Request": "true"},
        {"HX-Request": "true", "HX-Target": "\u202e<script>"},
    ]
)


def fuzz(examples: int) -> settings:
    """Hypothesis settings: reproducible examples (derandomized, nothing remembered between
    runs), no per-example deadline; about 300 examples over the whole module."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


@pytest.fixture
def blog(app: Flask, posts) -> list[str]:
    """A small blog to probe: two topics and a few posts."""
    posts.topics("Databases", "Operations")
    return posts.create(3, topics=("Databases", "Operations"))


@fuzz(120)
@given(
    endpoint=st.sampled_from(sorted(PUBLIC_ROUTES)),
    parts=st.lists(segment, min_size=2, max_size=2),
    params=query_params,
    headers=htmx_headers,
    method_index=st.integers(0, 1),
)
def test_public_routes_answer_hostile_requests_clearly(
    client, blog, endpoint, parts, params, headers, method_index
):
    """Random and hostile path parts, query strings and htmx headers: never a 5xx."""
    template, methods = PUBLIC_ROUTES[endpoint]
    method = methods[method_index % len(methods)]
    path = template.format(*parts[: template.count("{}")])
    url = f"{path}?{query(params)}" if params else path
    response = client.open(url, method=method, headers=headers)
    assert_clear_answer(response, f"{method} {url}")


@pytest.fixture
def editor(app: Flask, client: FlaskClient, posts) -> tuple[FlaskClient, int, str]:
    """A logged-in editor, one stored post's id, and the session's CSRF token."""
    (slug,) = posts.create(1)
    log_in_as(client, make_editor(app))
    with app.app_context():
        post_id = db.session.scalar(sa.select(Post.id).where(Post.slug == slug))
    return client, post_id, csrf_token(client, "/editor/posts/new")


def _stand_in_post(app: Flask) -> int:
    """A fresh post to edit, when the fuzz deleted the others."""
    from tests.conftest import PostFactory

    (slug,) = PostFactory(app).create(1, title="Stand-in")
    with app.app_context():
        return db.session.scalar(sa.select(Post.id).where(Post.slug == slug))


form_value = st.one_of(
    st.sampled_from(NAUGHTY_SHORT),
    st.text(max_size=40),
    st.sampled_from(
        [
            "draft",
            "published",
            "1",
            "y",
            "2024-02-30T10:00",
            "0001-01-01T00:00",
            "9999-12-31T23:59",
            "2024-01-01T00:00:00",
            "1" * 12,
            "-1",
            "0" * 64,
        ]
    ),
)
FORM_NAMES = [
    "title",
    "slug",
    "topics",
    "summary",
    "body",
    "image_alt",
    "remove_image",
    "kept_image",
    "featured",
    "editors_pick",
    "status",
    "published_at",
    "keep_updated_date",
    "author",
    "lock_version",
    "action",
    "confirm_new",
    "name",
    "shown_name",
    "description",
    "shown_description",
    "into",
    "note",
    "days",
    "email",
    "role",
    "password",
    "again",
    "unknown_field",
]


SAVES = itertools.count(1)
COMPLETE_FORM = {
    "title": "Fuzzed post",
    "topics": "Fuzzing",
    "confirm_new": "topic:fuzzing",
    "author": "Ada Example",
    "body": "Fuzzed body.",
    "status": "published",
    "lock_version": "1",
}


@fuzz(100)
@given(
    # Saving is where input reaches the store: it gets half the examples.
    endpoint=st.one_of(
        st.sampled_from(sorted(AUTHORING_ROUTES)),
        st.sampled_from(["editor.create", "editor.update"]),
    ),
    id_part=st.one_of(st.sampled_from(["", "0", "-1", "99999999999999999999"]), segment),
    fields=st.dictionaries(st.sampled_from(FORM_NAMES), form_value, max_size=5),
    token=st.sampled_from(["valid", "valid", "valid", "missing", "forged"]),
    complete=st.booleans(),
    use_stored_id=st.sampled_from([True, True, True, False]),
    headers=st.sampled_from(
        [
            {},
            {"HX-Request": "true", "HX-Target": "post-editor"},
            {"HX-Request": "true", "HX-Target": "preview"},
            {"HX-Request": "true", "HX-Target": "post-table"},
        ]
    ),
)
def test_authoring_routes_answer_hostile_forms_clearly(
    editor, endpoint, id_part, fields, token, complete, use_stored_id, headers
):
    """Random forms, ids, tokens and htmx targets on every authoring route: never a 5xx.

    Half the forms start from a complete one, so odd values (dates in year 1 or 9999, flags,
    revisions) reach the store; readers' pages must then still work."""
    client, post_id, valid_token = editor
    with client.application.app_context():
        revision = db.session.scalar(sa.select(Post.lock_version).where(Post.id == post_id))
    if revision is None:  # an earlier example deleted it: stand a new one up
        with client.application.app_context():
            post_id = db.session.scalar(sa.select(Post.id).order_by(Post.id.desc()))
            revision = db.session.scalar(sa.select(Post.lock_version).where(Post.id == post_id))
    if post_id is None:
        post_id, revision = _stand_in_post(client.application), 1
    template, methods = AUTHORING_ROUTES[endpoint]
    path = template.format(str(post_id) if use_stored_id else id_part)
    saved = False
    for method in methods:
        if method == "GET":
            url = f"{path}?{query(fields)}" if fields else path
            response = client.get(url, headers=headers)
        else:
            if complete:  # a good form with one or two odd values
                title = f"Fuzzed post {next(SAVES)}"  # a new address each time
                base = COMPLETE_FORM | {"title": title, "lock_version": str(revision)}
                data = base | dict(list(fields.items())[:2])
            else:
                data = dict(fields)
            if token != "missing":
                data["csrf_token"] = valid_token if token == "valid" else "forged"
            response = post_form(client, path, data, headers=headers)
            saved = saved or response.status_code == 303
        assert_clear_answer(response, f"{method} {path} {fields!r}")
        event(f"{method} answered {response.status_code}")
    if saved:
        reader = client.application.test_client()
        for url in ("/", "/topics/fuzzing", "/feed.atom", "/sitemap.xml", "/search?q=fuzzed"):
            assert_clear_answer(reader.get(url), f"{url} after saving {fields!r}")


# Where `next` may lead after logging in ---------------------------------------------------------

OFF_SITE_PREFIXES = [
    "//",
    "///",
    "\\\\",
    "/\\",
    "\\/",
    "http:/\\",
    "http://",
    "https:",
    "javascript:",
    "JAVASCRIPT:",
    "data:",
    "/\t/",
    "/\n/",
    "/\r/",
    "\x00/",
    " /",
    "%2f%2f",
    "/%09/",
    "\u3002/",
    "／/",
]


def browser_safe_location(location: str) -> bool:
    """A Location a browser can only resolve to this site: one path, nothing it could re-read
    as another host (no `//`, no backslash, no space or control character)."""
    return (
        location.startswith("/")
        and not location.startswith("//")
        and "\\" not in location
        and all("\x21" <= ch <= "\x7e" for ch in location)
    )


# The tests marked one_store in this module run on SQLite only: where the login sends an
# editor, and requests refused for their size before any lookup, are decided without the store.
# Hostile text and addresses that reach it run on both stores.
@pytest.mark.one_store
@fuzz(50)
@given(
    prefix=st.sampled_from(OFF_SITE_PREFIXES),
    rest=st.one_of(st.sampled_from(["evil.example", "evil.example/editor/", ""]), st.text()),
)
def test_login_never_sends_an_editor_off_the_site(editor, prefix, rest):
    """Every scheme, slash, backslash and control-character trick in `next` is refused."""
    client, _, _ = editor
    target = prefix + rest
    response = client.get(f"/login?{query({'next': target})}")
    assert response.status_code == 303
    location = response.headers["Location"]
    assert browser_safe_location(location), location
    assert location == "/editor/" or location == target


@pytest.mark.one_store
@fuzz(30)
@given(
    path=st.lists(
        st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.~", min_size=1, max_size=12),
        min_size=1,
        max_size=4,
    ),
    params=st.dictionaries(
        st.sampled_from(["status", "page", "q"]),
        st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8),
        max_size=2,
    ),
)
def test_login_keeps_every_plain_path_on_the_site(editor, path, params):
    """Safe `next` values, paths on this site with a query, are followed as they are."""
    client, _, _ = editor
    target = "/" + "/".join(path) + (f"?{urlencode(params)}" if params else "")
    response = client.get(f"/login?{query({'next': target})}")
    assert response.status_code == 303
    assert response.headers["Location"] == target


# NUL characters: PostgreSQL refuses them in any query, so they must never reach one -------------


NUL_ANSWERS = [
    ("/posts/%00", 404),
    ("/posts/a%00b", 404),
    ("/topics/%00", 404),
    ("/topics/databases%00/feed.atom", 404),
    ("/illustrations/a%00.svg", 404),
    ("/images/%00.png", 404),
    ("/search?topic=%00", 404),
    ("/search?q=a%00b", 200),
    ("/editor/slug?slug=%00abc", 200),
    ("/editor/?status=%00", 400),
    ("/?page=%00", 400),
    ("/login?next=%00/evil.example", 303),
]


def test_nul_characters_get_a_clear_answer_on_both_stores(editor):
    """A NUL in an address or a lookup is a plain 4xx (or is cleaned away), never a 5xx."""
    client, _, _ = editor
    for url, status in NUL_ANSWERS:
        response = client.get(url)
        assert_clear_answer(response, url)
        assert response.status_code == status, f"{url}: {response.status_code}, not {status}"


def test_a_nul_in_the_login_email_is_a_clear_refusal(client, cheap_decoy):
    """The login form's email is looked up: a NUL in it is cleaned away, never sent to SQL.
    (No account has the cleaned email: the check against the decoy hash is made cheap.)"""
    token = csrf_token(client)
    for email in ("\x00", "ada\x00@example.com"):
        fields = {"email": email, "password": "x", "csrf_token": token}
        response = post_form(client, "/login", fields)
        assert_clear_answer(response, repr(email))
        assert response.status_code in (401, 422)


# Oversized headers and bodies -------------------------------------------------------------------


OVERSIZED_HEADERS = [
    "Cookie",
    "HX-Target",
    "If-None-Match",
    "Accept-Encoding",
    "User-Agent",
    "X-CSRFToken",
]


@pytest.mark.one_store
def test_oversized_headers_get_a_clear_answer(app, blog):
    """A 64 KB header (or a cookie jar full of junk) is never a 5xx."""
    values = {
        "Cookie": "; ".join(f"c{n}={'x' * 60}" for n in range(1000)) + "; session=" + "A" * 4000,
        "If-None-Match": ", ".join(f'W/"{n:064d}"' for n in range(900)),
        "Accept-Encoding": ", ".join(f"enc{n};q=0.{n % 10}" for n in range(5000)),
    }
    for header in OVERSIZED_HEADERS:
        value = values.get(header, "x" * 65536)
        client = app.test_client()  # a fresh one per header, as a test of its own had
        for url in ("/", f"/posts/{blog[0]}", "/search?q=x", "/feed.atom", "/login"):
            response = client.get(url, headers={header: value, "HX-Request": "true"})
            assert_clear_answer(response, f"{header} on {url}")


@pytest.mark.one_store
def test_oversized_bodies_are_413s_with_a_page(editor):
    """A 50 MB post to any route that takes forms is refused with a 413 page, nothing saved."""
    client, post_id, token = editor
    big = b"title=" + b"x" * (50 * 1024 * 1024)
    for url in ("/editor/posts/new", f"/editor/posts/{post_id}", "/editor/preview", "/login"):
        response = client.post(
            url,
            data=big,
            content_type="application/x-www-form-urlencoded",
            headers={"X-CSRFToken": token},
        )
        assert response.status_code == 413, url
        assert_clear_answer(response, f"50 MB to {url}")
    with client.application.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == 1


# Every naughty string in every field of the editor form --------------------------------------
#
# All 515 go through the form, the store, the Markdown pipeline, the file format and the search
# query in this process; a sample of them (NAUGHTY_OVER_HTTP) also makes the whole trip over
# HTTP, on each database: saved through the real editor, shown on the post page and searched.

CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
SLUG = re.compile(SLUG_PATTERN)
TEXT_FIELDS = ("title", "summary", "body", "author", "topics")
FIELDS = ("slug", *TEXT_FIELDS)
DEFAULTS = {
    "title": "A plain title",
    "slug": "",
    "topics": "Fuzzing",
    "summary": "A plain summary.",
    "body": "A plain body.",
    "author": "Ada Example",
    "status": "published",
    "published_at": "",
    "image_alt": "",
}


def newlines(text: str) -> str:
    """Line ends as the store keeps text typed in a textarea."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_topics(text: str) -> list[str]:
    """Topic names as an editor means them: comma-separated, spaces tidied, repeats dropped."""
    names, keys = [], set()
    for part in text.split(","):
        name = " ".join(part.split())
        if name and slugify(name) not in keys:
            keys.add(slugify(name))
            names.append(name)
    return names


def expected(field: str, value: str) -> tuple[object, bool]:
    """What the form shows back and the store keeps for `value` typed into `field`, and
    whether the form accepts it: control characters go, ends are trimmed, limits apply."""
    typed = as_received(value)
    if field in ("summary", "body"):
        typed = newlines(typed)
    typed = CONTROL.sub("", typed)
    if field == "title":
        shown = typed.strip()
        return shown, 0 < len(shown) <= 300
    if field == "slug":
        # An empty address (before control characters go) means "make one from the title".
        # Any other is saved as the slug rule makes it (`My Post!` as `my-post`): refused when
        # nothing of it is kept, or when it is too long as typed or as made.
        shown = typed.strip()
        if not as_received(value).strip():
            return shown, True
        made = slugify(shown) if len(shown) <= 400 else ""
        if not made:  # shown as typed, beside its reason
            return shown, False
        return made, len(made) <= 200 and SLUG.match(made) is not None
    if field == "summary":
        shown = typed.strip()
        return shown, len(shown) <= 600
    if field == "body":
        return typed, len(typed) <= 200_000 and bool(typed.strip())
    if field == "author":
        shown = typed.strip()
        return shown, 0 < len(shown) <= 120
    if field == "topics":
        names = split_topics(typed.strip())
        fits = all(len(name) <= 80 and slugify(name) for name in names)
        return names, 0 < len(names) <= 8 and fits
    raise ValueError(field)


class Outcome:
    """What should become of one naughty string typed into every field of the editor."""

    def __init__(self, value: str) -> None:
        self.value = value
        self.fields = {field: expected(field, value) for field in FIELDS}
        # Refused by the form itself, each with its reason beside the field.
        self.refused_by_form = {field for field, (_, ok) in self.fields.items() if not ok}
        self.refused = set(self.refused_by_form)
        title = self.fields["title"][0]
        if self.fields["slug"][0] == "" and title and not slugify(title, max_length=200):
            self.refused.add("slug")  # no address given, and none can be made from the title

    def shown(self, field: str) -> object:
        """What the field keeps or shows for the value."""
        return self.fields[field][0]

    @property
    def kept(self) -> list[str]:
        """The fields that take the value."""
        return [field for field in FIELDS if field not in self.refused]

    def retry(self) -> dict[str, str]:
        """The form again with the value in only the fields that take it."""
        retry = DEFAULTS | dict.fromkeys(self.kept, self.value)
        if "slug" in self.refused:
            derived = slugify(retry["title"] if "title" in self.kept else DEFAULTS["title"])
            retry["slug"] = "" if derived else "naughty-kept"
        return retry


def parsed(response) -> BeautifulSoup:
    """A page parsed as a browser would (lxml's HTML parser, quick enough for 515 cases)."""
    return BeautifulSoup(response.get_data(as_text=True), "lxml")


def field_text(soup: BeautifulSoup, name: str) -> str:
    """The value a form field shows, as a browser reads it."""
    element = soup.select_one(f"[name={name}]")
    if element.name == "textarea":
        # A browser drops the one line break that opens a textarea's content.
        text = element.text
        return text[2:] if text.startswith("\r\n") else text.removeprefix("\n")
    return element.get("value", "")


def assert_no_more_than(page: tuple, plain: tuple, what: str) -> None:
    """A page showing naughty text has the plain page's scripts and htmx attributes, at most,
    and nothing unsafe."""
    scripts, hx, unsafe = page
    assert scripts == plain[0], f"{what}: scripts changed"
    assert not hx - plain[1], f"{what}: htmx attributes appeared"
    assert unsafe == [], f"{what}: unsafe markup"


def plain_id(value: str) -> str:
    """A test id for a hostile string: its start in letters, digits and underscores only, so
    the id can be given back to pytest on a command line (as mutmut does)."""
    return re.sub(r"[^0-9A-Za-z]+", "_", ascii(value[:24]).strip("'\""))[:40]


def _ids(values: list[str]) -> list[str]:
    """Readable test ids: the entry's number in the file and its start, made plain."""
    number = {value: n for n, value in enumerate(NAUGHTY, 1)}
    return [f"{number[v]:03d}-{plain_id(v)}" for v in values]


def _over_http() -> list[str]:
    """The entries that also go over HTTP: the first of each section of the file, every one
    that the trip itself changes (bytes that are not UTF-8, carriage returns), and the
    longest (past the query-string limit)."""
    firsts = [entries[0] for entries in read_naughty_sections().values() if entries]
    changed = [value for value in NAUGHTY if as_received(value) != value or "\r" in value]
    return list(dict.fromkeys([*firsts, *changed, max(NAUGHTY, key=len)]))


NAUGHTY_OVER_HTTP = _over_http()


def test_about_thirty_naughty_strings_go_over_http():
    """The HTTP sample stays small and covers every section of the file."""
    assert 20 <= len(NAUGHTY_OVER_HTTP) <= 40
    assert any(len(query({"q": value})) > Config.MAX_QUERY_STRING for value in NAUGHTY_OVER_HTTP)


def submitted(app: Flask, fields: dict[str, str]) -> PostForm:
    """The editor form as a browser's urlencoded POST of `fields` fills it, checked."""
    with app.test_request_context(
        "/editor/posts/new",
        method="POST",
        data=form_body(fields),
        content_type="application/x-www-form-urlencoded",
    ):
        form = PostForm(meta={"csrf": False})
        form.validate()
    return form


def shown_by(form: PostForm) -> dict[str, str]:
    """The text each field of the form shows when the editor page renders it, as a browser
    reads it (lxml's HTML parser, the one BeautifulSoup uses elsewhere here, without the
    soup: 1,030 forms; both read every entry's fields the same)."""
    widgets = lxml.html.document_fromstring("".join(str(form[field]()) for field in FIELDS))
    shown = {}
    for field in FIELDS:
        element = widgets.xpath("//*[@name=$name]", name=field)[0]
        if element.tag == "textarea":
            # A browser drops the one line break that opens a textarea's content.
            text = "".join(element.itertext())
            shown[field] = text[2:] if text.startswith("\r\n") else text.removeprefix("\n")
        else:
            shown[field] = element.get("value", "")
    return shown


@pytest.fixture(scope="module")
def form_app() -> Flask:
    """An app to build requests and forms with in this process; no database is touched."""
    return create_app({"TESTING": True, "SECRET_KEY": "test-secret"})


def form_problems(app: Flask, value: str) -> list[str]:
    """Type a naughty string into every field and say what went wrong: a field refused or
    accepted other than expected, a field that does not show the text as typed (less control
    characters), the value refused again in the fields that take it."""
    outcome = Outcome(value)
    form = submitted(app, DEFAULTS | dict.fromkeys(FIELDS, value))
    problems = []
    refused = {field for field in FIELDS if form[field].errors}
    if refused != outcome.refused_by_form:
        problems.append(f"refused {sorted(refused)}, not {sorted(outcome.refused_by_form)}")
    shown = shown_by(form)
    # (HTML itself turns CR LF into LF in what the browser shows.)
    wanted = {field: newlines(outcome.shown(field)) for field in FIELDS if field != "topics"}
    wanted["topics"] = newlines(CONTROL.sub("", as_received(value)).strip())
    for field in FIELDS:
        if newlines(shown[field]) != wanted[field]:
            problems.append(
                f"{field} lost its text: shows {shown[field]!r:.60}, not {wanted[field]!r:.60}"
            )
    if outcome.kept:
        form = submitted(app, outcome.retry())
        if form.errors:
            problems.append(f"an acceptable value was refused: {form.errors!r:.200}")
    return problems


@pytest.mark.parametrize("section", list(NAUGHTY_SECTIONS))
def test_naughty_text_in_every_field_of_the_form_is_kept_or_refused(form_app, section):
    """Typed into every field, each naughty string of a section of the file is refused with a
    reason beside each field it cannot go in, and every field still shows it as typed (less
    control characters); in only the fields that take it, it is accepted.

    Each entry is checked alone and reported with its number in the file: a test per entry
    spent a third of its time in pytest rather than in the form."""
    numbers = {value: n for n, value in enumerate(NAUGHTY, 1)}
    problems: list[str] = []
    for value in NAUGHTY_SECTIONS[section]:
        try:
            found = form_problems(form_app, value)
        except Exception as error:  # reported with the entry, like the others
            found = [f"{type(error).__name__}: {error}"]
        problems += [f"entry {numbers[value]} ({value[:30]!r}): {line}" for line in found]
    assert not problems, "\n".join(problems)


def stored_problems(app: Flask, value: str) -> list[str]:
    """Store a naughty string from the form that takes it and say what went wrong: a field
    stored differently, a rendered body that is not inert, a Markdown file that reads back
    differently, a search that fails. Nothing is committed (the caller rolls back)."""
    outcome = Outcome(value)
    form = submitted(app, outcome.retry())
    # Stored from the checked form, through the store as every writer stores posts.
    post = store.new_post(
        title=form.title.data,
        slug=form.slug.data or None,  # none typed: made from the title
        body=form.body.data,
        summary=form.summary.data,
        author=store.author_named(author_names(form.author.data)[0]),
        topics=[store.topic_named(name) for name in topic_names(form.topics.data)],
        published_at=utcnow(),
    )
    db.session.flush()
    db.session.expire_all()  # what follows is read back from the database
    post = db.session.get(Post, post.id)
    stored = stored_fields(post)
    problems = []
    for field in outcome.kept:
        wanted = outcome.shown(field)
        if field == "slug" and wanted == "":
            wanted = slugify(stored["title"], max_length=200)
        if stored[field] != wanted:
            problems.append(f"{field} stored as {stored[field]!r:.60}, not {wanted!r:.60}")
    # The Markdown pipeline leaves nothing that runs. (Read inside an element, as the page
    # shows it: a body that renders to nothing, a lone link definition, is no document to lxml.)
    body = fingerprint(f"<div>{post.body_html}</div>")
    if body != ([], {}, []):
        problems.append(f"the rendered body is not inert: {body}")
    # The file format: written out and read back, the post is the same.
    entry = entry_of(post)
    read = read_post(write_post(entry).encode(), "naughty.md")
    if read.problems or read.entry != entry:
        problems.append(f"the Markdown file reads back differently: {read.problems}")
    search.search_posts(search.clean_query(as_received(value))[0])
    return problems


@pytest.mark.parametrize("section", list(NAUGHTY_SECTIONS))
def test_naughty_text_is_stored_rendered_filed_and_searched(app, section):
    """In the fields that take it, each naughty string of a section of the file is stored as
    typed (less control characters, ends trimmed), rendered inert, written to a Markdown file
    and read back unchanged, and searched for without an error.

    Each entry is stored alone, in a savepoint rolled back after it: a test per entry would
    spend more on emptying the tables than on the entry.
    """
    numbers = {value: n for n, value in enumerate(NAUGHTY, 1)}
    problems: list[str] = []
    with app.test_request_context():
        for value in NAUGHTY_SECTIONS[section]:
            if not Outcome(value).kept:
                continue
            savepoint = db.session.begin_nested()
            try:
                found = stored_problems(app, value)
            except Exception as error:  # reported with the entry, like the others
                found = [f"{type(error).__name__}: {error}"]
            finally:
                savepoint.rollback()
            problems += [f"entry {numbers[value]} ({value[:30]!r}): {line}" for line in found]
        db.session.rollback()
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def writer(app: Flask) -> Iterator[tuple[FlaskClient, str]]:
    """One editor's client for the whole module, and its CSRF token (the session keeps it)."""
    client = app.test_client()
    log_in_as(client, make_editor(app, "fuzz@example.com", name="Fuzz Editor"))
    token = csrf_token(client, "/editor/posts/new")
    yield client, token


@pytest.fixture
def author(app: Flask, writer: tuple[FlaskClient, str]) -> tuple[FlaskClient, str]:
    """The module's editor, stored again (tables are emptied after each test) and logged in."""
    client, token = writer
    log_in_as(client, make_editor(app, "fuzz@example.com", name="Fuzz Editor"))
    return client, token


@pytest.fixture(scope="module")
def plain_pages(app: Flask) -> tuple[tuple, tuple]:
    """Fingerprints of a plain post page and of a plain search page, to compare against."""
    from tests.conftest import PostFactory

    (slug,) = PostFactory(app).create(1, title="Plain", summary="Plain.", body="Plain.")
    reader = app.test_client()
    pages = (
        fingerprint(reader.get(f"/posts/{slug}").get_data(as_text=True)),
        fingerprint(reader.get("/search?q=plain").get_data(as_text=True)),
    )
    with app.app_context():
        for table in reversed(db.metadata.sorted_tables):
            db.session.execute(table.delete())
        db.session.commit()
    return pages


@pytest.mark.parametrize("value", NAUGHTY_OVER_HTTP, ids=_ids(NAUGHTY_OVER_HTTP))
def test_naughty_text_in_every_field_is_kept_or_refused_clearly(app, author, plain_pages, value):
    """Over HTTP, typed into every field of the editor and into search, a naughty string is
    saved as typed or refused with the reason beside each field it cannot go in, the text
    still in the form; the pages that show it stay inert."""
    client, token = author
    outcome = Outcome(value)
    response = post_form(
        client,
        "/editor/posts/new",
        confirming(DEFAULTS | dict.fromkeys(FIELDS, value) | {"csrf_token": token}),
    )
    assert_clear_answer(response, "every field")
    if outcome.refused:
        assert response.status_code == 422, f"expected refusals: {sorted(outcome.refused)}"
        soup = parsed(response)
        assert {f for f in FIELDS if soup.select_one(f"#{f}-error")} == outcome.refused
        form = soup.select_one("#post-form")
        # (HTML itself turns CR LF into LF in what the browser shows.)
        for field in ("slug", "title", "summary", "body", "author"):
            shown = newlines(field_text(form, field))
            assert shown == newlines(outcome.shown(field)), f"{field} lost its text"
        topics = newlines(CONTROL.sub("", as_received(value)).strip())
        assert newlines(field_text(form, "topics")) == topics, "topics lost their text"
        if not outcome.kept:
            return
        response = post_form(
            client, "/editor/posts/new", confirming(outcome.retry() | {"csrf_token": token})
        )
        assert_clear_answer(response, "accepted fields")
    assert response.status_code == 303, "an acceptable value was refused"
    post_id = int(response.headers["Location"].rsplit("/", 1)[1])
    with app.app_context():
        post = db.session.get(Post, post_id)
        stored = stored_fields(post)
    for field in outcome.kept:
        if field == "slug" and outcome.shown("slug") == "":
            assert stored["slug"] == slugify(stored["title"], max_length=200)
        else:
            assert stored[field] == outcome.shown(field), f"{field} stored differently"

    # Readers see it as text: no script, handler, htmx attribute or dangerous link appears.
    reader = app.test_client()
    page = reader.get(f"/posts/{stored['slug']}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    heading = BeautifulSoup(html, "lxml").select_one("h1")
    assert newlines(heading.get_text().strip()) == newlines(stored["title"].strip())
    assert_no_more_than(fingerprint(html), plain_pages[0], "post page")

    # Search for it.
    text = query({"q": value})
    found = reader.get(f"/search?{text}")
    assert_clear_answer(found, "search")
    if len(text) > app.config["MAX_QUERY_STRING"]:
        assert found.status_code == 400
    else:
        assert found.status_code == 200
        assert_no_more_than(fingerprint(found.get_data(as_text=True)), plain_pages[1], "search")


CONTROL_ONLY = ["\x00", "\x01\x02\x03", "\x1b\x7f", " \x00 ", "\x0b\x0c"]


def test_text_of_only_control_characters_counts_as_empty(app, client):
    """A required field holding nothing but control characters is refused, not saved empty."""
    log_in_as(client, make_editor(app))
    token = csrf_token(client, "/editor/posts/new")
    for field in ("title", "author", "body"):
        for value in CONTROL_ONLY:
            what = f"{field} = {value!r}"
            fields = DEFAULTS | {field: value, "csrf_token": token, "slug": "control"}
            response = post_form(client, "/editor/posts/new", fields)
            assert response.status_code == 422, f"{what}: {response.status_code}"
            html = response.get_data(as_text=True)
            assert re.search(f'\\bid="{field}-error"', html), f"{what}: no reason beside it"
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == 0
