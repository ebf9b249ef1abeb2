"""Page anchors and kept counts for the listing, so no page costs an OFFSET scan

Revision ID: 0006_listing_anchors
Revises: 0005_site_state_counts
Create Date: 2026-11-29 22:00:00

"""

from datetime import datetime

import sqlalchemy as sa
from alembic import op

revision = "0006_listing_anchors"
down_revision = "0005_site_state_counts"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "listing_anchors",
        sa.Column("topic_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("page", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("published_at", sa.DateTime(), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("topic_id", "page", name=op.f("pk_listing_anchors")),
    )
    with op.batch_alter_table("topics", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("live_count", sa.Integer(), nullable=False, server_default="0")
        )
    with op.batch_alter_table("site_state", schema=None) as batch_op:
        batch_op.add_column(sa.Column("featured_id", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("pick_ids", sa.String(length=200), nullable=False, server_default="")
        )
    # Mark a scheduled time as passed: the first request then rebuilds anchors and counts.
    op.get_bind().execute(
        sa.text("UPDATE site_state SET next_publish_at = :passed").bindparams(
            sa.bindparam("passed", datetime(2000, 1, 1), type_=sa.DateTime)
        )
    )


def downgrade():
    with op.batch_alter_table("site_state", schema=None) as batch_op:
        batch_op.drop_column("pick_ids")
        batch_op.drop_column("featured_id")
    # Not a batch rebuild: topics carries the search index's triggers, which a rebuild drops.
    op.drop_column("topics", "live_count")
    op.drop_table("listing_anchors")
