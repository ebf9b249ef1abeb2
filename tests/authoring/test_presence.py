"""The editor page's heartbeat: who else has a post open, kept in the database."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog.authoring import presence
from blog.extensions import db
from blog.models import WRITER, EditorPresence, utcnow
from blog.web.templating import site_time
from tests.authoring.test_auth import csrf_token, editor_client, log_in_as, make_editor, page
from tests.authoring.test_editor import HX_EDITOR, create, current_form, new_post_form
from tests.conftest import count_queries

__all__ = ["editor_client"]


def beat(client: FlaskClient, post_id: int, **form: str):
    """One heartbeat, as htmx sends it: a POST with the page's CSRF token in a header."""
    token = csrf_token(client, f"/editor/posts/{post_id}")
    return client.post(
        f"/editor/posts/{post_id}/presence",
        data=form,
        headers={"HX-Request": "true", "HX-Target": "presence", "X-CSRFToken": token},
    )


@pytest.fixture
def ed(app: Flask) -> tuple[FlaskClient, int]:
    """A second editor's client and account id."""
    client = app.test_client()
    editor_id = make_editor(app, "ed@example.com", name="Ed Writer")
    log_in_as(client, editor_id)
    return client, editor_id


def test_the_editor_page_beats_on_load_and_every_20_seconds(editor_client):
    """The heartbeat sits outside the swapped editor, in a polite live region."""
    post_id = create(editor_client)
    region = page(editor_client.get(f"/editor/posts/{post_id}")).select_one("#presence")
    assert region["data-hx-post"] == f"/editor/posts/{post_id}/presence"
    assert region["data-hx-trigger"] == "load, every 20s"
    assert region["role"] == "status"
    assert region.find_parent(id="post-editor") is None
    waiting = page(editor_client.get("/editor/posts/new")).select_one("#presence")
    assert waiting is not None and not waiting.has_attr("data-hx-post")


def test_the_save_that_creates_a_post_starts_its_heartbeat(editor_client):
    """The new-post page's empty region is replaced out of band by the answer that creates
    the post, with the heartbeat on it; a later save does not send it again."""
    response = editor_client.post(
        "/editor/posts/new", data=new_post_form(editor_client), headers=HX_EDITOR
    )
    assert response.status_code == 200
    post_id = int(response.headers["HX-Replace-Url"].rsplit("/", 1)[1])
    region = page(response).select_one("#presence")
    assert region["data-hx-swap-oob"] == "true"
    assert region["data-hx-post"] == f"/editor/posts/{post_id}/presence"
    assert region.find_parent(id="post-editor") is None
    saved = editor_client.post(
        f"/editor/posts/{post_id}", data=current_form(editor_client, post_id), headers=HX_EDITOR
    )
    assert saved.status_code == 200 and page(saved).select_one("#presence") is None


def test_an_editor_is_told_who_else_has_the_post_open_and_since_when(app, editor_client, ed):
    """Ed opened it first: Ana's beat names him with the time of his first beat (in the
    site's zone), Ed's names her; neither is told about themself."""
    post_id = create(editor_client)
    ed_client, _ed_id = ed
    first = beat(ed_client, post_id)
    assert first.status_code == 200 and page(first).select_one(".presence-note") is None
    with app.app_context():
        (row,) = presence.others(post_id, 0)
        opened = site_time(row.since)
    response = beat(editor_client, post_id)
    assert response.status_code == 200
    note = page(response).select_one(".presence-note").get_text()
    assert f"Ed Writer has had this post open since {opened}." in note
    assert "Ada" not in note
    assert "Ada Example has had this post open" in page(beat(ed_client, post_id)).get_text()
    assert "no-store" in response.headers["Cache-Control"]
    assert "Set-Cookie" not in response.headers  # the session is not touched


def test_a_beat_that_changes_nothing_shown_is_204(app, editor_client, ed):
    """The page sends back what it shows; the same answer is not sent (or announced) again."""
    post_id = create(editor_client)
    beat(ed[0], post_id)
    shown = page(beat(editor_client, post_id)).select_one("input[name=shown]")["value"]
    assert beat(editor_client, post_id, shown=shown).status_code == 204
    assert beat(editor_client, post_id, shown="something else").status_code == 200


def test_editors_gone_for_a_minute_are_not_shown_and_a_return_is_a_new_visit(
    app, editor_client, ed
):
    """A row last seen 61 s ago is ignored (and deleted); Ed's next beat starts a new
    visit, so "since" is then."""
    post_id = create(editor_client)
    ed_client, ed_id = ed
    long_ago = utcnow() - timedelta(minutes=10)
    with app.app_context():
        presence.here(post_id, ed_id, now=long_ago)
        presence.here(post_id, ed_id, now=utcnow() - timedelta(seconds=61))
        db.session.commit()
    assert page(beat(editor_client, post_id)).select_one(".presence-note") is None
    with app.app_context():
        rows = sa.select(EditorPresence).where(EditorPresence.editor_id == ed_id)
        assert db.session.scalars(rows).all() == []  # deleted by Ana's beat
    beat(ed_client, post_id)
    with app.app_context():
        (row,) = [other for other in presence.others(post_id, 0) if other.name == "Ed Writer"]
        assert row.since > long_ago + timedelta(minutes=9)


def test_a_beat_within_the_minute_keeps_the_visit_start(app, editor_client, ed):
    """Beats every 20 s keep "since" at the first one."""
    post_id = create(editor_client)
    _client, ed_id = ed
    start = utcnow() - timedelta(seconds=50)
    with app.app_context():
        presence.here(post_id, ed_id, now=start)
        presence.here(post_id, ed_id, now=start + timedelta(seconds=20))
        presence.here(post_id, ed_id, now=start + timedelta(seconds=40))
        db.session.commit()
        (row,) = presence.others(post_id, 0)
        assert row.since == start.replace(microsecond=row.since.microsecond)


def test_a_beat_needs_the_csrf_token_the_post_and_the_right_to_open_it(app, editor_client):
    """No token: 400. No such post: 404. Another writer's draft: 403, nothing recorded."""
    post_id = create(editor_client)
    response = editor_client.post(
        f"/editor/posts/{post_id}/presence", headers={"HX-Request": "true"}
    )
    assert response.status_code == 400
    assert beat(editor_client, 999_999).status_code == 404
    writer = app.test_client()
    log_in_as(writer, make_editor(app, "wri@example.com", name="Wri", role=WRITER))
    token = csrf_token(writer, "/editor/")
    response = writer.post(
        f"/editor/posts/{post_id}/presence", headers={"X-CSRFToken": token, "HX-Request": "true"}
    )
    assert response.status_code == 403
    with app.app_context():
        assert presence.others(post_id, 0) == []


def test_a_beat_is_a_handful_of_statements(app, editor_client, ed):
    """Every open editor beats every 20 s: the account, three columns of the post (never its
    body), one upsert, one delete of stale rows and one read."""
    post_id = create(editor_client)
    beat(ed[0], post_id)
    token = csrf_token(editor_client, f"/editor/posts/{post_id}")
    headers = {"HX-Request": "true", "X-CSRFToken": token}
    with count_queries(app) as statements:
        response = editor_client.post(f"/editor/posts/{post_id}/presence", headers=headers)
    assert response.status_code == 200
    assert len(statements) == 5, "\n".join(s.split("\n")[0][:90] for s in statements)
    assert not any("body_markdown" in sql or "post_topics" in sql for sql in statements)


def test_a_beat_deletes_its_editors_rows_on_posts_they_left(app, editor_client, ed):
    """Ed left another post two minutes ago: his next beat anywhere deletes that row, so
    the table holds little more than the editors at work."""
    left, here = create(editor_client, title="Left"), create(editor_client, title="Here")
    ed_client, ed_id = ed
    with app.app_context():
        presence.here(left, ed_id, now=utcnow() - timedelta(minutes=2))
        db.session.commit()
    beat(ed_client, here)
    with app.app_context():
        rows = sa.select(EditorPresence.post_id).where(EditorPresence.editor_id == ed_id)
        assert db.session.scalars(rows).all() == [here]
