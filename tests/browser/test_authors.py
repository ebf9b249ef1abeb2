"""An author's page in Chromium: read more through their posts, and their feed; a co-author
credited in the editor and followed from the byline."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect

from blog.authoring import store
from blog.extensions import db
from blog.models import utcnow
from tests.browser.conftest import (
    PER_PAGE,
    EditorAccount,
    LiveServer,
    PageWatch,
    delete_posts,
    expected_counter,
    signed_in,
)

pytestmark = pytest.mark.browser

RUN = uuid.uuid4().hex[:8]
NAME = f"Rhea Runbook {RUN}"
PATH = f"/authors/rhea-runbook-{RUN}"
MADE = PER_PAGE + 2  # a second page of two


@pytest.fixture(scope="module")
def author_posts(live_server: LiveServer) -> Iterator[list[str]]:
    """Fourteen published posts by one new author with a bio, deleted again afterwards."""
    slugs = [f"runbook-{RUN}-{n:02d}" for n in range(1, MADE + 1)]
    now = utcnow()
    with live_server.app.app_context():
        author = store.author_named(NAME)
        author.bio = "Keeps the pager quiet."
        author.url = "https://rhea.example/"
        topic = store.topic_named("Operations")
        for n, slug in enumerate(slugs, start=1):
            store.new_post(
                title=f"Runbook {RUN} part {n:02d}",
                slug=slug,
                body=f"Part {n} of the runbook.",
                author=author,
                topics=[topic],
                published_at=now - timedelta(days=400, hours=n),
            )
        db.session.commit()
        db.session.remove()
    try:
        yield slugs
    finally:
        delete_posts(live_server, slugs)


def test_author_page_reads_more_and_links_its_feed(page: Page, author_posts: list[str]):
    """The author's page shows their first twelve posts; read more, named for them, appends
    the last two in place; the feed their page names holds their posts."""
    page.goto(PATH)
    expect(page.get_by_role("heading", level=1)).to_have_text(NAME)
    cards = page.locator("#post-list .card")
    expect(cards).to_have_count(PER_PAGE)
    page.evaluate("window.fieldnotesProbe = 'kept'")
    more = page.get_by_role("link", name=f"read more posts by {NAME}", exact=True)
    more.click()
    expect(cards).to_have_count(MADE)
    page.wait_for_url(f"**{PATH}?page=2")
    assert page.evaluate("window.fieldnotesProbe === 'kept'"), "read more reloaded the page"
    expect(page.locator("#counter")).to_have_text(expected_counter(1, MADE, MADE))
    expect(page.locator("#more .read-more")).to_have_count(0)
    assert page.locator(".card-author").evaluate_all(
        "links => links.every((a) => a.pathname === location.pathname)"
    )

    feed_url = page.locator('link[rel="alternate"][type="application/atom+xml"]').last
    href = feed_url.get_attribute("href") or ""
    assert href.endswith(f"{PATH}/feed.atom")
    footer_link = page.locator(f'.site-footer a[href="{PATH}/feed.atom"]')
    expect(footer_link).to_be_visible()
    feed = page.request.get(f"{PATH}/feed.atom")
    assert feed.status == 200 and feed.headers["content-type"].startswith("application/atom+xml")
    body = feed.text()
    assert f"Runbook {RUN} part 01" in body and f"Runbook {RUN} part {MADE}" in body


def _saved_with(page: Page, post_id: int, status: int, button: str = "#publish-button") -> None:
    """Press a button of the action bar (Update, on this live post) and wait for the answer."""
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith(f"/editor/posts/{post_id}")
    ) as answer:
        page.locator(button).click()
    assert answer.value.status == status, answer.value.text()[:300]


def test_an_editor_credits_a_co_author_and_readers_follow_each_name(
    page: Page, page_watch: PageWatch, live_server: LiveServer, editor_account: EditorAccount
):
    """The empty author box adds a co-author (a new name asks first); the byline then names
    both, each a link, and the co-author's page lists the post they co-wrote."""
    first, cowriter = f"Ivy Initial {RUN}", f"Cole Cowriter, Jr. and Co {RUN}"
    slug = f"written-together-{RUN}"
    with live_server.app.app_context():
        post = store.new_post(
            title=f"Written together {RUN}",
            slug=slug,
            body="Two of us wrote this.",
            author=store.author_named(first),
            topics=[store.topic_named("Operations")],
            published_at=utcnow() - timedelta(days=500),
        )
        db.session.commit()
        post_id = post.id
        db.session.remove()
    try:
        signed_in(page, editor_account)
        page.goto(f"/editor/posts/{post_id}")
        expect(page.get_by_label("Author 1", exact=True)).to_have_value(first)
        page.get_by_label("Author 2 (optional)", exact=True).fill(cowriter)
        page_watch.expect_status(422)
        _saved_with(page, post_id, 422)
        expect(page.locator("#author-error")).to_contain_text(f"“{cowriter}” is not an author yet")
        page.get_by_label(f"Create the new author “{cowriter}”").check()
        _saved_with(page, post_id, 200)  # Update asks once before readers see the change
        expect(page.locator("#publish-changes")).to_contain_text(cowriter)
        _saved_with(page, post_id, 200, button="#confirm-button")
        expect(page.locator("#saved-notice")).to_be_visible()
        expect(page.get_by_label("Author 2", exact=True)).to_have_value(cowriter)
        expect(page.get_by_label("Author 3 (optional)", exact=True)).to_have_value("")

        page.goto(f"/posts/{slug}")
        byline = page.locator(".post-meta")
        expect(byline).to_contain_text(f"By {first} and {cowriter} ·")
        expect(byline.locator("a.post-author")).to_have_count(2)
        byline.get_by_role("link", name=cowriter, exact=True).click()
        page.wait_for_url(f"**/authors/{store.author_slug(cowriter)}")
        expect(page.get_by_role("heading", level=1)).to_have_text(cowriter)
        card = page.locator("#post-list .card")
        expect(card).to_have_count(1)
        expect(card.locator(".card-author")).to_have_text([first, cowriter])
    finally:
        delete_posts(live_server, [slug])
