"""The store's lookups of topics and authors by name."""

from __future__ import annotations

import pytest

from blog.authoring import store
from blog.extensions import db


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
