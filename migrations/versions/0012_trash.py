"""Deleted posts go to a trash from which they can be restored

trashed_posts keeps, per deleted post, its id, when and by whom it was deleted, its title
and a JSON snapshot of everything needed to put it back. No foreign key ties it to posts:
the post's row is deleted, and its id is never handed out again (0011).

Revision ID: 0012_trash
Revises: 0011_post_identity_revisions
Create Date: 2026-12-01 17:40:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0012_trash"
down_revision = "0011_post_identity_revisions"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "trashed_posts",
        sa.Column("post_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("deleted_at", sa.DateTime(), nullable=False),
        sa.Column("deleted_by", sa.String(length=120), nullable=False),
        sa.Column("title", sa.String(length=300), nullable=False),
        sa.Column("snapshot", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("post_id", name=op.f("pk_trashed_posts")),
    )
    op.create_index(
        op.f("ix_trashed_posts_deleted_at"), "trashed_posts", ["deleted_at"], unique=False
    )


def downgrade():
    op.drop_index(op.f("ix_trashed_posts_deleted_at"), table_name="trashed_posts")
    op.drop_table("trashed_posts")
