"""Revisions keep the drawing's spec too: post_revisions.illustration

A revision then holds the post's `illustration:` spec as it was, and restoring it brings the
spec back, as it does the meta description. Empty for revisions made before: restoring one
of those leaves the post with the drawing its words choose. A column added with a constant
default: no rebuild on either database.

Revision ID: 0021_revision_illustration
Revises: 0020_topic_redirects
Create Date: 2026-12-02 09:30:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0021_revision_illustration"
down_revision = "0020_topic_redirects"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add post_revisions.illustration, empty for every revision."""
    op.add_column(
        "post_revisions",
        sa.Column("illustration", sa.String(300), nullable=False, server_default=""),
    )


def downgrade() -> None:
    """Drop post_revisions.illustration (a plain DROP COLUMN, as 0017 does)."""
    op.drop_column("post_revisions", "illustration")
