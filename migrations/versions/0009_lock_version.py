"""Rename posts.revision to posts.lock_version, the editors' optimistic lock

The counter only guards against two editors saving over each other; "revision" is kept for a
post's revisions. A rename in place (ALTER TABLE ... RENAME COLUMN, on SQLite too), never a
batch "recreate" of posts: on SQLite that drops its search triggers (0004) and its
listing-count triggers (0010).

Numbered 0009 as planned, it comes after 0010_plain_listing, the head when it was written.

Revision ID: 0009_lock_version
Revises: 0010_plain_listing
Create Date: 2026-12-01 14:00:00

"""

from alembic import op

revision = "0009_lock_version"
down_revision = "0010_plain_listing"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("posts", schema=None, recreate="never") as batch_op:
        batch_op.alter_column("revision", new_column_name="lock_version")


def downgrade():
    with op.batch_alter_table("posts", schema=None, recreate="never") as batch_op:
        batch_op.alter_column("lock_version", new_column_name="revision")
