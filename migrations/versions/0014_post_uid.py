"""Each post gets a permanent id (posts.uid, a UUID) that export and import carry

Feed entry ids were built on the database id, which an export and an import into another
database change (and the old number then names another post). posts.uid is made once, when
the post is created, and travels in the files' front matter (`id:`).

Existing rows get a random (version 4) UUID each from a SQL expression, in one statement, so
the upgrade costs the same few seconds however many posts there are: PostgreSQL adds the
column with `gen_random_uuid()` as a passing default (one rewrite of the table, one value
per row), SQLite adds it empty, fills it with one UPDATE and then rebuilds posts for NOT NULL
and UNIQUE, setting every trigger aside meanwhile and putting it back as it was (as 0011
does: a rebuild drops them). No trigger on posts watches uid, so the UPDATE fires none.

Revision ID: 0014_post_uid
Revises: 0013_session_tokens
Create Date: 2026-12-01 22:00:00

"""

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op
from alembic.operations import BatchOperations

revision = "0014_post_uid"
down_revision = "0013_session_tokens"
branch_labels = None
depends_on = None

TRIGGERS = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"
# A version 4 UUID as the 32 hex digits SQLAlchemy's Uuid type keeps on SQLite: random
# digits, the version digit 4, and one of 8, 9, a, b where the variant goes. Every call to
# randomblob() and random() is made again for each row.
SQLITE_UUID4 = (
    "lower(hex(randomblob(6)))"
    " || '4' || substr(lower(hex(randomblob(2))), 2)"
    " || substr('89ab', 1 + (random() & 3), 1) || substr(lower(hex(randomblob(2))), 2)"
    " || lower(hex(randomblob(6)))"
)
UNIQUE = "uq_posts_uid"


def _rebuild_posts(change: Callable[[BatchOperations], None]) -> None:
    """Rebuild SQLite's posts table with `change` applied, keeping AUTOINCREMENT (0011) and
    every trigger of the database (those of other tables name posts too)."""
    bind = op.get_bind()
    triggers = bind.exec_driver_sql(TRIGGERS).all()
    for name, _ in triggers:
        bind.exec_driver_sql(f'DROP TRIGGER "{name}"')
    with op.batch_alter_table(
        "posts", recreate="always", table_kwargs={"sqlite_autoincrement": True}
    ) as batch_op:
        change(batch_op)
    for _, statement in triggers:
        bind.exec_driver_sql(statement)


def upgrade():
    if op.get_bind().dialect.name == "sqlite":
        with op.batch_alter_table("posts", recreate="never") as batch_op:
            batch_op.add_column(sa.Column("uid", sa.Uuid(), nullable=True))
        op.execute(f"UPDATE posts SET uid = {SQLITE_UUID4}")

        def tighten(batch_op: BatchOperations) -> None:
            batch_op.alter_column("uid", existing_type=sa.Uuid(), nullable=False)
            batch_op.create_unique_constraint(UNIQUE, ["uid"])

        _rebuild_posts(tighten)
        return
    with op.batch_alter_table("posts") as batch_op:
        batch_op.add_column(
            sa.Column("uid", sa.Uuid(), nullable=False, server_default=sa.text("gen_random_uuid()"))
        )
    with op.batch_alter_table("posts") as batch_op:
        batch_op.alter_column("uid", existing_type=sa.Uuid(), server_default=None)
        batch_op.create_unique_constraint(UNIQUE, ["uid"])


def downgrade():
    if op.get_bind().dialect.name == "sqlite":

        def loosen(batch_op: BatchOperations) -> None:
            batch_op.drop_constraint(UNIQUE, type_="unique")
            batch_op.drop_column("uid")

        _rebuild_posts(loosen)
        return
    with op.batch_alter_table("posts") as batch_op:
        batch_op.drop_constraint(UNIQUE, type_="unique")
        batch_op.drop_column("uid")
