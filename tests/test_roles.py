"""The role table: docs/roles.md, blog.roles.ROUTES and the app's /editor routes say the same,
and the server refuses each role what the table refuses it, on every route."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sqlalchemy as sa
from flask import Flask

from blog import roles
from blog.extensions import db
from blog.models import ADMIN, DRAFT, EDITOR, WRITER, Post
from tests.authoring.test_auth import csrf_token, log_in_as, make_editor

DOC = Path(__file__).resolve().parents[1] / "docs" / "roles.md"
ROW = re.compile(
    r"^\| `(?P<methods>[A-Z, ]+) (?P<rule>/editor[^`]*)` \| `(?P<endpoint>[\w.]+)` \|"
    r" (?P<writer>[a-z ]+) \| (?P<editor>[a-z]+) \| (?P<admin>[a-z]+) \|$"
)
# What the three role cells of a row say, for each level of access.
CELLS = {
    ("yes", "yes", "yes"): roles.ANYONE,
    ("own posts", "yes", "yes"): roles.OWN_POSTS,
    ("own drafts", "yes", "yes"): roles.OWN_DRAFTS,
    ("no", "yes", "yes"): roles.EDITORS,
    ("no", "no", "yes"): roles.ADMINS,
}


def documented() -> dict[tuple[str, str], tuple[str, str]]:
    """(method, rule) -> (endpoint, level), as docs/roles.md's table says."""
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for line in DOC.read_text("utf-8").splitlines():
        row = ROW.match(line)
        if row is None:
            continue
        level = CELLS[(row["writer"], row["editor"], row["admin"])]
        for method in row["methods"].split(", "):
            found[(method, row["rule"])] = (row["endpoint"], level)
    return found


def routed(app: Flask) -> dict[tuple[str, str], str]:
    """(method, rule) -> endpoint, for every route under /editor."""
    return {
        (method, rule.rule): rule.endpoint
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/editor")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }


def test_the_documented_table_is_the_table_the_server_checks(app):
    """Every /editor route is in docs/roles.md and in ROUTES, with the same roles."""
    table = documented()
    assert {key: endpoint for key, (endpoint, _) in table.items()} == routed(app)
    assert {endpoint: level for endpoint, level in table.values()} == roles.ROUTES


def test_a_route_missing_from_the_table_is_refused_to_every_role(app):
    """Default deny: a new /editor route opens for nobody until the table names it."""
    app.config["TESTING"] = True
    client = app.test_client()
    log_in_as(client, make_editor(app, role=ADMIN))
    with app.test_request_context("/editor/"):
        assert roles.opens(ADMIN, roles.ADMINS) and not roles.opens(EDITOR, roles.ADMINS)
    original = dict(roles.ROUTES)
    del roles.ROUTES["editor.trash"]
    try:
        response = client.get("/editor/trash")
    finally:
        roles.ROUTES.clear()
        roles.ROUTES.update(original)
    assert response.status_code == 403
    assert roles.UNLISTED in response.get_data(as_text=True)


def _fill(rule: str, ids: dict[str, int]) -> str:
    """A rule's address with ids that exist (or a made-up one for other converters)."""
    return re.sub(r"<id:(\w+)>", lambda found: str(ids.get(found[1], 1)), rule)


@pytest.fixture
def others_draft(app: Flask) -> dict[str, int]:
    """A draft created by another account, and the ids the routes name."""
    other = make_editor(app, "other@example.com", name="Other Writer", role=WRITER)
    from blog.authoring import store

    with app.app_context():
        post = store.new_post(
            title="Another writer's draft",
            body="Not yours.",
            author=store.author_named("Other Writer"),
            topics=[store.topic_named("Databases")],
        )
        post.created_by_id = other
        db.session.commit()
        post_id = post.id
    return {"post_id": post_id, "revision_id": 1, "link_id": 1, "row_id": 1, "editor_id": other}


@pytest.mark.parametrize("role", [WRITER, EDITOR])
def test_each_role_is_refused_what_the_table_refuses_it(app, client, others_draft, role):
    """Every route the table closes to a role answers 403 to it, GET and POST alike (with a
    valid CSRF token, so only the role can refuse), and changes nothing; a writer is refused
    every post route on another writer's draft."""
    log_in_as(client, make_editor(app, f"{role}@example.com", name=f"A {role}", role=role))
    token = csrf_token(client, "/editor/posts/new")
    problems = []
    for (method, rule), (endpoint, level) in sorted(documented().items()):
        closed = not roles.opens(role, level)
        on_others = role == WRITER and level in (roles.OWN_POSTS, roles.OWN_DRAFTS)
        if not (closed or on_others):
            continue
        url = _fill(rule, others_draft)
        response = client.open(url, method=method, data={"csrf_token": token})
        if response.status_code != 403:
            problems.append(f"{method} {url} ({endpoint}): {response.status_code}")
    assert not problems, "\n".join(problems)
    with app.app_context():
        post = db.session.get(Post, others_draft["post_id"])
        assert post is not None and post.status == DRAFT
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Post)) == 1


def test_a_writer_opens_their_own_posts_and_changes_only_their_drafts(app, client, posts):
    """Own posts: the editor, the history and the preview open; once an editor published
    it, its save is a 403 that keeps the text, and the page offers no Save."""
    from tests.authoring.test_editor import create, current_form

    posts.topics("Databases")
    writer = make_editor(app, "w@example.com", name="Wendy Writer", role=WRITER)
    log_in_as(client, writer)
    post_id = create(client, author="Wendy Writer")
    for url in (
        f"/editor/posts/{post_id}",
        f"/editor/posts/{post_id}/revisions",
        f"/editor/posts/{post_id}/preview",
        f"/editor/posts/{post_id}/links",
    ):
        assert client.get(url).status_code == 200, url
    form = current_form(client, post_id)
    with app.app_context():
        db.session.execute(sa.update(Post).where(Post.id == post_id).values(status="published"))
        db.session.commit()
    html = client.get(f"/editor/posts/{post_id}").get_data(as_text=True)
    assert 'id="save-button"' not in html and 'id="read-only-note"' in html
    response = client.post(f"/editor/posts/{post_id}", data=form | {"title": "Changed"})
    assert response.status_code == 403
    assert 'value="Changed"' in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.get(Post, post_id).title != "Changed"
