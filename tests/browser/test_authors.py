"""An author's page in Chromium: read more through their posts, and their feed."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect

from blog.authoring import store
from blog.extensions import db
from blog.models import utcnow
from tests.browser.conftest import PER_PAGE, LiveServer, delete_posts, expected_counter

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
