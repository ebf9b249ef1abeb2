"""Saves based on an older version: merged three ways when nothing overlaps, asked about
(only what overlaps) when something does, and never a 500 for a forged or lost base."""

from __future__ import annotations

import random
import time

import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from blog.authoring import merging, revisions
from blog.authoring.forms import BODY_MAX
from blog.authoring.revisions import Text
from blog.extensions import db
from blog.models import WRITER, PostRevision
from blog.web.templating import site_time
from tests.authoring.test_auth import editor_client, log_in_as, make_editor, page
from tests.authoring.test_editor import HX_EDITOR, create, current_form, save, seen, stored

__all__ = ["editor_client"]

BODY = (
    "Paragraph one has a typo in it.\n\n"
    "Paragraph two stays as it is.\n\n"
    "Paragraph three cites a source.[^1]\n\n"
    "[^1]: The source, roughly.\n"
)
ED_BODY = BODY.replace("a typo in it", "no typo in it")
ANA_BODY = BODY.replace("The source, roughly.", "The source, with its page.")


def second_editor(app: Flask, email: str = "ed@example.com", name: str = "Ed Writer"):
    """Another logged-in editor's client."""
    other = app.test_client()
    log_in_as(other, make_editor(app, email, name=name))
    return other


def shown_after(client: FlaskClient, response: TestResponse, htmx: bool) -> BeautifulSoup:
    """The editor a successful save leaves on screen: its htmx answer (200), or the page its
    redirect (303) leads to."""
    if htmx:
        assert response.status_code == 200
        return page(response)
    assert response.status_code == 303
    return page(client.get(response.headers["Location"]))


def saves_of(app: Flask, post_id: int) -> list[tuple[str, str, int | None]]:
    """(kind, editor, lock version) of each revision of the post, oldest first."""
    with app.app_context():
        rows = db.session.execute(
            sa.select(PostRevision.kind, PostRevision.editor_name, PostRevision.lock_version)
            .where(PostRevision.post_id == post_id)
            .order_by(PostRevision.id)
        )
        return [tuple(row) for row in rows]


def saved_at(app: Flask, post_id: int, lock_version: int) -> str:
    """The time of day, in the site's zone, of the save that left the post at a version."""
    with app.app_context():
        moment = db.session.scalar(
            sa.select(PostRevision.created_at).where(
                PostRevision.post_id == post_id,
                PostRevision.lock_version == lock_version,
                PostRevision.kind == "save",
            )
        )
        return site_time(moment)


@pytest.fixture
def opened(app: Flask, editor_client: FlaskClient):
    """A post Ana (the editor client) and Ed both opened at version 1: (post id, Ana's form,
    Ed's client, Ed's form)."""
    post_id = create(editor_client, title="Shared post", body=BODY, summary="Old summary.")
    ed = second_editor(app)
    return post_id, current_form(editor_client, post_id), ed, current_form(ed, post_id)


@pytest.mark.parametrize("htmx", [True, False])
def test_changes_that_do_not_overlap_are_merged_with_a_notice(app, editor_client, opened, htmx):
    """Ed fixes paragraph 1; Ana, from the same version, changes the summary and the
    footnote: her save keeps both, as one new revision, and says whose save it took in."""
    post_id, ana, ed, ed_form = opened
    assert ed.post(f"/editor/posts/{post_id}", data=ed_form | {"body": ED_BODY}).status_code == 303
    ana |= {"body": ANA_BODY.replace("\n", "\r\n"), "summary": "New summary."}
    headers = HX_EDITOR if htmx else {}
    response = editor_client.post(f"/editor/posts/{post_id}", data=ana, headers=headers)
    soup = shown_after(editor_client, response, htmx)
    both = ED_BODY.replace("The source, roughly.", "The source, with its page.")
    post = stored(app, post_id)
    assert post.body_markdown == both and post.summary == "New summary."
    assert post.lock_version == 3 and "\r" not in post.body_markdown
    assert saves_of(app, post_id)[-2:] == [("save", "Ed Writer", 2), ("save", "Ada Example", 3)]
    note = f"Merged with Ed Writer’s save of {saved_at(app, post_id, 2)}: both changes kept."
    assert soup.select_one("#merged-notice").text == note
    status = soup.select_one("#save-status")
    assert note in status.text and "save-status-saved" in status["class"]
    assert status["role"] == "status"
    assert soup.select_one("#body").text.strip().replace("\r\n", "\n") == both.strip()
    assert soup.select_one("#merge_base")["value"] == ""


def test_fields_and_flags_each_take_the_side_that_changed_them(app, editor_client, opened):
    """Ed publishes and features the post; Ana retitles it: it is live, featured, and has
    her title, and its publish time is the one Ed's save set."""
    post_id, ana, ed, ed_form = opened
    ed_form |= {"status": "published", "featured": "y"}
    assert ed.post(f"/editor/posts/{post_id}", data=ed_form).status_code == 303
    published_at = stored(app, post_id).published_at
    ana["title"] = "Ana's title"
    response = editor_client.post(f"/editor/posts/{post_id}", data=ana, headers=HX_EDITOR)
    assert response.status_code == 200
    post = stored(app, post_id)
    assert (post.title, post.status, post.featured) == ("Ana's title", "published", True)
    assert post.published_at == published_at and post.body_markdown == BODY


def test_identical_changes_on_both_sides_merge_without_a_question(app, editor_client, opened):
    """Both fixed the same typo and nothing else: Ana's save goes through."""
    post_id, ana, ed, ed_form = opened
    assert ed.post(f"/editor/posts/{post_id}", data=ed_form | {"body": ED_BODY}).status_code == 303
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=ana | {"body": ED_BODY}, headers=HX_EDITOR
    )
    assert response.status_code == 200
    assert stored(app, post_id).body_markdown == ED_BODY
    assert "Merged with Ed Writer" in page(response).select_one("#merged-notice").text


def test_line_endings_alone_are_no_change(app, editor_client, opened):
    """Ed's browser sends LF, Ana's CR LF: her untouched lines are not a change of hers, so
    Ed's fix is kept while her title goes in."""
    post_id, ana, ed, ed_form = opened
    assert "\r\n" in str(ana["body"])  # as current_form reads it, like a browser
    response = ed.post(f"/editor/posts/{post_id}", data=ed_form | {"body": ED_BODY})
    assert response.status_code == 303
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=ana | {"title": "Retitled"}, headers=HX_EDITOR
    )
    assert response.status_code == 200
    post = stored(app, post_id)
    assert post.body_markdown == ED_BODY and post.title == "Retitled"


def test_overlapping_changes_ask_and_the_choice_settles_them(app, editor_client, opened):
    """Both rewrote paragraph 1 and both retitled: a 409 asks about those two alone, saves
    nothing, and saving with one choice each merges the rest (Ana's footnote)."""
    post_id, ana, ed, ed_form = opened
    ed_form |= {"body": ED_BODY, "title": "Ed's title"}
    assert ed.post(f"/editor/posts/{post_id}", data=ed_form).status_code == 303
    mine = ANA_BODY.replace("a typo in it", "two typos in it")
    ana |= {"body": mine, "title": "Ana's title"}
    response = editor_client.post(f"/editor/posts/{post_id}", data=ana, headers=HX_EDITOR)
    assert response.status_code == 409
    soup = page(response)
    legends = [legend.get_text(" ", strip=True) for legend in soup.select(".overlap legend")]
    assert legends == ["Title", "Body, first line"]
    assert stored(app, post_id).title == "Ed's title"  # nothing saved
    picks = [radio["name"] for radio in soup.select(".overlap input[value=mine]")]
    ana |= {
        "lock_version": soup.select_one("#lock_version")["value"],
        "merge_base": soup.select_one("#merge_base")["value"],
        "csrf_token": soup.select_one('input[name="csrf_token"]')["value"],
    }
    # Save with one choice only: asked again, the chosen one still chosen.
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=ana | {picks[0]: "mine"}, headers=HX_EDITOR
    )
    assert response.status_code == 409
    again = page(response)
    assert again.select_one("#overlaps-unchosen") is not None
    assert again.select_one(f"#{picks[0]}-mine").has_attr("checked")
    assert "some still need a choice" in again.select_one("#save-status").text
    choices = {picks[0]: "mine", picks[1]: "theirs"}
    response = editor_client.post(f"/editor/posts/{post_id}", data=ana | choices, headers=HX_EDITOR)
    assert response.status_code == 200
    post = stored(app, post_id)
    assert post.title == "Ana's title"
    assert post.body_markdown == ED_BODY.replace(
        "The source, roughly.", "The source, with its page."
    )
    note = page(response).select_one("#merged-notice").text
    assert note.endswith("both changes kept, and your choice where they overlapped.")


def test_three_editors_each_keep_their_change(app, editor_client, opened):
    """Ana, Ed and Lin open version 1; Ed saves, Lin's save merges Ed's, Ana's merges both,
    and her notice names them both."""
    post_id, ana, ed, ed_form = opened
    lin = second_editor(app, "lin@example.com", "Lin")
    lin_form = current_form(lin, post_id)
    assert ed.post(f"/editor/posts/{post_id}", data=ed_form | {"body": ED_BODY}).status_code == 303
    response = lin.post(
        f"/editor/posts/{post_id}", data=lin_form | {"title": "Lin's title"}, headers=HX_EDITOR
    )
    assert response.status_code == 200
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=ana | {"summary": "Ana's summary."}, headers=HX_EDITOR
    )
    assert response.status_code == 200
    post = stored(app, post_id)
    assert (post.body_markdown, post.title, post.summary) == (
        ED_BODY,
        "Lin's title",
        "Ana's summary.",
    )
    ed_at, lin_at = saved_at(app, post_id, 2), saved_at(app, post_id, 3)
    assert page(response).select_one("#merged-notice").text == (
        f"Merged with the saves of Ed Writer ({ed_at}) and Lin ({lin_at}): all changes kept."
    )


@pytest.mark.parametrize(
    ("lock_version", "merge_base", "status"),
    [
        ("1", "-1", 400),
        ("1", "two", 400),
        ("1", "1" * 10, 400),
        ("999999999", "", 409),  # a version that never was: nothing to merge from
        ("2", "999999999", 409),
        ("2", "0", 409),
    ],
)
def test_a_forged_base_is_refused_or_asked_never_a_500(
    app, editor_client, opened, lock_version, merge_base, status
):
    """A base that is no number is a tampered form (400); one that names no saved version
    cannot be merged from, so both versions are shown whole (409); nothing is saved."""
    post_id, ana, ed, ed_form = opened
    assert ed.post(f"/editor/posts/{post_id}", data=ed_form | {"body": ED_BODY}).status_code == 303
    ana |= {"lock_version": lock_version, "merge_base": merge_base, "title": "Forged"}
    response = editor_client.post(f"/editor/posts/{post_id}", data=ana, headers=HX_EDITOR)
    assert response.status_code == status
    assert stored(app, post_id).title == "Shared post"
    if status == 409:
        soup = page(response)
        assert soup.select_one(".overlap") is None and soup.select_one("#conflict-fields")
        assert soup.select_one("#merge_base")["value"] == ""


def test_a_base_that_retention_let_go_falls_back_to_both_versions_whole(app, editor_client, opened):
    """Without the revision Ana's text started from, there is no merge: the 409 of old."""
    post_id, ana, ed, ed_form = opened
    assert ed.post(f"/editor/posts/{post_id}", data=ed_form | {"body": ED_BODY}).status_code == 303
    with app.app_context():
        db.session.execute(
            sa.delete(PostRevision).where(
                PostRevision.post_id == post_id, PostRevision.lock_version == 1
            )
        )
        db.session.commit()
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=ana | {"summary": "Mine."}, headers=HX_EDITOR
    )
    assert response.status_code == 409
    soup = page(response)
    assert soup.select_one("#conflict-diff") is not None and soup.select_one(".overlap") is None
    assert stored(app, post_id).body_markdown == ED_BODY


def test_a_merge_over_the_body_limit_is_not_saved(app, editor_client):
    """Each side's body is within the limit, both together are not: a 409 that says so."""
    filler = "x" * 99 + "\n"
    half = (BODY_MAX // 2 // len(filler)) * len(filler)
    post_id = create(editor_client, title="Long post", body="Start.\n\nEnd.\n")
    ana = current_form(editor_client, post_id)
    ed = second_editor(app)
    theirs = "Start.\n\n" + filler * (half // len(filler) + 10) + "\nEnd.\n"
    assert save(ed, post_id, body=theirs).status_code == 303
    mine = "Start.\n\nEnd.\n\n" + "y" * 99 + "\n"
    mine += ("y" * 99 + "\n") * (half // len(filler) + 10)
    assert len(theirs) <= BODY_MAX and len(mine) <= BODY_MAX
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=ana | {"body": mine}, headers=HX_EDITOR
    )
    assert response.status_code == 409
    note = page(response).select_one("#merge-too-long").text
    assert "over the limit" in note
    assert stored(app, post_id).body_markdown == theirs


def test_bodies_too_different_to_merge_in_time_fall_back(app, editor_client, opened, monkeypatch):
    """When the line merge runs past its time limit, the 409 of old answers."""
    post_id, ana, ed, ed_form = opened
    assert ed.post(f"/editor/posts/{post_id}", data=ed_form | {"body": ED_BODY}).status_code == 303

    def too_slow(*_args: object) -> None:
        raise merging.TooDifferent

    monkeypatch.setattr(merging, "_body_groups", too_slow)
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=ana | {"summary": "Mine."}, headers=HX_EDITOR
    )
    assert response.status_code == 409
    assert page(response).select_one("#conflict-title") is not None
    assert stored(app, post_id).summary == "Old summary."


def test_the_body_merge_keeps_blank_lines_in_long_bodies_as_anchors():
    """A long body has many blank lines: each still separates paragraphs in the merge, so
    edits of neighbouring paragraphs both go in."""
    paragraphs = [f"Paragraph {n}." for n in range(400)]
    base = "\n\n".join(paragraphs) + "\n"
    theirs = base.replace("Paragraph 200.", "Paragraph 200, theirs.")
    mine = base.replace("Paragraph 201.", "Paragraph 201, mine.")
    text = merging.merge(*(_text(body) for body in (base, theirs, mine)))
    assert not text.overlaps
    assert "Paragraph 200, theirs.\n\nParagraph 201, mine." in text.text.body


def _text(body: str) -> Text:
    """A revision text with this body and nothing else."""
    return Text("T", "t", "", body, ("Topic",), ("Ada",), "draft")


def test_a_picture_uploaded_in_a_stale_tab_merges_with_their_text(app, editor_client, opened):
    """Ana uploads an illustration while Ed changed the summary: both are kept. Then Ed,
    whose tab still shows no picture, changes the body: the picture stays."""
    import io

    from tests.media.test_images import picture_bytes

    post_id, ana, ed, ed_form = opened
    assert (
        ed.post(f"/editor/posts/{post_id}", data=ed_form | {"summary": "Ed's."}).status_code == 303
    )
    ana |= {"image": (io.BytesIO(picture_bytes("PNG", (80, 50))), "a.png"), "image_alt": "A card"}
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=ana, content_type="multipart/form-data"
    )
    assert response.status_code == 303
    post = stored(app, post_id)
    assert (post.summary, post.image.width, post.image_alt) == ("Ed's.", 80, "A card")
    ed_form |= {"summary": "Ed's.", "lock_version": "2", "body": ED_BODY}
    assert ed.post(f"/editor/posts/{post_id}", data=ed_form).status_code == 303
    post = stored(app, post_id)
    assert (post.body_markdown, post.image.width, post.image_alt) == (ED_BODY, 80, "A card")


def test_a_writers_stale_draft_merges_an_editors_new_byline(app, editor_client):
    """An editor credits a co-author on a writer's draft while the writer types: the
    writer's save is not refused for a byline they never changed, and both changes stay."""
    create(editor_client, title="A post of the topic the writer uses")
    writer = app.test_client()
    log_in_as(writer, make_editor(app, "wri@example.com", name="Wri Ter", role=WRITER))
    post_id = create(writer, title="Writer's draft", body=BODY, author="Wri Ter")
    stale = current_form(writer, post_id)
    response = save(editor_client, post_id, author=["Wri Ter", "Ada Example"])
    assert response.status_code == 303
    response = writer.post(f"/editor/posts/{post_id}", data=stale | {"body": ED_BODY})
    assert response.status_code == 303
    post = stored(app, post_id)
    assert [author.name for author in post.authors] == ["Wri Ter", "Ada Example"]
    assert post.body_markdown == ED_BODY
    # Naming someone else themself is still refused, stale form or not.
    response = writer.post(f"/editor/posts/{post_id}", data=stale | {"author": ["Someone Else"]})
    assert response.status_code == 403


def test_a_paragraph_one_side_removed_and_the_other_rewrote_is_asked_about(
    app, editor_client, opened
):
    """Ed deletes the footnote Ana rewrites: the overlap says he removed it; keeping hers
    puts it back with his other change."""
    post_id, ana, ed, ed_form = opened
    theirs = ED_BODY.replace("[^1]: The source, roughly.\n", "")
    assert ed.post(f"/editor/posts/{post_id}", data=ed_form | {"body": theirs}).status_code == 303
    ana["body"] = ANA_BODY
    response = editor_client.post(f"/editor/posts/{post_id}", data=ana, headers=HX_EDITOR)
    assert response.status_code == 409
    soup = page(response)
    (overlap,) = soup.select(".overlap")
    assert overlap.select_one(".overlap-theirs pre").text == "(nothing: they removed it)"
    assert seen(overlap.select_one(".overlap-mine pre")) == "[^1]: The source, with its page."
    assert overlap.legend.text == "Body, line 7"
    pick = overlap.select_one("input[value=mine]")["name"]
    ana |= {
        "lock_version": soup.select_one("#lock_version")["value"],
        "merge_base": soup.select_one("#merge_base")["value"],
        "csrf_token": soup.select_one('input[name="csrf_token"]')["value"],
        pick: "mine",
    }
    response = editor_client.post(f"/editor/posts/{post_id}", data=ana, headers=HX_EDITOR)
    assert response.status_code == 200
    assert stored(app, post_id).body_markdown == ED_BODY.replace(
        "The source, roughly.", "The source, with its page."
    )


def ask(app: Flask, editor_client: FlaskClient, theirs: dict, mine: dict, body: str = BODY):
    """A post both editors opened; Ed saves `theirs`, then Ana's save of `mine` is a 409 that
    asks about the overlaps: its page."""
    post_id = create(editor_client, title="Shared post", body=body, summary="Old summary.")
    ed = second_editor(app)
    ana, ed_form = current_form(editor_client, post_id), current_form(ed, post_id)
    assert ed.post(f"/editor/posts/{post_id}", data=ed_form | theirs).status_code == 303
    response = editor_client.post(f"/editor/posts/{post_id}", data=ana | mine, headers=HX_EDITOR)
    assert response.status_code == 409
    return page(response)


def test_an_overlap_marks_the_words_each_side_changed(app, editor_client):
    """Both rewrote the same sentence: theirs marks the words only they wrote as removed,
    mine the words only Ana wrote as added, each with words for screen readers, as the
    history's compare does; the words both kept are left unmarked."""
    mine = BODY.replace("a typo in it", "two typos in it")
    soup = ask(app, editor_client, {"body": ED_BODY}, {"body": mine})
    (overlap,) = soup.select(".overlap")
    theirs_side = overlap.select_one(".overlap-theirs")
    mine_side = overlap.select_one(".overlap-mine")
    assert [seen(mark) for mark in theirs_side.select("del")] == ["no typo"]
    assert [seen(mark) for mark in mine_side.select("ins")] == ["two typos"]
    assert not theirs_side.select("ins") and not mine_side.select("del")
    assert seen(theirs_side.select_one("pre")) == "Paragraph one has no typo in it."
    assert seen(mine_side.select_one("pre")) == "Paragraph one has two typos in it."
    said = mine_side.select_one("pre").get_text()
    assert "changed, after:" in said and "[added: two typos]" in said
    assert "[removed: no typo]" in theirs_side.select_one("pre").get_text()
    assert soup.select_one("#overlap-legend") is not None


def test_overlaps_are_labelled_by_where_they_are_in_the_writers_text(app, editor_client):
    """Fields by their name; body runs by their lines in Ana's text (the one in her form):
    the first lines, one line, a range, and where she removed lines."""
    body = "".join(f"Line {n} of the body.\n" for n in range(1, 31))
    theirs, mine = body, body
    for n in (1, 2, 12, 20, 21, 22, 28):
        theirs = theirs.replace(f"Line {n} of", f"Line {n}, theirs, of")
    for n in (1, 2, 12, 20, 21, 22):
        mine = mine.replace(f"Line {n} of", f"Line {n}, mine, of")
    mine = mine.replace("Line 28 of the body.\n", "")
    soup = ask(
        app,
        editor_client,
        {"body": theirs, "summary": "Ed's summary."},
        {"body": mine, "summary": "Ana's summary."},
        body=body,
    )
    legends = [legend.get_text(" ", strip=True) for legend in soup.select(".overlap legend")]
    assert legends == [
        "Summary",
        "Body, first lines",
        "Body, line 12",
        "Body, lines 20–22",
        "Body, after line 27",
    ]


def test_a_pathological_overlap_answers_in_bounded_time_unmarked(app, editor_client):
    """Two 100,000-character rewrites of one line, made of the same few words in different
    orders (the worst case for a word diff): the 409 still answers, well within a generous
    CPU bound, showing both sides without word marks."""
    rng = random.Random(43)
    words = ["alpha", "beta", "gamma", "delta", "eps"]

    def rewrite() -> str:
        line = " ".join(rng.choice(words) for _ in range(20_000))
        return line[:100_000].rstrip() + "\n"

    body = "Start.\n\nMiddle.\n\nEnd.\n"
    theirs, mine = body.replace("Middle.\n", rewrite()), body.replace("Middle.\n", rewrite())
    assert len(theirs) + len(mine) > 200_000
    started = time.process_time()
    soup = ask(app, editor_client, {"body": theirs}, {"body": mine}, body=body)
    assert time.process_time() - started < 3 * revisions.DIFF_TIME_LIMIT + 4
    (overlap,) = soup.select(".overlap")
    assert overlap.legend.text == "Body, line 3"
    assert not overlap.select("del ins, ins ins, del del, span.diff-line del, span.diff-line ins")
    assert seen(overlap.select_one(".overlap-theirs pre")) == theirs.split("\n")[2]
    assert seen(overlap.select_one(".overlap-mine pre")) == mine.split("\n")[2]
