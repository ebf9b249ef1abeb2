"""The reader path's direct reads (blog/hotreads.py): prepared once, right for every value."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from blog import hotreads
from blog.extensions import db
from tests.conftest import DATABASE

postgresql_only = pytest.mark.skipif(
    DATABASE != "postgresql", reason="statements are prepared by name on PostgreSQL only"
)

# Built once, like the app's own: a Prepared is kept per statement object.
NUMBERS = sa.select(
    sa.bindparam("small", type_=sa.Integer), sa.bindparam("big", type_=sa.BigInteger)
)
PERCENT = sa.select(
    sa.literal_column("'100%'", sa.String), sa.bindparam("word", type_=sa.String), sa.text("1")
)
NUMBER = sa.select(sa.cast(sa.bindparam("text", type_=sa.String), sa.Integer))


def test_values_of_every_size_read_right_each_time(app):
    """The same statement with small and large values (psycopg would send these as int2,
    int4 and int8), in either order."""
    reads = hotreads.reads(app)
    for small, big in [(1, 2), (70_000, 2**40), (3, 4), (-(2**31), 2**62)]:
        assert [list(row) for row in reads.fetch(NUMBERS, {"small": small, "big": big})] == [
            [small, big]
        ]


def test_percent_signs_in_a_statement_survive(app):
    reads = hotreads.reads(app)
    assert [list(row) for row in reads.fetch(PERCENT, {"word": "50%"})] == [["100%", "50%", 1]]


@postgresql_only
def test_each_statement_is_prepared_once_per_connection(app):
    reads = hotreads.reads(app)
    for small in range(5):
        reads.fetch(NUMBERS, {"small": small, "big": small})
    prepared = reads.prepared[NUMBERS]
    _, connection = reads.idle[-1]
    assert prepared.name in connection.info[hotreads.PREPARED_HERE].names
    with connection.dbapi_connection.cursor() as cursor:
        cursor.execute("SELECT name, statement FROM pg_prepared_statements")
        on_server = dict(cursor.fetchall())
    assert on_server[prepared.name.decode()] == prepared.numbered.decode()


@postgresql_only
def test_a_failing_read_raises_the_database_error_and_drops_its_connection(app):
    reads = hotreads.reads(app)
    assert [list(row) for row in reads.fetch(NUMBER, {"text": "12"})] == [[12]]
    kept = len(reads.idle)
    with pytest.raises(sa.exc.DataError, match="invalid input syntax for type integer"):
        reads.fetch(NUMBER, {"text": "twelve"})
    assert len(reads.idle) == kept - 1  # the failed one was closed, not kept
    assert [list(row) for row in reads.fetch(NUMBER, {"text": "13"})] == [[13]]


def test_reads_match_the_orm_session(app, posts):
    """A direct read returns what the same statement returns through SQLAlchemy."""
    posts.create(3)
    statement = sa.select(sa.literal_column("id"), sa.literal_column("slug")).select_from(
        sa.table("posts")
    )
    with app.app_context():
        expected = [list(row) for row in db.session.execute(statement)]
    assert [list(row) for row in hotreads.reads(app).fetch(statement)] == expected
    assert expected
