"""Accessibility: an axe-core audit of every kind of page, plus the checks axe cannot make."""

from __future__ import annotations

import itertools
import re
import uuid
from typing import Any

import pytest
import sqlalchemy as sa
from playwright.sync_api import Page, expect

from blog.authoring import presence, revisions, store
from blog.authoring.editor import trash
from blog.extensions import db
from blog.media.images import store_image
from blog.models import Editor, EditorPresence, OldAddress, Post, PostRevision, Topic, TrashedPost
from tests.browser.conftest import (
    AXE_SCRIPT,
    LiveServer,
    OpenPage,
    PageWatch,
    Site,
    delete_posts,
    log_in,
    require,
    settle,
)
from tests.media.test_images import picture_bytes

pytestmark = pytest.mark.browser

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def load_axe_on_every_page(page: Page) -> None:
    """Have axe-core loaded into every page the context opens from now on, before the page's
    own scripts (an init script: sent to Chromium once and compiled once, where a script tag
    added to each page sent and compiled its 640 KB every time)."""
    page.context.add_init_script(path=str(AXE_SCRIPT))


def audit(page: Page) -> list[dict[str, Any]]:
    """Run axe-core on the page for WCAG 2.2 A/AA rules; return its violations."""
    if not page.evaluate("() => typeof window.axe?.run === 'function'"):
        page.add_script_tag(path=str(AXE_SCRIPT))
    result = page.evaluate(
        "(tags) => axe.run(document,"
        " {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
        WCAG_TAGS,
    )
    return result["violations"]


def describe(violations: list[dict[str, Any]]) -> str:
    """Violations as a reader-friendly list: rule, impact, what to fix, and where."""
    lines = []
    for violation in violations:
        lines.append(f"- {violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"][:5]:
            summary = " ".join((node.get("failureSummary") or "").split())
            lines.append(f"    at {' '.join(node['target'])}: {summary}")
        if len(violation["nodes"]) > 5:
            lines.append(f"    ... and {len(violation['nodes']) - 5} more")
    return "\n".join(lines)


@pytest.fixture
def audit_page(open_page: OpenPage) -> Page:
    """A page that lets the injected axe script run past the CSP (only for this module),
    with axe loaded into each page it opens."""
    require(AXE_SCRIPT.exists(), "axe-core is missing from node_modules: run `make setup`")
    page = open_page(bypass_csp=True)
    load_axe_on_every_page(page)
    return page


def test_axe_finds_no_wcag_violations(audit_page: Page, site: Site):
    """Home, topic, page 2, post and the account pages pass the WCAG 2.2 A/AA rules."""
    found = {}
    for name in site.paths:
        site.visit(audit_page, name)
        violations = audit(audit_page)
        if violations:
            found[name] = describe(violations)
    assert not found, "axe found WCAG violations:\n" + "\n".join(
        f"{name} ({site.paths[name]}):\n{text}" for name, text in found.items()
    )


def test_axe_after_swaps(audit_page: Page, site: Site):
    """The listing still passes after a topic swap and a "read more"."""
    topic = site.biggest_topic
    audit_page.goto("/")
    audit_page.locator(f"#filter-{topic.slug}").click()
    expect(audit_page.locator(f"#filter-{topic.slug}")).to_have_attribute("aria-current", "page")
    audit_page.locator("#more .read-more").click()
    expect(audit_page.locator("#post-list .card")).to_have_count(min(24, topic.count))
    settle(audit_page)
    violations = audit(audit_page)
    assert not violations, describe(violations)


PAGE_FACTS = """() => ({
  images: [...document.images].map((img) => ({
    src: img.getAttribute("src"), alt: img.getAttribute("alt"),
    width: img.getAttribute("width"), height: img.getAttribute("height"),
  })),
  headings: [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")].map((h) => ({
    level: Number(h.tagName[1]), text: h.textContent.replace(/\\s+/g, " ").trim(),
  })),
  lang: document.documentElement.lang,
})"""


def test_images_headings_and_filter_label(page: Page, site: Site):
    """Images say what they show, headings never skip a level, the filter is labelled."""
    for name in site.paths:
        site.visit(page, name)
        facts = page.evaluate(PAGE_FACTS)
        assert facts["lang"] == "en"
        for image in facts["images"]:
            alt = image["alt"] or ""
            file_name = image["src"].rsplit("/", 1)[-1]
            assert len(alt.split()) >= 4, f"{name}: alt text {alt!r} does not describe {file_name}"
            assert file_name not in alt and not re.search(r"\b(image|picture) of\b", alt, re.I)
        levels = [heading["level"] for heading in facts["headings"]]
        assert levels and levels[0] == 1 and levels.count(1) == 1, f"{name}: {facts['headings']}"
        jumps = [(a, b) for a, b in itertools.pairwise(levels) if b > a + 1]
        assert not jumps, f"{name}: heading levels skip {jumps}: {facts['headings']}"
    page.goto("/")
    expect(page.get_by_role("navigation", name="Filter by topic")).to_have_count(1)


# Every authoring page axe checks, by name; `{post}` is a post with two saves, `{revision}`
# its older one, `{later}` its newer. A new editor page joins the audit with one line here.
EDITOR_PAGES = {
    "post list": "/editor/",
    "post list, searched and filtered": "/editor/?status=draft&q=audit&sort=published",
    "post list, a word of a body found": "/editor/?q=words",
    "new post": "/editor/posts/new",
    "edit post": "/editor/posts/{post}",
    "preview": "/editor/posts/{post}/preview",
    "revisions": "/editor/posts/{post}/revisions",
    "old addresses": "/editor/posts/{post}/old-addresses",
    "revision compared": "/editor/posts/{post}/revisions?revision={revision}",
    "two revisions compared": "/editor/posts/{post}/revisions?revision={revision}&with={later}",
    "delete confirmation": "/editor/posts/{post}/delete",
    "trash": "/editor/trash",
    "empty the trash": "/editor/trash/empty",
    "topics": "/editor/topics",
    "a topic": "/editor/topics/{topic}",
    "authors": "/editor/authors",
    "an author": "/editor/authors/{author}",
    "merge question": "/editor/topics/{topic}/merge?into={other_topic}",
}
OPEN_EVERY_DETAILS = "() => document.querySelectorAll('details').forEach((d) => { d.open = true; })"


def _audit_posts(live_server: LiveServer, run: str) -> dict[str, int]:
    """A draft saved twice (so it has a revision to compare), with a meta description, a
    social image and an old address from a moved site, and a post in the trash."""
    with live_server.app.app_context():
        author, topics = store.author_named("Axe Auditor"), [store.topic_named("Databases")]
        post = store.new_post(
            title=f"Audit draft {run}", body="First *words*.", author=author, topics=topics
        )
        doomed = store.new_post(
            title=f"Audit trash {run}", body="Gone.", author=author, topics=topics
        )
        # Every optional part of the editor shows: a meta description and a social image.
        post.meta_description = "What the audit post is about."
        post.social_image = store_image(picture_bytes("PNG", (120, 63)))
        db.session.flush()
        db.session.add(OldAddress(path=f"/2019/04/audit-draft-{run}", post_id=post.id))
        revisions.record(post, editor_name="Axe Auditor")
        post.body_markdown = "First *words*, then more."
        db.session.flush()
        revisions.record(post, editor_name="Axe Auditor")
        trash.move_to_trash(doomed, "Axe Auditor")
        db.session.commit()
        revision, later = db.session.execute(
            sa.select(sa.func.min(PostRevision.id), sa.func.max(PostRevision.id)).where(
                PostRevision.post_id == post.id
            )
        ).one()
        ids = {"post": post.id, "revision": revision, "later": later, "trashed": doomed.id}
        ids |= {"topic": topics[0].id, "author": author.id}
        ids["other_topic"] = db.session.scalar(
            sa.select(Topic.id).where(Topic.id != topics[0].id).order_by(Topic.id).limit(1)
        )
        db.session.remove()
    return ids


def _clear_audit_posts(live_server: LiveServer, ids: dict[str, int], slugs: list[str]) -> None:
    """Take the audit's posts, revisions and trash entry away again."""
    delete_posts(live_server, slugs)
    with live_server.app.app_context():
        db.session.execute(sa.delete(TrashedPost).where(TrashedPost.post_id == ids["trashed"]))
        db.session.execute(
            sa.delete(PostRevision).where(PostRevision.post_id.in_([ids["post"], ids["trashed"]]))
        )
        db.session.execute(sa.delete(EditorPresence).where(EditorPresence.post_id == ids["post"]))
        db.session.execute(sa.delete(Editor).where(Editor.email.like("present-%@example.com")))
        db.session.commit()
        db.session.remove()


def test_axe_finds_no_violations_on_any_editor_page(
    audit_page: Page, site: Site, live_server: LiveServer, page_watch: PageWatch
):
    """Every authoring page, its folded parts open, and the conflict view pass WCAG 2.2 A/AA."""
    run = uuid.uuid4().hex[:8]
    ids = _audit_posts(live_server, run)
    try:
        log_in(audit_page, site.account)
        found = {}
        for name, path in EDITOR_PAGES.items():
            url = path.format(**ids)
            response = audit_page.goto(url)
            assert response is not None and response.status == 200, f"{name}: {url}"
            settle(audit_page)
            audit_page.evaluate(OPEN_EVERY_DETAILS)
            violations = audit(audit_page)
            if violations:
                found[name] = describe(violations)
            if name == "edit post":
                # The dark theme too (the formatting toolbar, the action bar), then the login
                # that opens over the editor when a save meets an ended session, with a
                # message in it, in both colour schemes.
                audit_page.emulate_media(color_scheme="dark")
                violations = audit(audit_page)
                if violations:
                    found["edit post (dark)"] = describe(violations)
                audit_page.evaluate(
                    "() => { document.getElementById('session-dialog').showModal();"
                    " document.getElementById('session-login-problem').textContent ="
                    " 'That email and password do not match an active editor account.'; }"
                )
                for scheme in ("dark", "light"):
                    audit_page.emulate_media(color_scheme=scheme)
                    violations = audit(audit_page)
                    if violations:
                        found[f"login dialog ({scheme})"] = describe(violations)
        # The conflict view: another save lands while this editor has the post open.
        page_watch.expect_status(409)
        with live_server.app.app_context():  # someone else has it open: the note shows
            other = Editor(
                email=f"present-{run}@example.com", name="Present Editor", password_hash="-"
            )
            db.session.add(other)
            db.session.flush()
            presence.here(ids["post"], other.id)
            db.session.commit()
            db.session.remove()
        audit_page.goto(f"/editor/posts/{ids['post']}")
        expect(audit_page.locator("#presence .presence-note")).to_be_visible()
        # Its drawing preview answered first: SQLite's write below waits for readers, and
        # under load a slow one outlasted its 5 s (database is locked, 1 run in 3).
        settle(audit_page)
        with live_server.app.app_context():
            post = db.session.get(Post, ids["post"])
            assert post is not None
            post.title = f"Audit draft, saved elsewhere {run}"
            db.session.commit()
            db.session.remove()
        # Both retitled it: the overlap to choose from is shown, with its radios.
        audit_page.locator("#title").fill(f"Audit draft, retitled here {run}")
        audit_page.locator("#body").fill("Words of this editor.")
        audit_page.locator("#save-button").click()
        expect(audit_page.locator("#conflict-title")).to_be_visible()
        expect(audit_page.locator(".overlap")).to_have_count(1)
        settle(audit_page)
        audit_page.evaluate(OPEN_EVERY_DETAILS)
        violations = audit(audit_page)
        if violations:
            found["conflict"] = describe(violations)
        assert not found, "axe found WCAG violations:\n" + "\n".join(
            f"{name}:\n{text}" for name, text in found.items()
        )
    finally:
        _clear_audit_posts(
            live_server, ids, [f"audit-draft-{run}", f"audit-draft-saved-elsewhere-{run}"]
        )
