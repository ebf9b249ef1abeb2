"""The trash: a deleted post waits there 30 days, is restored exactly, or is emptied for good."""

from __future__ import annotations

import threading
from datetime import timedelta

import flask_migrate
import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog import create_app
from blog.authoring import store
from blog.authoring.editor import trash
from blog.extensions import db
from blog.media.images import store_image
from blog.models import (
    OldAddress,
    Post,
    PostTopic,
    SiteState,
    SlugRedirect,
    Topic,
    TrashedPost,
    utcnow,
)
from blog.web import versions
from tests.authoring.test_auth import csrf_token, editor_client, log_in_as, make_editor, page
from tests.authoring.test_editor import HX_TABLE, create, current_form, save
from tests.conftest import DATABASE, postgres_database
from tests.media.test_images import picture_bytes

__all__ = ["editor_client"]

HX_ALERT = {"HX-Request": "true", "HX-Target": "post-table"}
REVISIONS = sa.text("SELECT count(*) FROM post_revisions WHERE post_id = :post_id")


def delete(client: FlaskClient, post_id: int):
    """Confirm the delete of a post, as the confirmation page's button does."""
    token = csrf_token(client, f"/editor/posts/{post_id}/delete")
    return client.post(f"/editor/posts/{post_id}/delete", data={"csrf_token": token})


def restore(client: FlaskClient, post_id: int, headers: dict | None = None):
    """Press "Restore" for a trashed post."""
    token = csrf_token(client, "/editor/trash")
    return client.post(
        f"/editor/trash/{post_id}/restore", data={"csrf_token": token}, headers=headers or {}
    )


def trash_rows(client: FlaskClient) -> list[list[str]]:
    """The trash table as text: title, deleted at, by, days left."""
    soup = page(client.get("/editor/trash"))
    return [
        [" ".join(cell.get_text().split()) for cell in row.select("th, td")[:4]]
        for row in soup.select("#trash-table tbody tr")
    ]


def make_full_post(app: Flask) -> int:
    """A published post that uses every field: two topics, an image, an old address, flags,
    an "Updated" date and a lock version past 1."""
    with app.app_context():
        now = utcnow().replace(microsecond=0)
        image = store_image(picture_bytes())
        post = store.new_post(
            title="Tuning autovacuum",
            body="Dead rows pile up.\n\n## Why\n\nUpdates leave them. *Zanzibar* knows.",
            summary="Why dead rows pile up.",
            author=store.author_named("Grace Example"),
            topics=[store.topic_named("Databases"), store.topic_named("Operations")],
            slug="tuning-autovacuum",
            published_at=now - timedelta(days=3),
            updated_at=now - timedelta(days=1),
            featured=True,
            editors_pick=True,
            image_alt="A gauge falling to zero",
            old_slugs=["vacuum-notes"],
        )
        post.image = image
        post.illustration = "kind: gauge; values: 40%"  # kept, though the image is shown
        db.session.commit()
        post.image_alt = "A gauge of dead rows falling to zero"
        db.session.commit()
        assert post.lock_version == 2
        return post.id


def everything_about(app: Flask, post_id: int) -> dict[str, object]:
    """The post's row, its topic links, old addresses and the counts kept for it."""
    with app.app_context():
        row = db.session.execute(sa.select(Post.__table__).where(Post.id == post_id)).mappings()
        links = db.session.execute(
            sa.select(Topic.name, PostTopic.position)
            .join(PostTopic, PostTopic.topic_id == Topic.id)
            .where(PostTopic.post_id == post_id)
            .order_by(PostTopic.position)
        ).all()
        redirects = db.session.execute(
            sa.select(SlugRedirect.old_slug, SlugRedirect.created_at).where(
                SlugRedirect.post_id == post_id
            )
        ).all()
        counts = db.session.execute(sa.select(Topic.name, Topic.published_count)).all()
        site = db.session.scalar(sa.select(SiteState.published_count))
        return {
            "row": dict(found) if (found := row.one_or_none()) is not None else None,
            "links": list(links),
            "redirects": list(redirects),
            "topic_counts": sorted(counts),
            "published_count": site,
        }


def public_view(client: FlaskClient) -> dict[str, object]:
    """What readers get: the post page, the old address, the listing, a topic, search."""
    post_page = client.get("/posts/tuning-autovacuum")
    home = page(client.get("/"))
    topic = client.get("/topics/operations")
    search = page(client.get("/search?q=zanzibar"))
    return {
        "post": (post_page.status_code, post_page.get_data(as_text=True)),
        "old_address": client.get("/posts/vacuum-notes").headers.get("Location"),
        "listing": [a.get_text() for a in home.select("#post-list .card-title a")],
        "featured": [a.get_text(strip=True) for a in home.select(".featured .card-title")],
        "picks": [a.get_text() for a in home.select("#picks .card-title a")],
        "topic": topic.status_code,
        "search": [a.get_text(strip=True) for a in search.select("#result-list .card-title a")],
    }


# Deleting into the trash, and back ---------------------------------------------------------


def test_delete_page_says_the_post_goes_to_the_trash_for_30_days(app, editor_client):
    """The confirmation names the trash and its 30 days before anything is deleted."""
    post_id = create(editor_client, title="Doomed")
    text = " ".join(page(editor_client.get(f"/editor/posts/{post_id}/delete")).get_text().split())
    assert "goes to the trash" in text and "for 30 days" in text
    with app.app_context():
        assert db.session.get(Post, post_id) is not None
        assert db.session.scalar(sa.select(sa.func.count()).select_from(TrashedPost)) == 0


def test_delete_then_restore_puts_everything_back_exactly(app, editor_client):
    """Delete: the trash lists it, readers get 404 and counts drop. Restore: every stored
    field, link, old address and count is back, and readers see what they saw before."""
    post_id = make_full_post(app)
    reader = app.test_client()
    before = everything_about(app, post_id)
    seen_before = public_view(reader)
    assert seen_before["post"][0] == 200 and seen_before["search"] == ["Tuning autovacuum"]
    assert seen_before["old_address"].endswith("/posts/tuning-autovacuum")

    response = delete(editor_client, post_id)
    assert response.status_code == 303 and response.headers["Location"] == "/editor/"
    listing = page(editor_client.get("/editor/"))
    notice = listing.select_one(".notice")
    assert "Deleted “Tuning autovacuum”." in notice.get_text()
    assert notice.select_one("a")["href"] == "/editor/trash"
    assert listing.select_one("#trash-link")["href"] == "/editor/trash"
    [(title, deleted, by, left)] = trash_rows(editor_client)
    assert (title, by, left) == ("Tuning autovacuum", "Ada Example", "30 days")
    assert deleted[:10] == str(utcnow().date())
    gone = everything_about(app, post_id)
    assert gone["row"] is None and gone["links"] == [] and gone["redirects"] == []
    assert gone["published_count"] == before["published_count"] - 1
    assert ("Operations", 0) in gone["topic_counts"]
    seen_gone = public_view(reader)
    assert seen_gone["post"][0] == 404 and seen_gone["old_address"] is None
    assert seen_gone["topic"] == 404 or "Tuning autovacuum" not in seen_gone["listing"]
    assert seen_gone["search"] == [] and seen_gone["listing"] == []

    with app.app_context():
        version_before = versions.data_version()
    response = restore(editor_client, post_id)
    assert response.status_code == 303
    assert response.headers["Location"] == f"/editor/posts/{post_id}"
    assert "Restored “Tuning autovacuum”" in editor_client.get(response.headers["Location"]).text
    with app.app_context():
        assert versions.data_version() > version_before
        assert db.session.get(TrashedPost, post_id) is None
    after = everything_about(app, post_id)
    assert after["row"] == before["row"]
    assert after == before
    assert public_view(reader) == seen_before
    assert trash_rows(editor_client) == []


def test_a_tab_opened_before_the_delete_saves_again_after_the_restore(app, editor_client):
    """The restored post is what the old tab loaded (same lock version): its save goes in."""
    post_id = create(editor_client, title="Kept open", body="First text.")
    tab = current_form(editor_client, post_id) | {"body": "Typed in the old tab."}
    delete(editor_client, post_id)
    assert editor_client.post(f"/editor/posts/{post_id}", data=tab).status_code == 410
    assert restore(editor_client, post_id).status_code == 303
    assert editor_client.post(f"/editor/posts/{post_id}", data=tab).status_code == 303
    with app.app_context():
        assert db.session.get(Post, post_id).body_markdown == "Typed in the old tab."


def test_a_post_saved_since_its_snapshot_is_snapshotted_again(app, editor_client, monkeypatch):
    """When another editor's save lands between loading the post and deleting it, the
    delete takes a fresh snapshot, so that save is in the trash too."""
    if DATABASE == "sqlite":
        pytest.skip("SQLite writers queue for the whole request: no save can land in between")
    post_id = create(editor_client, title="Busy", body="Old text.")
    real = trash.move_to_trash
    calls = []

    def save_first(post, deleted_by):
        if not calls:  # another editor's save, committed under this request
            with db.engine.begin() as connection:
                connection.execute(
                    sa.update(Post)
                    .where(Post.id == post_id)
                    .values(body_markdown="Newer text.", lock_version=Post.lock_version + 1)
                )
        calls.append(post.lock_version)
        return real(post, deleted_by)

    monkeypatch.setattr(trash, "move_to_trash", save_first)
    assert delete(editor_client, post_id).status_code == 303
    assert calls == [1, 2]
    with app.app_context():
        assert db.session.get(TrashedPost, post_id).snapshot["body_markdown"] == "Newer text."


def test_a_draft_and_its_revisions_survive_the_round_trip(app, editor_client):
    """A draft comes back a draft; the revisions its saves kept are still there."""
    post_id = create(editor_client, title="Half written", body="Draft.")
    save(editor_client, post_id, body="Draft, longer.")
    with app.app_context():
        revisions = db.session.scalar(REVISIONS, {"post_id": post_id})
    before = everything_about(app, post_id)
    delete(editor_client, post_id)
    restore(editor_client, post_id)
    assert everything_about(app, post_id) == before
    with app.app_context():
        again = db.session.scalar(REVISIONS, {"post_id": post_id})
    assert again == revisions >= 2


# Refused restores ----------------------------------------------------------------------------


@pytest.mark.parametrize("taken", ["tuning-autovacuum", "vacuum-notes"])
def test_restore_refuses_when_an_address_was_taken_meanwhile(app, editor_client, taken):
    """Another post now at its address (or at an old one): 409 that names it, nothing
    written, the entry still in the trash; once that post moves, the restore works."""
    post_id = make_full_post(app)
    delete(editor_client, post_id)
    other = create(editor_client, title="Newcomer", slug=taken)
    with app.app_context():
        topics = db.session.scalar(sa.select(sa.func.count(Topic.id)))
    response = restore(editor_client, post_id)
    assert response.status_code == 409
    problem = page(response).select_one("#trash-problem").get_text()
    assert f"/posts/{taken}" in problem and "“Newcomer”" in problem
    with app.app_context():
        assert db.session.get(Post, post_id) is None
        assert db.session.get(TrashedPost, post_id) is not None
        assert db.session.scalar(sa.select(sa.func.count(Topic.id))) == topics
        assert (
            db.session.scalar(
                sa.select(sa.func.count(SlugRedirect.id)).where(SlugRedirect.post_id == post_id)
            )
            == 0
        )
    save(editor_client, other, slug="newcomer")
    if taken == "vacuum-notes":  # its old address now leads to the newcomer: free it too
        with app.app_context():
            db.session.execute(sa.delete(SlugRedirect).where(SlugRedirect.old_slug == taken))
            db.session.commit()
    assert restore(editor_client, post_id).status_code == 303
    assert (
        editor_client.get("/posts/vacuum-notes")
        .headers["Location"]
        .endswith("/posts/tuning-autovacuum")
    )


def test_restore_refuses_an_address_that_now_redirects_to_another_post(app, editor_client):
    """Another post renamed away from the trashed post's slug: that slug leads there now."""
    post_id = create(editor_client, title="Original", slug="shared", status="published")
    delete(editor_client, post_id)
    other = create(editor_client, title="Other", slug="shared", status="published")
    save(editor_client, other, slug="other")
    response = restore(editor_client, post_id)
    assert response.status_code == 409
    assert "“Other”" in page(response).select_one("#trash-problem").get_text()


def test_a_moved_post_comes_back_with_its_old_paths(app, editor_client, client):
    """Old paths from a moved site go into the trash with the post and lead to it again
    once it is restored; one another post took meanwhile stays with that post."""
    post_id = create(editor_client, title="Moved", slug="moved", status="published")
    other_id = create(editor_client, title="Other", slug="other", status="published")
    with app.app_context():
        for path in ("/2019/01/moved", "/old/moved"):
            db.session.add(OldAddress(path=path, post_id=post_id))
        db.session.commit()
    delete(editor_client, post_id)
    assert client.get("/2019/01/moved/").status_code == 404
    with app.app_context():
        db.session.add(OldAddress(path="/old/moved", post_id=other_id))
        db.session.commit()
    assert restore(editor_client, post_id).status_code == 303
    assert client.get("/2019/01/moved/").headers["Location"] == "/posts/moved"
    assert client.get("/old/moved.html").headers["Location"] == "/posts/other"


def test_restore_refuses_when_an_import_gave_its_permanent_id_to_another_post(app, editor_client):
    """Its feed id taken meanwhile (an import of an older export, under another slug): 409
    that names the post, the entry still in the trash."""
    post_id = create(editor_client, title="Original", slug="original", status="published")
    with app.app_context():
        uid = db.session.get(Post, post_id).uid
    delete(editor_client, post_id)
    other = create(editor_client, title="Imported twin", slug="twin", status="published")
    with app.app_context():
        db.session.execute(sa.update(Post).where(Post.id == other).values(uid=uid))
        db.session.commit()
    response = restore(editor_client, post_id)
    assert response.status_code == 409
    problem = page(response).select_one("#trash-problem").get_text()
    assert str(uid) in problem and "“Imported twin”" in problem
    with app.app_context():
        assert db.session.get(Post, post_id) is None
        assert db.session.get(TrashedPost, post_id) is not None


def test_an_entry_trashed_before_posts_had_permanent_ids_gets_a_new_one(app, editor_client):
    """A snapshot without `uid` (trashed before migration 0014) restores with a fresh id."""
    post_id = create(editor_client, title="Older", slug="older", status="published")
    delete(editor_client, post_id)
    with app.app_context():
        entry = db.session.get(TrashedPost, post_id)
        entry.snapshot = {key: value for key, value in entry.snapshot.items() if key != "uid"}
        db.session.commit()
    assert restore(editor_client, post_id).status_code == 303
    with app.app_context():
        assert db.session.get(Post, post_id).uid is not None


def test_a_restored_post_credits_its_authors_in_order(app, editor_client):
    """Co-authors go to the trash with the post and come back in their places; an entry
    trashed before co-authors names its one author."""
    team = ["Bo Reviewer", "Ada Example", "Cy Third"]
    post_id = create(editor_client, title="Team", slug="team", author=team)
    delete(editor_client, post_id)
    assert restore(editor_client, post_id).status_code == 303
    with app.app_context():
        assert [author.name for author in db.session.get(Post, post_id).authors] == team
    delete(editor_client, post_id)
    with app.app_context():
        entry = db.session.get(TrashedPost, post_id)
        entry.snapshot = {key: value for key, value in entry.snapshot.items() if key != "authors"}
        db.session.commit()
    assert restore(editor_client, post_id).status_code == 303
    with app.app_context():
        assert [author.name for author in db.session.get(Post, post_id).authors] == team[:1]


def test_two_editors_restoring_at_once_get_one_post_and_one_404(app, client):
    """Both press Restore at the same moment: one restores, the other hears it is gone."""
    first = client
    log_in_as(first, make_editor(app, "a@example.com", name="Ada"))
    second = app.test_client()
    log_in_as(second, make_editor(app, "b@example.com", name="Bea"))
    post_id = create(first, title="Wanted twice")
    delete(first, post_id)
    tokens = {id(c): csrf_token(c, "/editor/trash") for c in (first, second)}
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def press(who: FlaskClient) -> None:
        barrier.wait()
        response = who.post(
            f"/editor/trash/{post_id}/restore", data={"csrf_token": tokens[id(who)]}
        )
        statuses.append(response.status_code)

    threads = [threading.Thread(target=press, args=(who,)) for who in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(statuses) == [303, 404]
    with app.app_context():
        assert db.session.scalars(sa.select(Post.title)).all() == ["Wanted twice"]
        assert db.session.get(TrashedPost, post_id) is None


def test_a_second_restore_says_the_post_left_the_trash(app, editor_client):
    """A stale trash page's Restore: a 404 that says why, as a page or as an htmx alert."""
    post_id = create(editor_client, title="Once")
    delete(editor_client, post_id)
    assert restore(editor_client, post_id).status_code == 303
    response = restore(editor_client, post_id)
    assert response.status_code == 404
    assert "no longer in the trash" in response.get_data(as_text=True)
    alert = restore(editor_client, post_id, headers=HX_ALERT)
    assert alert.status_code == 404 and alert.headers["HX-Retarget"] == "#editor-alert"


def test_deleting_a_post_already_trashed_is_a_404(app, editor_client):
    """Two editors confirm the same delete: the second is told the post is gone."""
    post_id = create(editor_client, title="Twice")
    token = csrf_token(editor_client, f"/editor/posts/{post_id}/delete")
    url = f"/editor/posts/{post_id}/delete"
    assert editor_client.post(url, data={"csrf_token": token}).status_code == 303
    assert editor_client.post(url, data={"csrf_token": token}).status_code == 404
    assert len(trash_rows(editor_client)) == 1


@pytest.mark.parametrize(
    "segment", ["0", "007", "-1", "abc", "2147483648", "99999999999999999999", "1.5", "%20"]
)
def test_hostile_ids_in_trash_addresses_are_404(app, editor_client, segment):
    """Only ids as the site writes them reach the view; anything else is not found."""
    token = csrf_token(editor_client, "/editor/trash")
    response = editor_client.post(f"/editor/trash/{segment}/restore", data={"csrf_token": token})
    assert response.status_code == 404


def test_restoring_an_id_that_was_never_trashed_is_a_404(app, editor_client):
    """A live post's id, or one never used, is not in the trash."""
    post_id = create(editor_client, title="Alive")
    for some_id in (post_id, post_id + 1000):
        assert restore(editor_client, some_id).status_code == 404
    assert editor_client.get(f"/editor/posts/{post_id}").status_code == 200


def test_restore_and_empty_need_the_csrf_token(app, editor_client):
    """A forged restore or empty changes nothing."""
    post_id = create(editor_client, title="Guarded")
    delete(editor_client, post_id)
    assert editor_client.post(f"/editor/trash/{post_id}/restore").status_code == 400
    assert editor_client.post("/editor/trash/empty").status_code == 400
    assert [row[0] for row in trash_rows(editor_client)] == ["Guarded"]


# Keeping, purging and emptying ---------------------------------------------------------------


def _age(app: Flask, post_id: int, days: float) -> None:
    """Move an entry's deletion `days` into the past."""
    with app.app_context():
        entry = db.session.get(TrashedPost, post_id)
        entry.deleted_at = utcnow() - timedelta(days=days)
        db.session.commit()


def test_the_trash_lists_newest_first_with_who_and_days_left(app, client):
    """Newest deletion first, with the editor who deleted it and whole days left."""
    log_in_as(client, make_editor(app, "g@example.com", name="Grace Hopper"))
    older = create(client, title="Older")
    newer = create(client, title="Newer")
    delete(client, older)
    delete(client, newer)
    _age(app, older, 29.5)
    _age(app, newer, 2)
    rows = trash_rows(client)
    assert [(r[0], r[2], r[3]) for r in rows] == [
        ("Newer", "Grace Hopper", "28 days"),
        ("Older", "Grace Hopper", "1 day"),
    ]


def test_entries_older_than_30_days_are_purged_when_the_trash_is_listed(app, editor_client):
    """Past 30 days an entry goes for good the next time anyone looks; younger ones stay."""
    old = create(editor_client, title="Ancient")
    young = create(editor_client, title="Recent")
    delete(editor_client, old)
    delete(editor_client, young)
    _age(app, old, 30.01)
    _age(app, young, 29.9)
    assert [row[0] for row in trash_rows(editor_client)] == ["Recent"]
    with app.app_context():
        assert db.session.get(TrashedPost, old) is None
    assert restore(editor_client, old).status_code == 404


def test_entries_older_than_30_days_are_purged_by_the_next_delete(app, editor_client):
    """A delete purges expired entries in its own transaction."""
    old = create(editor_client, title="Ancient")
    delete(editor_client, old)
    _age(app, old, 31)
    delete(editor_client, create(editor_client, title="Today"))
    with app.app_context():
        assert db.session.scalars(sa.select(TrashedPost.title)).all() == ["Today"]


def test_days_left_counts_whole_days_rounded_up():
    """30 right after a delete, 1 on the last day, 0 when due."""
    now = utcnow()
    entry = TrashedPost(post_id=1, title="t", snapshot={}, deleted_at=now)
    assert trash.days_left(entry, now) == 30
    assert trash.days_left(entry, now + timedelta(days=29, hours=1)) == 1
    assert trash.days_left(entry, now + timedelta(days=30)) == 0
    assert trash.days_left(entry, now + timedelta(days=45)) == 0


def test_emptying_the_trash_asks_first_then_deletes_every_entry(app, editor_client):
    """The button leads to a confirmation; only its POST deletes, and everything goes."""
    ids = [create(editor_client, title=f"Post {n}") for n in range(3)]
    for post_id in ids:
        delete(editor_client, post_id)
    trash_page = page(editor_client.get("/editor/trash"))
    assert trash_page.select_one("#empty-trash")["href"] == "/editor/trash/empty"
    confirm = editor_client.get("/editor/trash/empty")
    assert confirm.status_code == 200
    assert "deletes 3 posts in the trash for good" in " ".join(page(confirm).get_text().split())
    assert len(trash_rows(editor_client)) == 3
    token = page(confirm).select_one('input[name="csrf_token"]')["value"]
    response = editor_client.post("/editor/trash/empty", data={"csrf_token": token})
    assert response.status_code == 303 and response.headers["Location"] == "/editor/trash"
    after = page(editor_client.get("/editor/trash"))
    assert "3 posts deleted for good" in after.get_text()
    assert after.select_one("#trash-table") is None and "trash is empty" in after.get_text()
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(TrashedPost)) == 0
    assert restore(editor_client, ids[0]).status_code == 404
    empty = page(editor_client.get("/editor/trash/empty"))
    assert empty.select_one("form.confirm-actions") is None


@pytest.mark.parametrize("headers", [{}, HX_TABLE])
def test_trash_pages_are_whole_pages_with_or_without_htmx(app, editor_client, headers):
    """The trash swaps nothing: an htmx request gets the same whole page, kept out of history."""
    for url in ("/editor/trash", "/editor/trash/empty"):
        response = editor_client.get(url, headers=headers)
        assert response.status_code == 200
        soup = page(response)
        assert soup.select_one("html") is not None
        assert soup.select_one('[data-hx-history="false"]') is not None
        assert "no-store" in response.headers["Cache-Control"]


# The migration ---------------------------------------------------------------------------------


@pytest.fixture
def empty_database_url(tmp_path):
    """A new SQLite file, or with TEST_DATABASE=postgresql a new PostgreSQL database."""
    if DATABASE != "postgresql":
        yield f"sqlite:///{tmp_path / 'trash.db'}"
        return
    with postgres_database("fieldnotes_trash") as url:
        yield url


def test_migration_0012_adds_the_trash_and_takes_it_away(empty_database_url):
    """Upgrade creates trashed_posts (keeping posts' triggers), downgrade drops it, and the
    upgrade runs again on the downgraded schema."""
    app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": empty_database_url})
    with app.app_context():
        flask_migrate.upgrade(revision="0011_post_identity_revisions")
        assert "trashed_posts" not in sa.inspect(db.engine).get_table_names()
        flask_migrate.upgrade(revision="0012_trash")
        inspector = sa.inspect(db.engine)
        assert "trashed_posts" in inspector.get_table_names()
        columns = {c["name"] for c in inspector.get_columns("trashed_posts")}
        assert columns == {"post_id", "deleted_at", "deleted_by", "title", "snapshot"}
        assert inspector.get_pk_constraint("trashed_posts")["constrained_columns"] == ["post_id"]
        flask_migrate.downgrade(revision="0011_post_identity_revisions")
        assert "trashed_posts" not in sa.inspect(db.engine).get_table_names()
        flask_migrate.upgrade(revision="0012_trash")
        assert "trashed_posts" in sa.inspect(db.engine).get_table_names()
        db.session.remove()
        db.engine.dispose()


def test_a_body_now_too_slow_to_render_stays_in_the_trash(app, editor_client, monkeypatch):
    """A post saved under a larger time limit whose body the limit now refuses: 422 that
    says so, nothing written, the entry still in the trash."""
    from blog import markup

    post_id = make_full_post(app)
    delete(editor_client, post_id)

    def too_slow(*_args, **_kwargs):
        raise markup.TooSlow(2.0)

    monkeypatch.setattr(store.markup, "render", too_slow)
    response = restore(editor_client, post_id)
    assert response.status_code == 422
    problem = page(response).select_one("#trash-problem").get_text()
    assert "takes too long to render" in problem and "stays in the trash" in problem
    with app.app_context():
        assert db.session.get(Post, post_id) is None
        assert db.session.get(TrashedPost, post_id) is not None
