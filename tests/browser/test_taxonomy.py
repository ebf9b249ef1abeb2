"""Tidying topics in Chromium: a topic renamed in /editor/topics keeps its old address."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
import sqlalchemy as sa
from playwright.sync_api import Page, expect

from blog.authoring import store
from blog.extensions import db
from blog.models import Topic, utcnow
from tests.browser.conftest import LiveServer, Site, delete_posts, log_in

pytestmark = pytest.mark.browser

RUN = uuid.uuid4().hex[:8]


@pytest.fixture
def misspelt(live_server: LiveServer) -> Iterator[str]:
    """A topic with a typo in its name and one published post; both removed afterwards."""
    slug = f"tidy-{RUN}"
    with live_server.app.app_context():
        store.new_post(
            title=f"Filed under a typo {RUN}",
            slug=slug,
            body="A post to re-file.",
            author=store.author_named("Sam Browser"),
            topics=[store.topic_named(f"Reliabilty {RUN}")],
            published_at=utcnow() - timedelta(hours=1),
        )
        db.session.commit()
        db.session.remove()
    try:
        yield slug
    finally:
        delete_posts(live_server, [slug])
        with live_server.app.app_context():
            db.session.execute(sa.delete(Topic).where(Topic.name.contains(RUN)))
            db.session.commit()
            db.session.remove()


def test_a_renamed_topics_old_address_lands_on_the_new_one(
    page: Page, site: Site, misspelt: str
) -> None:
    """The post form suggests the topic after those already typed; renamed on its editor
    page, the topic's old address then opens the renamed topic."""
    old, new = f"reliabilty-{RUN}", f"reliability-{RUN}"
    log_in(page, site.account)
    page.goto("/editor/posts/new")
    page.get_by_label("Topics").fill("Databases, Rel")
    offered = page.evaluate(
        "() => [...document.getElementById('topic-names').options].map((o) => o.value)"
    )
    assert f"Databases, Reliabilty {RUN}" in offered and "Databases, Databases" not in offered

    page.goto("/editor/topics")
    page.get_by_role("link", name=f"Reliabilty {RUN}").click()
    page.get_by_label("New name").fill(f"Reliability {RUN}")
    page.get_by_role("button", name="Rename").click()
    expect(page.locator(".notice")).to_contain_text(f"Its old address now leads to /topics/{new}")
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Topic: Reliability {RUN}")

    response = page.goto(f"/topics/{old}")
    assert response is not None and response.status == 200
    assert page.url.endswith(f"/topics/{new}")
    expect(page.locator(f"#filter-{new}")).to_have_attribute("aria-current", "page")
