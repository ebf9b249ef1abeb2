"""The history's compare: changed words marked inside changed lines, any two revisions
compared (`?revision=A&with=B`), and times in the site's zone."""

from __future__ import annotations

import re
from datetime import datetime

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st

from blog.authoring import revisions
from blog.extensions import db
from blog.models import Post
from tests.authoring.test_auth import editor_client, page
from tests.authoring.test_editor import create, save
from tests.authoring.test_revisions import kept, restore

__all__ = ["editor_client"]

HX_COMPARE = {"HX-Request": "true", "HX-Target": "revision-compare"}

PARAGRAPH = (
    "The replica fell behind during the nightly batch because the vacuum held its lock for "
    "longer than the checkpoint interval, and every retry made the backlog worse."
)


def changed_lines(old: str, new: str) -> list[tuple[str, tuple[revisions.Part, ...]]]:
    """The removed and added lines of a diff, each with its parts."""
    hunks = revisions.body_diff(old, new)
    assert hunks is not None
    return [(line.kind, line.parts) for hunk in hunks for line in hunk if line.kind != "same"]


# Word marks -------------------------------------------------------------------------------


def test_a_one_word_change_marks_that_word_only():
    """A long line that changed in one word: both lines keep their text, only the word is
    marked, on each side."""
    removed, added = changed_lines(PARAGRAPH, PARAGRAPH.replace("nightly", "weekly"))
    before, after = PARAGRAPH.split("nightly")
    assert removed == ("removed", ((before, False), ("nightly", True), (after, False)))
    assert added == ("added", ((before, False), ("weekly", True), (after, False)))


def test_punctuation_and_spaces_are_words_of_their_own():
    """A comma made a semicolon is that one character; runs of spaces are kept as typed."""
    (_, old), (_, new) = changed_lines("x = 1,  y = 2", "x = 1;  y = 2")
    assert old == (("x = 1", False), (",", True), ("  y = 2", False))
    assert new == (("x = 1", False), (";", True), ("  y = 2", False))


def test_neighbouring_changed_words_are_one_mark():
    """Two words replaced side by side are one marked run, not two with a space between."""
    (_, old), (_, new) = changed_lines("the quick brown fox", "the slow red fox")
    assert old == (("the ", False), ("quick brown", True), (" fox", False))
    assert new == (("the ", False), ("slow red", True), (" fox", False))


def test_lines_too_different_are_whole_lines():
    """A line rewritten through and through is shown removed and added whole."""
    assert changed_lines("one\ntwo\nthree", "one\n2\nthree") == [("removed", ()), ("added", ())]
    old, new = "Ship it on Friday.", "We wait for the load test results."
    assert changed_lines(old, new) == [("removed", ()), ("added", ())]


def test_a_line_split_in_two_marks_what_moved():
    """A line broken into two: the old line's words all stay, the break is the change."""
    lines = changed_lines("First part, second part.", "First part,\nsecond part.")
    assert lines == [
        ("removed", (("First part,", False), (" ", True), ("second part.", False))),
        ("added", (("First part,", False),)),
        ("added", (("second part.", False),)),
    ]


@given(
    st.lists(st.sampled_from(["alpha", "beta", " ", ",", "  ", "gamma", "é"]), max_size=30),
    st.lists(st.sampled_from(["alpha", "delta", " ", ";", "  ", "gamma", "é"]), max_size=30),
)
def test_the_parts_of_a_line_are_its_text(old_tokens, new_tokens):
    """Whatever the words, a marked line's parts put together are exactly the line."""
    old, new = "".join(old_tokens), "".join(new_tokens)
    for hunk in revisions.marked_words(revisions.line_diff(f"{old}\nend", f"{new}\nend")):
        for line in hunk:
            if line.parts:
                assert "".join(text for text, _changed in line.parts) == line.text


# The tests marked one_store in this module run on SQLite only: they check how the page shows
# revisions already read (the word marks, the fragment htmx swaps). Choosing revisions by id,
# their order and times run on both stores.
@pytest.mark.one_store
def test_the_page_marks_the_word_not_colour_alone(app, editor_client):
    """<del> and <ins> hold the word, with words for screen readers; the line carries its
    sign and what it is, and the unchanged words are plain text."""
    post_id = create(editor_client, title="Words", body=PARAGRAPH)
    save(editor_client, post_id, body=PARAGRAPH.replace("nightly", "weekly"))
    first = kept(app, post_id)[0]
    soup = page(editor_client.get(f"/editor/posts/{post_id}/revisions?revision={first.id}"))
    diff = soup.select_one("#body-diff")
    assert [d.get_text() for d in diff.select("del")] == ["[removed: nightly]"]
    assert [i.get_text() for i in diff.select("ins")] == ["[added: weekly]"]
    removed = diff.select_one(".diff-line.diff-removed")
    assert removed.name == "span"  # the line is not struck out whole
    assert removed.select_one(".visually-hidden").text == "changed, before: "
    assert removed.select_one(".diff-sign").text == "− "
    assert "Words and lines marked" in soup.select_one(".diff-legend").text


# Any two revisions ------------------------------------------------------------------------


@pytest.fixture
def three_saves(app, editor_client) -> tuple[int, list[int]]:
    """A post saved three times, one body line each time; its id and its revisions' ids."""
    post_id = create(editor_client, title="Three", body="one")
    save(editor_client, post_id, body="one\ntwo")
    save(editor_client, post_id, body="one\ntwo\nthree", title="Three, again")
    return post_id, [revision.id for revision in kept(app, post_id)]


def test_two_revisions_are_compared_with_each_other(editor_client, three_saves):
    """`with=B` compares A with B, not with the current text; the heading says which."""
    post_id, (first, second, _third) = three_saves
    url = f"/editor/posts/{post_id}/revisions?revision={first}&with={second}"
    soup = page(editor_client.get(url))
    diff = soup.select_one("#body-diff")
    assert [i.get_text(strip=True) for i in diff.select("ins")] == ["added:+two"]
    assert diff.select("del") == []
    assert soup.select_one(".field-changes") is None  # same title in both
    assert "compared with the revision of" in soup.select_one("#revision-detail-title").text
    # The restore offered is A's.
    assert soup.select_one("#restore-button").text.startswith("Restore the revision of")
    assert soup.select_one("#revision-detail form")["action"].endswith(f"/{first}/restore")
    # The form shows the two chosen.
    assert soup.select_one(f"#from-{first}").has_attr("checked")
    assert soup.select_one(f"#to-{second}").has_attr("checked")
    assert not soup.select_one("#with-now").has_attr("checked")


def test_without_with_the_current_text_is_the_other_side(editor_client, three_saves):
    """`with` left out, or sent empty by the form's "now" choice, means the current text."""
    post_id, (first, _second, _third) = three_saves
    base = f"/editor/posts/{post_id}/revisions?revision={first}"
    for url in (base, f"{base}&with="):
        soup = page(editor_client.get(url))
        added = [i.get_text(strip=True) for i in soup.select("#body-diff ins")]
        assert added == ["added:+two", "added:+three"]
        assert "compared with the current post" in soup.select_one("#revision-detail-title").text
        assert soup.select_one("#with-now").has_attr("checked")


def test_the_list_is_a_get_form_with_a_from_and_a_to_for_each_revision(editor_client, three_saves):
    """Two radio groups (no script needed), each revision in both, now in "to" only; at
    first the one before the newest is compared with now."""
    post_id, ids = three_saves
    soup = page(editor_client.get(f"/editor/posts/{post_id}/revisions"))
    form = soup.select_one("#compare-form")
    assert form["method"] == "get" and form["action"].endswith(
        f"/{post_id}/revisions#revision-detail"
    )
    froms = [int(radio["value"]) for radio in form.select('input[name="revision"]')]
    tos = [radio["value"] for radio in form.select('input[name="with"]')]
    assert froms == ids[::-1] and tos == ["", *map(str, ids[::-1])]
    assert [r["value"] for r in form.select('input[name="revision"][checked]')] == [str(ids[1])]
    assert [r["value"] for r in form.select('input[name="with"][checked]')] == [""]
    for radio in form.select('input[type="radio"]'):
        label = form.select_one(f'label[for="{radio["id"]}"]').get_text(" ", strip=True)
        assert label.startswith(("From the revision of", "To the revision of", "To the current"))
    # "What it changed": each revision against the one before it.
    changed = form.select_one(f"#revision-{ids[2]} a[href*='with=']")["href"]
    assert changed.startswith(f"/editor/posts/{post_id}/revisions?revision={ids[1]}&with={ids[2]}")
    assert form.select_one(f"#revision-{ids[0]} a[href*='with=']") is None  # none before it


@pytest.mark.one_store
def test_the_list_and_the_comparison_swap_together(editor_client, three_saves):
    """With htmx, the links and the form swap in the list's form and the comparison as one
    fragment, so the choices shown are always those compared."""
    post_id, (first, second, _third) = three_saves
    url = f"/editor/posts/{post_id}/revisions?revision={first}&with={second}"
    fragment = page(editor_client.get(url, headers=HX_COMPARE))
    assert fragment.select_one("h1") is None and fragment.select_one("#state-changes") is None
    (swapped,) = fragment.select("body > div")
    assert swapped["id"] == "revision-compare"
    assert swapped.select_one(f"#from-{first}").has_attr("checked")
    assert swapped.select_one(f"#to-{second}").has_attr("checked")
    assert [i.get_text(strip=True) for i in swapped.select("#body-diff ins")] == ["added:+two"]
    full = page(editor_client.get(url))
    form = full.select_one("#compare-form")
    assert form["data-hx-target"] == "#revision-compare" and form["data-hx-push-url"] == "true"
    assert full.select_one(f"#changed-{second}")["data-hx-target"] == "#revision-compare"


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("with=abc", 400),
        ("with=007", 400),
        ("with=-1", 400),
        ("with=1e3", 400),
        ("with=99999999999", 400),
        ("with=999999", 404),
        ("with={other}", 404),
    ],
)
def test_a_bad_with_is_refused(app, editor_client, three_saves, query, status):
    """A `with` that is no number is a 400; one of another post, or none at all, a 404."""
    post_id, (first, *_rest) = three_saves
    other = kept(app, create(editor_client, title="Another"))[0].id
    url = f"/editor/posts/{post_id}/revisions?revision={first}&{query.format(other=other)}"
    assert editor_client.get(url).status_code == status


def test_with_alone_is_refused(editor_client, three_saves):
    """Something to compare to, but nothing to compare from: a 400 that says so."""
    post_id, (_first, second, _third) = three_saves
    response = editor_client.get(f"/editor/posts/{post_id}/revisions?with={second}")
    assert response.status_code == 400
    assert "compare from" in response.get_data(as_text=True)


def test_two_revisions_of_a_deleted_post_are_compared(app, editor_client, three_saves):
    """After a delete, two revisions still compare with each other (and none is restored)."""
    post_id, (first, _second, third) = three_saves
    with app.app_context():
        db.session.execute(sa.delete(Post).where(Post.id == post_id))
        db.session.commit()
    url = f"/editor/posts/{post_id}/revisions?revision={first}&with={third}"
    soup = page(editor_client.get(url))
    assert [i.get_text(strip=True) for i in soup.select("#body-diff ins")] == [
        "added:+two",
        "added:+three",
    ]
    assert soup.select_one("#restore-button") is None


# Times in the site's zone -----------------------------------------------------------------


def test_the_compare_and_the_restore_say_times_in_the_sites_zone(app, editor_client, monkeypatch):
    """A changed publish date, the heading and the restore's message are in the site's
    zone, never in UTC."""
    monkeypatch.setitem(app.config, "SITE_TIMEZONE", "America/New_York")
    post_id = create(editor_client, title="Dated")
    with app.app_context():
        post = db.session.get(Post, post_id)
        assert post is not None
        post.published_at = datetime(2030, 1, 15, 14, 0)  # 09:00 in New York
        revisions.record(post, editor_name="Ada Example")
        db.session.commit()
    first = kept(app, post_id)[0]
    soup = page(editor_client.get(f"/editor/posts/{post_id}/revisions?revision={first.id}"))
    changes = {
        row.th.text: [cell.text for cell in row.select("td")]
        for row in soup.select(".field-changes tbody tr")
    }
    assert changes["Publish date"] == ["—", "2030-01-15 09:00 EST"]
    assert "UTC" not in soup.select_one("#revision-detail").text
    assert re.search(r"\d\d:\d\d:\d\d E[SD]T by", soup.select_one("#revision-detail-title").text)
    response = restore(editor_client, post_id, first.id)
    assert response.status_code == 303
    message = page(editor_client.get(response.headers["Location"])).select_one(".notice").text
    assert "UTC" not in message and ("EST" in message or "EDT" in message)
