"""Draft changes of a published post: pending_changes

One row per post at most: the editor's form as sent by "Save draft" (or an autosave, or a
restore) on a published post, kept apart from the post's own columns so readers, feeds,
search and the page cache keep the live text until "Update". Rows go with their post (ON
DELETE CASCADE); the editor who saved them is kept by id (SET NULL when the account goes)
and by name.

Revision ID: 0027_pending_changes
Revises: 0026_editor_presence
Create Date: 2026-12-06 05:00:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0027_pending_changes"
down_revision = "0026_editor_presence"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create pending_changes, keyed by post."""
    op.create_table(
        "pending_changes",
        sa.Column(
            "post_id",
            sa.Integer(),
            sa.ForeignKey("posts.id", name="fk_pending_changes_post_id_posts", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("fields", sa.JSON(), nullable=False),
        sa.Column("based_on", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column(
            "editor_id",
            sa.Integer(),
            sa.ForeignKey(
                "editors.id", name="fk_pending_changes_editor_id_editors", ondelete="SET NULL"
            ),
            nullable=True,
        ),
        sa.Column("editor_name", sa.String(length=120), nullable=False),
        sa.Column("saved_at", sa.DateTime(), nullable=False),
        sa.Column("autosaved", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("post_id", name="pk_pending_changes"),
    )


def downgrade() -> None:
    """Drop pending_changes."""
    op.drop_table("pending_changes")
