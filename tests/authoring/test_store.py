"""The store: lookups of topics and authors by name, and a post's state."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa

from blog.authoring import store
from blog.extensions import db
from blog.models import DRAFT, PUBLISHED, Post, live, scheduled, utcnow


@pytest.mark.parametrize("lookup", [store.topic_named, store.author_named])
def test_names_differing_only_in_case_are_one_row(app, lookup):
    """ "Ada Example" and "ada example" share a slug, so they are the same row, not a crash."""
    with app.app_context():
        first = lookup("Ada Example")
        db.session.commit()
        assert lookup("ada example").id == first.id
        assert lookup("  Ada Example ").id == first.id
        assert lookup("ADA   example").id == first.id


@pytest.mark.parametrize("lookup", [store.topic_named, store.author_named])
def test_names_without_letters_still_get_a_slug(app, lookup):
    """A name made only of symbols gets a stable slug instead of an empty one."""
    with app.app_context():
        row = lookup("!!!")
        other = lookup("???")
        db.session.commit()
        assert row.slug and other.slug and row.slug != other.slug
        assert lookup("!!!").id == row.id


@pytest.mark.parametrize("lookup", [store.topics_named, store.authors_named])
def test_one_lookup_makes_one_row_per_slug(app, lookup):
    """New names that share a slug, given together, make one row; repeats map to it too."""
    with app.app_context():
        found = lookup(["Rust", "rust", " RUST ", "Go"])
        db.session.commit()
        assert len({row.id for row in found.values()}) == 2
        assert found["rust"] is found["Rust"] is found[" RUST "]
        assert found["Rust"].name == "Rust" and found["Go"].slug == "go"


def test_new_topics_go_to_the_end_of_the_filter_in_the_order_named(app):
    """Each new topic takes the next position after the last one."""
    with app.app_context():
        first = store.topic_named("First")
        db.session.commit()
        found = store.topics_named(["Second", "First", "Third"])
        db.session.commit()
        positions = [found[name].position for name in ("First", "Second", "Third")]
        assert positions == [first.position, first.position + 1, first.position + 2]


def test_a_fixed_slug_must_be_the_one_the_name_makes(app):
    """Demo data and benchmarks name their slugs; a slug the rule would not make is refused."""
    with app.app_context():
        assert store.topic_named("Developer tools", "developer-tools").slug == "developer-tools"
        with pytest.raises(ValueError, match="developer-tools"):
            store.topic_named("Developer tools", "tools")


@pytest.mark.parametrize(
    ("status", "hours", "state"),
    [
        (DRAFT, None, DRAFT),
        (DRAFT, -1, DRAFT),
        (PUBLISHED, None, DRAFT),
        (PUBLISHED, -1, PUBLISHED),
        (PUBLISHED, 0, PUBLISHED),
        (PUBLISHED, 1, store.SCHEDULED),
    ],
)
def test_state_of_a_post_agrees_with_the_live_and_scheduled_rules(app, status, hours, state):
    """The editor's label for one post says what the readers' queries do with it."""
    now = utcnow()
    with app.app_context():
        post = store.new_post(
            title="Any post",
            body="Body.",
            author=store.author_named("Ada Example"),
            topics=[store.topic_named("Databases")],
        )
        post.status = status
        post.published_at = None if hours is None else now + timedelta(hours=hours)
        db.session.commit()
        found = sa.select(live(now), scheduled(now)).where(Post.id == post.id)
        is_live, is_scheduled = db.session.execute(found).one()
        assert store.state_of(post, now) == state
        assert bool(is_live) == (state == PUBLISHED)
        assert bool(is_scheduled) == (state == store.SCHEDULED)
