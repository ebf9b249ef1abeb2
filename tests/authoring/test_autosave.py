"""Autosave through htmx: what the status says, a new post stored at its first autosave
once it has a title, and a published post's autosaves kept as its draft changes."""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa

from blog.authoring.editor import autosaving, posts
from blog.extensions import db
from blog.models import DRAFT, PUBLISHED, Post
from tests.authoring.test_editor import (
    create,
    current_form,
    editor_client,
    new_post_form,
    page,
    save,
    stored,
)
from tests.authoring.test_merging import second_editor
from tests.authoring.test_pending import data_version, pending_row

__all__ = ["editor_client"]

HX_AUTOSAVE = {"HX-Request": "true", "HX-Target": "autosave-status"}


def post_count(app) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count()).select_from(Post))


def autosave_new(client, **fields):
    """The new-post form as htmx sends it to the autosave route."""
    data = new_post_form(client, **fields) | {"status": ""}
    token = {"X-CSRFToken": str(data["csrf_token"])}
    return client.post("/editor/posts/new/autosave", data=data, headers=HX_AUTOSAVE | token)


def test_a_new_post_is_stored_as_a_draft_at_its_first_autosave_with_a_title(app, editor_client):
    """Without a title nothing is stored and the status says what is missing; with one, and
    no topic yet, the post is a draft without topics, the page learns its id, version and
    address, and a save of the same form afterwards saves that post rather than making
    another."""
    before = post_count(app)
    untitled = autosave_new(editor_client, title="")
    assert untitled.status_code == 200
    assert untitled.get_data(as_text=True) == "Not autosaved yet: it autosaves once it has a title."
    assert post_count(app) == before

    first = autosave_new(editor_client, title="Half an idea", topics="", body="Typed so far.")
    assert first.status_code == 200 and first.headers["HX-Reswap"] == "outerHTML"
    post_id = int(first.headers["HX-Replace-Url"].rsplit("/", 1)[1])
    soup = page(first)
    assert (
        soup.select_one("#autosave-status")["data-hx-post"] == f"/editor/posts/{post_id}/autosave"
    )
    assert soup.select_one("#autosave-status").get_text().startswith("Autosaved ")
    oob = {tag["id"]: tag["value"] for tag in soup.select("input[data-hx-swap-oob]")}
    assert oob == {"post_id": str(post_id), "lock_version": "1"}
    post = stored(app, post_id)
    assert post.status == DRAFT and post.title == "Half an idea"
    assert post.body_markdown == "Typed so far." and post.created_by_id is not None
    assert post.topics == [] and post.primary_topic_id is None

    # The page still posts to /editor/posts/new, now naming the post: it is saved, not doubled.
    data = new_post_form(editor_client, title="Whole idea", action="save") | oob
    assert editor_client.post("/editor/posts/new", data=data).status_code == 303
    assert post_count(app) == before + 1
    assert stored(app, post_id).title == "Whole idea"
    assert [topic.name for topic in stored(app, post_id).topics] == ["Databases"]


def test_a_drafts_autosave_says_when_and_leaves_the_post(app, editor_client):
    """htmx gets the status's new text; the post is as saved."""
    post_id = create(editor_client, body="Saved words.")
    data = current_form(editor_client, post_id) | {"body": "Saved words. More."}
    token = {"X-CSRFToken": str(data["csrf_token"])}
    answer = editor_client.post(
        f"/editor/posts/{post_id}/autosave", data=data, headers=HX_AUTOSAVE | token
    )
    assert answer.status_code == 200 and answer.get_data(as_text=True).startswith("Autosaved ")
    assert stored(app, post_id).body_markdown == "Saved words."


def test_a_published_posts_autosave_is_its_draft_changes(app, editor_client):
    """An autosave of a live post writes its draft changes (marked autosaved), never the post
    or anything readers see; another editor's later autosave from a stale page is refused
    (409) and leaves them."""
    post_id = create(editor_client, status=PUBLISHED, title="Live", body="Live words.")
    version = data_version(app)
    data = current_form(editor_client, post_id) | {"body": "Typed, not live."}
    token = {"X-CSRFToken": str(data["csrf_token"])}
    stale = current_form(second_editor(app), post_id)
    answer = editor_client.post(
        f"/editor/posts/{post_id}/autosave", data=data, headers=HX_AUTOSAVE | token
    )
    assert answer.get_data(as_text=True).startswith("Draft changes autosaved ")
    change = pending_row(app, post_id)
    assert change is not None and change.autosaved and change.fields["body"] == ["Typed, not live."]
    assert stored(app, post_id).body_markdown == "Live words." and data_version(app) == version
    assert "Typed, not live." not in app.test_client().get("/posts/live").get_data(as_text=True)
    opened = page(editor_client.get(f"/editor/posts/{post_id}"))
    assert "autosaved" in opened.select_one("#pending-banner").get_text()
    assert opened.select_one("#autosave-status").get_text().startswith("Draft changes autosaved")

    ed = second_editor(app, "ed2@example.com", name="Ed Other")
    ed_data = current_form(ed, post_id) | {k: v for k, v in stale.items() if k == "pending_version"}
    refused = ed.post(
        f"/editor/posts/{post_id}/autosave",
        data=ed_data | {"body": "Ed's.", "pending_version": ""},
        headers=HX_AUTOSAVE | {"X-CSRFToken": str(ed_data["csrf_token"])},
    )
    assert refused.status_code == 409
    assert refused.get_data(as_text=True).startswith("Not autosaved: Ada Example saved draft")
    assert pending_row(app, post_id).fields["body"] == ["Typed, not live."]
    assert save(editor_client, post_id, action="confirm-update").status_code == 303
    assert stored(app, post_id).body_markdown == "Typed, not live."


# A new post's Save and its first autosave, racing ------------------------------------------

NEW = "/editor/posts/new"
HX_EDITOR = {"HX-Request": "true", "HX-Target": "post-editor"}


def form_identity(client) -> str:
    """The identity the new-post page gives its form (a hidden `uid`)."""
    return page(client.get(NEW)).select_one('#post-form input[name="uid"]')["value"]


def every_post(app) -> list[tuple[int, str, str, str]]:
    """(id, uid, title, body) of every stored post."""
    with app.app_context():
        rows = db.session.execute(
            sa.select(Post.id, Post.uid, Post.title, Post.body_markdown).order_by(Post.id)
        )
        return [(row.id, str(row.uid), row.title, row.body_markdown) for row in rows]


def save_new(client, uid: str, headers: dict | None = None, **fields):
    """Save as the new-post page sends it before it knows of any stored post."""
    data = new_post_form(client, uid=uid, action="save", **fields)
    return client.post(NEW, data=data, headers=headers or {})


def test_each_new_post_page_gives_its_form_an_identity(editor_client):
    """Two new-post pages, two identities, each a UUID written as the server writes one."""
    first, second = form_identity(editor_client), form_identity(editor_client)
    assert first != second
    assert str(uuid.UUID(first)) == first and str(uuid.UUID(second)) == second


@pytest.mark.parametrize("headers", [{}, HX_EDITOR], ids=["plain", "htmx"])
def test_a_save_sent_before_the_first_autosave_answered_saves_that_post(
    app, editor_client, headers
):
    """The first autosave stores the post, and the Save, already on its way, still names no
    post: it finds the post by the form's identity and saves the text it carries into it
    (the page then moves to the post's address) instead of making a second post."""
    uid = form_identity(editor_client)
    first = autosave_new(editor_client, uid=uid, title="Race notes", body="Typed so far.")
    assert first.status_code == 200 and "HX-Replace-Url" in first.headers
    saved = save_new(editor_client, uid, headers, title="Race notes, whole", body="All of it.")
    ((post_id, kept_uid, title, body),) = every_post(app)
    assert (kept_uid, title, body) == (uid, "Race notes, whole", "All of it.")
    if headers:
        assert saved.status_code == 200
        assert saved.headers["HX-Replace-Url"] == f"/editor/posts/{post_id}"
        assert page(saved).select_one("#post_id")["value"] == str(post_id)
    else:
        assert saved.status_code == 303
        assert saved.headers["Location"].endswith(f"/editor/posts/{post_id}")
    assert stored(app, post_id).status == DRAFT


def test_an_autosave_that_arrives_after_its_save_makes_no_second_post(app, editor_client):
    """The Save stores the post first; the autosave sent before it (older text) finds the post
    by the form's identity and keeps nothing: the post holds the Save's text and the editor
    offers no older autosave."""
    uid = form_identity(editor_client)
    saved = save_new(editor_client, uid, title="Race notes, whole", body="All of it.")
    assert saved.status_code == 303
    late = autosave_new(editor_client, uid=uid, title="Race notes", body="Typed so far.")
    assert late.status_code == 200
    ((post_id, kept_uid, title, body),) = every_post(app)
    assert (kept_uid, title, body) == (uid, "Race notes, whole", "All of it.")
    assert late.headers["HX-Replace-Url"] == f"/editor/posts/{post_id}"
    assert editor_client.get(f"/editor/posts/{post_id}/autosave").status_code == 204


def test_an_autosave_whose_first_answer_was_lost_keeps_to_its_post(app, editor_client):
    """A second autosave from a page that missed the first one's answer (it names no post yet)
    is kept as an autosave of the post the first one stored, not as another post."""
    uid = form_identity(editor_client)
    autosave_new(editor_client, uid=uid, title="Lost answer", body="First words.")
    again = autosave_new(editor_client, uid=uid, title="Lost answer, later", body="More words.")
    assert again.status_code == 200
    ((post_id, _, title, body),) = every_post(app)
    assert (title, body) == ("Lost answer", "First words.")
    assert again.headers["HX-Replace-Url"] == f"/editor/posts/{post_id}"
    offer = editor_client.get(f"/editor/posts/{post_id}/autosave")
    assert offer.status_code == 200


def test_another_accounts_form_identity_is_never_taken_over(app, editor_client):
    """A form carrying the identity of another account's post (a hand-made request) is a 409
    for the Save and for the autosave, and changes nothing."""
    uid = form_identity(editor_client)
    autosave_new(editor_client, uid=uid, title="Mine", body="My words.")
    before = every_post(app)
    other = second_editor(app)
    assert save_new(other, uid, title="Theirs", body="Their words.").status_code == 409
    assert autosave_new(other, uid=uid, title="Theirs", body="Their words.").status_code == 409
    assert every_post(app) == before


def test_a_saved_posts_identity_is_not_a_second_save_once_it_is_published(app, editor_client):
    """A Save sent again from a new-post page whose post is already published (a second click
    on an old page) is a 409: the published post is not changed through it."""
    uid = form_identity(editor_client)
    save_new(editor_client, uid, title="Out already", body="Live words.")
    ((post_id, *_),) = every_post(app)
    save(editor_client, post_id, action="confirm-publish")
    assert stored(app, post_id).status == PUBLISHED
    again = save_new(editor_client, uid, title="Out already", body="Changed words.")
    assert again.status_code == 409
    assert [row[3] for row in every_post(app)] == ["Live words."]


@pytest.mark.parametrize(
    "raw",
    [
        "not-a-uuid",
        "12345",
        "{6f1c2a0e-8d4b-4c3e-9a7f-2b5d1e0c9a31}",  # a UUID, not as the server writes it
        "6F1C2A0E-8D4B-4C3E-9A7F-2B5D1E0C9A31",
    ],
)
def test_a_malformed_form_identity_is_a_400(app, editor_client, raw):
    """The Save and the autosave of a new post refuse an identity that is no UUID as the
    server writes one, storing nothing."""
    assert save_new(editor_client, raw, title="Bad id").status_code == 400
    assert autosave_new(editor_client, uid=raw, title="Bad id").status_code == 400
    assert post_count(app) == 0


@pytest.mark.parametrize("first", ["autosave", "save"])
def test_the_unique_identity_settles_a_race_no_lookup_saw(app, editor_client, monkeypatch, first):
    """Both requests looked for the form's post before either stored it: the second one's
    insert meets the unique identity, and it is answered as if it had found the post (no 500,
    one post, the Save's text)."""
    uid = form_identity(editor_client)
    if first == "autosave":
        autosave_new(editor_client, uid=uid, title="Race notes", body="Typed so far.")
        module = posts
    else:
        save_new(editor_client, uid, title="Race notes, whole", body="All of it.")
        module = autosaving
    real, looked = module.made_by_form, []

    def blind_once(wanted):
        looked.append(wanted)
        return None if len(looked) == 1 else real(wanted)

    monkeypatch.setattr(module, "made_by_form", blind_once)
    if first == "autosave":
        second = save_new(editor_client, uid, title="Race notes, whole", body="All of it.")
        assert second.status_code == 303
    else:
        second = autosave_new(editor_client, uid=uid, title="Race notes", body="Typed so far.")
        assert second.status_code == 200
    assert len(looked) == 2
    assert [(row[1], row[2], row[3]) for row in every_post(app)] == [
        (uid, "Race notes, whole", "All of it.")
    ]


@pytest.mark.parametrize("knows_the_post", [True, False], ids=["form-knows-it", "by-identity"])
def test_a_save_over_another_editors_save_of_an_autosaved_post_merges(
    app, editor_client, knows_the_post
):
    """The first autosave stores the post; another editor opens it and saves a change to one
    line; the writer's Save, started from the autosaved text, changes another line. The
    text the autosave stored is the base, so both changes are kept, whether the writer's
    form had learnt the post's id or finds it by the form's identity."""
    uid = form_identity(editor_client)
    lines = ["Line one.", "Line two.", "Line three."]
    typed = dict(title="Race notes", topics="Databases")
    first = autosave_new(editor_client, uid=uid, body="\n\n".join(lines), **typed)
    post_id = int(first.headers["HX-Replace-Url"].rsplit("/", 1)[1])
    ed = second_editor(app)
    assert save(ed, post_id, body="\n\n".join(["Line one, by Ed.", *lines[1:]])).status_code == 303
    mine = "\n\n".join([*lines[:2], "Line three, mine."])
    if knows_the_post:
        data = new_post_form(editor_client, uid=uid, action="save", body=mine, **typed)
        data |= {"post_id": str(post_id), "lock_version": "1"}
        answer = editor_client.post(f"/editor/posts/{post_id}", data=data)
    else:
        answer = save_new(editor_client, uid, body=mine, **typed)
    assert answer.status_code == 303
    merged = "\n\n".join(["Line one, by Ed.", "Line two.", "Line three, mine."])
    assert stored(app, post_id).body_markdown == merged
    assert len(every_post(app)) == 1
