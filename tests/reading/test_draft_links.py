"""Private draft links: made by an editor or the post's writer, shown once, kept only as a
hash, and serving the draft on its post page to anyone with the link, never cached, never
indexed, until it expires, is revoked, or the post is published or deleted."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog import draft_links
from blog.extensions import db, limiter
from blog.models import WRITER, DraftLink, Post, token_digest, utcnow
from blog.reading.views import CACHED_ROUTES
from blog.web import pagecache
from tests.authoring.test_auth import csrf_token, editor_client, log_in_as, make_editor, page
from tests.authoring.test_editor import create, save

__all__ = ["editor_client"]

LINK = re.compile(r"http://localhost/drafts/([A-Za-z0-9_-]{43})")


@pytest.fixture(autouse=True)
def _fresh_limits(app: Flask) -> None:
    """Every test starts with no failed guesses counted."""
    limiter.reset()


def make_link(client: FlaskClient, post_id: int, **form: str) -> str:
    """Make a draft link through the page; returns its token (shown this once)."""
    token = csrf_token(client, f"/editor/posts/{post_id}/links")
    response = client.post(f"/editor/posts/{post_id}/links/new", data={"csrf_token": token} | form)
    assert response.status_code == 201, response.get_data(as_text=True)[:300]
    shown = page(response).select_one("#made-link-url")["value"]
    found = LINK.fullmatch(shown)
    assert found, shown
    return found[1]


@pytest.fixture
def draft(app: Flask, editor_client: FlaskClient, posts) -> int:
    """A saved draft, its body findable on its page."""
    posts.topics("Databases")
    return create(editor_client, title="Quiet draft", body="Only reviewers read **this**.")


def test_a_link_shows_the_draft_on_its_page_to_anyone_never_cached_never_indexed(
    app, client, editor_client, draft
):
    """No login needed; the real post template with a note; noindex by header and tag; no
    cache may keep it; it sends no Referer on; the store holds only the token's hash."""
    token = make_link(editor_client, draft)
    reader = app.test_client()
    response = reader.get(f"/drafts/{token}")
    assert response.status_code == 200
    soup = page(response)
    assert soup.select_one("h1").get_text(strip=True) == "Quiet draft"
    assert "Only reviewers read" in soup.select_one(".prose").get_text()
    assert "shared for review" in soup.select_one("#preview-note").get_text()
    assert soup.select_one('meta[name="robots"]')["content"] == "noindex, nofollow"
    assert response.headers["X-Robots-Tag"] == "noindex, nofollow"
    assert "no-store" in response.headers["Cache-Control"]
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert "ETag" not in response.headers and "Set-Cookie" not in response.headers
    assert "draft_links.shared_draft" not in CACHED_ROUTES
    with app.app_context():
        kept = db.session.scalars(sa.select(DraftLink.token_hash)).all()
    assert kept == [token_digest(token)] and token not in kept[0]
    again = page(editor_client.get(f"/editor/posts/{draft}/links"))
    assert again.select_one("#made-link-url") is None  # shown once
    assert len(again.select("#draft-link-table tbody tr")) == 1


def test_the_page_cache_never_keeps_a_draft_link(app, editor_client, draft):
    """Asked twice, then revoked: the third answer is the 404, from the app, not a copy."""
    token = make_link(editor_client, draft)
    reader = app.test_client()
    assert reader.get(f"/drafts/{token}").status_code == 200
    assert reader.get(f"/drafts/{token}").status_code == 200
    kept = [key for cache in pagecache._caches for key in cache.store.entries]
    assert not [key for key in kept if "draft" in repr(key)]
    with app.app_context():
        link_id = db.session.scalar(sa.select(DraftLink.id))
    csrf = csrf_token(editor_client, f"/editor/posts/{draft}/links")
    revoked = editor_client.post(
        f"/editor/posts/{draft}/links/{link_id}/revoke", data={"csrf_token": csrf}
    )
    assert revoked.status_code == 303
    assert reader.get(f"/drafts/{token}").status_code == 404


def test_a_guessed_or_malformed_token_opens_nothing(app, client, editor_client, draft):
    """A token of the right shape that was never made, one a character off, one too short:
    404s that say the link opens nothing."""
    token = make_link(editor_client, draft)
    off_by_one = token[:-1] + ("A" if token[-1] != "A" else "B")
    for guess in (draft_links.new_link_token(), off_by_one, token[:20], token + "x"):
        response = client.get(f"/drafts/{guess}")
        assert response.status_code == 404, guess
        assert "does not open anything" in response.get_data(as_text=True)


def test_guessing_is_limited_per_address(app, client, editor_client, draft):
    """Past the login limit of failed tries the address is told to wait (429), even with a
    good link; good links never count."""
    token = make_link(editor_client, draft)
    for _ in range(8):
        assert client.get(f"/drafts/{token}").status_code == 200
    tries = [client.get(f"/drafts/{draft_links.new_link_token()}").status_code for _ in range(6)]
    assert tries == [404] * 5 + [429]
    assert client.get(f"/drafts/{token}").status_code == 429
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    assert other.get(f"/drafts/{token}").status_code == 200


def test_an_expired_link_opens_nothing(app, client, editor_client, draft):
    """Past its time (a week by default), the link is dead."""
    token = make_link(editor_client, draft)
    with app.app_context():
        link = db.session.scalar(sa.select(DraftLink))
        assert timedelta(days=6, hours=23) < link.expires_at - utcnow() <= timedelta(days=7)
        link.expires_at = utcnow() - timedelta(seconds=1)
        db.session.commit()
    assert client.get(f"/drafts/{token}").status_code == 404
    shown = page(editor_client.get(f"/editor/posts/{draft}/links"))
    assert "Expired" in shown.select_one("#draft-link-table").get_text()


@pytest.mark.parametrize(("days", "hours"), [("1", 24), ("30", 720)])
def test_the_maker_chooses_how_long_it_lasts(app, editor_client, draft, days, hours):
    """1, 7 or 30 days; anything else is a 422 and makes nothing."""
    make_link(editor_client, draft, days=days)
    with app.app_context():
        link = db.session.scalar(sa.select(DraftLink))
        left = link.expires_at - utcnow()
    assert timedelta(hours=hours - 1) < left <= timedelta(hours=hours)
    token = csrf_token(editor_client, f"/editor/posts/{draft}/links")
    bad = editor_client.post(
        f"/editor/posts/{draft}/links/new", data={"csrf_token": token, "days": "3650"}
    )
    assert bad.status_code == 422


def test_publishing_kills_the_link_for_good(app, client, editor_client, draft):
    """The moment the post is published its links are gone: back to draft, they stay dead."""
    token = make_link(editor_client, draft)
    assert client.get(f"/drafts/{token}").status_code == 200
    assert save(editor_client, draft, status="published").status_code == 303
    assert client.get(f"/drafts/{token}").status_code == 404
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(DraftLink)) == 0
    assert save(editor_client, draft, action="confirm-unpublish").status_code == 303
    assert client.get(f"/drafts/{token}").status_code == 404


def test_deleting_the_post_kills_the_link(app, client, editor_client, draft):
    """A post in the trash shows nothing through its old links, nor after a restore."""
    token = make_link(editor_client, draft)
    csrf = csrf_token(editor_client, f"/editor/posts/{draft}/delete")
    editor_client.post(f"/editor/posts/{draft}/delete", data={"csrf_token": csrf})
    assert client.get(f"/drafts/{token}").status_code == 404
    editor_client.post(f"/editor/trash/{draft}/restore", data={"csrf_token": csrf})
    with app.app_context():
        assert db.session.get(Post, draft) is not None
    assert client.get(f"/drafts/{token}").status_code == 404


def test_the_writer_makes_links_to_their_own_draft_only(app, editor_client, draft, posts):
    """A writer shares their draft; not another's (403), and a published post has none."""
    writer = app.test_client()
    log_in_as(writer, make_editor(app, "w@example.com", name="Wendy", role=WRITER))
    own = create(writer, author="Wendy", title="Wendy's draft")
    token = make_link(writer, own)
    assert app.test_client().get(f"/drafts/{token}").status_code == 200
    csrf = csrf_token(writer, f"/editor/posts/{own}/links")
    refused = writer.post(f"/editor/posts/{draft}/links/new", data={"csrf_token": csrf})
    assert refused.status_code == 403
    save(editor_client, own, status="published")
    gone = writer.post(f"/editor/posts/{own}/links/new", data={"csrf_token": csrf})
    assert gone.status_code == 403  # no longer the writer's to share


def test_making_or_revoking_needs_the_csrf_token(app, editor_client, draft):
    """A forged form makes and revokes nothing."""
    assert editor_client.post(f"/editor/posts/{draft}/links/new").status_code == 400
    make_link(editor_client, draft)
    with app.app_context():
        link_id = db.session.scalar(sa.select(DraftLink.id))
    assert editor_client.post(f"/editor/posts/{draft}/links/{link_id}/revoke").status_code == 400
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(DraftLink)) == 1
