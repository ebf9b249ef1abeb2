"""Body diffs in bounded time: the history's compare and the 409's diff answer quickly for any
body under the body limit, and past the diff time limit show both texts side by side."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blog.authoring import revisions
from blog.authoring.forms import BODY_MAX
from tests.authoring.test_auth import editor_client, log_in_as, make_editor, page
from tests.authoring.test_editor import HX_EDITOR, create, current_form, save, seen, stored
from tests.authoring.test_revisions import kept

__all__ = ["editor_client"]

# What is measured here is CPU work on texts already read back (the line diff, the word marks,
# the merge): the store only hands the bodies over. Stale saves reaching the store, the 409
# and the merge's write are checked on both stores in test_conflicts.py and test_merging.py,
# and text at the body limit in test_limits.py. So these run on SQLite only.
pytestmark = pytest.mark.one_store

LINES = 40_000  # identical one-letter lines: an 80,000-character body, under the body limit
# Seconds of CPU time a request may take here: a generous bound (a quadratic diff took minutes
# on these bodies). CPU time, as the diff's own limit counts it: on a busy machine the wall
# clock also counts the wait for a core.
FAST = 2.0


def repeated(changed_at: int | None = None, line: str = "a", lines: int = LINES) -> str:
    """A body of `lines` identical lines, with the one at `changed_at` made different."""
    rows = [line] * lines
    if changed_at is not None:
        rows[changed_at] = "changed"
    return "\n".join(rows)


def timed(call):
    """The response of `call()` and the seconds of CPU time it took (the test client answers
    in this process)."""
    start = time.process_time()
    response = call()
    return response, time.process_time() - start


def texts(soup, selector: str) -> list[str]:
    """The text of each element `selector` finds, stripped."""
    return [found.get_text(strip=True) for found in soup.select(selector)]


@pytest.fixture
def quick_limit(monkeypatch: pytest.MonkeyPatch) -> float:
    """A short diff time limit, so that the tests of what lies past it run fast."""
    monkeypatch.setattr(revisions, "DIFF_TIME_LIMIT", 0.2)
    return 0.2


def test_one_changed_line_among_many_identical_ones_compares_quickly(app, editor_client):
    """The worst shape for a matcher that tries every pairing of equal lines: the diff is
    still the one changed line, with its context."""
    post_id = create(editor_client, title="Repeated", body=repeated())
    assert save(editor_client, post_id, body=repeated(changed_at=LINES // 2)).status_code == 303
    first = kept(app, post_id)[0]
    url = f"/editor/posts/{post_id}/revisions?revision={first.id}"
    response, seconds = timed(lambda: editor_client.get(url))
    assert response.status_code == 200
    assert seconds < FAST
    diff = page(response).select_one("#body-diff")
    assert texts(diff, "del") == ["removed:−a"]
    assert texts(diff, "ins") == ["added:+changed"]
    assert len(diff.select(".diff-hunk > span")) == 2 * revisions.CONTEXT


def test_a_stale_save_of_such_a_body_is_merged_quickly(app, editor_client):
    """Merging two changes far apart in such a body is as quick, and as exact."""
    post_id = create(editor_client, title="Repeated", body=repeated())
    mine = current_form(editor_client, post_id)
    grace = app.test_client()
    log_in_as(grace, make_editor(app, "grace@example.com", name="Grace"))
    assert save(grace, post_id, body=repeated(changed_at=10)).status_code == 303
    mine["body"] = repeated(changed_at=LINES - 10)
    url = f"/editor/posts/{post_id}"
    response, seconds = timed(lambda: editor_client.post(url, data=mine, headers=HX_EDITOR))
    assert response.status_code == 200
    assert seconds < FAST
    rows = stored(app, post_id).body_markdown.split("\n")
    assert len(rows) == LINES
    assert [n for n, row in enumerate(rows) if row != "a"] == [10, LINES - 10]


def test_a_stale_save_of_such_a_body_answers_its_409_quickly(app, editor_client):
    """Both changing the same line of it: the 409 shows that line alone, as quickly."""
    post_id = create(editor_client, title="Repeated", body=repeated())
    mine = current_form(editor_client, post_id)
    grace = app.test_client()
    log_in_as(grace, make_editor(app, "grace@example.com", name="Grace"))
    assert save(grace, post_id, body=repeated(changed_at=10)).status_code == 303
    mine["body"] = repeated(changed_at=10).replace("changed", "mine", 1)
    url = f"/editor/posts/{post_id}"
    response, seconds = timed(lambda: editor_client.post(url, data=mine, headers=HX_EDITOR))
    assert response.status_code == 409
    assert seconds < FAST
    soup = page(response)
    assert [seen(found) for found in soup.select(".overlap-theirs pre")] == ["changed"]
    assert [seen(found) for found in soup.select(".overlap-mine pre")] == ["mine"]


def test_texts_too_different_to_diff_in_time_are_shown_side_by_side(
    app, editor_client, quick_limit
):
    """Past the time limit the compare says so and shows both bodies whole, in columns."""
    before, after = repeated(lines=5_000), repeated(line="b", lines=5_000)
    post_id = create(editor_client, title="Rewritten", body=before)
    assert save(editor_client, post_id, body=after, title="Rewritten again").status_code == 303
    first = kept(app, post_id)[0]
    url = f"/editor/posts/{post_id}/revisions?revision={first.id}"
    response, seconds = timed(lambda: editor_client.get(url))
    assert response.status_code == 200
    assert seconds < FAST
    soup = page(response)
    assert soup.select_one("#body-diff") is None and soup.select_one("#same-text") is None
    assert "too different to show line by line" in soup.select_one("#too-different").text
    assert soup.select_one("#revision-body").text == before
    assert soup.select_one("#current-body").text == after
    changes = {
        row.th.text: [cell.text for cell in row.select("td")]
        for row in soup.select(".field-changes tbody tr")
    }
    assert changes == {"Title": ["Rewritten", "Rewritten again"]}
    assert soup.select_one("#restore-button") is not None


@pytest.mark.parametrize("choice", ["keep-theirs", "take-mine"])
def test_a_409_too_different_to_diff_shows_both_and_both_ways_on_still_work(
    app, editor_client, quick_limit, choice
):
    """The conflict names the texts too different to diff, shows both bodies, and "Keep
    theirs" and "Take mine" do what they always do."""
    theirs, mine_body = repeated(line="b", lines=5_000), repeated(line="c", lines=5_000)
    post_id = create(editor_client, title="Shared", body=repeated(lines=5_000))
    mine = current_form(editor_client, post_id)
    grace = app.test_client()
    log_in_as(grace, make_editor(app, "grace@example.com", name="Grace"))
    assert save(grace, post_id, body=theirs).status_code == 303
    mine["body"] = mine_body
    url = f"/editor/posts/{post_id}"
    response, seconds = timed(lambda: editor_client.post(url, data=mine, headers=HX_EDITOR))
    assert response.status_code == 409
    assert seconds < FAST
    soup = page(response)
    assert soup.select_one("#conflict-diff") is None
    assert "too different to show line by line" in soup.select_one("#too-different").text
    assert soup.select_one("#their-body").text.strip() == theirs
    assert soup.select_one("#your-body").text.strip() == mine_body
    mine["lock_version"] = soup.select_one("#lock_version")["value"]
    mine["action"] = choice
    response = editor_client.post(url, data=mine, headers=HX_EDITOR)
    assert response.status_code == 200
    expected = theirs if choice == "keep-theirs" else mine_body
    assert stored(app, post_id).body_markdown == expected
    assert page(response).select_one("#body").text.strip() == expected


def shuffled(text: str) -> str:
    """The characters of `text` in another order, the same on every run."""
    chars = list(text)
    random.Random(7).shuffle(chars)
    return "".join(chars)


def test_marking_words_stays_within_the_diff_time_limit():
    """The worst pair for the word marks: one line of 200,000 characters, one word over and
    over, against its characters shuffled. The line diff is quick; marking words would take
    minutes, so it stops when the diff's one limit is spent and the lines are shown whole."""
    old = ("lorem " * 40_000)[:BODY_MAX]
    new = shuffled(old)
    start = time.process_time()
    hunks = revisions.body_diff(old, new)
    assert time.process_time() - start < revisions.DIFF_TIME_LIMIT + 0.5
    assert hunks is not None
    assert [(line.kind, line.parts) for line in hunks[0]] == [("removed", ()), ("added", ())]


def test_a_compare_of_that_pair_answers_within_the_limit(app, editor_client, quick_limit):
    """Through the history page: the two lines, whole, in about the limit's time. (The limit
    is the short one: the test above holds body_diff to the real one on the same pair.)"""
    old = ("lorem " * 40_000)[:BODY_MAX]
    post_id = create(editor_client, title="Shuffled", body=old)
    assert save(editor_client, post_id, body=shuffled(old)).status_code == 303
    first = kept(app, post_id)[0]
    url = f"/editor/posts/{post_id}/revisions?revision={first.id}"
    response, seconds = timed(lambda: editor_client.get(url))
    assert response.status_code == 200
    assert seconds < FAST
    diff = page(response).select_one("#body-diff")
    assert len(diff.select("del.diff-line")) == len(diff.select("ins.diff-line")) == 1
    assert diff.select(".diff-line del, .diff-line ins") == []


def test_the_diff_answers_none_past_its_time_limit(app, quick_limit):
    """body_diff stops the work at the limit instead of answering late."""
    start = time.process_time()
    assert revisions.body_diff(repeated(lines=5_000), repeated(line="b", lines=5_000)) is None
    assert time.process_time() - start < FAST
    assert revisions.body_diff("one\ntwo", "one\n2") == revisions.line_diff("one\ntwo", "one\n2")


@given(
    st.lists(st.sampled_from(["a", "b", "", "c d"]), max_size=40),
    st.lists(st.sampled_from(["a", "b", "", "e"]), max_size=40),
)
def test_a_diff_with_every_line_in_context_rebuilds_both_texts(old, new):
    """Same and removed lines make the old text, same and added ones the new, numbered in
    order: the diff is exact whatever lines repeat."""
    old_text, new_text = "\n".join(old), "\n".join(new)
    old, new = old_text.splitlines(), new_text.splitlines()
    (hunk,) = revisions.line_diff(old_text, new_text, context=100) or [[]]
    kept_old = [line for line in hunk if line.kind != revisions.ADDED]
    kept_new = [line for line in hunk if line.kind != revisions.REMOVED]
    if old == new:
        assert hunk == []
        return
    assert [line.text for line in kept_old] == old
    assert [line.text for line in kept_new] == new
    assert [line.old_number for line in kept_old] == list(range(1, len(old) + 1))
    assert [line.new_number for line in kept_new] == list(range(1, len(new) + 1))


def test_distant_changes_get_hunks_of_their_own_with_three_lines_around():
    """Changes more than six lines apart are separate hunks, each with its context."""
    old = [f"line {n}" for n in range(1, 31)]
    new = [*old[:4], "inserted", *old[4:19], "line 20 edited", *old[20:]]
    first, second = revisions.line_diff("\n".join(old), "\n".join(new))
    assert [(line.kind, line.text) for line in first] == [
        ("same", "line 2"),
        ("same", "line 3"),
        ("same", "line 4"),
        ("added", "inserted"),
        ("same", "line 5"),
        ("same", "line 6"),
        ("same", "line 7"),
    ]
    assert [(line.kind, line.old_number, line.new_number) for line in second] == [
        ("same", 17, 18),
        ("same", 18, 19),
        ("same", 19, 20),
        ("removed", 20, None),
        ("added", None, 21),
        ("same", 21, 22),
        ("same", 22, 23),
        ("same", 23, 24),
    ]
