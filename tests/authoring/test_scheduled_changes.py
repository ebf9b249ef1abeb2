"""Scheduled draft changes of a live post: Schedule (a time still to come) keeps the changes
from readers until that time, then the first request after it puts them live, once; a
change that can no longer go live as scheduled is held back as plain draft changes."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog.authoring import review
from blog.authoring.editor import scheduled_changes
from blog.extensions import db
from blog.models import PUBLISHED, PendingChange, Post, PostEvent, PostRevision, SiteState, utcnow
from blog.web import versions
from tests.authoring.test_autosave import HX_AUTOSAVE
from tests.authoring.test_editor import (
    HX_EDITOR,
    create,
    current_form,
    editor_client,
    form_in,
    page,
    save,
    stored,
)
from tests.authoring.test_merging import second_editor
from tests.authoring.test_pending import data_version, pending_row, readers_see
from tests.authoring.test_publishing import question

__all__ = ["editor_client"]

LIVE = "Original words about warm pools."
LATER = "Rewritten words about zebra crossings."


def later(days: int = 2) -> str:
    """A time still to come, as the form's date field takes it (the tests' site zone is UTC)."""
    return (utcnow() + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M")


def live_post(client: FlaskClient) -> int:
    return create(client, status=PUBLISHED, title="Pools", body=LIVE, topics="Databases")


def schedule(client: FlaskClient, post_id: int, **changes: object):
    """Schedule the changes: asked first, then confirmed."""
    when = changes.pop("published_at", later())
    asked = save(client, post_id, action="schedule", published_at=when, **changes)
    assert question(asked) == "Schedule these changes?", page(asked).select(".field-errors")
    return save(client, post_id, action="confirm-schedule", published_at=when, **changes)


def events(app: Flask, post_id: int) -> list[tuple[str, str]]:
    with app.app_context():
        rows = db.session.execute(
            sa.select(PostEvent.kind, PostEvent.note)
            .where(PostEvent.post_id == post_id)
            .order_by(PostEvent.id)
        )
        return [(kind, note) for kind, note in rows]


def fall_due(app: Flask, post_id: int) -> None:
    """Move the change's time into the past, as the clock would."""
    with app.app_context():
        db.session.execute(
            sa.update(PendingChange)
            .where(PendingChange.post_id == post_id)
            .values(go_live_at=utcnow() - timedelta(minutes=1))
        )
        versions.record_next_publish(db.session)
        db.session.commit()


def next_publish_at(app: Flask):
    with app.app_context():
        return db.session.scalar(sa.select(SiteState.next_publish_at))


def test_scheduled_changes_wait_then_go_live_by_themselves(app, editor_client):
    """The question lists what readers will see change; confirmed, the changes wait under a
    banner while every reader's page, feed and search keeps the live text; once their time
    has come the first reader's request puts them live, the post keeping its publish date."""
    post_id = live_post(editor_client)
    before = stored(app, post_id)
    when = later()
    asked = save(editor_client, post_id, action="schedule", published_at=when, body=LATER)
    assert "Readers keep the version on the site now until" in page(asked).get_text()
    assert "Body" in page(asked).select_one("#publish-changes").get_text()
    done = save(editor_client, post_id, action="confirm-schedule", published_at=when, body=LATER)
    assert done.status_code == 303
    assert stored(app, post_id).body_markdown == LIVE
    assert all(readers_see(app, LIVE).values()) and not any(readers_see(app, "zebra").values())
    opened = page(editor_client.get(f"/editor/posts/{post_id}"))
    banner = opened.select_one("#pending-banner").get_text(" ", strip=True)
    assert banner.startswith("Draft changes, scheduled for")
    assert opened.select_one("#unschedule-changes-button") is not None
    assert "readers see them from" in opened.select_one("#saved-notice").get_text()
    assert next_publish_at(app) is not None
    assert events(app, post_id)[-1][0] == "changes-planned"

    fall_due(app, post_id)
    version = data_version(app)
    assert LATER in app.test_client().get("/posts/pools").get_data(as_text=True)
    after = stored(app, post_id)
    assert after.body_markdown == LATER and after.published_at == before.published_at
    assert after.updated_at is not None and after.updated_at > before.published_at
    assert pending_row(app, post_id) is None
    assert data_version(app) != version
    assert all(readers_see(app, "zebra").values())
    kind, note = events(app, post_id)[-1]
    assert kind == "changes-live" and note.startswith("scheduled by")
    assert next_publish_at(app) is None
    history = editor_client.get(f"/editor/posts/{post_id}/revisions").get_data(as_text=True)
    assert "Scheduled changes went live" in history


def test_they_go_live_once_whoever_notices(app, editor_client):
    """Two processes noticing the same moment: the change is claimed by its version, so the
    second finds nothing to do (one revision, one event)."""
    post_id = live_post(editor_client)
    assert schedule(editor_client, post_id, body=LATER).status_code == 303
    fall_due(app, post_id)
    with app.test_request_context(), app.app_context():
        version = db.session.scalar(
            sa.select(PendingChange.version).where(PendingChange.post_id == post_id)
        )
        db.session.rollback()
        scheduled_changes._apply(post_id, version)
        scheduled_changes._apply(post_id, version)
        scheduled_changes.apply_due(utcnow())
    assert stored(app, post_id).body_markdown == LATER
    kinds = [kind for kind, _ in events(app, post_id)]
    assert kinds.count("changes-live") == 1
    with app.app_context():
        saves = db.session.scalar(
            sa.select(sa.func.count())
            .select_from(PostRevision)
            .where(PostRevision.post_id == post_id, PostRevision.kind == "save")
        )
    assert saves == 2  # the first save and the scheduled change


@pytest.mark.parametrize("moved", ["saved", "unpublished"])
def test_a_post_that_moved_on_holds_them_back(app, editor_client, moved):
    """Saved over (outside the editor) or taken off the site after the changes were
    scheduled: at their time they stay as plain draft changes, the history says why, readers
    keep what they had, and the next requests do not move the data version again."""
    post_id = live_post(editor_client)
    assert schedule(editor_client, post_id, body=LATER).status_code == 303
    with app.app_context():
        post = db.session.get(Post, post_id)
        assert post is not None
        if moved == "saved":
            post.title = "Pools, renamed elsewhere"
        else:
            post.status = "draft"
        db.session.commit()
    fall_due(app, post_id)
    app.test_client().get("/")
    row = pending_row(app, post_id)
    assert row is not None and row.go_live_at is None
    assert stored(app, post_id).body_markdown == LIVE
    kind, note = events(app, post_id)[-1]
    assert kind == "changes-held" and "after the changes were scheduled" in note
    assert next_publish_at(app) is None
    version = data_version(app)
    app.test_client().get("/?page=1")
    assert data_version(app) == version
    opened = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert "not yet live" in opened.select_one("#pending-banner").get_text()


def test_changes_that_no_longer_pass_the_checks_are_held_back(app, editor_client):
    """A scheduled address another post took meanwhile: held, nothing half-written."""
    post_id = live_post(editor_client)
    assert schedule(editor_client, post_id, slug="taken-later", body=LATER).status_code == 303
    create(editor_client, status=PUBLISHED, title="Taken later", slug="taken-later")
    fall_due(app, post_id)
    app.test_client().get("/")
    after = stored(app, post_id)
    assert (after.slug, after.body_markdown) == ("pools", LIVE)
    kind, note = events(app, post_id)[-1]
    assert kind == "changes-held" and "no longer pass" in note


def test_autosaves_leave_scheduled_changes_as_they_were(app, editor_client):
    """Typing over scheduled changes is autosaved in the history only: what goes live is
    what was scheduled."""
    post_id = live_post(editor_client)
    assert schedule(editor_client, post_id, body=LATER).status_code == 303
    before = pending_row(app, post_id)
    data = current_form(editor_client, post_id) | {"body": "Half typed"}
    token = {"X-CSRFToken": str(data["csrf_token"])}
    answer = editor_client.post(
        f"/editor/posts/{post_id}/autosave", data=data, headers=HX_AUTOSAVE | token
    )
    assert answer.status_code == 200
    assert "the scheduled changes stay" in answer.get_data(as_text=True)
    after = pending_row(app, post_id)
    assert before is not None and after is not None
    assert (after.fields, after.version, after.go_live_at) == (
        before.fields,
        before.version,
        before.go_live_at,
    )
    with app.app_context():
        autosaves = db.session.scalars(
            sa.select(PostRevision.body_markdown).where(
                PostRevision.post_id == post_id, PostRevision.kind == "autosave"
            )
        ).all()
    assert "Half typed" in autosaves


def test_save_draft_and_cancel_the_schedule_keep_the_changes_unscheduled(app, editor_client):
    """ "Cancel the schedule" keeps the changes, no longer scheduled; so does Save draft,
    which saves what is typed; either way nothing goes live by itself."""
    post_id = live_post(editor_client)
    assert schedule(editor_client, post_id, body=LATER).status_code == 303
    change = pending_row(app, post_id)
    assert change is not None and change.go_live_at is not None
    token = current_form(editor_client, post_id)["csrf_token"]
    cancelled = editor_client.post(
        f"/editor/posts/{post_id}",
        data={
            "csrf_token": token,
            "post_id": post_id,
            "pending_version": change.version,
            "action": "unschedule-changes",
        },
        headers=HX_EDITOR,
    )
    assert cancelled.status_code == 200
    assert "Schedule cancelled" in cancelled.get_data(as_text=True)
    row = pending_row(app, post_id)
    assert row is not None and row.go_live_at is None and row.fields == change.fields
    assert next_publish_at(app) is None

    assert schedule(editor_client, post_id, body=LATER).status_code == 303
    assert save(editor_client, post_id, action="save", body=LATER + " More.").status_code == 303
    row = pending_row(app, post_id)
    assert row is not None and row.go_live_at is None and row.fields["body"] == [LATER + " More."]
    assert next_publish_at(app) is None
    assert stored(app, post_id).body_markdown == LIVE


def test_every_event_kind_fits_its_column():
    """The kinds of a post's changes of state are stored in a column of 16 characters."""
    longest = PostEvent.__table__.c.kind.type.length
    assert all(len(kind) <= longest for kind in review.KIND_LABELS)


def test_another_editors_update_over_scheduled_changes_says_they_go_live_now(app, editor_client):
    """An editor whose page was opened before the changes were scheduled presses Update: the
    save is merged with the scheduled changes, and the question says that they go live now
    with it; confirmed, both are live and nothing is left scheduled."""
    post_id = live_post(editor_client)
    ed = second_editor(app)
    eds_form = current_form(ed, post_id)
    assert schedule(editor_client, post_id, body=LATER).status_code == 303
    mine = eds_form | {"action": "update", "title": "Pools, renamed by Ed"}
    asked = ed.post(f"/editor/posts/{post_id}", data=mine)
    points = page(asked).select_one("#publish-question").get_text(" ", strip=True)
    assert "changes scheduled for" in points and "they go live now" in points
    confirm = form_in(asked.get_data(as_text=True)) | {"action": "confirm-update"}
    assert ed.post(f"/editor/posts/{post_id}", data=confirm).status_code == 303
    after = stored(app, post_id)
    assert (after.title, after.body_markdown) == ("Pools, renamed by Ed", LATER)
    assert pending_row(app, post_id) is None
    assert next_publish_at(app) is None


def test_an_old_tab_cannot_cancel_or_discard_another_editors_schedule(app, editor_client):
    """Another editor's tab, opened before the changes were scheduled, sends "Cancel the
    schedule" or "Discard": 409, and the changes stay scheduled as they were."""
    post_id = live_post(editor_client)
    ed = second_editor(app)
    old_tab = current_form(ed, post_id)
    assert schedule(editor_client, post_id, body=LATER).status_code == 303
    before = pending_row(app, post_id)
    assert before is not None and before.go_live_at is not None
    for action in ("unschedule-changes", "discard"):
        sent = {
            "csrf_token": old_tab["csrf_token"],
            "post_id": post_id,
            "pending_version": old_tab.get("pending_version", ""),
            "action": action,
        }
        assert ed.post(f"/editor/posts/{post_id}", data=sent).status_code == 409, action
    after = pending_row(app, post_id)
    assert after is not None
    assert (after.version, after.go_live_at, after.fields) == (
        before.version,
        before.go_live_at,
        before.fields,
    )
    assert next_publish_at(app) is not None
