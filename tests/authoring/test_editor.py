"""The authoring area: post list, editor form, slugs, scheduling, versions, preview, delete."""

from __future__ import annotations

import copy
import re
from datetime import timedelta

import flask
import lxml.html
import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup, Tag
from flask import Flask
from flask.testing import FlaskClient
from flask_wtf.csrf import generate_csrf

from blog import markup
from blog.authoring.forms import MAX_AUTHORS, topic_names
from blog.authoring.store import author_slug, topic_slug
from blog.catalog import SCHEDULED
from blog.extensions import db
from blog.models import DRAFT, PUBLISHED, Author, Post, SlugRedirect, Topic, utcnow
from blog.web.errors import error_page
from tests.authoring.test_auth import csrf_token, editor_client, log_in_as, make_editor, page

__all__ = ["editor_client"]

HX_EDITOR = {"HX-Request": "true", "HX-Target": "post-editor"}
HX_TABLE = {"HX-Request": "true", "HX-Target": "post-table"}
HX_PREVIEW = {"HX-Request": "true", "HX-Target": "preview"}


def confirming(data: dict[str, object]) -> dict[str, object]:
    """The form with each topic and each author it names ticked to be created if new, as an
    editor who means them sends it (unless `data` says what is ticked). `author` is a name
    or a list of them, one per author box."""
    keys = [f"topic:{topic_slug(name)}" for name in topic_names(str(data.get("topics") or ""))]
    authors = data.get("author") or []
    for name in [authors] if isinstance(authors, str) else authors:
        if str(name).strip():
            keys.append(f"author:{author_slug(str(name))}")
    return {"confirm_new": keys} | data


def form_token(client: FlaskClient) -> str:
    """The CSRF token the new-post page would hand this client, made as the page makes it
    (flask_wtf's generate_csrf on the client's session, which keeps the raw token it has or
    gets a new one), without rendering the page for it: most tests post a form right away.
    test_new_post_form_credits_the_editor checks the page hands out a token, and
    test_auth / test_csrf_token_is_required_on_every_post that one is needed."""
    with client.session_transaction() as session, client.application.test_request_context():
        if "csrf_token" in session:
            flask.session["csrf_token"] = session["csrf_token"]
        token = generate_csrf()
        if session.get("csrf_token") != flask.session["csrf_token"]:
            session["csrf_token"] = flask.session["csrf_token"]
    return token


def new_post_form(client: FlaskClient, **fields: object) -> dict[str, object]:
    """What the new-post form sends, with `fields` typed over the defaults (new topics and
    author confirmed)."""
    return confirming(
        {
            "csrf_token": form_token(client),
            "title": "Notes on connection pools",
            "slug": "",
            "topics": "Databases",
            "summary": "",
            "body": "Pools keep connections warm.\n\n## Sizing\n\nStart small.",
            "author": "Ada Example",
            "status": DRAFT,
            "published_at": "",
            "image_alt": "",
        }
        | fields
    )


def create(client: FlaskClient, **fields: object) -> int:
    """Create a post through the form; returns its id."""
    response = client.post("/editor/posts/new", data=new_post_form(client, **fields))
    assert response.status_code == 303, page(response).select(".field-errors")
    return int(response.headers["Location"].rsplit("/", 1)[1])


def current_form(client: FlaskClient, post_id: int) -> dict[str, object]:
    """What the edit form would send untouched, read from the page as a browser would.

    Read with lxml alone (about 1 ms for the page, where BeautifulSoup over lxml takes 12):
    nearly every test that edits a post reads the form first."""
    return form_in(client.get(f"/editor/posts/{post_id}").get_data(as_text=True))


def form_in(html: str) -> dict[str, object]:
    """What the edit form on this page would send untouched (see `current_form`)."""
    (form,) = lxml.html.document_fromstring(html).xpath('//*[@id="post-form"]')
    data: dict[str, object] = {}
    authors: list[str] = []  # one box per author, and an empty one
    for element in form.iter("input", "textarea"):
        name, kind = element.get("name"), element.get("type", "")
        if not name or kind == "file":
            continue
        if element.tag == "textarea":
            # A browser drops the newline that opens a textarea and sends lines as CR LF.
            text = element.text_content().removeprefix("\r\n").removeprefix("\n")
            data[name] = text.replace("\r\n", "\n").replace("\n", "\r\n")
        elif kind in ("checkbox", "radio"):
            if "checked" in element.attrib:
                data[name] = element.get("value", "y")
        elif name == "author":
            authors.append(element.get("value", ""))
        else:
            data[name] = element.get("value", "")
    if authors:
        data["author"] = authors
    return data


def save(client: FlaskClient, post_id: int, headers: dict | None = None, **changes: object):
    """Submit the edit form with some fields changed."""
    data = confirming(current_form(client, post_id) | changes)
    data = {key: value for key, value in data.items() if value is not None}
    return client.post(f"/editor/posts/{post_id}", data=data, headers=headers or {})


def stored(app: Flask, post_id: int) -> Post:
    """The post as stored, detached with its columns loaded."""
    with app.app_context():
        post = db.session.get(Post, post_id)
        assert post is not None
        _ = (post.topics, post.author.name, [author.name for author in post.authors], post.image)
        db.session.expunge_all()
        return post


def seen(element: Tag) -> str:
    """An element's text as the eye reads it: without the words for screen readers and the
    diff's signs."""
    shown = copy.copy(element)
    for hidden in shown.select(".visually-hidden, .diff-sign"):
        hidden.decompose()
    return shown.get_text().strip()


def field_error(response, name: str) -> str:
    """The error text shown beside a field."""
    found = page(response).select_one(f"#{name}-error")
    return found.get_text(" ", strip=True) if found else ""


def inline_code(html: str) -> list[str]:
    """Inline scripts, inline styles and hx-on attributes: the CSP forbids all three."""
    soup = BeautifulSoup(html, "lxml")
    found = [str(s)[:80] for s in soup.select("script") if not s.get("src")]
    found += [str(s)[:80] for s in soup.select("style")]
    found += [tag.name for tag in soup.find_all(True) if tag.has_attr("style")]
    found += [
        tag.name
        for tag in soup.find_all(True)
        if any(a.startswith(("hx-on", "data-hx-on")) for a in tag.attrs)
    ]
    return found


# The post list ------------------------------------------------------------------------------


def test_post_list_shows_every_state_with_filters(app, editor_client, posts):
    """Drafts, scheduled and published posts are listed with their state and counts."""
    now = utcnow()
    posts.create(2)
    posts.create(1, title="Coming soon", published_at=now + timedelta(days=2))
    posts.create(1, title="Still a draft", published_at=None)
    response = editor_client.get("/editor/")
    assert response.status_code == 200
    soup = page(response)
    rows = {
        row.select_one("th a").text: row.select_one(".state").text
        for row in soup.select("#post-table tbody tr")
    }
    assert rows["Coming soon"] == "Scheduled"
    assert rows["Still a draft"] == "Draft"
    assert sorted(rows.values()).count("Published") == 2
    counts = {a["id"]: a.select_one(".count").text for a in soup.select(".state-filter a")}
    assert counts == {
        "filter-all": "4",
        "filter-draft": "1",
        "filter-review": "0",
        "filter-scheduled": "1",
        "filter-published": "2",
    }
    assert soup.select_one(".authoring")["data-hx-history"] == "false"
    assert response.headers["Cache-Control"].startswith("no-store") or (
        "no-store" in response.headers["Cache-Control"]
    )


def test_quick_filters_as_page_and_fragment(app, editor_client, posts):
    """Each filter is a plain URL; with htmx it answers with just the table."""
    posts.create(1)
    posts.create(1, title="Coming soon", published_at=utcnow() + timedelta(hours=3))
    posts.create(1, title="Still a draft", published_at=None)
    for status, titles in [
        ("draft", ["Still a draft"]),
        ("scheduled", ["Coming soon"]),
        ("published", ["Post number 1"]),
    ]:
        full = page(editor_client.get(f"/editor/?status={status}"))
        assert [a.text for a in full.select("#post-table tbody th a.edit-link")] == titles
        assert full.select_one("h1").text == "Posts"
        fragment = editor_client.get(f"/editor/?status={status}", headers=HX_TABLE)
        soup = page(fragment)
        assert soup.select_one("h1") is None
        assert soup.select_one("section")["id"] == "post-table"
        assert [a.text for a in soup.select("tbody th a.edit-link")] == titles, status
        assert "HX-Request" in fragment.headers["Vary"]


def test_unknown_filter_is_a_400(editor_client):
    """A status that is not one of the filters is refused plainly."""
    response = editor_client.get("/editor/?status=secret")
    assert response.status_code == 400
    assert "draft, scheduled or published" in response.get_data(as_text=True)


def test_authoring_pages_keep_to_the_csp(app, editor_client, posts):
    """No inline script, inline style or hx-on anywhere in the authoring area."""
    (slug,) = posts.create(1)
    with app.app_context():
        post_id = db.session.scalar(sa.select(Post.id).where(Post.slug == slug))
    for url in ("/editor/", "/editor/posts/new", f"/editor/posts/{post_id}", "/login"):
        response = editor_client.get(url, follow_redirects=url == "/login")
        assert response.status_code == 200, url
        assert inline_code(response.get_data(as_text=True)) == [], url
        assert "no-store" in response.headers["Cache-Control"], url


# Writing a post --------------------------------------------------------------------------------


def test_new_post_form_credits_the_editor(editor_client):
    """The author field starts with the logged-in editor's name; the page sends a CSRF header."""
    soup = page(editor_client.get("/editor/posts/new"))
    assert soup.select_one("#author")["value"] == "Ada Example"
    assert soup.select_one('meta[name="csrf-token"]')["content"]
    form = soup.select_one("#post-form")
    assert form["data-hx-post"] == "/editor/posts/new" and form["action"] == "/editor/posts/new"
    assert form["enctype"] == "multipart/form-data"


def test_create_a_draft_that_readers_cannot_see(app, editor_client):
    """A saved draft is stored with its topics and slug, and is not on the site."""
    post_id = create(editor_client, topics="Databases, Reliability, databases")
    post = stored(app, post_id)
    assert post.status == DRAFT and post.published_at is None
    assert post.slug == "notes-on-connection-pools"
    assert [t.name for t in post.topics] == ["Databases", "Reliability"]
    assert post.primary_topic_id == post.topics[0].id
    assert "<h2" in post.body_html and post.reading_minutes >= 1
    assert editor_client.get("/posts/notes-on-connection-pools").status_code == 404


def test_publish_puts_the_post_on_the_home_page(app, editor_client):
    """Published with no date, a post is live at once, in the listing and at its address."""
    create(editor_client, status=PUBLISHED, title="Fresh news")
    home = page(editor_client.get("/"))
    assert "Fresh news" in [a.text for a in home.select("#post-list .card-title a")]
    assert editor_client.get("/posts/fresh-news").status_code == 200


def test_existing_topics_match_whatever_their_case(app, editor_client, posts):
    """Typing an existing topic in another case reuses it; a new name adds one at the end."""
    posts.topics("Databases", "Frontend")
    post_id = create(editor_client, topics="frontend,  DATABASES , Site Reliability")
    post = stored(app, post_id)
    assert [t.name for t in post.topics] == ["Frontend", "Databases", "Site Reliability"]
    with app.app_context():
        names = db.session.scalars(sa.select(Topic.name).order_by(Topic.position)).all()
    assert names == ["Databases", "Frontend", "Site Reliability"]


@pytest.mark.parametrize("typed", ["ada example", "ADA   Example"])
def test_author_matches_an_existing_name_whatever_its_case(app, editor_client, posts, typed):
    """Crediting "ada example" credits the existing Ada Example, not a second author."""
    posts.create(1)
    post_id = create(editor_client, author=typed)
    assert stored(app, post_id).author.name == "Ada Example"
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Author)) == 1


def author_boxes(response) -> list[tuple[str, str, str]]:
    """The author boxes of an editor page: (id, label, value), in order."""
    form = page(response).select_one("#authors")
    return [
        (box["id"], form.select_one(f'label[for="{box["id"]}"]').get_text(), box.get("value", ""))
        for box in form.select('input[name="author"]')
    ]


def test_several_authors_are_saved_in_order_and_shown_in_their_boxes(app, editor_client, posts):
    """One box per author, in order, and an empty one to add another; a box emptied takes
    its author off. Existing names need no confirmation, whatever their case."""
    posts.create(1, author="Grace Writer")
    post_id = create(editor_client, author=["Ada Example", "", "grace writer", "Bo Reviewer"])
    assert [author.name for author in stored(app, post_id).authors] == [
        "Ada Example",
        "Grace Writer",
        "Bo Reviewer",
    ]
    assert author_boxes(editor_client.get(f"/editor/posts/{post_id}")) == [
        ("author", "Author 1", "Ada Example"),
        ("author-2", "Author 2", "Grace Writer"),
        ("author-3", "Author 3", "Bo Reviewer"),
        ("author-4", "Author 4 (optional)", ""),
    ]
    assert (
        save(editor_client, post_id, author=["Bo Reviewer", "", "Ada Example"]).status_code == 303
    )
    assert [author.name for author in stored(app, post_id).authors] == [
        "Bo Reviewer",
        "Ada Example",
    ]
    assert author_boxes(editor_client.get("/editor/posts/new")) == [
        ("author", "Author 1", "Ada Example"),
        ("author-2", "Author 2 (optional)", ""),
    ]


def test_a_new_co_author_is_made_only_once_confirmed(app, editor_client, posts):
    """Each new name asks before it makes an author, beside the authors' boxes; the names
    stay in their boxes; ticked, the save makes them."""
    posts.create(1)
    typed = ["Ada Example", "Bo Reviewer", "Cy Third"]
    refused = editor_client.post(
        "/editor/posts/new", data=new_post_form(editor_client, author=typed, confirm_new=[])
    )
    assert refused.status_code == 422
    errors = page(refused).select_one("#author-error").get_text()
    assert "“Bo Reviewer” is not an author yet" in errors and "“Cy Third”" in errors
    assert [value for _, _, value in author_boxes(refused)] == [*typed, ""]
    boxes = page(refused).select('#authors input[name="confirm_new"]')
    assert [box["value"] for box in boxes] == ["author:bo-reviewer", "author:cy-third"]
    with app.app_context():
        assert db.session.scalars(sa.select(Author.name)).all() == ["Ada Example"]
    post_id = create(editor_client, author=typed)
    assert [author.name for author in stored(app, post_id).authors] == typed


def test_an_author_named_twice_is_credited_once(app, editor_client, posts):
    """The same author in two boxes (in any case) is credited once, at the first place."""
    posts.create(1, author="Grace Writer")
    post_id = create(editor_client, author=["Grace Writer", "Ada Example", "GRACE  writer"])
    assert [author.name for author in stored(app, post_id).authors] == [
        "Grace Writer",
        "Ada Example",
    ]


def test_a_name_with_commas_and_and_is_one_author(app, editor_client):
    """Names are never split: commas and "and" stay in the one name."""
    post_id = create(editor_client, author=["Smith, Jones and Co", "Ada Example"])
    assert [author.name for author in stored(app, post_id).authors] == [
        "Smith, Jones and Co",
        "Ada Example",
    ]


def test_fifty_authors_are_taken_and_fifty_one_refused(app, editor_client):
    """A post takes up to MAX_AUTHORS authors; one more is refused, saying so, with every
    name still in its box."""
    names = ["Ada Example"] + [f"Writer {n}" for n in range(1, MAX_AUTHORS)]
    post_id = create(editor_client, author=names)
    assert [author.name for author in stored(app, post_id).authors] == names
    assert len(author_boxes(editor_client.get(f"/editor/posts/{post_id}"))) == MAX_AUTHORS + 1
    refused = editor_client.post(
        "/editor/posts/new", data=new_post_form(editor_client, author=[*names, "One More"])
    )
    assert refused.status_code == 422
    assert field_error(refused, "author") == (
        f"A post takes at most {MAX_AUTHORS} authors; this one names {MAX_AUTHORS + 1}."
    )
    assert [value for _, _, value in author_boxes(refused)][-2:] == ["One More", ""]


@pytest.mark.parametrize("typed", [[], [""], ["  ", ""]])
def test_a_post_needs_an_author(editor_client, typed):
    """Every box empty is refused beside the boxes."""
    refused = editor_client.post(
        "/editor/posts/new", data=new_post_form(editor_client, author=typed)
    )
    assert refused.status_code == 422
    assert field_error(refused, "author") == "Name the author."


def test_create_with_htmx_swaps_the_editor_and_updates_the_address(editor_client):
    """An htmx save answers with the editor fragment and moves the address to the edit page."""
    data = new_post_form(editor_client)
    response = editor_client.post("/editor/posts/new", data=data, headers=HX_EDITOR)
    assert response.status_code == 200
    soup = page(response)
    assert soup.select_one("div")["id"] == "post-editor"
    assert soup.select_one("#saved-notice") is not None
    edit_url = response.headers["HX-Replace-Url"]
    assert re.fullmatch(r"/editor/posts/\d+", edit_url)
    assert soup.select_one("#post-form")["data-hx-post"] == edit_url
    assert soup.select_one("#lock_version")["value"] == "1"


@pytest.mark.parametrize("headers", [{}, HX_EDITOR], ids=["page", "htmx"])
def test_validation_errors_sit_beside_their_fields_and_keep_the_text(editor_client, headers):
    """Missing title and topics on Publish: 422, a message by each field, the body as typed."""
    body = "A long body the editor must not lose.\n\nSecond paragraph."
    data = new_post_form(
        editor_client, title="", topics=" , ", body=body, summary="Kept", action="publish"
    )
    response = editor_client.post("/editor/posts/new", data=data, headers=headers)
    assert response.status_code == 422
    assert field_error(response, "title") == "Give the post a title."
    assert field_error(response, "topics") == (
        "Give the post at least one topic before publishing it."
    )
    soup = page(response)
    assert soup.select_one("#body").text.strip() == body
    assert soup.select_one("#summary").text.strip() == "Kept"
    assert soup.select_one("#title")["aria-invalid"] == "true"
    assert "title-error" in soup.select_one("#title")["aria-describedby"]
    assert (soup.select_one(".authoring-crumbs") is None) == bool(headers)


def test_publishing_needs_a_body(editor_client):
    """A draft may be empty; a published post may not."""
    data = new_post_form(editor_client, body="  ", status=PUBLISHED)
    response = editor_client.post("/editor/posts/new", data=data)
    assert response.status_code == 422
    assert field_error(response, "body") == "A published post needs a body."
    assert create(editor_client, body="")


BAD_VALUES = [
    ("slug", "!!! ???", "needs a letter or a digit: \u201c!!! ???\u201d has none"),
    ("slug", "x" * 401, "401 characters long; the limit is 200"),
    ("slug", "x" * 201, "200 characters"),
    ("title", "x" * 301, "300 characters"),
    ("topics", "a, b, c, d, e, f, g, h, i", "at most 8 topics"),
    ("topics", "!!!", "needs a letter or a digit"),
    ("status", "archived", "not a valid choice"),
    ("published_at", "next tuesday", "Not a valid date and time"),
]


def test_bad_values_are_422s_with_a_message(editor_client):
    """Each bad value gets its own message beside its field; nothing is stored."""
    for field, value, message in BAD_VALUES:
        response = editor_client.post(
            "/editor/posts/new", data=new_post_form(editor_client, **{field: value})
        )
        assert response.status_code == 422, (field, value)
        # A hand-made status has no field on the page (the bar's buttons decide the state):
        # its message is in the list beside the buttons.
        shown = (
            page(response).select_one("#save-status").get_text(" ", strip=True)
            if field == "status"
            else field_error(response, field)
        )
        assert message.lower() in shown.lower(), (field, value)
        assert editor_client.get("/editor/").get_data(as_text=True).count("<tbody>") == 0


def test_csrf_token_is_required_on_every_post(app, editor_client, posts):
    """Saving, previewing and deleting without the token are refused and change nothing."""
    (slug,) = posts.create(1)
    with app.app_context():
        post_id = db.session.scalar(sa.select(Post.id).where(Post.slug == slug))
    data = new_post_form(editor_client)
    del data["csrf_token"]
    for url in ("/editor/posts/new", f"/editor/posts/{post_id}", f"/editor/posts/{post_id}/delete"):
        response = editor_client.post(url, data=data)
        assert response.status_code == 400, url
        assert "security token" in response.get_data(as_text=True)
    assert editor_client.post("/editor/preview", data={"body": "x"}).status_code == 400
    assert (
        editor_client.post(
            "/editor/preview", data={"body": "x", "csrf_token": "forged"}
        ).status_code
        == 400
    )
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == 1


def test_csrf_header_is_accepted_for_htmx(editor_client):
    """htmx sends the token as a header (X-CSRFToken) instead of a form field."""
    token = csrf_token(editor_client, "/editor/posts/new")
    response = editor_client.post(
        "/editor/preview",
        data={"body": "*hi*"},
        headers=HX_PREVIEW | {"X-CSRFToken": token},
    )
    assert response.status_code == 200
    assert "<em>hi</em>" in response.get_data(as_text=True)


def test_csrf_failure_from_htmx_is_an_alert_with_a_fresh_token(editor_client):
    """htmx does not swap errors by default: the refusal names the alert box to fill."""
    data = new_post_form(editor_client)
    data["csrf_token"] = "stale"
    response = editor_client.post("/editor/posts/new", data=data, headers=HX_EDITOR)
    assert response.status_code == 400
    assert response.headers["HX-Retarget"] == "#editor-alert"
    assert response.headers["HX-Reswap"] == "innerHTML"
    assert "security token" in response.get_data(as_text=True)
    fresh = response.headers["X-CSRF-Token"]
    data["csrf_token"] = fresh
    assert editor_client.post("/editor/posts/new", data=data, headers=HX_EDITOR).status_code == 200


def test_tampered_lock_version_is_a_400(app, editor_client):
    """The hidden version field must be a number."""
    post_id = create(editor_client)
    response = save(editor_client, post_id, lock_version="1 OR 1=1")
    assert response.status_code == 400


def test_missing_post_is_a_404_page_or_alert(editor_client):
    """Editing a post that does not exist: a 404 page, or an alert for htmx saves."""
    assert editor_client.get("/editor/posts/999999").status_code == 404
    data = new_post_form(editor_client, lock_version="1")
    response = editor_client.post("/editor/posts/999999", data=data, headers=HX_EDITOR)
    assert response.status_code == 404
    assert response.headers["HX-Retarget"] == "#editor-alert"
    assert "no longer exists" in response.get_data(as_text=True)


def test_authoring_refusals_are_the_sites_error_page(app, editor_client):
    """Outside htmx a refusal is the error page the whole site renders, with its message."""
    response = editor_client.get("/editor/posts/999999")
    with app.test_request_context():
        expected = error_page(
            404, "This post no longer exists: another editor may have deleted it."
        )
    assert str(page(response).select_one(".error-page")) == str(
        page(expected).select_one(".error-page")
    )
    assert "Nothing here" in page(response).select_one(".error-page h1").get_text()


# Slugs -------------------------------------------------------------------------------------------


def test_slug_is_suggested_from_the_title(editor_client):
    """The slug hint follows the title; an empty slug field saves the suggestion."""
    hint = editor_client.get(
        "/editor/slug", query_string={"title": "Ünïcode & Friends!", "slug": ""}
    )
    assert "/posts/unicode-friends" in hint.get_data(as_text=True)
    post_page = editor_client.get("/editor/posts/new")
    assert page(post_page).select_one("#title")["data-hx-get"].startswith("/editor/slug")


def test_a_typed_address_is_saved_as_a_slug_and_the_hint_says_so(app, editor_client):
    """`My Post!` is saved as `my-post`, and the hint says so while typing and after a
    refused save; an address of symbols alone is refused with a reason, never saved."""
    hint = editor_client.get("/editor/slug", query_string={"title": "x", "slug": " My Post! "})
    text = page(hint).get_text(" ", strip=True)
    assert "Typed as My Post! ; saved as my-post : the post will live at /posts/my-post" in text
    kept = editor_client.get("/editor/slug", query_string={"title": "x", "slug": "my-post"})
    assert "Typed as" not in kept.get_data(as_text=True)
    symbols = editor_client.get("/editor/slug", query_string={"title": "x", "slug": "!?!"})
    assert "needs a letter or a digit" in page(symbols).select_one(".hint-problem").get_text()
    huge = editor_client.get("/editor/slug", query_string={"slug": "a" * 1000})
    assert huge.status_code == 200 and "1,000 characters" in huge.get_data(as_text=True)
    refused = editor_client.post(
        "/editor/posts/new",
        data=new_post_form(editor_client, slug="My Post!", topics="", action="publish"),
    )
    assert refused.status_code == 422
    assert "Typed as My Post!" in page(refused).select_one("#slug-hint").get_text()
    post_id = create(editor_client, slug="My Post!  Über Café")
    assert stored(app, post_id).slug == "my-post-uber-cafe"


def test_slug_hint_warns_about_a_taken_address(editor_client, posts):
    """The hint says when the typed address belongs to another post."""
    posts.create(1, title="Taken title")
    hint = editor_client.get("/editor/slug?title=anything&slug=taken-title")
    assert "Another post already uses this address" in hint.get_data(as_text=True)


def test_slugs_are_unique(editor_client, posts):
    """A second post cannot take an address in use: 422 and the reason beside the field."""
    posts.create(1, title="Taken title")
    response = editor_client.post(
        "/editor/posts/new", data=new_post_form(editor_client, title="Taken title")
    )
    assert response.status_code == 422
    assert "Another post already uses this address" in field_error(response, "slug")
    other = editor_client.post(
        "/editor/posts/new", data=new_post_form(editor_client, slug="taken-title")
    )
    assert other.status_code == 422


def test_renaming_a_published_post_keeps_the_old_address_as_a_301(app, editor_client):
    """Old links keep working, through every later rename, and point at the newest slug."""
    post_id = create(editor_client, status=PUBLISHED, title="First name")
    assert save(editor_client, post_id, slug="second-name").status_code == 303
    assert save(editor_client, post_id, slug="third-name").status_code == 303
    for old in ("first-name", "second-name"):
        response = editor_client.get(f"/posts/{old}")
        assert response.status_code == 301
        assert response.headers["Location"] == "/posts/third-name"
    assert editor_client.get("/posts/third-name").status_code == 200


def test_renaming_back_takes_the_old_address_back(app, editor_client):
    """Going back to an earlier slug removes its redirect and adds one for the other name."""
    post_id = create(editor_client, status=PUBLISHED, title="Alpha")
    save(editor_client, post_id, slug="beta")
    save(editor_client, post_id, slug="alpha")
    assert editor_client.get("/posts/alpha").status_code == 200
    assert editor_client.get("/posts/beta").headers["Location"] == "/posts/alpha"
    with app.app_context():
        olds = db.session.scalars(sa.select(SlugRedirect.old_slug)).all()
    assert olds == ["beta"]


def test_renaming_a_draft_leaves_no_redirect(app, editor_client):
    """A draft's address was never public: nothing to keep."""
    post_id = create(editor_client, title="Draft name")
    save(editor_client, post_id, slug="better-name")
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(SlugRedirect.id))) == 0


def test_an_old_address_of_another_post_is_not_free(editor_client):
    """Taking a renamed post's old slug would hijack its old links: refused."""
    post_id = create(editor_client, status=PUBLISHED, title="Original")
    save(editor_client, post_id, slug="renamed")
    response = editor_client.post(
        "/editor/posts/new", data=new_post_form(editor_client, slug="original")
    )
    assert response.status_code == 422
    assert "used to belong to “Original”" in field_error(response, "slug")


# Scheduling, updated dates, unpublishing ---------------------------------------------------------


def test_scheduled_post_appears_when_its_time_passes(app, editor_client, monkeypatch):
    """A future date hides the post until then; it then shows up with no job run."""
    when = (utcnow() + timedelta(hours=2)).replace(second=0, microsecond=0)
    post_id = create(
        editor_client,
        status=SCHEDULED,
        title="Scheduled piece",
        published_at=when.strftime("%Y-%m-%dT%H:%M"),
    )
    assert stored(app, post_id).published_at == when
    assert editor_client.get("/posts/scheduled-piece").status_code == 404
    assert "Scheduled piece" not in editor_client.get("/").get_data(as_text=True)
    listed = page(editor_client.get("/editor/?status=scheduled"))
    assert [a.text for a in listed.select("tbody th a.edit-link")] == ["Scheduled piece"]

    import blog.models
    import blog.reading.listing
    import blog.web.versions

    later = when + timedelta(minutes=1)
    # The clock moves on for the live rule, the listing's queries and the data version's
    # scheduled-time check.
    for module in (blog.models, blog.reading.listing, blog.web.versions):
        monkeypatch.setattr(module, "utcnow", lambda: later)
    assert editor_client.get("/posts/scheduled-piece").status_code == 200
    assert "Scheduled piece" in editor_client.get("/").get_data(as_text=True)


def test_updated_date_is_set_when_a_live_post_changes(app, editor_client, posts):
    """Title or body changes on a live post set "Updated"; a typo fix can keep the date."""
    (slug,) = posts.create(1)
    with app.app_context():
        post_id = db.session.scalar(sa.select(Post.id).where(Post.slug == slug))
    assert stored(app, post_id).updated_at is None
    save(editor_client, post_id, summary="Only the summary changed.")
    assert stored(app, post_id).updated_at is None
    save(editor_client, post_id, body="Rewritten body.", keep_updated_date="y")
    assert stored(app, post_id).updated_at is None
    save(editor_client, post_id, title="A better title")
    post = stored(app, post_id)
    assert post.updated_at is not None and post.was_updated
    first_update = post.updated_at
    save(editor_client, post_id, body="Typo fixed.", keep_updated_date="y")
    assert stored(app, post_id).updated_at == first_update
    assert "Updated" in editor_client.get(f"/posts/{slug}").get_data(as_text=True)


def test_first_publication_sets_no_updated_date(app, editor_client):
    """Publishing a draft, even after rewriting it, is not an update."""
    post_id = create(editor_client)
    save(editor_client, post_id, body="Rewritten before anyone saw it.", status=PUBLISHED)
    post = stored(app, post_id)
    assert post.status == PUBLISHED and post.updated_at is None


def test_saving_again_keeps_the_publish_date(app, editor_client):
    """The date field round-trips: saving an untouched form changes no date."""
    post_id = create(editor_client, status=PUBLISHED)
    before = stored(app, post_id)
    assert save(editor_client, post_id).status_code == 303
    after = stored(app, post_id)
    assert after.published_at == before.published_at and after.updated_at is None
    assert after.lock_version == before.lock_version + 1


def test_unpublish_takes_the_post_off_the_site(app, editor_client):
    """The Unpublish button saves the form as a draft."""
    post_id = create(editor_client, status=PUBLISHED, title="Going away")
    assert editor_client.get("/posts/going-away").status_code == 200
    soup = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert soup.select_one("#unpublish-button")["value"] == "unpublish"
    response = save(editor_client, post_id, action="confirm-unpublish", summary="Saved too.")
    assert response.status_code == 303
    post = stored(app, post_id)
    assert post.status == DRAFT and post.summary == "Saved too."
    assert editor_client.get("/posts/going-away").status_code == 404
    assert (
        page(editor_client.get(f"/editor/posts/{post_id}")).select_one("#unpublish-button") is None
    )


# Two editors, one post ---------------------------------------------------------------------------


def test_a_save_based_on_an_older_version_is_a_409_that_loses_nothing(app, editor_client):
    """Both rewrote the body: the second editor is asked about it alone, keeps their text,
    and saving with their choice keeps the other editor's new title too."""
    post_id = create(editor_client, title="Shared post", body="Original body.")
    mine = current_form(editor_client, post_id)

    other = app.test_client()
    log_in_as(other, make_editor(app, "grace@example.com", name="Grace"))
    assert save(other, post_id, body="Grace's body.", title="Grace's title").status_code == 303

    mine |= {"body": "Ada's body.", "summary": "Ada's summary."}
    response = editor_client.post(f"/editor/posts/{post_id}", data=mine, headers=HX_EDITOR)
    assert response.status_code == 409
    soup = page(response)
    (overlap,) = soup.select(".overlap")
    assert seen(overlap.select_one(".overlap-theirs pre")) == "Grace's body."
    assert seen(overlap.select_one(".overlap-mine pre")) == "Ada's body."
    assert soup.select_one("#body").text.strip() == "Ada's body."
    assert soup.select_one("#summary").text.strip() == "Ada's summary."
    assert soup.select_one("#lock_version")["value"] == "2"
    assert stored(app, post_id).body_markdown == "Grace's body."

    pick = overlap.select_one("input[value=mine]")["name"]
    mine["lock_version"] = soup.select_one("#lock_version")["value"]
    mine["merge_base"] = soup.select_one("#merge_base")["value"]
    mine["csrf_token"] = soup.select_one('input[name="csrf_token"]')["value"]
    again = editor_client.post(
        f"/editor/posts/{post_id}", data=mine | {pick: "mine"}, headers=HX_EDITOR
    )
    assert again.status_code == 200
    post = stored(app, post_id)
    assert post.body_markdown == "Ada's body." and post.lock_version == 3
    assert post.title == "Grace's title" and post.summary == "Ada's summary."


def test_topic_only_changes_still_move_the_version(app, editor_client):
    """Every save bumps the lock version, even one that only touches the topic links: a
    stale form choosing other topics is asked about them."""
    post_id = create(editor_client)
    stale = current_form(editor_client, post_id)
    save(editor_client, post_id, topics="Frontend")
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=confirming(stale | {"topics": "Backend"})
    )
    assert response.status_code == 409
    assert [legend.text for legend in page(response).select(".overlap legend")] == ["Topics"]


# Preview -----------------------------------------------------------------------------------------


def test_preview_uses_the_post_page_pipeline(editor_client):
    """The preview is the sanitized render the post page would show."""
    body = "# Title\n\nSome **bold** and <script>alert(1)</script>\n\n```python\nx = 1\n```"
    token = csrf_token(editor_client, "/editor/posts/new")
    response = editor_client.post(
        "/editor/preview", data={"body": body, "csrf_token": token}, headers=HX_PREVIEW
    )
    assert response.status_code == 200
    stats, _, html = response.get_data(as_text=True).strip().partition("\n")
    assert stats.startswith('<p class="writing-stats"')  # tests/authoring/test_writing.py
    assert html.strip() == markup.render(body).html.strip()
    assert "<script>" not in html and "<strong>bold</strong>" in html
    assert "no-store" in response.headers["Cache-Control"]


def test_edit_page_shows_the_preview_beside_the_body(app, editor_client):
    """The editor page opens with the current body already previewed."""
    post_id = create(editor_client, body="Hello *world*")
    soup = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert "<em>world</em>" in str(soup.select_one("#preview"))
    body = soup.select_one("#body")
    assert body["data-hx-post"] == "/editor/preview" and body["data-hx-target"] == "#preview"
    assert "delay:" in body["data-hx-trigger"]


# Deleting ----------------------------------------------------------------------------------------


def test_delete_asks_first_then_removes_the_post_and_its_old_addresses(app, editor_client):
    """A confirmation page, then a POST that deletes the post and its redirects."""
    post_id = create(editor_client, status=PUBLISHED, title="Doomed")
    save(editor_client, post_id, slug="doomed-again")
    confirm = editor_client.get(f"/editor/posts/{post_id}/delete")
    assert confirm.status_code == 200
    assert "cannot be undone" in confirm.get_data(as_text=True)
    assert stored(app, post_id).title == "Doomed"
    token = page(confirm).select_one('input[name="csrf_token"]')["value"]
    response = editor_client.post(f"/editor/posts/{post_id}/delete", data={"csrf_token": token})
    assert response.status_code == 303 and response.headers["Location"] == "/editor/"
    assert "Deleted “Doomed”." in editor_client.get("/editor/").get_data(as_text=True)
    with app.app_context():
        assert db.session.get(Post, post_id) is None
        assert db.session.scalar(sa.select(sa.func.count(SlugRedirect.id))) == 0
    assert editor_client.get("/posts/doomed").status_code == 404
    assert editor_client.get("/posts/doomed-again").status_code == 404
