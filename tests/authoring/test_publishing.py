"""The editor's action bar: Save draft, Publish / Update / Schedule and Unpublish decide the
post's state, and going to readers or leaving them is asked once, with what changes."""

from __future__ import annotations

from datetime import timedelta

import lxml.html

from blog.catalog import SCHEDULED
from blog.models import DRAFT, PUBLISHED, utcnow
from tests.authoring.test_editor import (
    HX_EDITOR,
    create,
    current_form,
    editor_client,
    new_post_form,
    page,
    save,
    stored,
)

__all__ = ["editor_client"]


def question(response) -> str:
    """The question's heading, or "" when the page asks none."""
    found = page(response).select_one("#publish-question h2")
    return found.get_text(strip=True) if found else ""


def test_the_bar_saves_a_draft_first_so_enter_never_publishes(editor_client):
    """The form's first submit button (the one Enter presses) is Save draft, with its
    shortcut named; the main button says Publish; no status radios remain."""
    soup = page(editor_client.get("/editor/posts/new"))
    form = soup.select_one("#post-form")
    first = form.select('button[type="submit"]')[0]
    assert (first["id"], first["value"]) == ("save-button", "save")
    assert first["aria-keyshortcuts"] == "Control+S Meta+S"
    assert "Ctrl+S" in soup.select_one("#save-shortcut").get_text("", strip=True)
    assert soup.select_one("#publish-button")["value"] == "publish"
    assert soup.select('input[name="status"]') == []
    assert soup.select_one("#action-bar #save-status") is not None


def test_save_draft_keeps_a_new_post_off_the_site(app, editor_client):
    """Save draft stores a draft, whatever date it names, and says so."""
    later = (utcnow() + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
    data = new_post_form(editor_client, action="save", published_at=later) | {"status": ""}
    response = editor_client.post("/editor/posts/new", data=data, headers=HX_EDITOR)
    assert response.status_code == 200
    notice = page(response).select_one("#saved-notice").get_text(strip=True)
    assert notice == "Saved as a draft: readers do not see it."
    post_id = int(response.headers["HX-Replace-Url"].rsplit("/", 1)[1])
    assert stored(app, post_id).status == DRAFT


def test_publish_asks_once_then_publishes(app, editor_client, posts):
    """Publish answers with the question and what readers will see, saving nothing; the
    answer publishes the text as sent, and the notice says readers see it."""
    post_id = create(editor_client, title="Quiet draft")
    form = current_form(editor_client, post_id)
    asked = editor_client.post(
        f"/editor/posts/{post_id}", data=form | {"action": "publish", "title": "Loud post"}
    )
    assert asked.status_code == 200
    assert question(asked) == "Publish to readers now?"
    soup = page(asked)
    assert "/posts/quiet-draft" in soup.select_one("#publish-question").get_text()
    assert soup.select_one("#confirm-button")["value"] == "confirm-publish"
    assert soup.select_one("#title")["value"] == "Loud post"  # the text stays as typed
    assert stored(app, post_id).status == DRAFT
    assert editor_client.get("/posts/quiet-draft").status_code == 404
    sent = current_form(editor_client, post_id) | {"action": "confirm-publish"}
    done = editor_client.post(f"/editor/posts/{post_id}", data=sent, headers=HX_EDITOR)
    assert done.status_code == 200
    notice = page(done).select_one("#saved-notice").get_text(" ", strip=True)
    assert notice.startswith("Published: readers see this version now.")
    assert stored(app, post_id).status == PUBLISHED
    assert editor_client.get("/posts/quiet-draft").status_code == 200


def test_update_lists_what_readers_will_see_change(app, editor_client):
    """On a live post the main button is Update; its question lists the changed fields and
    the body's changed lines, and nothing reaches readers before the answer."""
    post_id = create(editor_client, status=PUBLISHED, title="Pools", body="One.\n\nTwo.")
    button = page(editor_client.get(f"/editor/posts/{post_id}")).select_one("#publish-button")
    assert (button.get_text(), button["data-now-label"], button["data-later-label"]) == (
        "Update",
        "Update",
        "Schedule",
    )
    changed = {"title": "Pools, sized", "body": "One.\n\nTwo and a half.\n\nThree."}
    asked = save(editor_client, post_id, action="update", **changed)
    assert question(asked) == "Update the post readers see now?"
    items = [li.get_text(" ", strip=True) for li in page(asked).select("#publish-changes li")]
    assert items[0].startswith("Title : Pools → Pools, sized")
    assert items[-1] == "Body : 3 lines added, 1 line removed"
    assert stored(app, post_id).title == "Pools"
    assert save(editor_client, post_id, action="confirm-update", **changed).status_code == 303
    assert stored(app, post_id).title == "Pools, sized"
    assert "Pools, sized" in editor_client.get("/posts/pools").get_data(as_text=True)


def test_a_future_time_schedules_and_a_stale_answer_is_asked_again(app, editor_client):
    """Publish with a time still to come asks "Schedule for readers?"; an answer to another
    question (the date changed meanwhile) asks again instead of saving."""
    post_id = create(editor_client)
    later = (utcnow() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    asked = save(editor_client, post_id, action="publish", published_at=later)
    assert question(asked) == "Schedule for readers?"
    stale = save(editor_client, post_id, action="confirm-publish", published_at=later)
    assert question(stale) == "Schedule for readers?"
    assert stored(app, post_id).status == DRAFT
    done = save(editor_client, post_id, action="confirm-schedule", published_at=later)
    assert done.status_code == 303
    assert stored(app, post_id).status == PUBLISHED  # published, its time still to come
    shown = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert shown.select_one("#post-state").get_text(" ", strip=True).startswith(SCHEDULED.title())
    assert "Scheduled: the post goes live" in shown.select_one("#saved-notice").get_text()


def test_unpublish_asks_and_keep_editing_saves_nothing(app, editor_client):
    """Unpublish asks "Take this post off the site?"; "Not now" answers the editor with the
    text as typed and the post untouched; the answer takes it off."""
    post_id = create(editor_client, status=PUBLISHED, title="Staying")
    asked = save(editor_client, post_id, action="unpublish")
    assert question(asked) == "Take this post off the site?"
    kept = save(editor_client, post_id, action="keep-editing", summary="Typed, not saved.")
    assert kept.status_code == 200 and question(kept) == ""
    assert page(kept).select_one("#summary").get_text().strip() == "Typed, not saved."
    assert stored(app, post_id).summary == "" and stored(app, post_id).status == PUBLISHED
    assert save(editor_client, post_id, action="confirm-unpublish").status_code == 303
    assert stored(app, post_id).status == DRAFT
    assert editor_client.get("/posts/staying").status_code == 404


def test_a_question_is_asked_only_of_a_form_that_would_save(app, editor_client):
    """A form with problems is answered with them (422), not with the question."""
    post_id = create(editor_client)
    refused = save(editor_client, post_id, action="publish", title="")
    assert refused.status_code == 422 and question(refused) == ""


def test_the_question_comes_after_save_draft_in_the_form(editor_client):
    """With the question open, Enter in a field still saves a draft: the question's buttons
    come after Save draft in the form."""
    post_id = create(editor_client)
    asked = save(editor_client, post_id, action="publish")
    (form,) = lxml.html.document_fromstring(asked.get_data(as_text=True)).xpath(
        '//*[@id="post-form"]'
    )
    buttons = [b.get("id") for b in form.iter("button") if b.get("type") == "submit"]
    assert buttons.index("save-button") < buttons.index("confirm-button")
    assert page(asked).select_one("#publish-question")["autofocus"] == ""


def test_a_new_author_ticked_to_create_stays_ticked_through_the_question(app, editor_client):
    """The question's page keeps the "create the new author" box ticked, so its answer
    publishes with the new co-author instead of asking about the name again."""
    post_id = create(editor_client)
    data = current_form(editor_client, post_id) | {
        "author": ["Ada Example", "Cy Coauthor"],
        "confirm_new": "author:cy-coauthor",
    }
    asked = editor_client.post(f"/editor/posts/{post_id}", data=data | {"action": "publish"})
    assert question(asked) == "Publish to readers now?"
    assert (
        page(asked).select_one('input[name="confirm_new"][value="author:cy-coauthor"]')["checked"]
        is not None
    )
    done = editor_client.post(f"/editor/posts/{post_id}", data=data | {"action": "confirm-publish"})
    assert done.status_code == 303
    assert [author.name for author in stored(app, post_id).authors] == [
        "Ada Example",
        "Cy Coauthor",
    ]
