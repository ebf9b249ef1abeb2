"""Who has a post open: editor_presence

One row per editor and post they have open in the editor, upserted by the editor page's
heartbeat: when they opened it (this visit) and when the page last said it was still open.
Kept in the database, not in a server's memory, so every server of a deployment sees the
same editors. Rows go with their account (ON DELETE CASCADE); stale ones are ignored, and
deleted by the next heartbeat on the same post.

Revision ID: 0026_editor_presence
Revises: 0025_revision_pictures
Create Date: 2026-12-06 04:20:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0026_editor_presence"
down_revision = "0025_revision_pictures"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create editor_presence, keyed by post and editor."""
    op.create_table(
        "editor_presence",
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column(
            "editor_id",
            sa.Integer(),
            sa.ForeignKey(
                "editors.id", name="fk_editor_presence_editor_id_editors", ondelete="CASCADE"
            ),
            nullable=False,
        ),
        sa.Column("opened_at", sa.DateTime(), nullable=False),
        sa.Column("seen_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("post_id", "editor_id", name="pk_editor_presence"),
    )


def downgrade() -> None:
    """Drop editor_presence."""
    op.drop_table("editor_presence")
