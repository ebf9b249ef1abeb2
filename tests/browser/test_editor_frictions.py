"""The smaller frictions of writing, in Chromium at 1280 and 390 px, light and dark: finding a
draft by a word of its body from the header's box, the drawing a draft's preview shows, the
Edit link on a post, the typed address made a slug, the image-size refusal and the merge
question."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
import sqlalchemy as sa
from playwright.sync_api import Page, expect

from blog.authoring import store
from blog.extensions import db
from blog.models import Post, Topic, utcnow
from tests.browser.conftest import (
    EditorAccount,
    LiveServer,
    OpenPage,
    delete_posts,
    settle,
    signed_in,
)

pytestmark = pytest.mark.browser

LOOKS = [
    pytest.param({"width": 1280, "height": 900}, "light", id="1280-light"),
    pytest.param({"width": 1280, "height": 900}, "dark", id="1280-dark"),
    pytest.param({"width": 390, "height": 844}, "light", id="390-light"),
    pytest.param({"width": 390, "height": 844}, "dark", id="390-dark"),
]

# A file of `size` zero bytes, made in the page and pasted into the body.
PASTE_EMPTY_PNG = """(size) => {
  const files = new DataTransfer();
  files.items.add(new File([new Uint8Array(size)], "huge.png", { type: "image/png" }));
  document.getElementById("body").dispatchEvent(
    new ClipboardEvent("paste", { clipboardData: files, bubbles: true, cancelable: true }));
}"""


@pytest.fixture
def run(live_server: LiveServer) -> Iterator[dict[str, object]]:
    """Two topics of this run, "Reliabilty" on one published post and "Reliability" on
    another, and what the test adds; all removed afterwards."""
    tag = uuid.uuid4().hex[:8]
    slugs = [f"typo-{tag}", f"spelt-{tag}", f"unfinished-{tag}"]
    with live_server.app.app_context():
        author = store.author_named("Sam Browser")
        for slug, topic in zip(slugs[:2], (f"Reliabilty {tag}", f"Reliability {tag}"), strict=True):
            store.new_post(
                title=f"Filed under {topic}",
                slug=slug,
                body="Words to file.",
                author=author,
                topics=[store.topic_named(topic)],
                published_at=utcnow() - timedelta(hours=1),
            )
        store.new_post(
            title=f"Unfinished {tag}",
            slug=f"unfinished-{tag}",
            body=f"Only this draft's body names the zebu{tag} herd.",
            author=author,
            topics=[store.topic_named("Databases")],
        )
        db.session.commit()
        ids = {
            name: db.session.scalar(sa.select(Topic.id).where(Topic.name == f"{name} {tag}"))
            for name in ("Reliabilty", "Reliability")
        }
        post_id = db.session.scalar(sa.select(Post.id).where(Post.slug == slugs[0]))
        draft_id = db.session.scalar(sa.select(Post.id).where(Post.slug == slugs[2]))
        db.session.remove()
    made: dict[str, object] = {
        "tag": tag,
        "slugs": slugs,
        "topics": ids,
        "post_id": post_id,
        "draft_id": draft_id,
    }
    try:
        yield made
    finally:
        delete_posts(live_server, slugs)
        with live_server.app.app_context():
            db.session.execute(sa.delete(Topic).where(Topic.name.contains(tag)))
            db.session.commit()
            db.session.remove()


@pytest.mark.parametrize(("viewport", "scheme"), LOOKS)
def test_edit_link_slug_hint_image_size_and_merge_question(
    open_page: OpenPage,
    editor_account: EditorAccount,
    run: dict[str, object],
    viewport: dict[str, int],
    scheme: str,
) -> None:
    """A reader's post page asks for no Edit link and shows none; an editor's shows one that
    opens the post's editor, where a typed address is shown as the slug it is saved as and an
    image over the limit is refused with both sizes; merging a topic asks first, saying how
    many posts move, and only then moves them."""
    tag, (typo_slug, *_) = run["tag"], run["slugs"]  # type: ignore[misc]
    reader = open_page(viewport=viewport, color_scheme=scheme)
    asked: list[str] = []
    reader.on("request", lambda request: asked.append(request.url))
    reader.goto(f"/posts/{typo_slug}")
    settle(reader)
    expect(reader.locator("#post-edit")).to_be_empty()
    expect(reader.locator("#post-edit")).to_be_hidden()
    assert not [url for url in asked if "edit-link" in url]
    # The readers' search never finds a draft.
    reader.goto(f"/search?q=zebu{tag}")
    expect(reader.locator(".card-title")).to_have_count(0)

    page: Page = open_page(viewport=viewport, color_scheme=scheme)
    signed_in(page, editor_account)
    page.goto(f"/posts/{typo_slug}")
    edit = page.get_by_role("link", name=re.compile(r"^Edit "))
    expect(edit).to_be_visible()
    edit.click()
    page.wait_for_url(f"**/editor/posts/{run['post_id']}")
    settle(page)

    # On an editor page the header's box searches the editor's list: a draft is found by a
    # word only its body holds, with where the word is.
    word = f"zebu{tag}"
    box = page.get_by_role("searchbox", name="Search posts in the editor")
    if not box.is_visible():  # on a phone the box sits behind its button
        page.locator(".search-summary").click()
    box.fill(word)
    box.press("Enter")
    page.wait_for_url(f"**/editor/?q={word}")
    rows = page.locator("#post-table tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.locator("a.edit-link")).to_have_text(f"Unfinished {tag}")
    expect(rows.locator(".list-excerpt mark")).to_have_text(word)
    expect(page.locator("#site-search-q")).to_have_value(word)
    # The draft's preview shows the drawing it will have once published, from its own
    # address (no redirect to another drawing; which headers it has is pinned in
    # tests/authoring/test_preview.py).
    page.goto(f"/editor/posts/{run['draft_id']}/preview")
    art = page.locator("img.post-art")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=art.element_handle())
    drawn = page.request.get(art.get_attribute("src") or "", max_redirects=0)
    assert drawn.status == 200 and drawn.headers["content-type"].startswith("image/svg+xml")
    page.go_back()
    page.go_back()
    settle(page)

    # The address as typed, and as it will be saved.
    page.locator("#slug").fill(f"My Post! {tag}")
    expect(page.locator("#slug-hint")).to_have_text(
        f"Typed as My Post! {tag}; saved as my-post-{tag}: the post will live at "
        f"/posts/my-post-{tag}."
    )

    # An image too large for the body: refused before it is sent, with both sizes.
    page.evaluate(PASTE_EMPTY_PNG, int(14.2 * 1024 * 1024))
    expect(page.locator("#body-image-status")).to_have_text(
        "This image, “huge.png”, is 14.2 MB; the limit is 5 MB. Choose a smaller file."
    )
    # Leaving asks about the unsaved address: say yes.
    page.on("dialog", lambda dialog: dialog.accept())

    # Merging the misspelt topic asks first, with the number of posts that move.
    topics: dict[str, int] = run["topics"]  # type: ignore[assignment]
    page.goto(f"/editor/topics/{topics['Reliabilty']}")
    choose = page.get_by_label(f"Merge “Reliabilty {tag}” into")
    choose.select_option(label=f"Reliability {tag}")
    page.get_by_role("button", name="Merge…").click()
    question = f"Move 1 post from “Reliabilty {tag}” to “Reliability {tag}”?"
    expect(page.get_by_role("heading", level=1)).to_have_text(question)
    page.get_by_role("link", name="Keep them apart").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Topic: Reliabilty {tag}")
    choose.select_option(label=f"Reliability {tag}")
    page.get_by_role("button", name="Merge…").click()
    page.get_by_role("button", name=f"Move 1 post and remove “Reliabilty {tag}”").click()
    expect(page.locator(".notice")).to_have_text(
        f"Merged “Reliabilty {tag}” into “Reliability {tag}”: 1 post moved."
    )
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Topic: Reliability {tag}")
