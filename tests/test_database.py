"""How requests use the database: readers and writers start their transactions differently."""

from __future__ import annotations

import sqlalchemy as sa

from blog.extensions import db
from tests.conftest import count_queries


def _listings(app, client, times: int) -> list[str]:
    """Render the listing `times` times with the page cache off; the SQL they ran."""
    app.config["PAGE_CACHE"] = False
    try:
        with count_queries(app, transaction_control=True) as statements:
            for _ in range(times):
                assert client.get("/").status_code == 200
    finally:
        app.config["PAGE_CACHE"] = True
    return statements


def test_a_reader_reads_as_its_store_needs(app, client, posts):
    """SQLite readers keep their transaction: it holds one snapshot for the whole page.
    PostgreSQL readers run outside one (READ COMMITTED gives each statement its own
    snapshot anyway), so no ROLLBACK at a request's end makes the driver forget what it
    prepared, and PostgreSQL runs them on one generic plan each: the listing's statements
    are planned once, not on every request."""
    posts.create(3)
    with app.app_context():
        dialect = db.engine.dialect.name
        # An empty pool: the pages then run on one connection, the one asked below (what
        # earlier tests left in the pool would otherwise decide which connection that is).
        db.engine.dispose()
    statements = _listings(app, client, 8)
    if dialect == "sqlite":
        assert statements[0] == "BEGIN" and statements.count("BEGIN") == 8
        return
    with app.test_request_context("/"):
        app.preprocess_request()  # a reader's request, on the connection the pages used
        prepared = db.session.execute(
            sa.text(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                " WHERE statement LIKE '%page_ids%' OR statement LIKE '%FROM topics%'"
            )
        ).all()
        db.session.remove()
    assert len(prepared) >= 2
    # Executions from the sixth on run prepared: on the generic plan, never planned again.
    assert all(generic > 0 and custom == 0 for generic, custom in prepared), prepared


def test_the_pool_gets_back_a_connection_that_writes_in_transactions(app, client, posts):
    """The connection a reader used goes back to the pool with transactions restored, so
    a writer's statements still commit or roll back together."""
    posts.create(1)
    _listings(app, client, 1)
    with app.app_context(), db.engine.connect() as connection:
        assert connection.get_isolation_level() != "AUTOCOMMIT"
