"""Upgrades keep every row, link and trigger: SQLite files, and PostgreSQL where a test asks."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import flask_migrate
import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup

from blog import create_app
from blog.extensions import db
from blog.models import Post
from tests.conftest import DATABASE, postgres_database

OLD_ROWS = [
    "INSERT INTO authors (id, name, slug) VALUES (1, 'Ada Example', 'ada-example')",
    "INSERT INTO topics (id, name, slug, position) VALUES (1, 'Databases', 'databases', 0)",
    "INSERT INTO posts (id, slug, title, summary, excerpt, body_markdown, body_html,"
    " render_version, reading_minutes, toc, status, published_at, featured, editors_pick,"
    " author_id, primary_topic_id, created_at, modified_at) VALUES (1, 'kept', 'Kept post',"
    " '', 'An old post.', 'Body.', '<p>Body.</p>', 1, 1, '[]', 'published',"
    " '2024-01-01 00:00:00.000000', false, true, 1, 1, '2024-01-01 00:00:00.000000',"
    " '2024-01-01 00:00:00.000000')",
    "INSERT INTO post_topics (post_id, topic_id, position) VALUES (1, 1, 0)",
]


def test_upgrade_keeps_posts_links_and_listing(tmp_path):
    """Table rebuilds during the upgrade neither cascade deletes nor lose the listing."""
    app = create_app(
        {"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'old.db'}"}
    )
    with app.app_context():
        flask_migrate.upgrade(revision="ec063a05f388")
        for statement in OLD_ROWS:
            db.session.execute(sa.text(statement))
        db.session.commit()
        flask_migrate.upgrade()
        links = db.session.scalar(sa.text("SELECT count(*) FROM post_topics"))
        assert links == 1
        db.session.remove()
    page = BeautifulSoup(app.test_client().get("/").get_data(as_text=True), "lxml")
    assert [a.get_text() for a in page.select("#post-list .card-title a")] == ["Kept post"]
    assert " ".join(page.select_one("#counter").get_text().split()) == "Showing 1 of 1 post"
    assert [a.get_text() for a in page.select("#picks .card-title a")] == ["Kept post"]
    topic = app.test_client().get("/topics/databases")
    assert topic.status_code == 200
    with app.app_context():
        db.engine.dispose()


def test_state_row_moves_to_slots_and_a_stored_topic_filter_and_back(tmp_path):
    """0007 carries the state row's featured post and picks into listing_slots and 0008
    stores the topic filter on the row; their downgrades carry the picks back."""
    app = create_app(
        {"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'slots.db'}"}
    )
    with app.app_context():
        flask_migrate.upgrade(revision="0006_listing_anchors")
        for statement in (
            "INSERT INTO site_state (id, version, changed_at, live_count, featured_id, pick_ids)"
            " VALUES (1, 3, '2024-01-01 00:00:00.000000', 0, 7, '9,4,12')",
            "INSERT INTO topics (id, name, slug, position, live_count)"
            " VALUES (1, 'Databases', 'databases', 0, 2), (2, 'Empty', 'empty', 1, 0)",
        ):
            db.session.execute(sa.text(statement))
        db.session.commit()
        flask_migrate.upgrade(revision="0008_stored_topic_filter")
        slots = db.session.execute(sa.text("SELECT slot, post_id FROM listing_slots ORDER BY slot"))
        assert slots.all() == [(0, 7), (1, 9), (2, 4), (3, 12)]
        stored = db.session.scalar(sa.text("SELECT topic_filter FROM site_state"))
        assert json.loads(stored) == [[1, "Databases", "databases", 2, 0]]
        db.session.commit()
        flask_migrate.downgrade(revision="0006_listing_anchors")
        row = db.session.execute(sa.text("SELECT featured_id, pick_ids FROM site_state")).one()
        assert tuple(row) == (7, "9,4,12")
        db.session.remove()
        db.engine.dispose()


def test_plain_listing_drops_the_kept_listing_and_can_go_back(tmp_path):
    """0010 drops the page anchors, slot rows and kept counts; its downgrade brings the
    tables back, empty, with a passed publish time so the old code rebuilds them."""
    app = create_app(
        {"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'plain.db'}"}
    )
    with app.app_context():
        flask_migrate.upgrade()
        names = set(sa.inspect(db.engine).get_table_names())
        assert not {"listing_anchors", "listing_slots"} & names
        columns = {c["name"] for c in sa.inspect(db.engine).get_columns("site_state")}
        assert not {"live_count", "topic_filter"} & columns
        flask_migrate.downgrade(revision="0008_stored_topic_filter")
        names = set(sa.inspect(db.engine).get_table_names())
        assert {"listing_anchors", "listing_slots"} <= names
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def empty_database_url(tmp_path: Path) -> Iterator[str]:
    """A new SQLite file, or with TEST_DATABASE=postgresql a new PostgreSQL database."""
    if DATABASE != "postgresql":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    with postgres_database("fieldnotes_migration") as url:
        yield url


def test_lock_version_is_the_revision_column_renamed_in_place(empty_database_url):
    """0009 renames posts.revision, keeping its values and every trigger on posts (no table
    rebuild); its downgrade names it back."""
    app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": empty_database_url})
    with app.app_context():
        flask_migrate.upgrade(revision="0010_plain_listing")
        for statement in OLD_ROWS:
            db.session.execute(sa.text(statement))
        db.session.execute(sa.text("UPDATE posts SET revision = 4"))
        triggers = _triggers_on_posts()
        db.session.commit()
        flask_migrate.upgrade(revision="0009_lock_version")
        assert db.session.scalar(sa.text("SELECT lock_version FROM posts")) == 4
        assert _triggers_on_posts() == triggers
        db.session.commit()
        flask_migrate.downgrade(revision="0010_plain_listing")
        assert db.session.scalar(sa.text("SELECT revision FROM posts")) == 4
        assert _triggers_on_posts() == triggers
        db.session.remove()
        db.engine.dispose()


def _triggers_on_posts() -> list[str]:
    """The names of the triggers on the posts table."""
    if db.engine.dialect.name == "sqlite":
        query = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'posts'"
    else:
        query = (
            "SELECT tgname FROM pg_trigger WHERE tgrelid = 'posts'::regclass AND NOT tgisinternal"
        )
    return sorted(db.session.scalars(sa.text(query)))


def _old_posts(count: int) -> list[str]:
    """OLD_ROWS with `count` posts in place of the one (ids 1 to count), all linked."""
    author, topic, post, link = OLD_ROWS
    rows = [author, topic]
    for number in range(1, count + 1):
        rows.append(
            post.replace("VALUES (1, 'kept', 'Kept post'", f"VALUES ({number}, 'p{number}', 'P'")
        )
        rows.append(link.replace("VALUES (1, 1, 0)", f"VALUES ({number}, 1, 0)"))
    return rows


def _posts_table_sql() -> str:
    """How SQLite declares the posts table (AUTOINCREMENT, constraints)."""
    return db.session.scalar(sa.text("SELECT sql FROM sqlite_master WHERE name = 'posts'"))


def test_post_uid_fills_every_row_and_keeps_triggers(empty_database_url):
    """0014 gives every existing post its own version 4 UUID, NOT NULL and UNIQUE, and keeps
    every trigger on posts and SQLite's AUTOINCREMENT; its downgrade drops the column and
    keeps the rows."""
    app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": empty_database_url})
    with app.app_context():
        flask_migrate.upgrade(revision="0013_session_tokens")
        for statement in _old_posts(50):
            db.session.execute(sa.text(statement))
        triggers = _triggers_on_posts()
        db.session.commit()
        flask_migrate.upgrade(revision="0014_post_uid")
        uids = list(db.session.scalars(sa.select(Post.uid)))
        assert len(uids) == len(set(uids)) == 50
        assert all(uid.version == 4 and uid.variant == uuid.RFC_4122 for uid in uids)
        assert _triggers_on_posts() == triggers
        assert db.session.scalar(sa.text("SELECT published_count FROM topics")) == 50
        columns = {c["name"]: c for c in sa.inspect(db.engine).get_columns("posts")}
        assert columns["uid"]["nullable"] is False
        unique = sa.inspect(db.engine).get_unique_constraints("posts")
        assert {"name": "uq_posts_uid", "column_names": ["uid"]} in [
            {"name": c["name"], "column_names": c["column_names"]} for c in unique
        ]
        if db.engine.dialect.name == "sqlite":
            assert "AUTOINCREMENT" in _posts_table_sql()
        db.session.commit()
        # Another post's uid: the rows above come in no set order, and the first may be post 2's.
        first = db.session.scalar(sa.select(Post.uid).where(Post.id == 1))
        with pytest.raises(sa.exc.IntegrityError):
            db.session.execute(sa.update(Post).where(Post.id == 2).values(uid=first))
        db.session.rollback()
        flask_migrate.downgrade(revision="0013_session_tokens")
        columns = {c["name"] for c in sa.inspect(db.engine).get_columns("posts")}
        assert "uid" not in columns
        assert db.session.scalar(sa.text("SELECT count(*) FROM posts")) == 50
        assert _triggers_on_posts() == triggers
        if db.engine.dialect.name == "sqlite":
            assert "AUTOINCREMENT" in _posts_table_sql()
        db.session.remove()
        db.engine.dispose()


def test_author_profiles_add_bio_link_and_avatar_and_go_back(empty_database_url):
    """0016 gives authors an empty bio, no link and no avatar, keeps every row and trigger,
    clears an avatar whose image is deleted; its downgrade drops the three columns."""
    app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": empty_database_url})
    with app.app_context():
        flask_migrate.upgrade(revision="0013_session_tokens")
        for statement in OLD_ROWS:
            db.session.execute(sa.text(statement))
        db.session.commit()
        flask_migrate.upgrade(revision="0015_image_renditions")
        triggers = _triggers_on_posts()
        db.session.commit()
        flask_migrate.upgrade(revision="0016_author_profiles")
        row = db.session.execute(sa.text("SELECT name, bio, url, avatar_image_id FROM authors"))
        assert tuple(row.one()) == ("Ada Example", "", None, None)
        assert _triggers_on_posts() == triggers
        columns = {c["name"]: c for c in sa.inspect(db.engine).get_columns("authors")}
        assert columns["bio"]["nullable"] is False
        assert columns["url"]["type"].length == 500
        db.session.execute(
            sa.text(
                "INSERT INTO images (id, sha256, content_type, data, width, height, byte_size,"
                " created_at) VALUES (5, :sha, 'image/png', :data, 1, 1, 1,"
                " '2024-01-01 00:00:00.000000')"
            ),
            {"sha": "a" * 64, "data": b"x"},
        )
        db.session.execute(sa.text("UPDATE authors SET avatar_image_id = 5, bio = 'Writes.'"))
        db.session.commit()
        db.session.execute(sa.text("DELETE FROM images"))
        assert db.session.scalar(sa.text("SELECT avatar_image_id FROM authors")) is None
        with pytest.raises(sa.exc.IntegrityError):
            db.session.execute(sa.text("UPDATE authors SET avatar_image_id = 99"))
        db.session.rollback()
        flask_migrate.downgrade(revision="0015_image_renditions")
        columns = {c["name"] for c in sa.inspect(db.engine).get_columns("authors")}
        assert columns == {"id", "name", "slug"}
        assert db.session.scalar(sa.text("SELECT count(*) FROM posts")) == 1
        assert _triggers_on_posts() == triggers
        if db.engine.dialect.name == "sqlite":
            assert "AUTOINCREMENT" in _posts_table_sql()
        db.session.remove()
        db.engine.dispose()


def test_post_seo_fields_add_a_description_and_social_image_and_go_back(empty_database_url):
    """0018 gives posts and revisions an empty meta description and posts no social image,
    keeps every row, trigger and SQLite's AUTOINCREMENT, clears a social image whose image
    is deleted; its downgrade drops the columns and keeps the rows."""
    app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": empty_database_url})
    with app.app_context():
        flask_migrate.upgrade(revision="0013_session_tokens")
        for statement in _old_posts(3):
            db.session.execute(sa.text(statement))
        db.session.commit()
        flask_migrate.upgrade(revision="0017_post_illustration")
        triggers = _triggers_on_posts()
        db.session.commit()
        flask_migrate.upgrade(revision="0018_post_seo_fields")
        rows = db.session.execute(sa.text("SELECT meta_description, social_image_id FROM posts"))
        assert [tuple(row) for row in rows] == [("", None)] * 3
        assert _triggers_on_posts() == triggers
        assert db.session.scalar(sa.text("SELECT published_count FROM topics")) == 3
        if db.engine.dialect.name == "sqlite":
            assert "AUTOINCREMENT" in _posts_table_sql()
        db.session.execute(
            sa.text(
                "INSERT INTO images (id, sha256, content_type, data, width, height, byte_size,"
                " created_at) VALUES (5, :sha, 'image/png', :data, 1, 1, 1,"
                " '2024-01-01 00:00:00.000000')"
            ),
            {"sha": "b" * 64, "data": b"x"},
        )
        db.session.execute(
            sa.text("UPDATE posts SET social_image_id = 5, meta_description = 'Said.'")
        )
        db.session.commit()
        db.session.execute(sa.text("DELETE FROM images"))
        assert db.session.scalar(sa.text("SELECT count(social_image_id) FROM posts")) == 0
        with pytest.raises(sa.exc.IntegrityError):
            db.session.execute(sa.text("UPDATE posts SET social_image_id = 99"))
        db.session.rollback()
        flask_migrate.downgrade(revision="0017_post_illustration")
        columns = {c["name"] for c in sa.inspect(db.engine).get_columns("posts")}
        assert not columns & {"meta_description", "social_image_id"}
        revision_columns = {c["name"] for c in sa.inspect(db.engine).get_columns("post_revisions")}
        assert "meta_description" not in revision_columns
        assert db.session.scalar(sa.text("SELECT count(*) FROM posts")) == 3
        assert _triggers_on_posts() == triggers
        if db.engine.dialect.name == "sqlite":
            assert "AUTOINCREMENT" in _posts_table_sql()


def test_author_listing_index_replaces_the_author_id_index_and_back(empty_database_url):
    """0019 indexes posts by author, status, publish time and id in place of author_id
    alone; its downgrade puts the old index back."""
    app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": empty_database_url})

    def indexes() -> dict[str, list[str]]:
        found = sa.inspect(db.engine).get_indexes("posts")
        return {index["name"]: index["column_names"] for index in found}

    with app.app_context():
        flask_migrate.upgrade(revision="0019_author_listing_index")
        assert indexes()["ix_posts_author_listing"] == [
            "author_id",
            "status",
            "published_at",
            "id",
        ]
        assert "ix_posts_author_id" not in indexes()
        flask_migrate.downgrade(revision="0018_post_seo_fields")
        assert indexes()["ix_posts_author_id"] == ["author_id"]
        assert "ix_posts_author_listing" not in indexes()


def _triggers_on_topics() -> list[str]:
    """The names of the triggers on the topics table (the search index's)."""
    if db.engine.dialect.name == "sqlite":
        query = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'topics'"
    else:
        query = (
            "SELECT tgname FROM pg_trigger WHERE tgrelid = 'topics'::regclass AND NOT tgisinternal"
        )
    return sorted(db.session.scalars(sa.text(query)))


def test_topic_redirects_and_descriptions_come_and_go(empty_database_url):
    """0020 gives topics an empty description and adds topic_redirects without rebuilding
    topics (its triggers stay); its downgrade drops both again."""
    app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": empty_database_url})
    with app.app_context():
        flask_migrate.upgrade(revision="0013_session_tokens")
        for statement in OLD_ROWS:
            db.session.execute(sa.text(statement))
        db.session.commit()
        flask_migrate.upgrade(revision="0019_author_listing_index")
        triggers = _triggers_on_topics()
        assert triggers
        db.session.commit()
        flask_migrate.upgrade(revision="0020_topic_redirects")
        assert db.session.scalar(sa.text("SELECT description FROM topics")) == ""
        assert _triggers_on_topics() == triggers
        db.session.execute(
            sa.text(
                "INSERT INTO topic_redirects (old_slug, topic_id, created_at)"
                " VALUES ('data-bases', 1, '2024-01-01 00:00:00')"
            )
        )
        db.session.commit()
        with pytest.raises(sa.exc.IntegrityError):
            db.session.execute(
                sa.text(
                    "INSERT INTO topic_redirects (old_slug, topic_id, created_at)"
                    " VALUES ('data-bases', 1, '2024-01-01 00:00:00')"
                )
            )
        db.session.rollback()
        flask_migrate.downgrade(revision="0019_author_listing_index")
        columns = {c["name"] for c in sa.inspect(db.engine).get_columns("topics")}
        assert "description" not in columns
        assert "topic_redirects" not in sa.inspect(db.engine).get_table_names()
        assert _triggers_on_topics() == triggers
        assert db.session.scalar(sa.text("SELECT count(*) FROM post_topics")) == 1
        db.session.remove()
        db.engine.dispose()


def test_post_authors_credit_each_post_its_author_and_go_back(empty_database_url):
    """0022 makes each existing post's author its first and only author and gives revisions
    an empty authors list, without rebuilding posts (its triggers stay); the downgrade drops
    both and keeps the posts."""
    app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": empty_database_url})
    with app.app_context():
        flask_migrate.upgrade(revision="0013_session_tokens")
        for statement in _old_posts(3):
            db.session.execute(sa.text(statement))
        db.session.commit()
        flask_migrate.upgrade(revision="0021_revision_illustration")
        db.session.execute(
            sa.text(
                "INSERT INTO post_revisions (post_id, kind, created_at, editor_name, title,"
                " slug, summary, body_markdown, topics, author_name, status)"
                " VALUES (1, 'save', '2024-01-01 00:00:00', '', 'P', 'p1', '', 'Body.', '[]',"
                " 'Ada Example', 'published')"
            )
        )
        triggers = _triggers_on_posts()
        db.session.commit()
        flask_migrate.upgrade(revision="0022_post_authors")
        links = db.session.execute(
            sa.text("SELECT post_id, author_id, position FROM post_authors ORDER BY post_id")
        )
        assert links.all() == [(1, 1, 0), (2, 1, 0), (3, 1, 0)]
        kept = db.session.scalar(sa.text("SELECT authors FROM post_revisions"))
        assert (json.loads(kept) if isinstance(kept, str) else kept) == []
        assert _triggers_on_posts() == triggers
        indexes = {
            index["name"]: index["column_names"]
            for index in sa.inspect(db.engine).get_indexes("post_authors")
        }
        assert indexes == {"ix_post_authors_author": ["author_id", "position", "post_id"]}
        db.session.commit()
        with pytest.raises(sa.exc.IntegrityError):  # an author credited is never deleted
            db.session.execute(sa.text("DELETE FROM authors"))
        db.session.rollback()
        flask_migrate.downgrade(revision="0021_revision_illustration")
        assert "post_authors" not in sa.inspect(db.engine).get_table_names()
        columns = {c["name"] for c in sa.inspect(db.engine).get_columns("post_revisions")}
        assert "authors" not in columns
        assert db.session.scalar(sa.text("SELECT count(*) FROM posts")) == 3
        assert _triggers_on_posts() == triggers
        db.session.remove()
        db.engine.dispose()


def test_editorial_roles_make_every_account_an_admin_and_go_back(empty_database_url):
    """0024 makes every existing account an admin, gives posts no writer and no review
    state, keeps every row, trigger and SQLite's AUTOINCREMENT, refuses an unknown role,
    and adds the events, draft links and account links; its downgrade drops them all."""
    app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": empty_database_url})
    new_tables = {"post_events", "draft_links", "account_links"}
    with app.app_context():
        flask_migrate.upgrade(revision="0013_session_tokens")
        for statement in _old_posts(3):
            db.session.execute(sa.text(statement))
        db.session.commit()
        flask_migrate.upgrade(revision="0023_old_addresses")
        db.session.execute(
            sa.text(
                "INSERT INTO editors (id, email, name, password_hash, active, created_at,"
                " session_token) VALUES (1, 'ada@example.com', 'Ada', 'x', true,"
                " '2024-01-01 00:00:00', 'token')"
            )
        )
        triggers = _triggers_on_posts()
        db.session.commit()
        flask_migrate.upgrade(revision="0024_editorial_roles")
        assert db.session.scalar(sa.text("SELECT role FROM editors")) == "admin"
        rows = db.session.execute(sa.text("SELECT created_by_id, review_state FROM posts"))
        assert [tuple(row) for row in rows] == [(None, "")] * 3
        assert _triggers_on_posts() == triggers
        assert db.session.scalar(sa.text("SELECT published_count FROM topics")) == 3
        assert new_tables <= set(sa.inspect(db.engine).get_table_names())
        if db.engine.dialect.name == "sqlite":
            assert "AUTOINCREMENT" in _posts_table_sql()
        db.session.execute(sa.text("UPDATE posts SET created_by_id = 1"))
        db.session.commit()
        with pytest.raises(sa.exc.IntegrityError):
            db.session.execute(sa.text("UPDATE editors SET role = 'owner'"))
        db.session.rollback()
        with pytest.raises(sa.exc.IntegrityError):
            db.session.execute(sa.text("UPDATE posts SET review_state = 'approved'"))
        db.session.rollback()
        db.session.execute(sa.text("DELETE FROM editors"))
        assert db.session.scalar(sa.text("SELECT count(created_by_id) FROM posts")) == 0
        db.session.commit()
        flask_migrate.downgrade(revision="0023_old_addresses")
        assert not new_tables & set(sa.inspect(db.engine).get_table_names())
        columns = {c["name"] for c in sa.inspect(db.engine).get_columns("posts")}
        assert not columns & {"created_by_id", "review_state"}
        assert "role" not in {c["name"] for c in sa.inspect(db.engine).get_columns("editors")}
        assert db.session.scalar(sa.text("SELECT count(*) FROM posts")) == 3
        assert _triggers_on_posts() == triggers
        if db.engine.dialect.name == "sqlite":
            assert "AUTOINCREMENT" in _posts_table_sql()
        db.session.remove()
        db.engine.dispose()
