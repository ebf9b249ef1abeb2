"""Two editors, one post, both changing the same line: the 409 shows that overlap alone, and
none of its ways on loses a text or the other editor's other changes."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog.extensions import db
from blog.models import Post, PostRevision
from tests.authoring.test_auth import editor_client, log_in_as, make_editor, page
from tests.authoring.test_editor import HX_EDITOR, create, current_form, save, seen, stored

__all__ = ["editor_client"]

THEIRS = "Shared opening.\nGrace's middle line.\nShared ending."
MINE = "Shared opening.\nAda's middle line.\nShared ending."
ORIGINAL = "Shared opening.\nThe first middle line.\nShared ending."


def recoverable(app: Flask, post_id: int) -> list[str]:
    """Every body the post and its revisions hold, in CR-free form."""
    with app.app_context():
        bodies = list(
            db.session.scalars(
                sa.select(PostRevision.body_markdown).where(PostRevision.post_id == post_id)
            )
        )
        post = db.session.get(Post, post_id)
        if post is not None:
            bodies.append(post.body_markdown)
    return [body.replace("\r\n", "\n") for body in bodies]


def kinds(app: Flask, post_id: int) -> list[tuple[str, str, str]]:
    """(kind, editor, body) of each revision of the post, oldest first."""
    with app.app_context():
        rows = db.session.execute(
            sa.select(PostRevision.kind, PostRevision.editor_name, PostRevision.body_markdown)
            .where(PostRevision.post_id == post_id)
            .order_by(PostRevision.id)
        )
        return [tuple(row) for row in rows]


@pytest.fixture
def conflict(app: Flask, editor_client: FlaskClient):
    """Ada opens the post, Grace saves her version, Ada's save comes back as a 409.

    Returns the post id, Ada's form as the 409 left it, and the 409 response."""
    post_id = create(editor_client, title="Shared post", body=ORIGINAL)
    mine = current_form(editor_client, post_id)
    grace = app.test_client()
    log_in_as(grace, make_editor(app, "grace@example.com", name="Grace"))
    assert save(grace, post_id, body=THEIRS, title="Grace's title").status_code == 303
    mine |= {"body": MINE, "summary": "Ada's summary."}
    response = editor_client.post(f"/editor/posts/{post_id}", data=mine, headers=HX_EDITOR)
    assert response.status_code == 409
    soup = page(response)
    mine["lock_version"] = soup.select_one("#lock_version")["value"]
    mine["merge_base"] = soup.select_one("#merge_base")["value"]
    mine["csrf_token"] = soup.select_one('input[name="csrf_token"]')["value"]
    return post_id, mine, response


def test_the_409_shows_only_the_overlap_with_a_choice_for_it(app, conflict):
    """The one line both changed is shown, theirs beside mine, with two radios in the form;
    the title (theirs only) and the summary (mine only) are named as kept, not asked about."""
    _post_id, _mine, response = conflict
    soup = page(response)
    (overlap,) = soup.select(".overlap")
    assert overlap.legend.get_text(" ", strip=True) == "Body, line 2"
    assert seen(overlap.select_one(".overlap-theirs pre")) == "Grace's middle line."
    assert seen(overlap.select_one(".overlap-mine pre")) == "Ada's middle line."
    radios = overlap.select("input[type=radio]")
    assert [(radio["value"], radio["form"]) for radio in radios] == [
        ("theirs", "post-form"),
        ("mine", "post-form"),
    ]
    assert radios[0]["name"] == radios[1]["name"] and radios[0]["name"].startswith("pick-")
    assert not any(radio.has_attr("checked") for radio in radios)
    kept = soup.select_one("#merge-kept").text
    assert "theirs to title" in kept and "yours to summary" in kept
    assert soup.select_one("#conflict-diff") is None and soup.select_one("#conflict-fields") is None
    assert soup.select_one("#merge_base")["value"] == "1"
    assert soup.select_one("#lock_version")["value"] == "2"
    for button, action in (
        ("#keep-theirs-button", "keep-theirs"),
        ("#take-mine-button", "take-mine"),
    ):
        found = soup.select_one(button)
        assert found["form"] == "post-form" and found["value"] == action
        assert found["name"] == "action" and found["type"] == "submit"


def test_my_text_is_kept_the_moment_the_409_answers(app, conflict):
    """Even if Ada now closes the tab, her text is in the history as a conflict revision."""
    post_id, _mine, response = conflict
    assert kinds(app, post_id) == [
        ("save", "Ada Example", ORIGINAL),
        ("save", "Grace", THEIRS),
        ("conflict", "Ada Example", MINE),
    ]
    with app.app_context():
        set_aside = db.session.scalar(
            sa.select(PostRevision).where(
                PostRevision.post_id == post_id, PostRevision.kind == "conflict"
            )
        )
        based_on, revision_id = set_aside.lock_version, set_aside.id
    assert based_on == 1  # the version Ada's text started from, not the one it lost to
    history_link = page(response).select_one(".conflict a[href*='/revisions']")["href"]
    assert history_link == f"/editor/posts/{post_id}/revisions?revision={revision_id}"
    assert stored(app, post_id).body_markdown == THEIRS


@pytest.mark.parametrize("htmx", [True, False])
def test_keep_theirs_shows_theirs_and_keeps_mine_recoverable(app, editor_client, conflict, htmx):
    """The editor gets their version; mine, edited after the 409 too, stays in the history."""
    post_id, mine, _response = conflict
    mine |= {"action": "keep-theirs", "body": MINE + "\nOne more line of mine."}
    headers = HX_EDITOR if htmx else {}
    response = editor_client.post(f"/editor/posts/{post_id}", data=mine, headers=headers)
    if htmx:
        assert response.status_code == 200
        soup = page(response)
    else:
        assert response.status_code == 303
        assert response.headers["Location"] == f"/editor/posts/{post_id}"
        soup = page(editor_client.get(response.headers["Location"]))
    assert soup.select_one("#body").text.strip() == THEIRS
    assert soup.select_one("#title")["value"] == "Grace's title"
    assert soup.select_one("#lock_version")["value"] == "2"
    assert soup.select_one(".conflict") is None
    assert "Yours is kept in the history" in soup.get_text()
    post = stored(app, post_id)
    assert post.body_markdown == THEIRS and post.lock_version == 2
    bodies = recoverable(app, post_id)
    assert THEIRS in bodies and MINE in bodies and MINE + "\nOne more line of mine." in bodies
    assert kinds(app, post_id)[-1] == ("conflict", "Ada Example", MINE + "\nOne more line of mine.")


def test_keep_theirs_twice_records_mine_once(app, editor_client, conflict):
    """Pressing it again with the same text adds no second copy."""
    post_id, mine, _response = conflict
    mine["action"] = "keep-theirs"
    for _ in range(2):
        editor_client.post(f"/editor/posts/{post_id}", data=mine)
    assert [kind for kind, _who, _body in kinds(app, post_id)].count("conflict") == 1


def test_take_mine_keeps_mine_where_we_overlap_and_their_other_changes(
    app, editor_client, conflict
):
    """Mine wins the overlapping line only: Grace's new title stays in the live post (it was
    dropped once, the bug this merge is for); theirs whole is a revision already."""
    post_id, mine, _response = conflict
    mine["action"] = "take-mine"
    response = editor_client.post(f"/editor/posts/{post_id}", data=mine, headers=HX_EDITOR)
    assert response.status_code == 200
    post = stored(app, post_id)
    assert post.body_markdown == MINE and post.lock_version == 3
    assert post.title == "Grace's title" and post.summary == "Ada's summary."
    notice = page(response).select_one("#merged-notice").text
    assert notice.startswith("Merged with Grace’s save of ")
    assert notice.endswith(": both changes kept, and your choice where they overlapped.")
    assert THEIRS in recoverable(app, post_id)
    assert kinds(app, post_id)[-1] == ("save", "Ada Example", MINE)
    assert ("save", "Grace", THEIRS) in kinds(app, post_id)


def test_take_mine_after_yet_another_save_is_a_409_again(app, editor_client, conflict):
    """A third editor saving meanwhile is not overwritten: another 409, nothing lost."""
    post_id, mine, _response = conflict
    third = app.test_client()
    log_in_as(third, make_editor(app, "lin@example.com", name="Lin"))
    assert save(third, post_id, body="Lin's body.").status_code == 303
    mine["action"] = "take-mine"
    response = editor_client.post(f"/editor/posts/{post_id}", data=mine, headers=HX_EDITOR)
    assert response.status_code == 409
    assert stored(app, post_id).body_markdown == "Lin's body."
    bodies = recoverable(app, post_id)
    assert {THEIRS, MINE, "Lin's body."} <= set(bodies)


def test_merging_in_the_form_then_saving_keeps_both_originals(app, editor_client, conflict):
    """A hand merge of the overlapping line, saved with "Keep mine" chosen for it, is saved
    with their title; both texts it came from stay recoverable."""
    post_id, mine, response = conflict
    pick = page(response).select_one(".overlap input[value=mine]")["name"]
    merged = "Shared opening.\nGrace's middle line.\nAda's middle line.\nShared ending."
    mine["body"] = merged
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=mine | {pick: "mine"}, headers=HX_EDITOR
    )
    assert response.status_code == 200
    assert stored(app, post_id).body_markdown == merged
    assert stored(app, post_id).title == "Grace's title"
    bodies = recoverable(app, post_id)
    assert THEIRS in bodies and MINE in bodies and merged in bodies


def test_a_conflict_revision_can_be_restored_later(app, editor_client, conflict):
    """Keeping theirs is not final: mine comes back from the history as a new save."""
    post_id, mine, _response = conflict
    mine["action"] = "keep-theirs"
    editor_client.post(f"/editor/posts/{post_id}", data=mine)
    with app.app_context():
        set_aside = db.session.scalar(
            sa.select(PostRevision.id).where(
                PostRevision.post_id == post_id, PostRevision.kind == "conflict"
            )
        )
    soup = page(editor_client.get(f"/editor/posts/{post_id}/revisions?revision={set_aside}"))
    assert "Set aside in a conflict" in soup.select_one(f"#revision-{set_aside}").text
    form = soup.select_one("#revision-detail form")
    data = {field["name"]: field["value"] for field in form.select("input")}
    assert editor_client.post(form["action"], data=data).status_code == 303
    post = stored(app, post_id)
    assert post.body_markdown == MINE and post.lock_version == 3
    assert THEIRS in recoverable(app, post_id)
