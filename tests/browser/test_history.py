"""A post's history in Chromium at phone and desktop widths, in both themes: the revisions as a
list that fits a phone, a one-word change marked word by word in lines that wrap, and any two
revisions compared through the list's form. Screenshots for review with `--screenshots`."""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
import sqlalchemy as sa
from playwright.sync_api import Page, expect

from blog.authoring import review, revisions, store
from blog.extensions import db
from blog.models import Post, PostEvent, PostRevision
from tests.browser.conftest import (
    AXE_SCRIPT,
    Capture,
    LiveServer,
    OpenPage,
    PageWatch,
    Site,
    delete_posts,
    require,
    settle,
    signed_in,
)
from tests.browser.test_accessibility import audit, describe, load_axe_on_every_page

pytestmark = pytest.mark.browser

PHONE, DESKTOP = 390, 1280

# One long paragraph (far wider than any window), then a code line and a long unbroken word.
PARAGRAPH = (
    "The replica fell behind during the nightly batch because the vacuum held its lock for "
    "longer than the checkpoint interval, and every retry from the queue workers made the "
    "backlog a little worse until the on-call engineer paused the import and let the "
    "replica catch up on its own before anything else was started again that night."
)
BODY = "\n\n".join(
    [
        "# What happened",
        PARAGRAPH,
        "    SELECT count(*) FROM jobs WHERE state = 'queued';",
        "See https://status.example.com/incidents/" + "replica-lag-" * 12 + "report.",
    ]
)
NOTE = "Say which batch it was, and link the replica's lag graph: https://grafana.example.com/d/replica-lag-overview-for-the-nightly-jobs"
EDITED = BODY.replace("nightly batch", "weekly batch")

# How wide the page is: no wider than the window, or it scrolls sideways.
WIDTH = "() => document.scrollingElement.scrollWidth"
# Boxes inside the page that scroll sideways (a table in a scrolling box, say).
SCROLLING_SIDEWAYS = """(root) => [...document.querySelector(root).querySelectorAll("*")]
  .filter((el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX))
  .filter((el) => el.scrollWidth > el.clientWidth + 1)
  .map((el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + "." + el.className)"""


@pytest.fixture
def history_post(live_server: LiveServer) -> Iterator[dict[str, int]]:
    """A draft with three revisions (the first text, a one-word change with a new summary,
    and an autosave that adds a line) and two changes of state; its ids, taken away again
    afterwards."""
    run = uuid.uuid4().hex[:8]
    slug = f"history-journey-{run}"
    with live_server.app.app_context():
        author = store.author_named("Hal Historian")
        post = store.new_post(
            title=f"History journey {run}",
            body=BODY,
            author=author,
            topics=[store.topic_named("Databases")],
        )
        db.session.flush()
        first = revisions.record(post, editor_name="Hal Historian")
        post.body_markdown = EDITED
        post.summary = "Why the replica lagged."
        db.session.flush()  # the version moves on: 2
        second = revisions.record(post, editor_name="Ida Reviewer")
        typed = revisions.text_of(post)
        third = revisions.record_text(
            post.id,
            dataclasses.replace(typed, body=EDITED + "\n\nA line typed later."),
            revisions.AUTOSAVE,
            editor_name="Ida Reviewer",
            lock_version=post.lock_version,
        )
        assert third is not None
        # Changes of state, listed above the revisions: one with a long note.
        review.record(post.id, review.SUBMITTED, "Hal Historian")
        review.record(post.id, review.RETURNED, "Ida Reviewer", note=NOTE)
        db.session.commit()
        ids = {"post": post.id, "first": first.id, "second": second.id, "third": third.id}
        db.session.remove()
    yield ids
    delete_posts(live_server, [slug])
    with live_server.app.app_context():
        for table in (PostRevision, PostEvent):
            db.session.execute(sa.delete(table).where(table.post_id == ids["post"]))
        db.session.commit()
        db.session.remove()


def fits(page: Page, width: int, what: str, within: str = "body") -> None:
    """The page is no wider than the window, and nothing in it (in `within`) scrolls
    sideways instead."""
    settle(page)
    reach = page.evaluate(WIDTH)
    assert reach <= width, f"{what} at {width}px is {reach}px wide"
    scrolling = page.evaluate(SCROLLING_SIDEWAYS, within)
    assert not scrolling, f"{what} at {width}px has boxes that scroll sideways: {scrolling}"


def contrast_in_both_themes(page: Page, what: str) -> None:
    """axe finds no WCAG A/AA violation on the page in the light and the dark scheme."""
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        violations = audit(page)
        assert not violations, f"{what}, {scheme}:\n{describe(violations)}"
    page.emulate_media(color_scheme="light")


# Each revision in the list: where its box and its controls reach, and how tall it is.
REVISION_BOXES = """() => [...document.querySelectorAll("#revision-list > li")].map((li) => ({
  id: li.id,
  right: Math.max(...[li, ...li.querySelectorAll("*")].map((e) => e.getBoundingClientRect().right)),
  height: li.getBoundingClientRect().height,
  when: li.querySelector(".revision-when")?.textContent.trim(),
  who: li.querySelector(".revision-who")?.textContent.trim(),
  picks: li.querySelectorAll("input[type=radio]").length,
}))"""

# The changed line of the body diff: the words marked inside it, and how many lines it takes.
CHANGED_LINE = """() => {
  const line = document.querySelector("#body-diff .diff-line.diff-removed");
  const style = getComputedStyle(line);
  return {
    marked: [...line.querySelectorAll("del")].map((d) => d.textContent),
    lines: Math.round(line.getBoundingClientRect().height / parseFloat(style.lineHeight)),
    right: document.querySelector("#body-diff").getBoundingClientRect().right,
    decoration: getComputedStyle(line.querySelector("del")).textDecorationLine,
  };
}"""


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_history_reads_word_by_word_fits_and_is_captured(
    open_page: OpenPage,
    site: Site,
    capture: Capture,
    history_post: dict[str, int],
    width: int,
):
    """The history fits the width (a list of blocks on a phone), the one-word change is
    marked as that word in a line that wraps, any two revisions can be chosen and compared,
    times are in the site's zone, and axe passes in both themes."""
    require(AXE_SCRIPT.exists(), "axe-core is missing from node_modules: run `make setup`")
    ids = history_post
    page = open_page(viewport={"width": width, "height": 900}, bypass_csp=True)
    load_axe_on_every_page(page)
    signed_in(page, site.account)
    history = f"/editor/posts/{ids['post']}/revisions"
    page.goto(history)
    settle(page)
    capture(page, f"history-{width}")
    fits(page, width, "the history")
    boxes = page.evaluate(REVISION_BOXES)
    assert [box["id"] for box in boxes] == [
        "revision-now",
        f"revision-{ids['third']}",
        f"revision-{ids['second']}",
        f"revision-{ids['first']}",
    ]
    assert all(box["right"] <= width for box in boxes), boxes
    assert [box["picks"] for box in boxes] == [1, 2, 2, 2]  # "to" only, for now
    assert [box["who"] for box in boxes[1:]] == [
        "Autosave by Ida Reviewer",
        "Save by Ida Reviewer",
        "Save by Hal Historian",
    ]
    assert all(
        re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d E[SD]T", box["when"]) for box in boxes[1:]
    )
    if width == PHONE:  # blocks of a few short lines, not rows a screen tall
        assert all(box["height"] < 200 for box in boxes), boxes
    else:  # one row each (the title, the one column that gives way, may take two lines)
        assert all(box["height"] < 90 for box in boxes), boxes
    contrast_in_both_themes(page, "the history")

    # A revision against now, from the keyboard: the list and the comparison are swapped in
    # together (the list's choices follow), and the link keeps the focus.
    page.locator(f"#with-now-{ids['first']}").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"\?revision={ids['first']}$"))
    settle(page)
    expect(page.locator(f"#with-now-{ids['first']}")).to_be_focused()
    expect(page.locator(f"#from-{ids['first']}")).to_be_checked()
    expect(page.locator("#with-now")).to_be_checked()
    capture(page, f"history-compare-{width}")
    fits(page, width, "the compare")
    changed = page.evaluate(CHANGED_LINE)
    assert changed["marked"] == ["[removed: nightly]"]
    assert changed["decoration"] == "line-through"
    assert changed["lines"] > 1 and changed["right"] <= width, changed
    expect(page.locator("#body-diff .diff-added ins")).to_have_text(["[added: weekly]"])
    expect(page.locator("#revision-detail-title")).to_contain_text("compared with the current post")
    contrast_in_both_themes(page, "the compare")

    # Any two: from the first save to the second, through the list's form (no script needed).
    page.locator(f"#from-{ids['first']}").check()
    page.locator(f"#to-{ids['second']}").check()
    page.locator("#compare-button").click()
    page.wait_for_url(re.compile(r"with="))
    chosen = parse_qs(urlsplit(page.url).query)
    assert chosen == {"revision": [str(ids["first"])], "with": [str(ids["second"])]}
    title = page.locator("#revision-detail-title")
    expect(title).to_contain_text(re.compile(r"compared with the revision of .* E[SD]T by Ida"))
    expect(page.locator("#body-diff del")).to_have_text(["[removed: nightly]"])
    expect(page.locator(f"#from-{ids['first']}")).to_be_checked()
    expect(page.locator(f"#to-{ids['second']}")).to_be_checked()
    # What the autosave changed: the two lines it added (a blank one first), whole.
    page.locator(f"#changed-{ids['third']}").click()
    added = page.locator("#body-diff ins")
    expect(added).to_have_text(["added: +", "added: + A line typed later."])
    fits(page, width, "a compare of two revisions")


def test_two_revisions_compare_without_javascript(
    open_page: OpenPage, site: Site, history_post: dict[str, int]
):
    """Without scripts the list is a plain GET form: the chosen two load as a page, at the
    comparison."""
    ids = history_post
    page = open_page(java_script_enabled=False, viewport={"width": PHONE, "height": 800})
    signed_in(page, site.account)
    page.goto(f"/editor/posts/{ids['post']}/revisions")
    page.locator(f"#from-{ids['first']}").check()
    page.locator(f"#to-{ids['third']}").check()
    page.locator("#compare-button").click()
    page.wait_for_url(re.compile(r"#revision-detail$"))
    chosen = parse_qs(urlsplit(page.url).query)
    assert chosen == {"revision": [str(ids["first"])], "with": [str(ids["third"])]}
    expect(page.locator("#body-diff del")).to_have_text(["[removed: nightly]"])
    expect(page.locator("#body-diff ins")).to_have_text(
        ["[added: weekly]", "added: +", "added: + A line typed later."]
    )
    fits(page, PHONE, "a compare without scripts")


def test_a_conflict_on_a_long_line_fits_a_phone_and_is_captured(
    open_page: OpenPage,
    site: Site,
    capture: Capture,
    live_server: LiveServer,
    page_watch: PageWatch,
    history_post: dict[str, int],
):
    """Two editors change the long paragraph differently: the 409 shows both sides of the
    overlap, and its long lines wrap inside the box on a phone."""
    ids = history_post
    page = open_page(viewport={"width": PHONE, "height": 900})
    page_watch.expect_status(409)
    signed_in(page, site.account)
    page.goto(f"/editor/posts/{ids['post']}")
    settle(page)
    with live_server.app.app_context():  # another editor's save lands meanwhile
        post = db.session.get(Post, ids["post"])
        assert post is not None
        post.body_markdown = EDITED.replace("the vacuum", "autovacuum")
        db.session.flush()
        revisions.record(post, editor_name="Ida Reviewer")
        db.session.commit()
        db.session.remove()
    page.locator("#body").fill(EDITED.replace("queue workers", "job runners"))
    page.locator("#save-button").click()
    expect(page.locator("#conflict-title")).to_be_visible()
    expect(page.locator(".overlap-theirs pre")).to_contain_text("autovacuum")
    settle(page)
    capture(page, f"history-conflict-{PHONE}")
    # (The preview's code block beside it scrolls on its own, as code does everywhere.)
    fits(page, PHONE, "the conflict", within=".conflict")
    box = page.locator(".conflict").bounding_box()
    assert box is not None and box["x"] + box["width"] <= PHONE
