"""Draft changes of a published post: "Save draft" keeps them apart from the live text, so no
reader, feed, cached page or search finds them until "Update"."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog.extensions import db
from blog.models import PUBLISHED, PendingChange, Post, PostRevision, utcnow
from blog.web import versions
from blog.web.templating import site_time
from tests.authoring.test_editor import (
    HX_EDITOR,
    create,
    current_form,
    editor_client,
    form_in,
    page,
    save,
    seen,
    stored,
)
from tests.authoring.test_merging import second_editor, shown_after

__all__ = ["editor_client"]

LIVE = "Original words about warm pools."
DRAFTED = "Rewritten words about zebra crossings."
READERS = ("/", "/posts/pools", "/feed.atom", "/feed.rss", "/topics/databases")


def data_version(app: Flask) -> int:
    """The version every reader-facing cache and ETag follows."""
    with app.app_context(), db.engine.connect() as connection:
        return versions.read_state(connection).version


def pending_row(app: Flask, post_id: int) -> PendingChange | None:
    """The post's draft changes as stored, detached."""
    with app.app_context():
        change = db.session.get(PendingChange, post_id)
        if change is not None:
            db.session.expunge(change)
        return change


def readers_see(app: Flask, words: str) -> dict[str, bool]:
    """For each reader's page, and a search for the word, whether `words` is on it (as a
    reader without an account gets them)."""
    client = app.test_client()
    seen = {path: words in client.get(path).get_data(as_text=True) for path in READERS}
    first = words.split()[0]
    seen["search"] = "/posts/pools" in client.get(f"/search?q={first}").get_data(as_text=True)
    return seen


def test_draft_changes_reach_no_reader_feed_cache_or_search_until_update(app, editor_client):
    """Save draft on a live post leaves the post's row, every reader's page, the feeds,
    search and the cached pages (their data version and ETags) as they were; the editor opens
    on the changes under a banner. Update puts them everywhere at once."""
    post_id = create(editor_client, status=PUBLISHED, title="Pools", body=LIVE, topics="Databases")
    before = stored(app, post_id)
    assert all(readers_see(app, LIVE).values())
    reader = app.test_client()
    etag = reader.get("/posts/pools").headers["ETag"]
    sitemap = reader.get("/sitemap.xml").get_data()
    version = data_version(app)

    answer = save(editor_client, post_id, action="save", title="Pools, rewritten", body=DRAFTED)
    assert answer.status_code == 303
    after = stored(app, post_id)
    assert (after.title, after.body_markdown, after.lock_version, after.modified_at) == (
        before.title,
        before.body_markdown,
        before.lock_version,
        before.modified_at,
    )
    assert data_version(app) == version
    assert reader.get("/posts/pools", headers={"If-None-Match": etag}).status_code == 304
    assert reader.get("/sitemap.xml").get_data() == sitemap  # no new lastmod either
    assert not any(readers_see(app, "zebra").values())
    assert all(readers_see(app, LIVE).values())

    opened = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert "Draft changes, not yet live" in opened.select_one("#pending-banner").get_text()
    assert opened.select_one("#title")["value"] == "Pools, rewritten"
    assert DRAFTED in opened.select_one("#body").get_text()
    assert "Draft changes saved" in opened.select_one("#saved-notice").get_text()
    assert opened.select_one("#pending_version")["value"] == "1"

    # Update asks first, listing the changes against the live text; then readers get them.
    asked = save(editor_client, post_id, action="update")
    changes = page(asked).select_one("#publish-changes").get_text(" ", strip=True)
    assert "Title : Pools → Pools, rewritten" in changes and "Body :" in changes
    assert stored(app, post_id).title == "Pools"
    assert save(editor_client, post_id, action="confirm-update").status_code == 303
    assert stored(app, post_id).body_markdown == DRAFTED
    assert pending_row(app, post_id) is None
    assert data_version(app) != version
    assert all(readers_see(app, "zebra").values())
    assert page(editor_client.get(f"/editor/posts/{post_id}")).select_one("#pending-banner") is None


def test_draft_changes_are_kept_in_the_history_and_saved_again_in_place(app, editor_client):
    """Each Save draft of a live post is a "Draft changes" revision; saving them again keeps
    one row, its version counting up; the htmx answer is the editor on the changes."""
    post_id = create(editor_client, status=PUBLISHED, title="Pools", body=LIVE)
    assert save(editor_client, post_id, action="save", body=DRAFTED).status_code == 303
    again = save(editor_client, post_id, headers=HX_EDITOR, action="save", summary="Short.")
    assert again.status_code == 200
    assert page(again).select_one("#summary").get_text().strip() == "Short."
    assert DRAFTED in page(again).select_one("#body").get_text()
    change = pending_row(app, post_id)
    assert change is not None and change.version == 2 and change.fields["summary"] == ["Short."]
    with app.app_context():
        kinds = db.session.scalars(
            sa.select(PostRevision.kind).where(PostRevision.post_id == post_id)
        ).all()
    assert kinds.count("pending") == 2
    assert "Draft changes (not live)" in editor_client.get(
        f"/editor/posts/{post_id}/revisions"
    ).get_data(as_text=True)


def test_saving_draft_changes_says_when_they_were_saved(app, editor_client):
    """The save's status names the time of the draft changes just saved, not the time the
    live post was last changed (its row does not move)."""
    post_id = create(editor_client, status=PUBLISHED, title="Pools", body=LIVE)
    with app.app_context():
        db.session.execute(
            sa.update(Post)
            .where(Post.id == post_id)
            .values(modified_at=utcnow() - timedelta(days=2, hours=5))
        )
        db.session.commit()
    answer = save(editor_client, post_id, headers=HX_EDITOR, action="save", body=DRAFTED)
    change = pending_row(app, post_id)
    assert change is not None
    with app.app_context():
        said = site_time(change.saved_at)
        old = site_time(stored(app, post_id).modified_at)
    assert said != old
    assert page(answer).select_one("#save-status").get_text(strip=True) == f"Saved at {said}."


def test_discard_drops_the_draft_changes(app, editor_client):
    """Discard empties the pending version: the editor shows the live text and says so."""
    post_id = create(editor_client, status=PUBLISHED, title="Pools", body=LIVE)
    save(editor_client, post_id, action="save", body=DRAFTED)
    banner = page(editor_client.get(f"/editor/posts/{post_id}")).select_one("#pending-banner")
    sent = {field["name"]: field["value"] for field in banner.select("input[type=hidden]")}
    answer = editor_client.post(
        f"/editor/posts/{post_id}", data=sent | {"action": "discard"}, headers=HX_EDITOR
    )
    assert answer.status_code == 200
    assert "Draft changes discarded" in answer.get_data(as_text=True)
    assert LIVE in page(answer).select_one("#body").get_text()
    assert page(answer).select_one("#pending-banner") is None
    assert pending_row(app, post_id) is None
    assert stored(app, post_id).body_markdown == LIVE


def test_another_editors_draft_changes_are_never_overwritten(app, editor_client):
    """Ed saved draft changes after Ana opened the post, rewriting the body she rewrote too:
    her Save draft and her Update are 409s that ask about it, her Discard a 409 that says
    whose changes they are; each keeps her text (in the form and the history) and leaves
    his changes as they are. Once she opens them, she may save over them."""
    post_id = create(editor_client, status=PUBLISHED, title="Pools", body=LIVE)
    ana = current_form(editor_client, post_id)
    ed = second_editor(app)
    assert save(ed, post_id, action="save", body=DRAFTED).status_code == 303
    for action in ("save", "confirm-update", "discard"):
        refused = editor_client.post(
            f"/editor/posts/{post_id}", data=ana | {"action": action, "body": "Ana's words."}
        )
        assert refused.status_code == 409, action
        status = page(refused).select_one("#save-status").text
        if action == "discard":
            assert "Ed Writer saved draft changes" in status
        else:
            assert "another editor saved draft changes of this post" in status
            assert len(page(refused).select(".overlap")) == 1
        assert "Ana's words." in page(refused).select_one("#body").get_text()
    change = pending_row(app, post_id)
    assert change is not None and change.fields["body"] == [DRAFTED]
    assert stored(app, post_id).body_markdown == LIVE
    with app.app_context():
        kept = db.session.scalars(
            sa.select(PostRevision.body_markdown).where(
                PostRevision.post_id == post_id, PostRevision.kind == "conflict"
            )
        ).all()
    assert "Ana's words." in kept
    assert save(editor_client, post_id, action="save", summary="Ana's too.").status_code == 303
    change = pending_row(app, post_id)
    assert change is not None and change.fields["body"] == [DRAFTED]
    assert change.fields["summary"] == ["Ana's too."]


SHARED = "Warm pools, paragraph one.\n\nParagraph two, on vacuum.\n\nParagraph three, on locks.\n"


@pytest.fixture
def clashing(app: Flask, editor_client: FlaskClient):
    """A live post Ana (the editor client) opened; Ed then saved draft changes of it that
    rewrite paragraph one and the title: (post id, Ana's form, the time of Ed's save)."""
    post_id = create(
        editor_client, status=PUBLISHED, title="Pools", body=SHARED, topics="Databases"
    )
    ana = current_form(editor_client, post_id)
    ed = second_editor(app)
    ed_body = SHARED.replace("paragraph one", "paragraph one, by Ed")
    answer = save(ed, post_id, action="save", body=ed_body, title="Pools, by Ed")
    assert answer.status_code == 303
    change = pending_row(app, post_id)
    assert change is not None
    with app.app_context():
        return post_id, ana, site_time(change.saved_at)


def assert_readers_see_the_live_text(app: Flask) -> None:
    """The home page and the post's page show the published text, none of the drafts'."""
    reader = app.test_client()
    for path in ("/", "/posts/pools"):
        shown = reader.get(path).get_data(as_text=True)
        assert "Pools" in shown and "by Ed" not in shown and "by Ana" not in shown, path
    assert "Warm pools, paragraph one." in reader.get("/posts/pools").get_data(as_text=True)


@pytest.mark.parametrize("htmx", [True, False])
def test_draft_changes_that_do_not_overlap_are_merged(app, editor_client, clashing, htmx):
    """Ana changes paragraph three and the summary, opened before Ed's draft changes: her
    Save draft merges both into the draft changes (his title and paragraph one, her
    paragraph and summary) and says whose save it took in; readers see the live text."""
    post_id, ana, ed_at = clashing
    ana |= {
        "action": "save",
        "body": SHARED.replace("on locks", "on locks, by Ana"),
        "summary": "Ana's summary.",
    }
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=ana, headers=HX_EDITOR if htmx else {}
    )
    soup = shown_after(editor_client, response, htmx)
    note = f"Merged with Ed Writer’s save of {ed_at}: both changes kept."
    assert soup.select_one("#merged-notice").text == note
    change = pending_row(app, post_id)
    both = SHARED.replace("paragraph one", "paragraph one, by Ed").replace(
        "on locks", "on locks, by Ana"
    )
    assert change is not None and change.editor_name == "Ada Example"
    assert change.fields["body"] == [both] and change.fields["title"] == ["Pools, by Ed"]
    assert change.fields["summary"] == ["Ana's summary."]
    assert soup.select_one("#title")["value"] == "Pools, by Ed"
    post = stored(app, post_id)
    assert (post.title, post.body_markdown, post.lock_version) == ("Pools", SHARED, 1)
    assert_readers_see_the_live_text(app)


def ask_about_paragraph_one(editor_client: FlaskClient, post_id: int, ana: dict) -> dict:
    """Ana's Save draft rewrites paragraph one too (and paragraph three): the 409 that asks
    about the one overlap; her form as it left it."""
    ana |= {
        "action": "save",
        "body": SHARED.replace("paragraph one", "paragraph one, by Ana").replace(
            "on locks", "on locks, by Ana"
        ),
    }
    response = editor_client.post(f"/editor/posts/{post_id}", data=ana, headers=HX_EDITOR)
    assert response.status_code == 409
    soup = page(response)
    (overlap,) = soup.select(".overlap")
    assert overlap.legend.text == "Body, first line"
    assert "saved draft changes of this post" in soup.select_one("#conflict-title").text
    assert [seen(found) for found in overlap.select("ins")] == ["Ana"]
    assert [seen(found) for found in overlap.select("del")] == ["Ed"]
    return (
        ana
        | {
            field: soup.select_one(f"#{field}")["value"]
            for field in ("lock_version", "merge_base", "pending_version", "merge_pending")
        }
        | {"pick": overlap.select_one("input[value=mine]")["name"]}
    )


@pytest.mark.parametrize("choice", ["theirs", "mine", "take-mine", "keep-theirs"])
def test_overlapping_draft_changes_ask_and_each_choice_settles_them(
    app, editor_client, clashing, choice
):
    """Both rewrote paragraph one: a 409 asks about it alone, saving nothing. Choosing theirs
    or mine (or Take mine) saves the merge as draft changes, with Ana's paragraph three and
    Ed's title; Keep theirs puts Ed's draft changes in her editor, hers in the history.
    Readers see the live text throughout, until Update."""
    post_id, ana, ed_at = clashing
    asked = ask_about_paragraph_one(editor_client, post_id, ana)
    assert pending_row(app, post_id).fields["body"] == [  # type: ignore[union-attr]
        SHARED.replace("paragraph one", "paragraph one, by Ed")
    ]
    assert_readers_see_the_live_text(app)
    pick = asked.pop("pick")
    if choice in ("theirs", "mine"):
        sent = asked | {"action": "", pick: choice}
    else:
        sent = asked | {"action": choice}
    response = editor_client.post(f"/editor/posts/{post_id}", data=sent, headers=HX_EDITOR)
    assert response.status_code == 200
    soup = page(response)
    change = pending_row(app, post_id)
    assert change is not None
    if choice == "keep-theirs":
        ed_body = SHARED.replace("paragraph one", "paragraph one, by Ed")
        assert change.fields["body"] == [ed_body] and change.editor_name == "Ed Writer"
        assert soup.select_one("#body").get_text().replace("\r\n", "\n").strip() == (
            ed_body.strip()
        )
        with app.app_context():
            kept = db.session.scalars(
                sa.select(PostRevision.body_markdown).where(
                    PostRevision.post_id == post_id, PostRevision.kind == "conflict"
                )
            ).all()
        assert asked["body"] in kept
    else:
        by = "Ed" if choice == "theirs" else "Ana"
        merged = SHARED.replace("paragraph one", f"paragraph one, by {by}").replace(
            "on locks", "on locks, by Ana"
        )
        assert change.fields["body"] == [merged] and change.fields["title"] == ["Pools, by Ed"]
        note = soup.select_one("#merged-notice").text
        assert note == (
            f"Merged with Ed Writer’s save of {ed_at}: both changes kept, and your choice "
            "where they overlapped."
        )
    assert_readers_see_the_live_text(app)
    post = stored(app, post_id)
    assert (post.body_markdown, post.lock_version) == (SHARED, 1)
    # Update puts the settled draft changes live, at last.
    sent = current_form(editor_client, post_id) | {"action": "confirm-update"}
    assert editor_client.post(f"/editor/posts/{post_id}", data=sent).status_code == 303
    assert pending_row(app, post_id) is None
    assert stored(app, post_id).body_markdown == change.fields["body"][0]
    assert "Pools, by Ed" in app.test_client().get("/").get_data(as_text=True)


def test_a_scheduled_post_keeps_its_changes_pending_too(app, editor_client):
    """Save draft on a scheduled post keeps the text that goes live at its time; Schedule
    (the main button) puts the changes in it."""
    later = (utcnow() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    post_id = create(editor_client, status="scheduled", published_at=later, body=LIVE)
    assert save(editor_client, post_id, action="save", body=DRAFTED).status_code == 303
    assert stored(app, post_id).body_markdown == LIVE
    opened = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert opened.select_one("#publish-button")["value"] == "schedule"
    assert save(editor_client, post_id, action="confirm-schedule").status_code == 303
    assert stored(app, post_id).body_markdown == DRAFTED
    assert pending_row(app, post_id) is None


def test_a_draft_post_saves_in_place(app, editor_client):
    """Save draft on a draft writes the post itself: nothing is pending."""
    post_id = create(editor_client, body=LIVE)
    assert save(editor_client, post_id, action="save", body=DRAFTED).status_code == 303
    assert stored(app, post_id).body_markdown == DRAFTED
    assert pending_row(app, post_id) is None


@pytest.mark.parametrize("htmx", [True, False])
def test_an_update_over_draft_changes_that_do_not_overlap_asks_again_then_puts_both_live(
    app, editor_client, clashing, htmx
):
    """Ana's confirmed Update, sent from a form opened before Ed's draft changes, merges
    them with hers as a Save draft would; since she has not seen his changes (they were not
    live), she is asked again, with his title among what readers will see change, and
    nothing goes live until she answers; her answer puts both live at once."""
    post_id, ana, ed_at = clashing
    ana |= {"action": "confirm-update", "body": SHARED.replace("on locks", "on locks, by Ana")}
    headers = HX_EDITOR if htmx else {}
    asked = editor_client.post(f"/editor/posts/{post_id}", data=ana, headers=headers)
    assert asked.status_code == 200
    note = f"Merged with Ed Writer’s save of {ed_at}: both changes kept."
    soup = page(asked)
    assert soup.select_one("#merged-notice").text == note
    question = soup.select_one("#publish-question")
    assert question is not None and "Pools, by Ed" in question.text
    post = stored(app, post_id)
    assert (post.title, post.body_markdown, post.lock_version) == ("Pools", SHARED, 1)
    assert_readers_see_the_live_text(app)
    answer = form_in(asked.get_data(as_text=True)) | {"action": "confirm-update"}
    response = editor_client.post(f"/editor/posts/{post_id}", data=answer, headers=HX_EDITOR)
    assert response.status_code == 200
    post = stored(app, post_id)
    assert post.title == "Pools, by Ed" and post.lock_version == 2
    assert post.body_markdown == SHARED.replace("paragraph one", "paragraph one, by Ed").replace(
        "on locks", "on locks, by Ana"
    )
    assert pending_row(app, post_id) is None
    assert "paragraph one, by Ed" in app.test_client().get("/posts/pools").get_data(as_text=True)
