"""Posts made from the XSS corpus, opened in Chromium: no dialog opens, no injected script runs."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from blog.authoring import store
from blog.extensions import db
from blog.models import utcnow
from tests.browser.conftest import LiveServer
from tests.markup.test_xss import ENTRIES

pytestmark = pytest.mark.browser

PER_POST = 48  # payloads gathered into each post's body, so a few pages cover the corpus


@pytest.fixture(scope="module")
def payload_posts(live_server: LiveServer) -> list[str]:
    """Posts on the served database whose body, title, summary and alt text are payloads."""
    payloads = [payload for _, _, payload in ENTRIES]
    slugs = []
    with live_server.app.app_context():
        topic = store.topic_named("Security corpus")
        author = store.author_named("Corpus")
        for number, start in enumerate(range(0, len(payloads), PER_POST)):
            chunk = payloads[start : start + PER_POST]
            post = store.new_post(
                title=chunk[0][:300],
                slug=f"xss-corpus-{number}",
                body="\n\n".join(chunk),
                summary=chunk[1 % len(chunk)],
                image_alt=chunk[2 % len(chunk)][:500],
                author=author,
                topics=[topic],
                published_at=utcnow(),
            )
            slugs.append(post.slug)
        db.session.commit()
    return slugs


def test_no_payload_runs_in_the_browser(browser: Browser, live_server: LiveServer, payload_posts):
    """Every post page and the listing that shows them load without a dialog or a CSP refusal."""
    context = browser.new_context()
    page = context.new_page()
    dialogs: list[str] = []
    refusals: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on(
        "console",
        lambda message: (
            refusals.append(message.text)
            if "Content Security Policy" in message.text or "Refused to" in message.text
            else None
        ),
    )
    # A global the corpus never defines: set by the page only if injected script ran.
    page.add_init_script(
        "window.__xssRan = false; window.alert = () => { window.__xssRan = true; };"
    )
    try:
        for url in [f"/posts/{slug}" for slug in payload_posts] + ["/topics/security-corpus"]:
            page.goto(live_server.url + url, wait_until="load")
            page.mouse.move(5, 5)
            page.mouse.move(400, 300)  # hover-triggered payloads get their chance
            page.wait_for_timeout(50)
            assert page.evaluate("window.__xssRan") is False, url
            assert page.locator(".prose script, .prose iframe, .prose object").count() == 0
    finally:
        context.close()
    assert dialogs == []
    assert refusals == []
