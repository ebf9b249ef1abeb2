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


@pytest.mark.parametrize("lookup", [store.topic_named, store.author_named])
def test_names_without_letters_still_get_a_slug(app, lookup):
    """A name made only of symbols gets a stable slug instead of an empty one."""
    with app.app_context():
        row = lookup("!!!")
        other = lookup("???")
        db.session.commit()
        assert row.slug and other.slug and row.slug != other.slug
        assert lookup("!!!").id == row.id


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
